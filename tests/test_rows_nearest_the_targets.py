"""Figures of docs/validation.md, "The rows nearest the targets", each computed again from
the corpus and the specs: a lone FlashAttention-2 block on its SM against two an SM (the
H200 runs at S = 16384), and the overlap step of the decode-attention ledgers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kernelcost.analysis.api import loads
from kernelcost.answers.ledger import Cause, Ledger
from kernelcost.answers.model import verdict
from kernelcost.answers.published import calibration_rows, read_corpus
from kernelcost.answers.published_report import Result, compare_rows
from kernelcost.base.kinds import EffectCause
from kernelcost.hardware.machinefile import load_machine

SPECS = Path(__file__).resolve().parent.parent / "specs"
RUN = "project-h200-2026-12-04b"


def _results(*keys: tuple[str, int]) -> dict[tuple[str, int], Result]:
    rows = [row for row in read_corpus() if (row.source, row.line) in keys]
    assert len(rows) == len(keys)
    return {(result.row.source, result.row.line): result for result in compare_rows(rows)}


def _steps(found: Ledger) -> dict[str, float]:
    """Each step's delta in seconds, named by its effect (or its cause)."""
    return {str(step.effect) if step.cause is Cause.EFFECT else step.cause.value:
            float(step.delta_s) for step in found.steps}


def test_two_blocks_an_sm_take_less_than_twice_a_lone_blocks_time():
    """:43 runs 128 blocks, one an SM, and :44 1024 blocks, two an SM in four rounds, each
    block over the same 256 key tiles: net of the cold start a round of two took 1.67 times
    a lone block's 471 us; t_model, whose rates do not depend on the blocks an SM, 2.00
    (365 and 730 us)."""
    found = _results((RUN, 43), (RUN, 44))
    lone, pair = found[(RUN, 43)], found[(RUN, 44)]
    cost = loads((SPECS / "flash_attention.kcost").read_text()).cost("spec")
    h200 = load_machine("h200")
    grids = {}
    for result in (lone, pair):
        sizes = {name: int(value) for name, value in result.row.sizes.items()}
        grids[result.row.line] = verdict(cost, h200, values=sizes).grid.occupancy
    # Br = 128 rows a block: S / 128 x H blocks; 255 registers x 128 threads: two an SM
    assert (grids[43].blocks, grids[44].blocks) == (16384 // 128, 16384 // 128 * 8)
    assert grids[43].resident == grids[44].resident == 2
    assert (grids[43].busiest_sm_blocks, grids[44].busiest_sm_blocks) == (1, 8)
    rounds = math.ceil(1024 / (132 * 2))
    assert (grids[43].waves, grids[44].waves) == (1, rounds) == (1, 4)
    assert lone.cold_start_s == pair.cold_start_s
    cold = lone.cold_start_s
    lone_s = lone.row.time_s - cold
    round_s = (pair.row.time_s - cold) / rounds
    assert round(lone_s * 1e6) == 471 and round(round_s * 1e6) == 787
    assert round(round_s / lone_s, 2) == 1.67
    assert lone.t_model is not None and pair.t_model is not None
    assert round(lone.t_model * 1e6) == 365 and round(pair.t_model / rounds * 1e6) == 730
    assert round(pair.t_model / rounds / lone.t_model, 2) == 2.00


def test_the_cudnn_rows_overlap_step_and_what_two_stages_would_leave():
    """b = 32, h = 64, L = 8192 on the H200: t_bound 224 us (global), achievable +44.1,
    overlap +41.0 = 309 us; without the overlap step (a kernel whose loads do not wait on
    global memory) 268 us, +6.3 % with the cold start against 258 us."""
    result = _results(("project-h200-2026-12-04", 19))[("project-h200-2026-12-04", 19)]
    found = result.comparison.ledger
    assert found is not None and result.cold_start_s is not None
    steps = _steps(found)
    assert list(steps) == ["achievable", "overlap"]
    assert round(float(found.t_bound) * 1e6) == 224
    assert round(steps["achievable"] * 1e6, 1) == 44.1
    assert round(steps["overlap"] * 1e6, 1) == 41.0
    assert round(float(found.t_model) * 1e6) == 309
    unwaited = float(found.t_bound) + steps["achievable"]
    assert round(unwaited * 1e6) == 268
    error = (unwaited + result.cold_start_s - result.row.time_s) / result.row.time_s
    assert round(100 * error, 1) == 6.3


@pytest.mark.parametrize("line, overlap_us, chain_us", [(3, 1.88, 4.37), (6, 1.87, 7.56)])
def test_the_calibration_decode_rows_pay_a_small_overlap_then_their_chain(line, overlap_us,
                                                                         chain_us):
    """ort-pr21414 at L = 32 and 256 (FlashAttention-2's own split kernel): the overlap step
    is 1.88 and 1.87 us, the chain of their one- and two-step key loops 4.37 and 7.56 us, and
    the rows 2.5 and 3.1 us over t_model and the cold start (6.8 and 10.6 us without the
    chain)."""
    result = _results(("ort-pr21414", line))[("ort-pr21414", line)]
    found = result.comparison.ledger
    assert found is not None and result.t_model is not None
    assert result.cold_start_s is not None
    steps = _steps(found)
    assert round(steps[str(EffectCause("overlap"))] * 1e6, 2) == overlap_us
    assert round(steps[str(EffectCause("chain"))] * 1e6, 2) == chain_us
    missing = result.row.time_s - result.t_model - result.cold_start_s
    assert round(missing * 1e6, 1) == {3: 2.5, 6: 3.1}[line]
    assert round((missing + steps[str(EffectCause("chain"))]) * 1e6, 1) == {3: 6.8, 6: 10.6}[line]


def test_every_flashattention2_calibration_row_runs_two_blocks_an_sm():
    """No calibration row of FlashAttention-2 (fa3-paper-fwd-figure's prefill, ort-pr21414's
    decode) has a lone block on its SM: two resident, 4 to 32 on the busiest SM."""
    busiest = set()
    for row in calibration_rows():
        if "FlashAttention-2" not in row.implementation:
            continue
        cost = loads((SPECS.parent / row.spec).read_text()).cost("spec")
        sizes = {name: int(value) for name, value in row.sizes.items()}
        occupancy = verdict(cost, load_machine(row.machine.value), values=sizes).grid.occupancy
        assert occupancy.resident == 2
        busiest.add(int(occupancy.busiest_sm_blocks))
    assert (min(busiest), max(busiest)) == (4, 32)


def test_the_harness_fill_outlasts_its_queueing():
    """run_h200.py's flush writes 256 MiB before each timed call: at least 56 us at the
    H200's 4.8 TB/s, behind which the host queues the start event and the call."""
    import importlib.util

    harness_path = SPECS.parent / "validate" / "run_h200.py"
    loader = importlib.util.spec_from_file_location("run_h200", harness_path)
    assert loader is not None and loader.loader is not None
    harness = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(harness)
    peak = load_machine("h200").bandwidth("global")
    assert peak is not None
    assert round(harness.FLUSH_BYTES / peak * 1e6) == 56
