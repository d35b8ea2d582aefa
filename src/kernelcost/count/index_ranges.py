"""The range of an index over the loops inside a region: its lowest and highest value,
each counter at the end of its range that moves the index that way, floors, ceilings, mins
and maxes first replaced by straight bounds on the side the slope needs; and of several
such bounds, those no other is proven to bound (a min or max left in would be split in
every sum over the outer loops). Footprints' boxes are built from these."""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from ..base.symbols import derivative
from .counters import CounterView, largest_value, node_bound
from .facts import Facts
from .loops import Loop

# what a node becomes while its slope is read: one symbol for every node and call, so that
# sympy's cache answers a min/max built around it again (each build orders its arguments,
# milliseconds where no order is proven); it never outlives the call that substitutes it
_STAND_IN = sympy.Dummy("node")


class IndexRanges:
    """Bounds of index expressions under one kernel's facts."""

    def __init__(self, facts: Facts):
        self.facts = facts
        # each dimension of each bounding box straightens the same trip counts again
        self._straightened: dict[tuple[sympy.Expr, bool, int], sympy.Expr | None] = {}

    def dominant(self, values: Sequence[sympy.Expr], loops: Sequence[Loop],
                 largest: bool) -> sympy.Expr:
        """max (min) of values, leaving out each value another one is proven to bound at
        every point of the outer loops: `max(0, j)` with j >= 0 there is j. A min/max left
        in a fill would have to be split in every sum over the outer loops."""
        kept: list[sympy.Expr] = []
        for value in dict.fromkeys(sympy.expand(v) for v in values):
            # a >= b (a <= b for a min) everywhere in the nest
            def bounds(a: sympy.Expr, b: sympy.Expr) -> bool:
                return self.facts.nonnegative_within(a - b if largest else b - a, loops)
            if any(bounds(other, value) for other in kept):
                continue
            kept = [other for other in kept if not bounds(value, other)] + [value]
        if len(kept) == 1:  # sympy's min/max of it, after asking whether it is real
            return kept[0]
        return sympy.Max(*kept) if largest else sympy.Min(*kept)

    def interval(self, expr: sympy.Expr,
                 view: CounterView) -> tuple[sympy.Expr | None, sympy.Expr | None]:
        """Bounds of expr over the counters, innermost first; None where unbounded."""
        low, high = expr, expr
        for counter in reversed(view.counters):
            if low is None or high is None:
                return None, None
            if counter not in low.free_symbols | high.free_symbols:
                continue  # a loop the index does not move with (i for B[j, k])
            most = self._most(view.trips_of[counter], view.counters)
            if most is None:
                return None, None
            low = self._extreme(low, counter, most - 1, smallest=True)
            high = self._extreme(high, counter, most - 1, smallest=False)
        return low, high

    def _most(self, trips: sympy.Expr, counters: Sequence[sympy.Symbol]) -> sympy.Expr | None:
        """An upper bound of a loop's trip count: straightened, or where a min sits inside
        the max with 0 that clamps an empty loop (a warpgroup's rows clipped at the matrix's
        edge, `max(0, min(M, w + WM) - w)`), the min's argument that frees it of the
        counters, provided that is nonnegative (WM)."""
        most = self._straighten(trips, upward=True)
        if most is not None:
            return most
        clamped = [a for a in trips.args if a != 0] if isinstance(trips, sympy.Max) else []
        if len(clamped) == 1 and len(trips.args) == 2:
            inner = largest_value(clamped[0], counters)
            return inner if inner is not None and self.facts.nonnegative(inner) else None
        return largest_value(trips, counters)

    def _extreme(self, expr: sympy.Expr | None, counter: sympy.Symbol, last: sympy.Expr,
                 smallest: bool) -> sympy.Expr | None:
        """expr at the end of [0, last] where it is smallest (largest), after replacing
        rounding and min/max by straight bounds; None if its slope's sign is unknown."""
        if expr is None or counter not in expr.free_symbols:
            return expr
        expr = self._straighten(expr, upward=not smallest)
        if expr is None:
            return None
        slope = derivative(expr, counter)
        if counter in slope.free_symbols:
            return None
        at_first = self._follows(slope, smallest)
        if at_first is None:
            return None
        return expr.xreplace({counter: sympy.S.Zero if at_first else last})

    def _follows(self, slope: sympy.Expr, wanted: bool) -> bool | None:
        """`wanted` where the slope is nonnegative, its opposite where it is nonpositive:
        which end of a range (or which bound of a node) gives the extreme sought; None where
        the slope's sign is unknown."""
        if self.facts.nonnegative(slope):
            return wanted
        if self.facts.nonpositive(slope):
            return not wanted
        return None

    def _straighten(self, expr: sympy.Expr, upward: bool) -> sympy.Expr | None:
        """A bound of expr (upper if upward) free of floor, ceiling, min and max. Kept per
        expression, direction and facts (a step taken as positive later may prove more)."""
        key = (expr, upward, len(self.facts.slack))
        if key not in self._straightened:
            self._straightened[key] = self._straightened_bound(expr, upward)
        return self._straightened[key]

    def _straightened_bound(self, expr: sympy.Expr, upward: bool) -> sympy.Expr | None:
        while True:
            found = innermost_call(expr)
            if found is None:
                return expr
            node, enclosed = found
            if isinstance(node, (sympy.floor, sympy.ceiling)) and self.facts.integral(
                    node.args[0]):
                expr = expr.xreplace({node: node.args[0]})  # whole: its own bound both ways
                continue
            # inside another rounding or min/max, the slope is a Heaviside step or an
            # unevaluated derivative, whose sign no prover reads (tens of ms to ask); seen
            # in expr before the stand-in is put in, as building that around it asks sympy
            # to order a min/max's arguments and round a quotient anew, milliseconds each
            if enclosed:
                return None
            stand_in = _STAND_IN
            replaced = expr.xreplace({node: stand_in})
            if _held(replaced, stand_in):
                return None
            slope = derivative(replaced, stand_in)
            wanted_upper = self._follows(slope, upward)
            if wanted_upper is None:
                return None
            bound = node_bound(node, wanted_upper)
            if bound is None:
                return None
            expr = sympy.expand(replaced.subs(stand_in, bound))


_ROUNDINGS_AND_BOUNDS = (sympy.floor, sympy.ceiling, sympy.Min, sympy.Max)


def innermost_call(expr: sympy.Expr) -> tuple[sympy.Expr, bool] | None:
    """The first floor, ceiling, Min or Max of expr in sympy.postorder_traversal's order (one
    with none inside it), and whether another such node holds it; None where there is none."""
    return _first_call(expr, False)


def _first_call(node: sympy.Basic, enclosed: bool) -> tuple[sympy.Expr, bool] | None:
    call = isinstance(node, _ROUNDINGS_AND_BOUNDS)
    for argument in node.args:
        found = _first_call(argument, enclosed or call)
        if found is not None:
            return found
    return (node, enclosed) if call else None


def _held(expr: sympy.Expr, symbol: sympy.Symbol) -> bool:
    """symbol appears inside a floor, ceiling, min or max of expr."""
    return any(symbol in node.free_symbols
               for node in expr.atoms(sympy.floor, sympy.ceiling, sympy.Min, sympy.Max))
