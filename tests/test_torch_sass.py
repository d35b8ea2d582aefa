"""The instructions and registers the torch softmax specs state, against the compiled kernels
they were read off (validate/sass: torch 2.11.0+cu130's libtorch_cuda.so, sm_90), and the issue
effect's time for one row by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy
from sass_path import block_instructions, load, loads_before_use, warp_instructions

from kernelcost.answers.model import verdict
from kernelcost.base.errors import KcostError
from kernelcost.gpu.effects.issue import stated_issue
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.check import check
from kernelcost.lang.parse import parse

SASS = Path(__file__).resolve().parent.parent / "validate" / "sass"
WARPS = 1024 // 32


def at(sizes: dict[str, int]):
    values = {sympy.Symbol(key, integer=True, positive=True): value
              for key, value in sizes.items()}
    return lambda expr: sympy.sympify(expr).subs(values)


def stated(cost, sizes: dict[str, int]) -> tuple[int, int]:
    """(instructions, registers) the spec states at the sizes."""
    return int(at(sizes)(cost.grid.instructions)), int(cost.grid.registers)


def registers(kernel: str) -> int:
    lines = (SASS / "res-usage.txt").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if kernel in line)
    return int(lines[at + 1].split()[0].removeprefix("REG:"))


@pytest.mark.parametrize("ilp, warp0, others", [(4, 346, 317), (8, 647, 618)])
def test_the_register_kernels_as_compiled(spec_cost, ilp, warp0, others):
    rows = load(SASS / f"cunn_SoftMaxForwardReg_bf16_{ilp}.sass")
    # straight-line code, every element in range: each bounds check falls through
    assert warp_instructions(rows, {}, True, otherwise=False) == warp0
    assert warp_instructions(rows, {}, False, otherwise=False) == others
    assert block_instructions(rows, {}, WARPS, otherwise=False) == warp0 + 31 * others
    assert stated(spec_cost(f"softmax_torch_reg{ilp}"), {"R": 1, "n": 1024 * ilp}) == (
        warp0 + 31 * others, registers(f"SoftMaxForwardEpilogueElLi{ilp}EE"))


def gmem_rules(trips: int) -> dict[int, bool | int]:
    """Aligned rows (no shift prologue) whose length 8192 divides: the three passes' loops run
    `trips` times, their tails not at all (the listing's addresses)."""
    return {0x150: True, 0x470: False, 0x620: trips - 1, 0x650: True, 0xae0: True,
            0xd60: False, 0x1330: trips - 1, 0x1370: True, 0x1750: True, 0x1a10: True,
            0x1f00: False, 0x2c90: trips - 1, 0x2cd0: True}


@pytest.mark.parametrize("n", [32768, 131072, 262144])
def test_the_three_pass_kernel_as_compiled(spec_cost, n):
    rows = load(SASS / "cunn_SoftMaxForward_bf16_8.sass")
    walked = block_instructions(rows, gmem_rules(n // 8192), WARPS)
    assert stated(spec_cost("softmax_rows_gmem"), {"R": 1, "n": n}) == (
        walked, registers("cunn_SoftMaxForwardILi8EN3c108BFloat16EfS4_"))


def test_a_branch_without_a_rule_is_an_error():
    rows = load(SASS / "cunn_SoftMaxForward_bf16_8.sass")
    with pytest.raises(ValueError, match="0x0150"):
        warp_instructions(rows, {}, False)


def test_issue_time_of_the_row_by_hand(spec_cost):
    # R = n = 4096 on the H200: 4096 blocks on 132 SMs, 32 on the busiest, each 10173 warp
    # instructions, 4 a clock at 1.98 GHz: 32 x 10173 / 7.92e9 = 41.1 µs, over the global
    # term's 67.1 MB at 4.8 TB/s (14.0 µs), so the global roof is scaled by 14.0 / 41.1
    cost, h200 = spec_cost("softmax_torch_reg4"), load_machine("h200")
    blocks, t_issue = stated_issue(cost, h200, at({"R": 4096, "n": 4096}))
    assert (blocks, t_issue) == (32, sympy.Rational(32 * 10173, 4 * 198 * 10**7))
    assert float(t_issue) == pytest.approx(41.1e-6, rel=1e-3)
    result = verdict(cost, h200, values={"R": 4096, "n": 4096})
    [issue] = [d for d in result.derates if d.cause == "issue"]
    assert float(issue.factor) == pytest.approx(4 * 4096 * 4096 / 4.8e12 / float(t_issue))
    assert float(result.t_model) >= float(t_issue)


def layer_norm_rules(trips: int, warp: int) -> dict:
    """vectorized_layer_norm_kernel, a block of 4 warps on aligned rows with gamma and beta:
    both loops run `trips` times; each Welford reciprocal takes its fast path; the cross-warp
    reduction runs twice (offsets 2 and 1), its combine in warps below the offset; warp 0
    alone writes the mean and rstd. Addresses are the listing's."""
    fast = dict.fromkeys((0x280, 0x3b0, 0x4e0, 0x610, 0x7d0, 0x9f0, 0xbf0, 0xe10, 0x1010,
                          0x1500), True)  # a reciprocal's fast path: taken to MUFU.RCP
    combine = dict.fromkeys((0x770, 0x990, 0xb90, 0xdb0, 0xfb0, 0x1490), False)  # counts > 0
    return {**fast, **combine, 0x160: False, 0x6e0: trips - 1, 0x1140: True, 0x1270: False,
            0x1660: 1, 0x13d0: (warp >= 2, warp >= 1), 0x1690: warp != 0, 0x18d0: False,
            0x1970: True, 0x22a0: trips - 1, 0x22d0: warp != 0}


@pytest.mark.parametrize("n", [4096, 8192, 131072])
def test_the_layer_norm_kernel_as_compiled(spec_cost, n):
    rows = load(SASS / "vectorized_layer_norm_kernel_bf16.sass")
    trips = n // (4 * 128)  # 4 bf16 a load, 128 threads
    walked = sum(warp_instructions(rows, layer_norm_rules(trips, warp), warp == 0)
                 for warp in range(4))
    assert stated(spec_cost("layernorm_torch"), {"R": 1, "n": n}) == (
        walked, registers("vectorized_layer_norm_kernelIN3c108BFloat16EfLb0"))
    assert walked == 1155 + 472 * trips


def test_the_layer_norm_widths_are_the_bytes_a_thread_has_in_flight(spec_cost):
    # compute_stats' loop (back edge 0x6e0) and the second pass with gamma and beta (0x22a0):
    # one 8-byte load of x, then x's and four 2-byte loads each of gamma and beta, all issued
    # before the first is used; the spec's widths, summed over each pass's tensors, say so
    rows = load(SASS / "vectorized_layer_norm_kernel_bf16.sass")
    assert loads_before_use(rows, 0x6e0) == [8]
    assert sorted(loads_before_use(rows, 0x22a0)) == [2] * 8 + [8]
    grid = spec_cost("layernorm_torch").grid
    width = {tensor: int(b) for tensor, b in grid.widths}
    assert grid.passes == (("x",), ("x", "gamma", "beta"))
    assert [sum(width[t] for t in names) for names in grid.passes] == [
        sum(loads_before_use(rows, 0x6e0)), sum(loads_before_use(rows, 0x22a0))] == [8, 24]


@pytest.mark.parametrize(("setting", "message"), [
    ("instructions = 0", "an instruction count must be positive, not 0"),
    ("instructions = 10, instructions = 20", "`instructions` is set twice"),
    ("instructions x = 10", "`instructions` takes no iterator"),
])
def test_a_bad_instruction_count_is_one_clear_error(setting, message):
    text = f"""kernel rows(R, n) {{
    in  x: bf16[R, n]
    out y: f32[R]
    for r in 0..R parallel(threads = 128, {setting}) {{
        for i in 0..n {{
            y[r] += x[r, i]
        }}
    }}
}}"""
    with pytest.raises(KcostError) as raised:
        check(parse(text, "t.kcost"))
    assert [diagnostic.message for diagnostic in raised.value.diagnostics] == [message]


def test_a_stated_count_may_grow_with_the_sizes(spec_cost):
    # softmax_rows_gmem's count is an expression of n: 9920 more a block for each 8192
    assert stated(spec_cost("softmax_rows_gmem"), {"R": 1, "n": 16384})[0] - stated(
        spec_cost("softmax_rows_gmem"), {"R": 1, "n": 8192})[0] == 9920
