"""The units of each multiply-add statement, counted: the contractions of a nest with their
work and tile (Contraction records), and the choice at given sizes.

contraction.py says which statements are matrix contractions; here their tiles become trip
counts. A contraction runs on the tensor units (class `tensor`) unless its tile is under
work.MMA_MINIMUM. While the sizes are symbols that cannot be told, so a count puts every
contraction the spec does not name `on fma` on the tensor units, except one whose tile is a
number under the minimum (`for s in 0..4`); `on_units(cost, values)` then moves to class `fma`
the contractions whose tile, at the sizes given, is under it (a decode GEMV at b = 1)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import sympy

from ..algebra import rational_eval
from ..base import tree as ast
from ..base.kinds import WorkClass
from ..lang.contraction import contraction_axes, named_unit
from ..lang.work import meets_mma_minimum
from .cost import WORK_CLASSES, Contraction, Cost

if TYPE_CHECKING:
    from .nest import Execution

# The largest trip count of a loop whose extent moves with outer iterators (a clipped edge, a
# triangle) is found by running those iterators; past this many points it is not looked for,
# and the tile is taken to reach the minimum (the tensor units: a bound stays a bound).
LARGEST_TRIPS_POINTS = 4096


def contraction_of(execution: Execution, source_lines: Sequence[str],
                   finish: Callable[[sympy.Expr], sympy.Expr]) -> Contraction | None:
    """The Contraction record of a statement execution (its work left zero, for the counter
    to fill in), or None when the statement is no contraction. `finish` writes a trip count
    in the spec's sizes."""
    stmt = execution.statement
    if stmt is None:
        return None
    loops = execution.loops
    axes = contraction_axes(stmt, [loop.var.name for loop in loops])
    if axes is None:
        return None
    by_name = {loop.var.name: loop for loop in loops}
    trips = tuple(tuple(finish(by_name[var].trips) for var in names)
                  for names in (axes.m, axes.n, axes.k))
    outer = tuple((loop.var, finish(loop.lo), finish(loop.step), finish(loop.trips))
                  for loop in loops)
    named = named_unit(stmt)
    record = Contraction(stmt.span.line, _text(stmt, source_lines), named, WorkClass.TENSOR,
                         sympy.Integer(0), None, trips, outer)
    if named is not None:
        return dataclasses.replace(record, unit=named)
    if _under_minimum(record, {}) is True:
        return dataclasses.replace(record, unit=WorkClass.FMA)
    return record


def on_units(cost: Cost, values: Mapping[sympy.Symbol, sympy.Expr]) -> Cost:
    """`cost` with the multiply-adds of each contraction the spec does not name moved to the
    vector FMA units (class `fma`) where its tile at `values` is under the MMA minimum. Sizes
    left symbolic that the tile depends on keep it on the tensor units."""
    moved = [c for c in cost.contractions if c.unit == WorkClass.TENSOR and c.named is None
             and _under_minimum(c, values) is True]
    if not moved:
        return cost
    work = _moved(cost.work, sum((c.work for c in moved), sympy.Integer(0)))
    grid = cost.grid
    if grid is not None:
        block = sum((c.block_work or 0 for c in moved), sympy.Integer(0))
        grid = dataclasses.replace(grid, work=_moved(grid.work, block))
    contractions = tuple(dataclasses.replace(c, unit=WorkClass.FMA) if c in moved else c
                         for c in cost.contractions)
    return dataclasses.replace(cost, work=work, grid=grid, contractions=contractions)


def tile_at(contraction: Contraction, values: Mapping[sympy.Symbol, sympy.Expr]
            ) -> tuple[int, int, int] | None:
    """(m, n, k) of a contraction's tile at `values`, each trip count at its largest over the
    run, or None while a size it depends on is symbolic (or the run is too long to look)."""
    tile = []
    for trips in contraction.trips:
        extent = 1
        for trip in trips:
            largest = _largest_planned(trip, contraction.loops, values)
            if largest is None:
                largest = _largest(trip.xreplace(dict(values)), contraction.loops, values)
            if largest is None:
                return None
            extent *= largest
        tile.append(extent)
    return tile[0], tile[1], tile[2]


