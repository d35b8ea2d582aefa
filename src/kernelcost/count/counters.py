"""An access seen from a region of the nest (CounterView: its indices and trip counts in
the counters of the loops inside), and the straight bounds footprints take of rounding and
min/max nodes and of monotone indices."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import sympy

from ..base.symbols import derivative, preorder, replace_symbols
from .facts import Facts
from .loops import Loop
from .nest import AccessSite


def extreme_value(expr: sympy.Expr, loops: Sequence[Loop], facts: Facts,
                  largest: bool) -> sympy.Expr | None:
    """expr at its largest (smallest) over the points of `loops`, innermost first: each
    iterator at its loop's last or first value (last = lo + step*(trips - 1); the loops are
    assumed to run, as the callers check). None where the direction is not proven."""
    for loop in reversed(loops):
        if loop.var not in expr.free_symbols:
            continue
        direction = monotone_direction(expr, loop.var, facts)
        if direction is None:
            return None
        at_last = (direction > 0) == largest
        value = loop.lo + loop.step * (loop.trips - 1) if at_last else loop.lo
        # expanded first, as the result is: a min/max the value lands in is built once, on
        # the arguments it keeps, not once as substituted and again as expanded (ordering
        # its arguments: milliseconds a pair with a rounding in it)
        expr = expr.xreplace({loop.var: sympy.expand(value)})
    return sympy.expand(expr)


def monotone_direction(expr: sympy.Expr, var: sympy.Symbol, facts: Facts) -> int | None:
    """+1 where expr never decreases as var grows (every argument choice of its min/max
    rising), -1 where it never increases, None otherwise."""
    choices = [expr]
    for node in expr.atoms(sympy.Min, sympy.Max):
        choices = [choice.xreplace({node: arg}) for choice in choices for arg in node.args]
        if len(choices) > 64:
            return None
    slopes = [derivative(choice, var) for choice in choices]
    if any(var in slope.free_symbols for slope in slopes):
        return None
    if all(facts.nonnegative(slope) for slope in slopes):
        return 1
    if all(facts.nonpositive(slope) for slope in slopes):
        return -1
    return None


def node_bound(node: sympy.Expr, upper: bool) -> sympy.Expr | None:
    """A straight bound of one rounding or min/max node: ceiling(x) < x + 1, floor(x) <= x,
    min(a, b) <= a; and x <= ceiling(x), x - 1 < floor(x), a <= max(a, b)."""
    argument = node.args[0]
    if isinstance(node, sympy.ceiling):
        return argument + 1 if upper else argument
    if isinstance(node, sympy.floor):
        return argument if upper else argument - 1
    if isinstance(node, sympy.Min):
        return argument if upper else None
    return None if upper else argument


def iterator_minmax(expr: sympy.Expr, loops: Iterable[Loop]) -> bool:
    """expr holds a min or max whose arguments move with the iterators of `loops`."""
    iterators = {loop.var for loop in loops}
    return any(isinstance(node, (sympy.Min, sympy.Max)) and node.free_symbols & iterators
               for node in preorder(expr))


def largest_value(trips: sympy.Expr, counters: Iterable[sympy.Symbol]) -> sympy.Expr | None:
    """An upper bound of a trip count free of the counters: the count itself, or the count
    with a min replaced by one of its arguments (min(M, T*t + T) - T*t <= T)."""
    counters = set(counters)
    if not trips.free_symbols & counters:
        return trips
    for node in preorder(trips):
        if isinstance(node, sympy.Min):
            coefficient = sympy.expand(trips).coeff(node)
            if not (coefficient.is_number and coefficient > 0):
                continue
            for argument in node.args:
                bound = sympy.expand(trips.xreplace({node: argument}))
                if not bound.free_symbols & counters:
                    return bound
    return None


class CounterView:
    """An access seen from a region: its indices and the inner loops' trip counts in
    terms of the inner loops' counters (outer iterators stay as they are)."""

    def __init__(self, site: AccessSite, outer_depth: int):
        inner = site.loops[outer_depth:]
        self.inner = inner
        self.outer = site.loops[:outer_depth]  # the loops the region itself runs inside
        self.site = site
        self.extent = site.extent
        # xreplace, not subs: plain symbols to expressions free of them, ten times faster
        to_counters: dict[sympy.Symbol, sympy.Expr] = {}
        for loop in inner:  # outermost first, so inner bounds see outer counters
            to_counters[loop.var] = (loop.lo + loop.step * loop.counter).xreplace(to_counters)
        self.counters = tuple(loop.counter for loop in inner)
        self.trips_of = {loop.counter: replace_symbols(loop.trips, to_counters) for loop in inner}
        self.indices = tuple(sympy.expand(index.xreplace(to_counters)) for index in site.indices)
        self.trips = tuple(self.trips_of[c] for c in self.counters)

    def used_counters(self) -> list[sympy.Symbol]:
        return [c for c in self.counters if any(c in i.free_symbols for i in self.indices)]

    def closed(self, used: Sequence[sympy.Symbol]) -> bool:
        """The trip counts of the counters used depend on no other inner counter."""
        others = set(self.counters) - set(used)
        return not any(self.trips_of[c].free_symbols & others for c in used)

    def rectangular(self) -> bool:
        counters = set(self.counters)
        return not any(trips.free_symbols & counters for trips in self.trips)

    def counter_loops(self, used: Sequence[sympy.Symbol]) -> list[Loop]:
        return [Loop(c, c, sympy.Integer(0), self.trips_of[c], sympy.Integer(1),
                     self.trips_of[c], depth) for depth, c in enumerate(used)]
