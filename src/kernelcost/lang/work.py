"""The FLOP rules: how many operations of each class one execution of a statement does.

`+ - * /`, `max`, `min`: 1 each (class `vector`); `fma(a, b, c)` and `x += a * b`: 2 (class
`fma`); `exp log sqrt rsqrt tanh sin cos`: 1 each (class `sfu`). Index arithmetic is free, and
so is a unary minus (a sign modifier on the operand of the next operation).

Which units run the multiply-adds is a rule of its own (contraction.py: a matrix contraction
whose tile reaches MMA_MINIMUM runs on the tensor units, class `tensor`); the threshold is here,
with the FLOP rules, because the counting code and the oracle apply it alike."""

from __future__ import annotations

from collections import Counter

from ..base import tree as ast
from ..base.kinds import WorkClass
from ..base.symbols import FMA_FUNCTIONS, SFU_FUNCTIONS

# The smallest tile a matrix contraction runs on the tensor units with: m x n x k = 16 x 8 x 8,
# m and n in either order (an MMA computes C^T = B^T A^T as readily). It is the smallest dense
# shape of NVIDIA's warp-level MMA for 16-bit inputs, `mma.sync.aligned.m16n8k8` (NVIDIA, PTX
# ISA, the `mma` instruction, https://docs.nvidia.com/cuda/parallel-thread-execution/; CUTLASS's
# CuTe DSL lists (16,8,8) and (16,8,16) for F16/BF16, `cute.nvgpu.warp.MmaF16BF16Op`,
# https://docs.nvidia.com/cutlass/media/docs/pythonDSL/cute_dsl_api/cute_nvgpu_warp.html).
# Other precisions and vendors have other shapes; the rule takes this one for all, so that a
# tile under it (a decode GEMV's single token) runs on the vector units.
MMA_MINIMUM = (16, 8, 8)


def meets_mma_minimum(m: int, n: int, k: int) -> bool:
    """Whether an m x n x k tile reaches MMA_MINIMUM (m and n in either order)."""
    longer, shorter, depth = MMA_MINIMUM
    return max(m, n) >= longer and min(m, n) >= shorter and k >= depth


def statement_work(stmt: ast.Assign | ast.Let) -> Counter:
    """Operations by class for one execution of an assignment or a local's initialisation."""
    if isinstance(stmt, ast.Let):
        return expression_work(stmt.value)
    if stmt.op == "=":
        return expression_work(stmt.value)
    if stmt.op == "+=" and isinstance(stmt.value, ast.BinOp) and stmt.value.op == "*":
        # the accumulation and the product fuse into one fused multiply-add
        work = expression_work(stmt.value.left) + expression_work(stmt.value.right)
        work[WorkClass.FMA] += 2
        return work
    work = expression_work(stmt.value)  # +=, max=, min=: one more operation to combine
    work[WorkClass.VECTOR] += 1
    return work


def expression_work(expr: ast.Expr) -> Counter:
    work: Counter = Counter()
    _add_work(expr, work)
    return work


def _add_work(expr: ast.Expr, work: Counter) -> None:
    if isinstance(expr, ast.BinOp):
        work[WorkClass.VECTOR] += 1
        _add_work(expr.left, work)
        _add_work(expr.right, work)
    elif isinstance(expr, ast.Neg):
        _add_work(expr.operand, work)
    elif isinstance(expr, ast.Call):
        if expr.func in SFU_FUNCTIONS:
            work[WorkClass.SFU] += 1
        elif expr.func in FMA_FUNCTIONS:
            work[WorkClass.FMA] += 2
        else:  # max, min of n arguments: n - 1 comparisons
            work[WorkClass.VECTOR] += len(expr.args) - 1
        for arg in expr.args:
            _add_work(arg, work)
    # Number, Name, Access: operands, no work; index arithmetic inside an Access is free