def _under_minimum(contraction: Contraction, values) -> bool | None:
    tile = tile_at(contraction, values)
    return None if tile is None else not meets_mma_minimum(*tile)


def _moved(work: dict[str, sympy.Expr], amount: sympy.Expr) -> dict[str, sympy.Expr]:
    """`amount` FLOP taken from class tensor to class fma, the classes in WORK_CLASSES order."""
    changed = {**work, WorkClass.TENSOR: sympy.expand(work.get(WorkClass.TENSOR, 0) - amount),
               WorkClass.FMA: work.get(WorkClass.FMA, 0) + amount}
    return {name: changed[name] for name in WORK_CLASSES
            if name in changed and changed[name] != 0}


def _largest_planned(trip: sympy.Expr, loops, values) -> int | None:
    """_largest(trip at values, ...) where every size the trip holds has an integer value and
    the loops around it run at least once, without substituting the sizes first (sympy then
    rebuilds and compares each Min of a clipped edge, the most of the self-verification's
    time on gemm_tiled_clipped); None where _largest is asked instead."""
    iterators = {loop[0] for loop in loops}
    if not all(getattr(values.get(symbol), "is_Integer", False)
               for symbol in trip.free_symbols - iterators):
        return None
    points = _points(trip.free_symbols & iterators, loops, values)
    if not points:  # no run (or too long to look): as _largest finds it
        return None
    found = 0
    for point in points:
        value = _integer_at(trip, {**values, **point})
        if value is None:
            return None
        found = max(found, value)
    return found


def _largest(trip: sympy.Expr, loops, values) -> int | None:
    """The largest value of a trip count over the iterators it holds, or None."""
    if trip.is_Integer:
        return max(int(trip), 0)
    iterators = {loop[0] for loop in loops}
    if trip.free_symbols - iterators:
        return None  # a size still symbolic
    points = _points(trip.free_symbols, loops, values)
    if points is None:
        return None
    found = 0
    for point in points:
        value = _integer_at(trip, point)
        if value is None:
            return None
        found = max(found, value)
    return found


def _integer_at(expr: sympy.Expr, at: Mapping[sympy.Symbol, sympy.Expr]) -> int | None:
    """expr at `at` where that is an integer, else None: by its plan in Python's integers
    where every size it holds is an integer there (a clipped tile's trips are asked at every
    point of the loops around it, and substituting rebuilds the expression in sympy each
    time), else by substituting, as sympy says (a symbolic size, a fraction, 1/0)."""
    planned = rational_eval.value_at(expr, at)
    if planned is not None:
        top, bottom = planned
        return None if top % bottom else top // bottom
    value = expr.xreplace(at)
    return int(value) if value.is_Integer else None


def _points(wanted: set, loops, values) -> list[dict] | None:
    """Every combination of the iterators `wanted` (and of those their loops' bounds hold)
    that the loops around the statement run, outermost first; None past
    LARGEST_TRIPS_POINTS or where a bound stays symbolic."""
    needed = set(wanted)
    for var, first, step, trips in reversed(loops):  # inner loops' bounds name outer iterators
        if var in needed:
            needed |= first.free_symbols | step.free_symbols | trips.free_symbols
    chosen = [loop for loop in loops if loop[0] in needed]
    fixed = dict(values)
    points: list[dict] = [{}]
    for var, first, step, trips in chosen:
        grown: list[dict] = []
        for point in points:
            at = {**fixed, **point}
            start, stride, count = (_integer_at(part, at) for part in (first, step, trips))
            if start is None or stride is None or count is None:
                return None
            if len(grown) + count > LARGEST_TRIPS_POINTS:  # before making them: L = 1e15
                return None                                # made 7.8e12 points
            grown += [{**point, var: sympy.Integer(start + stride * t)}
                      for t in range(max(count, 0))]
        points = grown
    return points


def _text(stmt: ast.Assign | ast.Let, lines: Sequence[str]) -> str:
    span = stmt.span
    if span.line != span.end_line or not 1 <= span.line <= len(lines):
        return f"line {span.line}"
    return lines[span.line - 1][span.column - 1:span.end_column - 1].strip()

