"""Exponentials on the FMA units (issue 13, item 5): FlashAttention-4 computes a fraction of
its exponentials as a polynomial on the FP32 vector units. The moved work counts in the vector
class (FP32), never the tensor class; t_bound stays a bound of the kernel as computed."""

from __future__ import annotations

import pytest
import sympy

from kernelcost.analysis.api import analyze
from kernelcost.answers.answer import answers
from kernelcost.base.errors import KcostError
from kernelcost.cli import main
from kernelcost.gpu.polyexp import ExpOnFma, exp_on_fma, parse_exp_on_fma
from kernelcost.present.roofs import roof_name

HALF = sympy.Rational(1, 2)
# B200's tcgen05 MMA is issued once for the block's 128 query rows: K and V leave shared
# memory once per block, which WM = Br = 128 says (the spec's default WM = 32 is FA2's warp
# tiling, where every warp rereads them and shared bandwidth binds).
SIZES = {"S": 8192, "H": 16, "WM": 128}


def b200(d: int, option: ExpOnFma | None = None):
    analysis = analyze("specs/flash_attention.kcost", {**SIZES, "d": d})
    [answer] = answers(analysis, ["b200"], None, exp_on_fma=option)
    return analysis.cost, answer.verdict


def seconds(result, key: str) -> sympy.Expr:
    [term] = [t for t in result.terms if t.key == key]
    return term.seconds


def test_parse():
    assert parse_exp_on_fma("0.5") == ExpOnFma(HALF, 3)
    assert parse_exp_on_fma("1/4:5") == ExpOnFma(sympy.Rational(1, 4), 5)
    for bad in ("1.5", "x", "0.5:0", "-0.1"):
        with pytest.raises(KcostError):
            parse_exp_on_fma(bad)


def test_the_moved_work_counts_in_the_vector_class():
    cost, _ = b200(64)
    moved = exp_on_fma(cost, ExpOnFma(HALF, 3))
    assert moved.work["tensor"] == cost.work["tensor"]  # the tensor class is untouched
    assert moved.work["sfu"] == sympy.expand(cost.work["sfu"] / 2)
    # per exponential moved: 3 FMA (6 FLOP) + 4 range-reduction operations
    assert sympy.expand(moved.work["vector"] - cost.work["vector"]) == sympy.expand(
        cost.work["sfu"] / 2 * 10)
    assert moved.grid.work["sfu"] == sympy.expand(cost.grid.work["sfu"] / 2)
    assert exp_on_fma(cost, ExpOnFma(sympy.Integer(1), 3)).work.get("sfu") is None
    assert exp_on_fma(cost, None) is cost


def test_flash_attention_d64_on_b200_is_sfu_bound_until_half_the_exps_move():
    _, every = b200(64)
    assert roof_name(every.bound) == "sfu"
    # the busiest SM runs ceil(1024 / 148) = 7 blocks of 128 x 128 x (64 + 1) exponentials
    # (the scores and the rescale factor of each row per key tile) at 16 per clock
    assert every.grid.occupancy.busiest_sm_blocks == 7
    exps = 7 * 128 * 128 * 65
    assert seconds(every, "sfu") == exps / next(t for t in every.terms if t.key == "sfu").rate
    assert round(float(every.t_min) * 1e6, 1) == 237.3  # the data sheet's figures
    # at the maximum clock (1.965 GHz) the SFU is 16 x 148 x 1.965e9 = 4.653e12 op/s
    assert round(float(every.t_bound) * 1e6, 1) == 237.1
    _, half = b200(64, ExpOnFma(HALF, 3))
    assert roof_name(half.bound) != "sfu"
    # 124.0 us, the bf16 tensor peak's 123.6 us beside
    assert roof_name(half.bound) == "fp32 vector peak"
    assert round(float(seconds(half, "sfu")) * 1e6, 1) == 118.6
    assert round(float(half.t_min) * 1e6, 1) == 124.0
    assert round(float(seconds(half, "tensor")) * 1e6, 1) == 123.6
    _, quarter = b200(64, ExpOnFma(sympy.Rational(1, 4), 3))
    assert roof_name(quarter.bound) == "sfu" and round(float(quarter.t_min) * 1e6, 1) == 178.0


def test_at_d128_the_sfu_and_the_tensor_peak_are_close():
    _, every = b200(128)
    assert roof_name(every.bound) == "bf16 tensor peak"
    assert round(float(seconds(every, "tensor")) * 1e6, 1) == 247.2
    assert round(float(seconds(every, "sfu")) * 1e6, 1) == 237.3  # 4 % below
    _, half = b200(128, ExpOnFma(HALF, 3))
    assert roof_name(half.bound) == "bf16 tensor peak" and half.t_min == every.t_min
    # at the maximum clock the tensor peak gains 5.9 % (8192 FLOP/clk/SM x 148 x 1.965 GHz),
    # the SFU 0.07 %: 247.2 / 1.0588 = 233.5 us, under the SFU's 237.1 us, which binds
    assert roof_name(every.bound_at_max_clock) == "sfu"
    assert roof_name(half.bound_at_max_clock) == "bf16 tensor peak" and half.t_bound < every.t_bound


def test_the_cli_flag(capsys):
    argv = ["analyze", "specs/flash_attention.kcost", "--no-verify", "--machine", "b200",
            "--set", "S=8192", "--set", "d=64", "--set", "H=16", "--set", "WM=128", "--json"]
    assert main(argv) == 0
    plain = capsys.readouterr().out
    assert main([*argv, "--exp-on-fma", "0.5:3"]) == 0
    moved = capsys.readouterr().out
    assert '"bound": "sfu"' in plain and '"bound": "fp32 vector peak"' in moved
    assert '"exp_on_fma": null' in plain and '"vector_FLOP_per_exp": 10' in moved


def test_the_answer_says_the_exponentials_moved():
    from kernelcost.present.report import answer_lines

    analysis = analyze("specs/flash_attention.kcost", {**SIZES, "d": 64})
    found = answers(analysis, ["b200"], None, exp_on_fma=ExpOnFma(HALF, 3))
    assert "  exponentials: 0.5 of the exponentials as a degree-3 polynomial on the FP32 vector " \
           "units (3 FMA + 4 range-reduction operations = 10 FLOP each)." in answer_lines(found)
