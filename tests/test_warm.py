"""Caches across kernels (issue 13, item 4): tensors a previous kernel left in L2 are read from
L2, not HBM, where L2 holds them. t_bound takes from L2 what L2 can hold at all (a lower bound
under the stated state); t_model only what fits usable L2. Figures checked by hand from
h100.toml: HBM 3.35 TB/s, L2 10 TB/s, L2 52 428 800 B (50 MiB), usable fraction 0.7."""

from __future__ import annotations

import dataclasses
import json

import pytest
import sympy
from conftest import SPECS

from kernelcost import cli
from kernelcost.analysis.api import analyze, load
from kernelcost.answers.answer import answers
from kernelcost.answers.ledger import ledger
from kernelcost.answers.model import verdict
from kernelcost.base.errors import KcostError
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.model_text import model_rule_text, warm_l2_text
from kernelcost.present.report import answer_lines, answers_json
from kernelcost.present.roofs import roof_name

H100 = dataclasses.replace(load_machine("h100"), achievable=())  # the data sheet's roofs:
# what a warm L2 saves, against the figures the chapter gives (test_achievable: the rest)
HBM, L2 = sympy.Integer(335 * 10**10), sympy.Integer(10**13)
L2_B, USABLE_B = 52_428_800, 36_700_160  # 50 MiB; 0.7 x 50 MiB = 35 MiB
R = 4096  # tokens: the rows of the GEMM output an RMSNorm reads next


def rmsnorm(n: int, warm=()):
    return verdict(load(SPECS / "rmsnorm.kcost").cost("spec"), H100,
                   values={"R": R, "n": n}, warm=warm)


def test_the_machine_figures_the_hand_computations_use():
    assert (H100.bandwidth("global"), H100.bandwidth("l2")) == (3.35e12, 1e13)
    assert H100.capacity("l2") == L2_B == 50 * 2**20
    assert H100.execution.usable_l2_fraction == 0.7 and int(0.7 * L2_B) == USABLE_B


def test_rmsnorm_after_a_gemm_that_left_its_output_in_l2():
    # x = the 4096 x 4096 bf16 output of a GEMM: 32 MiB, under the usable 35 MiB
    x_B = R * 4096 * 2
    assert x_B == 32 * 2**20 and x_B <= USABLE_B
    cold, warm = rmsnorm(4096), rmsnorm(4096, ("x",))
    # cold: compulsory HBM traffic x + w + y = 2n(2R + 1) bytes; HBM binds
    hbm_B = 2 * 4096 * (2 * R + 1)
    assert hbm_B == 67_117_056
    assert cold.t_bound == hbm_B / HBM and roof_name(cold.bound) == "global bandwidth"
    # warm: x's 32 MiB come from L2; HBM sees w and y only, 33 562 624 B (10.02 us), and the
    # L2 term, 6Rn bytes (x read twice, w per row, y), binds: 100 663 296 B / 10 TB/s
    assert warm.level("global").traffic_B == hbm_B - x_B == 33_562_624
    assert warm.t_bound == 6 * R * 4096 / L2 and roof_name(warm.bound) == "l2 bandwidth"
    assert round(float(warm.t_bound) * 1e6, 2) == 10.07  # us, against 20.03 cold
    assert round(float(cold.t_bound) * 1e6, 2) == 20.03
    # t_model: the wave estimate less x's bytes; L2 binds there too, with the warps' FMA
    # work overlapping it in part (under 1 %)
    assert warm.t_bound <= warm.t_model <= warm.t_bound * sympy.Rational(101, 100)
    assert [step.effect for step in ledger(warm).steps] in ([], ["overlap"])
    assert "less the warm L2 reads of x" in model_rule_text(warm.grid.global_count)
    state = warm.warm_l2
    assert (state.read_B, state.fits, state.bound_B, state.model_B) == (x_B, True, x_B, x_B)
    assert ("x (32 MiB) left in L2 by the previous kernel fits the usable 35 MiB of NVIDIA "
            "H100 SXM5 80 GB's 50 MiB L2: its reads are served at the L2 bandwidth (10 TB/s) "
            "instead of HBM's (3.35 TB/s)") in warm_l2_text(state)


def test_silu_mul_after_the_gate_and_up_gemm():
    # x = [T, 2, n] bf16, the fused gate and up projection: T = 4096, n = 2048 -> 32 MiB
    spec = load(SPECS / "silu_mul.kcost").cost("spec")
    values = {"T": 4096, "n": 2048}
    cold = verdict(spec, H100, values=values)
    warm = verdict(spec, H100, values=values, warm=("x",))
    x_B, y_B = 4096 * 2 * 2048 * 2, 4096 * 2048 * 2
    assert x_B == 32 * 2**20
    assert cold.t_bound == (x_B + y_B) / HBM  # 6Tn bytes: 15.02 us
    # warm: HBM writes y (16 MiB: 5.01 us); L2 carries x and y, 48 MiB: 5.03 us
    assert warm.level("global").traffic_B == y_B
    assert warm.t_bound == (x_B + y_B) / L2 and roof_name(warm.bound) == "l2 bandwidth"
    assert round(float(cold.t_bound / warm.t_bound), 3) == 2.985  # = 10 / 3.35


