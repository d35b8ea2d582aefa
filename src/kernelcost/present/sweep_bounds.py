"""The spec's assumed bounds (`assume n <= 4096`) as tests of arrays of sizes: a sweep or a
phase plane past them is past what the closed forms hold for, and says so."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy
import sympy

from ..answers.search import HOLDS
from ..base.records import record
from ..count.values import evaluate
from .vectorize import vectorized


@record
class SweptBound:
    """An assumed bound with the other sizes at their values, as a test of swept sizes."""

    text: str  # as the spec's analysis names it: `n <= 4096`
    left: Callable[[numpy.ndarray], numpy.ndarray]
    right: Callable[[numpy.ndarray], numpy.ndarray]
    relation: type

    def holds(self, sizes: numpy.ndarray) -> numpy.ndarray:
        return HOLDS[self.relation](self.left(sizes), self.right(sizes))


@record
class Broken:
    """How many swept sizes break an assumed bound, and the least and largest of them."""

    text: str
    count: int
    least: float
    largest: float

    def joined(self, other: Broken) -> Broken:
        return Broken(self.text, self.count + other.count, min(self.least, other.least),
                      max(self.largest, other.largest))


def swept_bounds(bounds, symbol: sympy.Symbol, values: Mapping) -> tuple[SweptBound, ...]:
    """The bounds as tests of the swept size, the other sizes at their values (a bound on
    those alone holds at every swept size or at none)."""
    swept = []
    for relation in bounds:
        left, right = (evaluate(side, values) for side in (relation.lhs, relation.rhs))
        if (left.free_symbols | right.free_symbols) <= {symbol} and type(relation) in HOLDS:
            swept.append(SweptBound(str(relation), vectorized(left, symbol),
                                    vectorized(right, symbol), type(relation)))
    return tuple(swept)
