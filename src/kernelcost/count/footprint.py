"""Footprints: the distinct elements a set of accesses touches while the loops inside a region
run, exact (injective maps, mixed-radix tiles, unions of shifted boxes) or a bounding box
flagged as an upper bound."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import sympy

from ..base.records import record
from ..base.symbols import derivative, determinant_of
from .counters import CounterView, extreme_value, iterator_minmax, largest_value
from .facts import Facts
from .index_ranges import IndexRanges
from .nest import AccessSite
from .sums import Summer

# per dimension (first index, number of values), or (lowest, highest) index
Box = tuple[tuple[sympy.Expr, sympy.Expr], ...]
Stride = tuple[sympy.Expr, sympy.Expr]  # (stride, trips) of one counter in one dimension

MAX_UNION_ACCESSES = 8  # distinct shifted boxes unioned exactly; more get a bounding box


@record
class Footprint:
    elements: sympy.Expr  # in the iterators outside the region and the sizes
    exact: bool


class Footprints:
    """Distinct elements a set of accesses touches while the loops inside a region run.

    The analysis works in counter space: each inner iterator is replaced by lo + step*t,
    innermost first, so that tiles (`i in i0..i0+T` under `i0 in 0..M by T`) become
    affine maps of counters with rectangular ranges."""

    def __init__(self, facts: Facts, summer: Summer):
        self.facts = facts
        self.summer = summer
        # traffic, footprints, keep scopes and blocks ask for the same unions again
        self._unions: dict[tuple[tuple[AccessSite, ...], int], Footprint] = {}
        # and the same sites seen from the same depth: unions, boxes and whole-nest ranges
        # of one site from one region (a view is read, never changed)
        self._views: dict[tuple[AccessSite, int], CounterView] = {}
        self.ranges = IndexRanges(facts)

    def union(self, sites: list[AccessSite], outer_depth: int) -> Footprint:
        """Footprint of the union of `sites`; loops at depth >= outer_depth are inside."""
        key = (tuple(sites), outer_depth)
        if key not in self._unions:
            self._unions[key] = self._union(sites, outer_depth)
        return self._unions[key]

    def view(self, site: AccessSite, outer_depth: int) -> CounterView:
        """The site seen from the region at outer_depth, built once."""
        key = (site, outer_depth)
        if key not in self._views:
            self._views[key] = CounterView(site, outer_depth)
        return self._views[key]

    def _union(self, sites: list[AccessSite], outer_depth: int) -> Footprint:
        if not sites:
            return Footprint(sympy.Integer(0), True)
        views = [self.view(site, outer_depth) for site in sites]
        distinct = list({(view.indices, view.trips): view for view in views}.values())
        if len(distinct) == 1:
            return self._single(distinct[0])
        boxes = [box for box in map(self._box, distinct) if box is not None]
        if len(boxes) == len(distinct) and self._translates(boxes):
            return self._union_of_shifted_boxes(boxes)
        return self._bounding_box(distinct)

    def _single(self, view: CounterView) -> Footprint:
        used = view.used_counters()
        if not used:
            # one element, touched only when the loops inside run at all (`1..M`, M = 1)
            if all(loop.never_empty for loop in view.inner):
                return Footprint(sympy.Integer(1), True)
            if view.rectangular():
                # trips are nonnegative integers: the loops run at all when each one does
                return Footprint(sympy.Mul(*[sympy.Min(1, trips) for trips in view.trips]),
                                 True)
            runs = self.summer.over_loops(sympy.Integer(1), view.inner)
            return Footprint(sympy.Min(1, runs), True)
        injective = self._injective(view.indices, used) or self._mixed_radix(view, used)
        # a loop the access does not use still hides its points where it runs zero times
        unused_can_be_empty = any(not loop.never_empty for loop in view.inner
                                  if loop.counter not in used)
        if injective and view.closed(used) and not unused_can_be_empty:
            return Footprint(self.summer.over_loops(sympy.Integer(1), view.counter_loops(used)),
                             True)
        box = self._box(view)
        if box is not None:
            return Footprint(sympy.Mul(*[length for _, length in box]), True)
        return self._bounding_box([view])

    def _injective(self, indices: Sequence[sympy.Expr],
                   counters: Sequence[sympy.Symbol]) -> bool:
        """Distinct counter values reach distinct elements: some square minor of the index
        map's matrix is nonzero at every admissible size (`(T - 1)*i` is not, at T = 1)."""
        if not indices or len(indices) < len(counters):
            return False
        matrix = [[derivative(index, c) for c in counters] for index in indices]
        if all(entry.is_Rational for row in matrix for entry in row):
            return _rank(matrix) == len(counters)
        for rows in itertools.combinations(matrix, len(counters)):
            determinant = sympy.expand(determinant_of(list(rows)))
            if self.facts.positive(determinant) or self.facts.positive(-determinant):
                return True
        return False

    def _mixed_radix(self, view: CounterView, used: Sequence[sympy.Symbol]) -> bool:
        """Each counter moves one dimension, and within a dimension each stride exceeds
        the span of the finer ones (i = T*t0 + t with t < T): distinct counter values give
        distinct elements, even where edge tiles are clipped."""
        dimension_terms = []
        for index in view.indices:
            terms = [(derivative(index, c), c) for c in used if c in index.free_symbols]
            dimension_terms.append(terms)
        counters = [c for terms in dimension_terms for _, c in terms]
        if len(counters) != len(set(counters)):
            return False
        for terms in dimension_terms:
            spans = []
            for coefficient, counter in terms:
                sign = self._sign(coefficient)
                most_trips = largest_value(view.trips_of[counter], view.counters)
                if sign is None or most_trips is None:
                    return False
                spans.append((coefficient * sign, most_trips))
            if not self._strictly_nested(spans):
                return False
        return True

    def _strictly_nested(self, spans: list[Stride]) -> bool:
        covered = sympy.Integer(0)
        for stride, trips in self._finest_first(spans):
            if not self.facts.nonnegative(stride - covered - 1):
                return False
            covered += stride * (trips - 1)
        return True

    def _finest_first(self, strides: list[Stride]) -> list[Stride]:
        """Strides from the finest up, where the facts order them (T before T*a), numeric
        ones by value first; the callers' tests stay sound in any order, they only prove
        less when it is wrong."""
        pending = sorted(strides, key=lambda item: (not item[0].is_number,
                                                    item[0] if item[0].is_number else 0))
        ordered = []
        while pending:
            finest = next((item for item in pending
                           if all(self.facts.nonnegative(other[0] - item[0])
                                  for other in pending if other is not item)), pending[0])
            pending.remove(finest)
            ordered.append(finest)
        return ordered

    def _box(self, view: CounterView) -> list[tuple[sympy.Expr, sympy.Expr]] | None:
        """Per dimension (first index value, number of values) when the access covers a
        contiguous box: each counter moves one dimension, the counter ranges are
        rectangular, and the values in each dimension leave no gap."""
        if not view.rectangular() or not all(loop.never_empty for loop in view.inner):
            return None
        box = []
        claimed: set[sympy.Symbol] = set()
        for index in view.indices:
            terms = [(derivative(index, c), c) for c in view.counters if c in index.free_symbols]
            if any(c in claimed for _, c in terms):
                return None
            claimed.update(c for _, c in terms)
            signs = [sign for sign in (self._sign(coefficient) for coefficient, _ in terms)
                     if sign is not None]
            if len(signs) != len(terms):
                return None
            strides = [(coefficient * sign, view.trips_of[c]) for (coefficient, c), sign
                       in zip(terms, signs)]
            if not self._gapless(strides):
                return None
            start = index.subs({c: 0 if sign > 0 else view.trips_of[c] - 1
                                for (_, c), sign in zip(terms, signs)})
            length = 1 + sum((stride * (trips - 1) for stride, trips in strides),
                             sympy.Integer(0))
            box.append((sympy.expand(start), sympy.expand(length)))
        return box

    def _sign(self, value: sympy.Expr) -> int | None:
        """+1 or -1 where the facts prove the sign strictly (a stride T - 1 may be zero)."""
        if self.facts.positive(value):
            return 1
        if self.facts.positive(-value):
            return -1
        return None

    def _gapless(self, strides: list[Stride]) -> bool:
        """Progressions add up to an interval when, taken from the finest stride up, each
        stride is at most the span covered so far plus one."""
        covered = sympy.Integer(0)
        for stride, trips in self._finest_first(strides):
            if not self.facts.nonnegative(covered + 1 - stride):
                return False
            covered += stride * (trips - 1)
        return True

    @staticmethod
    def _translates(boxes: Sequence[Sequence[tuple[sympy.Expr, sympy.Expr]]]) -> bool:
        if len(boxes) > MAX_UNION_ACCESSES:
            return False
        lengths = [tuple(length for _, length in box) for box in boxes]
        if any(length != lengths[0] for length in lengths):
            return False
        starts = [tuple(start for start, _ in box) for box in boxes]
        return all(sympy.expand(a - b).is_number
                   for start in starts for a, b in zip(start, starts[0]))

    def _union_of_shifted_boxes(
            self, boxes: Sequence[Sequence[tuple[sympy.Expr, sympy.Expr]]]) -> Footprint:
        """Inclusion-exclusion over the distinct shifts of one box."""
        unique = list({tuple(start for start, _ in box): box for box in boxes}.values())
        lengths = [length for _, length in unique[0]]
        offsets = [[sympy.expand(start - unique[0][dim][0]) for dim, (start, _) in
                    enumerate(box)] for box in unique]
        # (dimension, spread of the shifts): the boxes' common width there
        overlaps: dict[tuple[int, sympy.Expr], sympy.Expr] = {}

        def overlap(dim: int, spread: sympy.Expr) -> sympy.Expr:
            if (dim, spread) not in overlaps:
                width = lengths[dim] - spread
                overlaps[dim, spread] = (width if self.facts.nonnegative(width)
                                         else sympy.Max(0, width))
            return overlaps[dim, spread]

        terms = []
        for size in range(1, len(unique) + 1):
            sign = 1 if size % 2 else -1
            for subset in itertools.combinations(range(len(unique)), size):
                volume = sympy.Integer(1)
                for dim in range(len(lengths)):
                    values = [offsets[k][dim] for k in subset]
                    volume *= overlap(dim, max(values) - min(values))
                terms.append(sign * volume)
        return Footprint(sympy.expand(sympy.Add(*terms)), True)

    def reach(self, sites: list[AccessSite], outer_depth: int) -> Box | None:
        """Per dimension the first and last index the sites reach while the loops from
        outer_depth in run, with clipped bounds kept (`min(i0 + T, M) - 1`, not `M - 1`):
        each iterator, innermost first, at its loop's first or last value, whichever moves
        the index that way. None where an index is not monotone in some iterator."""
        box = []
        for dim in range(len(sites[0].indices)):
            lows, highs = [], []
            for site in sites:
                inner = site.loops[outer_depth:]
                low = extreme_value(site.indices[dim], inner, self.facts, largest=False)
                high = extreme_value(site.indices[dim], inner, self.facts, largest=True)
                if low is None or high is None:
                    return None
                lows.append(low)
                highs.append(high)
            outer = sites[0].loops[:outer_depth]
            box.append((self.ranges.dominant(lows, outer, largest=False),
                        self.ranges.dominant(highs, outer, largest=True)))
        return tuple(box)

    def box(self, sites: list[AccessSite], outer_depth: int) -> Box | None:
        """Per dimension (lowest, highest) index the sites reach while the loops from
        outer_depth in run; None where a range has no bound."""
        views = [self.view(site, outer_depth) for site in sites]
        outer = views[0].outer
        box = []
        for dim in range(len(views[0].indices)):
            lows, highs = [], []
            for view in views:
                low, high = self.ranges.interval(view.indices[dim], view)
                if low is None or high is None:
                    return None
                lows.append(low)
                highs.append(high)
            box.append((self.ranges.dominant(lows, outer, largest=False),
                        self.ranges.dominant(highs, outer, largest=True)))
        return tuple(box)

    def _bounding_box(self, views: list[CounterView]) -> Footprint:
        """Upper bound: the product of each dimension's value range over every access
        (the declared extent where a range cannot be bounded)."""
        volume = sympy.Integer(1)
        for dim in range(len(views[0].indices)):
            lows, highs = [], []
            for view in views:
                low, high = self.ranges.interval(view.indices[dim], view)
                if low is None or high is None:
                    lows, highs = [sympy.Integer(0)], [view.extent[dim] - 1]
                    break
                lows.append(low)
                highs.append(high)
            outer = views[0].outer
            high = self.ranges.dominant(highs, outer, largest=True)
            low = self.ranges.dominant(lows, outer, largest=False)
            if outer and iterator_minmax(high - low, outer):
                high, low = self._whole_nest_range(views, dim)
            width = high - low + 1
            if not self.facts.nonnegative_within(width, outer):
                # negative only where the loops inside never run: nothing is touched then
                width = sympy.Max(0, width)
            volume *= width
        return Footprint(volume, False)

    def _whole_nest_range(self, views: list[CounterView],
                          dim: int) -> tuple[sympy.Expr, sympy.Expr]:
        """The dimension's range over the whole nest, outer loops included: wider than one
        entry's, so still an upper bound, and free of the outer iterators. A min/max of them
        left in a fill would be split at every sum over the outer loops, term by term, which
        takes minutes for a 4-deep nest; a fill made of sizes only sums at once."""
        lows, highs = [], []
        for view in (self.view(view.site, 0) for view in views):
            low, high = self.ranges.interval(view.indices[dim], view)
            if low is None or high is None:
                return view.extent[dim] - 1, sympy.Integer(0)
            lows.append(low)
            highs.append(high)
        return (self.ranges.dominant(highs, (), largest=True),
                self.ranges.dominant(lows, (), largest=False))


def _rank(rows: list[list[sympy.Rational]]) -> int:
    """The rank of a matrix of rationals, by exact elimination. sympy's Matrix.rank permutes
    columns through sympy.combinatorics, whose import (its polyhedra are built on import)
    costs more than the rest of a small count."""
    remaining = [[Fraction(int(entry.p), int(entry.q)) for entry in row] for row in rows]
    rank = 0
    for column in range(len(remaining[0]) if remaining else 0):
        pivot = next((row for row in remaining if row[column] != 0), None)
        if pivot is None:
            continue
        remaining.remove(pivot)
        remaining = [[value - row[column] / pivot[column] * pivot_value
                      for value, pivot_value in zip(row, pivot)] for row in remaining]
        rank += 1
    return rank