def test_a_warm_tensor_over_the_usable_l2_counts_in_t_bound_only():
    # n = 5120: x = 40 MiB, over the usable 35 MiB, under the 50 MiB: t_bound still takes
    # all of it from L2 (a lower bound under the stated state); t_model reads it from HBM
    x_B = R * 5120 * 2
    assert USABLE_B < x_B <= L2_B
    cold, warm = rmsnorm(5120), rmsnorm(5120, ("x",))
    assert warm.warm_l2.fits is False
    assert warm.level("global").traffic_B == 2 * 5120 * (2 * R + 1) - x_B
    assert warm.t_bound == 6 * R * 5120 / L2  # 12.58 us, bound by L2
    assert warm.t_model == cold.t_model  # the wave estimate, x from HBM: 25.09 us
    assert warm.t_bound <= warm.t_model
    assert "does not fit the usable 35 MiB" in warm_l2_text(warm.warm_l2)
    assert "t_bound takes the whole of it from L2" in warm_l2_text(warm.warm_l2)


def test_a_warm_tensor_larger_than_l2_saves_at_most_the_capacity_in_t_bound():
    # n = 8192: x = 64 MiB; at most 50 MiB of it can be in L2
    cold, warm = rmsnorm(8192), rmsnorm(8192, ("x",))
    hbm_B = 2 * 8192 * (2 * R + 1) - L2_B
    assert warm.level("global").traffic_B == hbm_B == 81_805_312
    assert warm.t_bound == hbm_B / HBM and roof_name(warm.bound) == "global bandwidth"  # 24.42 us
    assert warm.t_bound < cold.t_bound and warm.t_model == cold.t_model
    assert "t_bound takes 50 MiB of it (all the L2 holds)" in warm_l2_text(warm.warm_l2)


def test_a_nest_without_a_grid_gains_an_l2_term():
    # vector_add (a nest, no grid) with a warm: 16 MiB served by L2 become its L2 traffic
    spec = load(SPECS / "vector_add.kcost").cost("spec")
    n = 2**22
    result = verdict(spec, H100, values={"n": n}, warm=("a",))
    assert result.level("global").traffic_B == 12 * n - 4 * n  # b read, c written
    assert result.level("l2").traffic_B == 4 * n
    assert result.t_bound == result.t_model == 8 * n / HBM
    # n = 2^24: a = 64 MiB > 50 MiB: t_bound takes 50 MiB from L2, t_model none
    n = 2**24
    result = verdict(spec, H100, values={"n": n}, warm=("a",))
    assert result.t_bound == (12 * n - L2_B) / HBM
    assert result.t_model == 12 * n / HBM  # the cold estimate
    assert result.t_bound < result.t_model


def test_warm_l2_in_the_terminal_json_and_markdown(capsys):
    analysis = analyze(load(SPECS / "rmsnorm.kcost"), {"R": R, "n": 4096})
    [answer] = answers(analysis, ["h100"], None, warm_l2=("x",))
    lines = answer_lines([answer])
    [line] = [line for line in lines if line.startswith("  warm L2: ")]
    assert "served at the L2 bandwidth (10 TB/s) instead of HBM's (3.35 TB/s)" in line
    [row] = answers_json([answer])["answers"]
    assert row["warm_l2"]["tensors"] == ["x"] and row["warm_l2"]["fits"] is True
    assert row["warm_l2"]["read_B"] == row["warm_l2"]["t_model_from_l2_B"] == 33_554_432
    assert row["warm_l2"]["usable_B"] == USABLE_B and row["warm_l2"]["capacity_B"] == L2_B
    argv = ["analyze", str(SPECS / "rmsnorm.kcost"), "--set", f"R={R},n=4096", "--machine",
            "h100", "--warm-l2", "x", "--no-verify"]
    assert cli.main([*argv, "--markdown"]) == 0
    assert "- warm L2: x (32 MiB) left in L2" in capsys.readouterr().out
    assert cli.main([*argv, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["answers"][0]["warm_l2"]["t_bound_from_l2_B"] == 33_554_432
    assert document["answers"][0]["t_min"] == pytest.approx(6 * R * 4096 / 1e13)


@pytest.mark.parametrize("option, message", [
    ("y", "`rmsnorm` never reads `y`"),
    ("xx", "did you mean `x`?"),
    (",", "--warm-l2 names no tensor"),
])
def test_bad_warm_tensors_are_one_clear_error(capsys, option, message):
    argv = ["analyze", str(SPECS / "rmsnorm.kcost"), "--set", "R=64,n=64", "--machine",
            "h100", "--no-verify", "--warm-l2", option]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_warm_l2_needs_a_machine_with_an_l2():
    with pytest.raises(KcostError, match="L2 bandwidth of rtx4090"):
        verdict(load(SPECS / "rmsnorm.kcost").cost("spec"), load_machine("rtx4090"),
                values={"R": R, "n": 4096}, warm=("x",))
    argv = ["analyze", str(SPECS / "rmsnorm.kcost"), "--no-verify", "--warm-l2", "x"]
    assert cli.main(argv) == 2
