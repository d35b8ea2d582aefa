"""The instructions and registers the torch softmax specs state, against the compiled kernels
they were read off (validate/sass: torch 2.11.0+cu130's libtorch_cuda.so, sm_90), and the issue
effect's time for one row by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy
from sass_path import block_instructions, load, warp_instructions

from kernelcost.answers.model import verdict
from kernelcost.gpu.effects.issue import stated_issue
from kernelcost.hardware.machinefile import load_machine

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
