"""The FLOP rules: how many operations of each class one execution of a statement does.

`+ - * /`, `max`, `min`: 1 each (class `vector`); `fma(a, b, c)` and `x += a * b`: 2 (class
`fma`); `exp log sqrt rsqrt tanh sin cos`: 1 each (class `sfu`). Index arithmetic is free, and
so is a unary minus (a sign modifier on the operand of the next operation)."""

from __future__ import annotations

from collections import Counter

from . import ast
from .symbols import SFU_FUNCTIONS


def statement_work(stmt: ast.Assign | ast.Let) -> Counter:
    """Operations by class for one execution of an assignment or a local's initialisation."""
    if isinstance(stmt, ast.Let):
        return expression_work(stmt.value)
    if stmt.op == "=":
        return expression_work(stmt.value)
    if stmt.op == "+=" and isinstance(stmt.value, ast.BinOp) and stmt.value.op == "*":
        # the accumulation and the product fuse into one fused multiply-add
        work = expression_work(stmt.value.left) + expression_work(stmt.value.right)
        work["fma"] += 2
        return work
    work = expression_work(stmt.value)  # +=, max=, min=: one more operation to combine
    work["vector"] += 1
    return work


def expression_work(expr: ast.Expr) -> Counter:
    work: Counter = Counter()
    _add_work(expr, work)
    return work


def _add_work(expr: ast.Expr, work: Counter) -> None:
    if isinstance(expr, ast.BinOp):
        work["vector"] += 1
        _add_work(expr.left, work)
        _add_work(expr.right, work)
    elif isinstance(expr, ast.Neg):
        _add_work(expr.operand, work)
    elif isinstance(expr, ast.Call):
        if expr.func in SFU_FUNCTIONS:
            work["sfu"] += 1
        elif expr.func == "fma":
            work["fma"] += 2
        else:  # max, min of n arguments: n - 1 comparisons
            work["vector"] += len(expr.args) - 1
        for arg in expr.args:
            _add_work(arg, work)
    # Number, Name, Access: operands, no work; index arithmetic inside an Access is free
