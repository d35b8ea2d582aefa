"""Axis functions as tables for arrays of positions, and the boxes of a tensor by axis.

An axis function (axis_classes) is evaluated at many positions at once in int64: each piece
keeps its Newton coefficients c_j (forward differences at its first position), so that

    value(start + q) = sum_j c_j C(q, j)      sum of the values before start + q
                                               = before + sum_j c_j C(q, j + 1)

exactly, with no division but the exact one of a binomial coefficient. A whole-number
polynomial has whole Newton coefficients; a bound that is not a whole number at some block
is a ValueError, as in the enumeration.

A tensor's box in one block is a product over its dimensions of [first, last]. A dimension
whose bounds hold no grid index is a constant factor; one that holds one grid index belongs
to that axis, where it is
- tiles: the intervals of distinct positions are disjoint (first(p + 1) > last(p)), so a union
  over positions is the sum of their widths;
- intervals: first and last never fall and leave no hole (first(p + 1) <= last(p) + 1, halos
  and causal prefixes), so the union over a run a .. b is [first(a), last(b)].
Several dimensions on one axis need one of tiles (their product is then disjoint, whatever
the others do: a causal row tile times its prefix of keys). Anything else (falling bounds,
holes mixed with overlaps, a bound of two grid indices) is Unclassified."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from enum import StrEnum
from fractions import Fraction

import numpy as np
import sympy

from ..base.records import record
from .axis_classes import (
    Piece,
    Pieces,
    Poly,
    at_least,
    combine,
    poly_add,
    poly_at,
    poly_mul,
    poly_scale,
    shifted,
)
from .block_classes import GridAxes, substituted
from .unclassified import Reason, Unclassified, Why

Array = np.ndarray
SAFE = 1 << 62  # magnitudes int64 arithmetic may reach here


class AxisTable:
    """An axis function at arrays of positions (int64, exact)."""

    def __init__(self, function: Pieces, text: str):
        self.pieces = function
        self.count = function[-1].stop if function else 0
        self.starts = np.array([piece.start for piece in function] or [0], dtype=np.int64)
        terms = max((min(len(piece.poly), piece.stop - piece.start) for piece in function),
                    default=1) or 1
        coefficients, before, total, largest = [], [], 0, 0
        for piece in function:
            length = piece.stop - piece.start
            points = [poly_at(piece.poly, q) for q in range(min(terms, length))]
            if any(value.denominator != 1 for value in points):
                raise ValueError(f"`{text}` is not an integer at some block")
            newton = _differences([int(value) for value in points])
            coefficients.append(newton + [0] * (terms - len(newton)))
            before.append(total)
            largest = max(largest, abs(total) + sum(abs(c) * math.comb(length, j + 1)
                                                    for j, c in enumerate(newton)),
                          math.comb(length, terms) * terms)
            total += sum(c * math.comb(length, j + 1) for j, c in enumerate(newton))
        if largest >= SAFE:
            raise Unclassified(Why(Reason.SUM_OVERFLOW, text))
        self.coefficients = np.array(coefficients or [[0]], dtype=np.int64)
        self.before = np.array(before or [0], dtype=np.int64)
        self.total = total

    def _locate(self, positions: Array) -> tuple[Array, Array]:
        if len(self.starts) == 1:
            return np.zeros(np.shape(positions), dtype=np.int64), positions - self.starts[0]
        piece = np.searchsorted(self.starts, positions, side="right") - 1
        return piece, positions - self.starts[piece]

    def value(self, positions: Array) -> Array:
        """The function at positions 0 .. count - 1."""
        piece, q = self._locate(positions)
        out = self.coefficients[piece, 0].copy()
        binomial = np.ones_like(q)
        for j in range(1, self.coefficients.shape[1]):
            binomial = binomial * (q - j + 1) // j
            out += self.coefficients[piece, j] * binomial
        return out

    def before_position(self, positions: Array) -> Array:
        """The sum of the values at the positions before each (0 .. count allowed)."""
        piece, q = self._locate(positions)
        out = self.before[piece].copy()
        binomial = q.copy()
        for j in range(self.coefficients.shape[1]):
            if j:
                binomial = binomial * (q - j) // (j + 1)
            out += self.coefficients[piece, j] * binomial
        return out

    def run_sum(self, first: Array, last: Array) -> Array:
        """The sum over first .. last (0 where last < first)."""
        low = np.clip(first, 0, self.count)
        high = np.clip(last + 1, low, self.count)
        return self.before_position(high) - self.before_position(low)


def _differences(values: list[int]) -> list[int]:
    newton = []
    while values:
        newton.append(values[0])
        values = [b - a for a, b in itertools.pairwise(values)]
    return newton


class AxisKind(StrEnum):
    """What a tensor's boxes do along one grid axis (the module docstring)."""

    TILES = "tiles"
    INTERVALS = "intervals"


@record
class AxisBox:
    """What one tensor's box does along one grid axis."""

    axis: int
    kind: AxisKind
    weight: AxisTable | None  # tiles: elements at each position (the widths' product)
    first: AxisTable | None  # intervals: the first and last index at each position
    last: AxisTable | None

    def hull(self) -> int:
        """Elements of the union over every position (a bound for the int64 checks)."""
        if self.weight is not None:
            return self.weight.total
        assert self.first is not None and self.last is not None
        if self.first.count == 0:
            return 0
        end = np.array([self.first.count - 1])
        return int(self.last.value(end)[0] - self.first.value(np.zeros(1, np.int64))[0] + 1)


