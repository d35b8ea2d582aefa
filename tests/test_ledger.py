"""The gap ledger: t_bound, then one signed step a cause in the registry's order, summing
exactly to t_model, for every shipped spec on every shipped machine."""

from __future__ import annotations

import pytest
import sympy
from test_three_times import MACHINES, SPECS, _free, documented_sizes, load

from kernelcost.answers.ledger import Cause, ledger
from kernelcost.answers.model import verdict
from kernelcost.base.errors import KcostError
from kernelcost.cli import main
from kernelcost.hardware.machinefile import load_machine


@pytest.mark.parametrize("path", SPECS, ids=lambda path: path.stem)
def test_the_steps_sum_exactly_to_t_model(path):
    spec = load(path)  # test_three_times' reading, shared within the process
    cost = spec.cost()
    sizes = documented_sizes(path.stem, _free(cost))[0]
    for machine in MACHINES:
        try:
            result = verdict(cost, machine, values=sizes)
        except KcostError:  # a machine without a figure the spec needs: no verdict at all
            continue
        found = ledger(result)
        if found is None:
            assert result.t_bound is None or result.t_model is None
            continue
        assert found.t_bound == result.t_bound and found.t_model == result.t_model
        assert found.total == result.t_model, (path.stem, machine.id)
        assert all(step.delta_s != 0 for step in found.steps)
        causes = [step.cause for step in found.steps]
        assert causes == sorted(causes, key=list(Cause).index)  # clock, traffic, effects


def test_symbolic_steps_telescope_to_t_model():
    cost = load(SPECS[0].parent / "gemm_hopper.kcost").cost()
    found = ledger(verdict(cost, load_machine("h100")))
    assert found is not None and found.total == found.t_model
    assert [(step.cause, step.effect) for step in found.steps] == [
        (Cause.CLOCK, None), (Cause.EFFECT, "achievable")]  # a fraction holds at any size


def test_gemm_hopper_on_h200_steps_from_the_maximum_clock_to_the_data_sheet():
    """At 8192^3 the bf16 tensor peak binds: t_bound takes 4096 FLOP per clock per SM x 132
    SMs x 1.98 GHz, t_min the data sheet's 990e12 FLOP/s (h200.toml), then the 80.25 % of
    it a searched matmul sustains (h200.toml, [[achievable]] tensor), then each block's
    epilogue: 16 of the 2048 blocks on the busiest SM store their 128 x 256 bf16 tile of C at
    1/132 of the global bandwidth a copy sustains: three steps."""
    cost = load(SPECS[0].parent / "gemm_hopper.kcost").cost()
    h200 = load_machine("h200")
    result = verdict(cost, h200, values={"M": 8192, "N": 8192, "K": 8192})
    found = ledger(result)
    assert found is not None and [(step.cause, step.effect) for step in found.steps] == [
        (Cause.CLOCK, None), (Cause.EFFECT, "achievable"), (Cause.EFFECT, "fill_drain")]
    assert found.steps[0].delta_s == result.t_min - result.t_bound > 0
    assert found.steps[1].delta_s == result.t_min / sympy.Rational("0.8025") - result.t_min
    [copy] = [d.factor for d in result.derates if d.key == "global"]
    rate = sympy.nsimplify(h200.bandwidth("global")) * copy
    assert found.steps[2].delta_s == 16 * 128 * 256 * 2 * 132 / rate
    assert found.total == result.t_model


def test_analyze_prints_the_ledger(capsys):
    path = SPECS[0].parent / "gemm_hopper.kcost"
    assert main(["analyze", str(path), "--set", "M=8192,N=8192,K=8192", "--machine",
                 "h200"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("ledger: t_bound 1.06 ms; clock +86.2 µs; achievable +282 µs; fill drain "
            "+34.5 µs = t_model 1.46 ms." in out)


def test_a_derated_kernel_lists_its_effects_in_the_registrys_order():
    """The naive transpose on an H100 at n = 8192: the copy's achievable bandwidth, latency
    (Little's law), then sectors (its column writes move whole sectors), each a step of its
    own, in the registry's order."""
    cost = load(SPECS[0].parent / "transpose_naive.kcost").cost()
    result = verdict(cost, load_machine("h100"), values={"n": 8192})
    found = ledger(result)
    assert found is not None and found.total == result.t_model
    assert [(step.cause, step.effect) for step in found.steps] == [
        (Cause.EFFECT, "achievable"), (Cause.EFFECT, "latency"), (Cause.EFFECT, "sectors")]
    assert all(step.delta_s > 0 for step in found.steps)


def test_validate_lists_each_rows_ledger(capsys):
    """The project's H200 runs: every row with both times has its ledger, in words and in
    the JSON, its steps summing to t_model."""
    import json

    results = SPECS[0].parent.parent / "validate" / "results" / "h200-2026-12-04.csv"
    main(["validate", str(results), "--machine", "h200", "--json"])
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows
    for row in rows:
        if row["t_bound"] is None or row["t_model"] is None:
            assert row["ledger"] is None
            continue
        steps = row["ledger"]["steps"]
        total = row["ledger"]["t_bound"] + sum(step["delta_s"] for step in steps)
        assert total == pytest.approx(row["t_model"], rel=1e-12)
    main(["validate", str(results), "--machine", "h200"])
    out = capsys.readouterr().out
    assert out.count(": ledger: t_bound ") == sum(row["ledger"] is not None for row in rows)
