"""The oracle's own reading of the unit rule (docs/language.md, "Which units run the work"):
which statements are matrix contractions, found from the AST, and their tiles, found by
running the nest: each loop records the most iterations it ran in one run.

It shares the rule's threshold (work.MMA_MINIMUM) with the counting code and nothing else:
the counting code finds contractions with contraction.py and their tiles as closed-form trip
counts (mma.py); agreeing, the two read the rule the same way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..base import tree as ast
from ..base.kinds import WorkClass
from ..base.records import record
from ..lang.work import meets_mma_minimum

TENSOR, FMA = WorkClass.TENSOR, WorkClass.FMA


@record
class Mma:
    """A statement the rule may put on the tensor units: its work class key while the nest
    runs (`mma:3`), the loops of its tile by kind (keys of LoopPlan), and a unit the spec
    names, if any."""

    key: str
    loops: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]  # m, n, k loops
    named: WorkClass | None


def find_mma(stmt: ast.Assign | ast.Let, loops: Sequence[tuple[str, int]],
             index: int) -> Mma | None:
    """The contraction `stmt` is, or None. `loops`: (iterator, loop key) of the loops around
    it, outermost first. A statement that names `on fma` is none: its work stays in fma."""
    if not isinstance(stmt, ast.Assign) or stmt.op != "+=":
        return None
    named = WorkClass(stmt.unit.id) if stmt.unit is not None else None
    if named == FMA:
        return None
    product = stmt.value
    if not (isinstance(product, ast.BinOp) and product.op == "*"):
        return None
    sides = (stmt.target, product.left, product.right)
    if not all(isinstance(side, ast.Access) and side.indices for side in sides):
        return None
    names = {name for name, _ in loops}
    written = [_names_in(side, names) for side in sides]  # type: ignore[arg-type]
    kinds: dict[str, list[int]] = {"m": [], "n": [], "k": []}
    for name, key in reversed(loops):
        target, left, right = (name in found for found in written)
        if left and right and target:
            continue  # a batch axis: an MMA per value, no part of the tile
        if left and right:
            kinds["k"].append(key)
        elif target and left and not right:
            kinds["m"].append(key)
        elif target and right and not left:
            kinds["n"].append(key)
        else:
            break
    if not all(kinds.values()):
        return None
    return Mma(f"mma:{index}", (tuple(kinds["m"]), tuple(kinds["n"]), tuple(kinds["k"])), named)


def unit_of(mma: Mma, largest: dict[int, int]) -> WorkClass:
    """tensor or fma, from the most iterations each loop of the tile ran at once."""
    if mma.named == TENSOR:
        return TENSOR
    m, n, k = (_product(largest.get(key, 0) for key in keys) for keys in mma.loops)
    return TENSOR if meets_mma_minimum(m, n, k) else FMA


def relabelled(work: dict[str, int], units: Mapping[str, str]) -> dict[str, int]:
    """Work by class with each contraction's key (`mma:3`) folded into its unit's class."""
    result: dict[str, int] = {}
    for work_class, amount in work.items():
        name = units.get(work_class, work_class)
        result[name] = result.get(name, 0) + amount
    return result


def _names_in(access: ast.Access, names: set[str]) -> set[str]:
    found = set()
    for index in access.indices:
        for node in ast.walk_expr(index):
            if isinstance(node, ast.Name) and node.id in names:
                found.add(node.id)
    return found


def _product(values) -> int:
    result = 1
    for value in values:
        result *= value
    return result