@record
class BoxPlan:
    """A tensor's box in one block: `constant` elements from the dimensions free of the grid
    indices (0: the box is empty), times its parts along the axes."""

    tensor: str
    constant: int
    parts: tuple[AxisBox, ...]

    def bound(self) -> int:
        return self.constant * math.prod(part.hull() for part in self.parts)


def box_plan(tensor: str, box: Sequence[tuple[object, object]], axes: GridAxes,
             sizes: Mapping[str, sympy.Rational]) -> BoxPlan:
    """The tensor's box by axis at `sizes`: worked out once for each box, grid and the sizes
    the box holds (tune re-scores each candidate under every raster order, and candidates
    that differ in stages, threads or cluster only, with the same boxes)."""
    box = tuple(box)
    held = tuple((name, sizes[name]) for name in _size_names(box, axes.iterators)
                 if name in sizes)
    return _box_plan(tensor, box, axes, held)


@functools.lru_cache(maxsize=256)
def _size_names(box: tuple[tuple[object, object], ...],
                iterators: tuple[sympy.Symbol, ...]) -> tuple[str, ...]:
    """The names of the symbols a box's bounds hold, the grid's iterators aside, sorted."""
    keep = frozenset(iterators)
    return tuple(sorted({symbol.name for pair in box for bound in pair
                         for symbol in getattr(bound, "free_symbols", ())
                         if symbol not in keep}))


@functools.lru_cache(maxsize=256)
def _box_plan(tensor: str, box: tuple[tuple[object, object], ...], axes: GridAxes,
              given: tuple[tuple[str, sympy.Rational], ...]) -> BoxPlan:
    sizes = dict(given)
    index = {iterator: k for k, iterator in enumerate(axes.iterators)}
    keep = frozenset(index)
    constant = 1
    by_axis: dict[int, list[tuple[Pieces, Pieces, str]]] = {}
    for low, high in box:
        first, last = substituted(low, sizes, keep), substituted(high, sizes, keep)
        free = first.free_symbols | last.free_symbols
        if free - keep:
            raise ValueError(f"`{first}, {last}` needs a value for "
                             f"{', '.join(sorted(map(str, free - keep)))}")
        held = {index[symbol] for symbol in free}
        if not held:
            width = sympy.Rational(last - first + 1)
            if width.q != 1:
                raise ValueError(f"`{last - first + 1}` is not an integer at some block")
            constant *= max(int(width), 0)
        elif len(held) > 1:
            raise Unclassified(Why(Reason.BOX_INDICES, tensor, count=len(held)))
        else:
            axis = held.pop()
            by_axis.setdefault(axis, []).append(
                (axes.function(first, axis), axes.function(last, axis), f"{first}..{last}"))
    parts = tuple(_axis_box(tensor, axis, dims, axes.counts[axis])
                  for axis, dims in sorted(by_axis.items()))
    return BoxPlan(tensor, constant, parts)


def _axis_box(tensor: str, axis: int, dims: list[tuple[Pieces, Pieces, str]],
              count: int) -> AxisBox:
    """One dimension of tiles makes the boxes of distinct positions disjoint, whatever the
    others do (a causal row tile times its prefix of keys): their widths' product is the
    weight. Without one, a single dimension of intervals."""
    kinds = [_kind(tensor, first, last, count) for first, last, _ in dims]
    if AxisKind.TILES in kinds:
        widths = [_width(first, last) for first, last, _ in dims]
        weight = combine(widths, _product) if len(widths) > 1 else widths[0]
        text = " x ".join(text for _, _, text in dims)
        return AxisBox(axis, AxisKind.TILES, AxisTable(weight, text), None, None)
    if len(dims) > 1 or kinds[0] is None:
        raise Unclassified(Why(Reason.BOX_SHAPE, tensor))
    first, last, text = dims[0]
    return AxisBox(axis, AxisKind.INTERVALS, None, AxisTable(first, text),
                   AxisTable(last, text))


def _product(polys: list[Poly]) -> Poly:
    result = polys[0]
    for poly in polys[1:]:
        result = poly_mul(result, poly)
    return result


def _difference(a: Pieces, b: Pieces, plus: int = 0) -> Pieces:
    """a - b + plus, on the positions both cover."""
    stop = min(a[-1].stop, b[-1].stop) if a and b else 0
    return combine([_restricted(a, stop), _restricted(b, stop)],
                   lambda polys: poly_add(poly_add(polys[0], poly_scale(polys[1], Fraction(-1))),
                                          (Fraction(plus),)))


def _restricted(f: Pieces, stop: int) -> Pieces:
    return tuple(Piece(piece.start, min(piece.stop, stop), piece.poly) for piece in f
                 if piece.start < stop)


def _width(first: Pieces, last: Pieces) -> Pieces:
    return _difference(last, first, 1)


def _kind(tensor: str, first: Pieces, last: Pieces, count: int) -> AxisKind | None:
    """tiles, intervals (module docstring) or None."""
    if not at_least(_width(first, last), 0):
        raise Unclassified(Why(Reason.BOX_REVERSED, tensor))
    if count <= 1:
        return AxisKind.TILES
    if at_least(_difference(shifted(first), last, -1), 0):  # first(p + 1) > last(p)
        return AxisKind.TILES
    rising = at_least(_difference(shifted(first), first), 0) and \
        at_least(_difference(shifted(last), last), 0)
    if rising and at_least(_difference(last, shifted(first), 1), 0) and \
            at_least(_width(first, last), 1):
        return AxisKind.INTERVALS
    return None
