"""algebra.floor_sums: sums of floors and ceilings of lines with rational slopes, closed by
residue classes, against brute-force enumeration over random slopes, offsets and bounds."""

from __future__ import annotations

import math

import sympy
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra.floor_sums import MAX_PERIOD, close_sums, power_sum, rounded_sum

m = sympy.Symbol("m", integer=True)
n = sympy.Symbol("n", integer=True, positive=True)
c = sympy.Symbol("c", integer=True, positive=True)

_slopes = st.tuples(st.integers(-9, 9).filter(bool), st.integers(1, 8))
_offsets = st.tuples(st.integers(-20, 20), st.integers(1, 9))


def _round(kind, fraction: sympy.Rational) -> int:
    return math.floor(fraction) if kind is sympy.floor else math.ceil(fraction)


def _value(expr: sympy.Expr, **sizes: int) -> sympy.Rational:
    found = expr.xreplace({sympy.Symbol(name, integer=True, positive=True): sympy.Integer(v)
                           for name, v in sizes.items()})
    assert found.is_Rational, found
    return found


@tiered(160)
@given(_slopes, _offsets, st.sampled_from((sympy.floor, sympy.ceiling)),
       st.integers(0, 3), st.integers(-3, 3), st.integers(1, 3))
def test_a_polynomial_times_a_rounding_sums_as_its_terms(slope, offset, kind, power, first,
                                                          divisor):
    # sum over m = first..floor(n / divisor) - 1 of m^power * rounding(p/r m + q/s): the
    # count a symbolic bound with its own floor, as S / Br is where Br does not divide S
    p, r = slope
    q, s = offset
    line = sympy.Rational(p, r) * m + sympy.Rational(q, s)
    summand = m**power * kind(line) + kind(line) ** 2
    last = sympy.floor(n / divisor) - 1
    closed = rounded_sum(summand, m, sympy.Integer(first), last)
    assert closed is not None and not closed.has(sympy.Sum)
    for size in range(0, 40):
        top = size // divisor - 1
        if top < first - 1:
            continue  # a range of negative count: the callers never ask for one
        truth = sum(k**power * _round(kind, sympy.Rational(p * k, r) + sympy.Rational(q, s))
                    + _round(kind, sympy.Rational(p * k, r) + sympy.Rational(q, s)) ** 2
                    for k in range(first, top + 1))
        assert _value(closed, n=size) == truth


@tiered(120)
@given(_slopes, _offsets, _slopes, st.integers(-6, 6), st.booleans())
def test_a_min_or_max_of_a_rounding_and_a_size_splits_where_it_changes(slope, offset, other,
                                                                       shift, smallest):
    # min(ceil(p/r m + q/s), c + shift) + floor(p2/r2 m): two roundings of different periods,
    # one of them clipped by a symbol, summed over m = 0..n - 1
    p, r = slope
    q, s = offset
    p2, r2 = other
    clipped = (sympy.Min if smallest else sympy.Max)(
        sympy.ceiling(sympy.Rational(p, r) * m + sympy.Rational(q, s)), c + shift)
    summand = clipped * m + sympy.floor(sympy.Rational(p2, r2) * m)
    closed = rounded_sum(summand, m, sympy.Integer(0), n - 1)
    assert closed is not None and not closed.has(sympy.Sum)
    pick = min if smallest else max
    for size in (1, 2, 5, 11, 24):
        for cap in (1, 3, 7, 20):
            truth = sum(pick(math.ceil(sympy.Rational(p * k, r) + sympy.Rational(q, s)),
                             cap + shift) * k + math.floor(sympy.Rational(p2 * k, r2))
                        for k in range(size))
            assert _value(closed, n=size, c=cap) == truth


@tiered(60)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(0, 4)), min_size=1, max_size=4),
       st.integers(-4, 4))
def test_power_sums_are_faulhabers_formula(terms, first):
    summand = sympy.expand(sum(coefficient * m**power for coefficient, power in terms))
    closed = power_sum(summand, m, sympy.Integer(first), n + first - 1)
    assert closed is not None
    for size in range(0, 8):
        truth = sum(summand.subs(m, k) for k in range(first, first + size))
        assert _value(sympy.expand(closed), n=size) == truth


def test_what_it_cannot_close_it_leaves():
    T = sympy.Symbol("T", integer=True, positive=True)
    # a symbolic slope, a period past the limit, a rounding of a rounding: no closed form
    assert rounded_sum(sympy.ceiling(m / T), m, sympy.Integer(0), n - 1) is None
    wide = sympy.ceiling(m / sympy.Integer(MAX_PERIOD + 1))
    assert rounded_sum(wide, m, sympy.Integer(0), n - 1) is None
    nested = sympy.floor(sympy.ceiling(m / sympy.Integer(2)) / 3)
    assert rounded_sum(nested, m, sympy.Integer(0), n - 1) is None
    kept = sympy.Sum(sympy.ceiling(m / T), (m, 0, n - 1))
    assert close_sums(kept) == kept


def test_close_sums_closes_the_causal_tiles_of_192_by_128():
    # FA3's d = 64 causal tiles: query tile m runs ceil((192 m + 192) / 128) key tiles
    S = sympy.Symbol("S", integer=True, positive=True)
    tiles = sympy.Sum(sympy.ceiling((192 * m + 192) / sympy.Integer(128)),
                      (m, 0, sympy.floor(S / 192) - 1))
    closed = close_sums(2 * tiles + S)
    assert not closed.has(sympy.Sum)
    for size in (191, 192, 383, 384, 512, 1000, 16384):
        truth = sum(-(-(192 * k + 192) // 128) for k in range(size // 192))
        assert closed.xreplace({S: size}) == 2 * truth + size
