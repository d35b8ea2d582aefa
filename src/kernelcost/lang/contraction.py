"""Which units a multiply-add statement runs on, in the language's terms: the shape rule.

A statement `T[..] += X[..] * Y[..]` (the product of two array accesses accumulated into an
array) is a matrix contraction when the loops just around it, read from the innermost out,
sort into the axes of an MMA:

    an iterator written in the indices of T and X, not Y: an m axis (rows of X)
    ...                          of T and Y, not X: an n axis (columns of Y)
    ...                          of X and Y, not T: a k axis (the reduction)
    ...                          of T, X and Y:     a batch axis (an MMA per value)

The band ends at the first loop whose iterator is none of these (a tile loop such as `k0`,
an iterator written in one access only such as a grid offset): that loop runs the MMA again.
The statement is a contraction when the band has an m, an n and a k axis: two free axes, each
operand missing one of them. Its tile is, per kind of axis, the product of the trip counts of
the band's loops of that kind (each at its largest over the run); a contraction whose tile
reaches work.MMA_MINIMUM runs on the tensor units, class `tensor`. Every other multiply-add
(`acc += x[i] * x[i]`, `fma(a, b, c)`, a contraction under the minimum) runs on the vector FMA
units at the accumulator's precision, class `fma`. `on tensor` and `on fma` after a statement
name its units and override the rule (`on tensor` only on a contraction).

This module reads the AST only; counting (mma.py) finds the trip counts, and the oracle
classifies on its own (oracle/units.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ..base import tree as ast
from ..base.errors import did_you_mean
from ..base.kinds import WorkClass
from ..base.records import record
from .work import statement_work

UNITS = (WorkClass.TENSOR, WorkClass.FMA)  # the names `on` takes


@record
class ContractionAxes:
    """The band of loops around a contraction, each iterator by its kind (innermost first)."""

    m: tuple[str, ...]  # in the target and the left operand
    n: tuple[str, ...]  # in the target and the right operand
    k: tuple[str, ...]  # in both operands, not the target: the reduction
    batch: tuple[str, ...]  # in all three

    @property
    def band(self) -> frozenset[str]:
        return frozenset((*self.m, *self.n, *self.k, *self.batch))


def contraction_axes(stmt: ast.Assign | ast.Let, loops: Sequence[str]) -> ContractionAxes | None:
    """The axes of `stmt` as a matrix contraction, or None when it is none. `loops`: the
    iterators of the loops around it, outermost first."""
    operands = contraction_operands(stmt)
    if operands is None:
        return None
    target, left, right = (_iterators(access, loops) for access in operands)
    kinds: dict[str, list[str]] = {"m": [], "n": [], "k": [], "batch": []}
    for var in reversed(loops):
        kind = _kind(var in target, var in left, var in right)
        if kind is None:
            break
        kinds[kind].append(var)
    if not (kinds["m"] and kinds["n"] and kinds["k"]):
        return None
    return ContractionAxes(*(tuple(kinds[kind]) for kind in ("m", "n", "k", "batch")))


def contraction_operands(stmt: ast.Assign | ast.Let
                         ) -> tuple[ast.Access, ast.Access, ast.Access] | None:
    """(target, left, right) of `T[..] += X[..] * Y[..]`, or None for any other statement."""
    if not isinstance(stmt, ast.Assign) or stmt.op != "+=":
        return None
    value = stmt.value
    if not (isinstance(value, ast.BinOp) and value.op == "*"):
        return None
    accesses = (stmt.target, value.left, value.right)
    if not all(isinstance(a, ast.Access) and a.indices for a in accesses):
        return None
    return accesses  # type: ignore[return-value]


def unit_problem(stmt: ast.Assign, loops: Sequence[str]) -> tuple[str, str] | None:
    """(message, hint) when the units `stmt` names (`on ...`) cannot run it, else None.
    `on tensor` needs a matrix contraction; `on fma` a multiply-add."""
    if stmt.unit is None:
        return None
    unit = stmt.unit.id
    if unit not in UNITS:
        return (f"unknown units `{unit}`", did_you_mean(unit, UNITS)
                or "`on tensor` (matrix units) or `on fma` (the vector FMA units)")
    if unit == WorkClass.TENSOR and contraction_axes(stmt, loops) is None:
        return ("only a matrix contraction runs on the tensor units",
                "write it `C[i, j] += A[i, k] * B[k, j]` inside its loops over i, j and k: "
                "two free axes, each operand missing one, and a reduction")
    if unit == WorkClass.FMA and not statement_work(stmt).get(WorkClass.FMA):
        return ("this statement does no multiply-add",
                "`on fma` goes after `x += a * b` or a statement calling `fma(a, b, c)`")
    return None


def named_unit(stmt: ast.Assign | ast.Let) -> WorkClass | None:
    """The units the spec names for a statement (`on tensor`), or None; the checker has
    refused any other name (unit_problem)."""
    if isinstance(stmt, ast.Assign) and stmt.unit is not None:
        return WorkClass(stmt.unit.id)
    return None


def _iterators(access: ast.Access, loops: Sequence[str]) -> frozenset[str]:
    """The loop iterators written in an access's indices."""
    names = {node.id for index in access.indices for node in ast.walk_expr(index)
             if isinstance(node, ast.Name)}
    return frozenset(names & set(loops))


def _kind(in_target: bool, in_left: bool, in_right: bool) -> str | None:
    if in_left and in_right:
        return "batch" if in_target else "k"
    if in_target and in_left:
        return "m"
    if in_target and in_right:
        return "n"
    return None
