"""The axis engine (gpu.axis_classes) against sympy: the pieces of one grid index's
expression, each a polynomial in the position, give sympy's value at every position."""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.gpu.axis_classes import axis_function, poly_at
from kernelcost.gpu.unclassified import Unclassified

X = sympy.Symbol("x", integer=True)
SIZES = (5, 7, 12, 30)


@st.composite
def axis_expressions(draw, depth: int = 3) -> sympy.Expr:
    """Expressions of one grid index the specs make: affine forms of x, min and max with a
    size (clipping), floor and ceiling by a tile, sums and products of those."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.integers(-3, 4)) * X + draw(st.sampled_from(SIZES + (0, 1, -2)))
    kind = draw(st.sampled_from(("min", "max", "floor", "ceiling", "add", "mul")))
    a, b = draw(axis_expressions(depth - 1)), draw(axis_expressions(depth - 1))
    if kind in ("min", "max"):
        return (sympy.Min if kind == "min" else sympy.Max)(a, b)
    if kind in ("floor", "ceiling"):
        tile = draw(st.sampled_from((1, 2, 4)))
        return (sympy.floor if kind == "floor" else sympy.ceiling)(a / tile)
    return a + b if kind == "add" else a * b


@tiered(300)
@given(axis_expressions(), st.integers(-4, 4), st.sampled_from((1, 2, 3, 8)),
       st.integers(1, 90))
def test_axis_functions_match_sympy_position_by_position(expr, low, step, count):
    """x = low + step p: each piece's polynomial at each of its positions is sympy's value;
    or the expression is unclassified (a min of curves, a fractional floor over a long run)."""
    try:
        pieces = axis_function(expr, X, Fraction(low), Fraction(step), count)
    except Unclassified:
        return
    assert pieces[0].start == 0 and pieces[-1].stop == count
    assert all(a.stop == b.start for a, b in itertools.pairwise(pieces))
    for piece in pieces:
        for p in range(piece.start, piece.stop):
            value = expr.subs(X, low + step * p)
            assert poly_at(piece.poly, p - piece.start) == Fraction(int(value.p), int(value.q))


def test_a_clipped_axis_is_two_pieces_however_long():
    """min(x + 128, M) - x over 10^8 tiles of 128 (M = 128 (10^8 - 1) + 5): one piece of the
    interior tiles, one of the clipped last."""
    count, tile = 10**8, 128
    extent = tile * (count - 1) + 5
    pieces = axis_function(sympy.Min(X + tile, extent) - X, X, Fraction(0), Fraction(tile),
                           count)
    assert [(p.start, p.stop, p.poly) for p in pieces] == [(0, count - 1, (128,)),
                                                             (count - 1, count, (5,))]
