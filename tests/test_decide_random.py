"""The model's comparisons on random rational functions of one size and of several, with and
without roundings, against exact values at sizes from 1 to 10^9 and against sympy."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import assume, event, given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra import decide
from kernelcost.algebra.decide import (
    at_least,
    at_most,
    largest,
    less_than,
    smallest,
)
from kernelcost.base.symbols import size_symbol

n, N, T, M, K = (size_symbol(name) for name in ("n", "N", "T", "M", "K"))


# Random rational functions of n: numerator and denominator of degree 0 to 3 with small
# integer coefficients, times (n - r) or (n - r)^2 for a root r in [1, 10] (on an integer
# or between two), or written twice (an exact zero).
ROOTS = st.builds(Fraction, st.integers(2, 20), st.sampled_from([1, 2]))
COEFFICIENTS = st.lists(st.integers(-4, 4), min_size=1, max_size=4)


@st.composite
def polynomials(draw) -> list[Fraction]:
    """Coefficients, constant term first."""
    coefficients = [Fraction(c) for c in draw(COEFFICIENTS)]
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):  # a root in range, maybe double
        root = draw(ROOTS)
        coefficients = _times(coefficients, [-root, Fraction(1)])
    return coefficients


def _times(first: list[Fraction], second: list[Fraction]) -> list[Fraction]:
    product = [Fraction(0)] * (len(first) + len(second) - 1)
    for i, a in enumerate(first):
        for j, b in enumerate(second):
            product[i + j] += a * b
    return product


def _value(coefficients: list[Fraction], size: int) -> Fraction:
    return sum((c * size**power for power, c in enumerate(coefficients)), Fraction(0))


def _expr(coefficients: list[Fraction]) -> sympy.Expr:
    return sympy.Add(*(sympy.Rational(c.numerator, c.denominator) * n**power
                       for power, c in enumerate(coefficients)))


def _sign_of_difference(difference, polynomials, size: int) -> int:
    """The sign at `size` in Python's fractions, or as sympy evaluates it where a
    denominator vanishes (sympy reads 0/(n - 2) as 0 and (n - 2)/(n - 2) as 1)."""
    top, bottom, other_top, other_bottom = (_value(p, size) for p in polynomials)
    if bottom and other_bottom:
        value = top / bottom - other_top / other_bottom
    else:
        by_sympy = difference.subs(n, size)
        assert by_sympy.is_Rational, (size, by_sympy)
        value = Fraction(int(by_sympy.p), int(by_sympy.q))
    return (value > 0) - (value < 0)


SIZES = [*range(1, 201), *(10**k for k in range(3, 10)), *(7 * 10**k + 3 for k in range(3, 9))]


@tiered(100)
@given(polynomials(), polynomials(), polynomials(), st.booleans())
def test_one_size_agrees_with_exact_values_and_sympy(top, bottom, other_top, twice):
    if not any(bottom):
        bottom = [Fraction(1)]
    if twice:  # f - f written as (f * g) / (bottom * g), g without positive roots
        other_top, other_bottom = _times(top, [Fraction(3), Fraction(1)]), _times(bottom, [3, 1])
    else:
        other_bottom = [Fraction(1)]
    first, second = _expr(top) / _expr(bottom), _expr(other_top) / _expr(other_bottom)
    difference = first - second
    assume(difference.free_symbols == {n})
    sign = decide.one_size_sign(difference)
    if sign is not None:
        for size in SIZES:  # a proven sign holds at every size
            assert _sign_of_difference(difference, (top, bottom, other_top, other_bottom),
                                       size) == sign, size
    # what the deciders prove, sympy never contradicts (it proves more, squares among them,
    # and sometimes what is false: F14)
    for by_sympy, ours in ((difference < 0, less_than(difference, 0)),
                           (difference <= 0, at_most(difference, 0)),
                           (difference >= 0, at_least(difference, 0))):
        if decide.decided(by_sympy) is not None and ours is not None:
            assert ours == decide.decided(by_sympy)
    by_sympy = sympy.Min(first, second)
    ours = smallest(first, second)
    if not isinstance(by_sympy, sympy.Min) and not isinstance(ours, sympy.Min):
        assert sympy.cancel(ours - by_sympy) == 0  # of two equal forms, either
    if sign:
        assert smallest(first, second) == (second if sign > 0 else first)
        assert largest(first, second) == (first if sign > 0 else second)


# Random rational functions of two or three sizes: numerator and denominator each a product
# of one or two polynomials with degree 0 to 2 in every size and small integer coefficients,
# mostly positive, so that the shifted coefficients often decide.
SEVERAL = (N, T, M)
GRID = range(1, 31)
LARGE = (10**3, 10**6, 7 * 10**8 + 3)
TERMS = st.tuples(st.tuples(*(st.integers(0, 2) for _ in SEVERAL)),
                  st.sampled_from([-3, -1, 1, 1, 2, 3, 5]))


@st.composite
def products(draw, sizes: int) -> list[dict[tuple[int, ...], int]]:
    """One or two polynomials to multiply, each {exponents: coefficient}."""
    factors = []
    for _ in range(draw(st.integers(1, 2))):
        terms: dict[tuple[int, ...], int] = {}
        for exponents, coefficient in draw(st.lists(TERMS, min_size=1, max_size=4)):
            exponents = exponents[:sizes]
            terms[exponents] = terms.get(exponents, 0) + coefficient
        factors.append(terms)
    return factors


def _product_value(factors, point: tuple[int, ...]) -> int:
    return math.prod(sum(coefficient * math.prod(size**e for size, e in zip(point, exponents))
                         for exponents, coefficient in terms.items()) for terms in factors)


def _product_expr(factors, sizes: int, symbols=SEVERAL) -> sympy.Expr:
    return sympy.Mul(*(sympy.Add(*(coefficient * sympy.Mul(*(symbol**e for symbol, e in
                                                             zip(symbols[:sizes], exponents)))
                                   for exponents, coefficient in terms.items()))
                       for terms in factors))


def _assert_sign_holds(sign: int, top, bottom, sizes: int, values_at) -> None:
    """The quotient top / bottom has `sign` at every point of the grid and of the large
    sizes where bottom is not 0, its variables taking values_at(point)."""
    for point in itertools.chain(itertools.product(GRID, repeat=sizes),
                                 itertools.product(LARGE, repeat=sizes)):
        values = values_at(point)
        bottom_value = _product_value(bottom, values)
        if bottom_value:
            value = Fraction(_product_value(top, values), bottom_value)
            assert (value > 0) - (value < 0) == sign, (point, values)


@tiered(60)
@given(st.integers(2, 3), st.data())
def test_shifted_coefficients_agree_with_exact_values_and_sympy(sizes, data):
    top, bottom, other_top, other_bottom = (data.draw(products(sizes)) for _ in range(4))
    first = _product_expr(top, sizes) / _product_expr(bottom, sizes)
    second = _product_expr(other_top, sizes) / _product_expr(other_bottom, sizes)
    difference = first - second
    assume(len(difference.free_symbols) >= 2)
    sign = decide.shifted_sign(difference)
    event(f"shifted sign: {sign}")
    if sign is not None:  # a proven sign holds at every size where the function has a value
        points = itertools.chain(itertools.product(GRID, repeat=sizes),
                                 itertools.product(LARGE, repeat=sizes))
        for point in points:
            top_value, bottom_value, other_top_value, other_bottom_value = (
                _product_value(part, point) for part in (top, bottom, other_top, other_bottom))
            if bottom_value and other_bottom_value:
                value = (Fraction(top_value, bottom_value)
                         - Fraction(other_top_value, other_bottom_value))
                assert (value > 0) - (value < 0) == sign, point
    for by_sympy, ours in ((difference < 0, less_than(difference, 0)),
                           (difference <= 0, at_most(difference, 0)),
                           (difference >= 0, at_least(difference, 0))):
        if decide.decided(by_sympy) is not None and ours is not None:
            assert ours == decide.decided(by_sympy)
        if sign is not None:
            assert ours is not None


ROUNDINGS = st.one_of(st.none(), st.tuples(st.sampled_from([math.ceil, math.floor]),
                                           st.integers(1, 4), st.integers(-3, 3)))
SYMPY_ROUNDING = {math.ceil: sympy.ceiling, math.floor: sympy.floor}


@tiered(60)
@given(st.integers(1, 3), st.data())
def test_rounded_sizes_agree_with_exact_values(sizes, data):
    """A ceiling of (size + c) / q taken as a size of its own: wherever the shifted
    coefficients then decide, the sign holds at the rounded values of every size."""
    roundings = [data.draw(ROUNDINGS) for _ in range(sizes)]
    top, bottom = data.draw(products(sizes)), data.draw(products(sizes))
    rounded = {symbol: SYMPY_ROUNDING[rounding[0]]((symbol + rounding[2]) / rounding[1])
               for symbol, rounding in zip(SEVERAL, roundings) if rounding is not None}
    difference = (_product_expr(top, sizes) / _product_expr(bottom, sizes)).xreplace(rounded)
    sign = decide.shifted_sign(difference)
    event(f"shifted sign: {sign}")
    if sign is not None:
        _assert_sign_holds(sign, top, bottom, sizes, lambda point: tuple(
            size if rounding is None else rounding[0](Fraction(size + rounding[2], rounding[1]))
            for size, rounding in zip(point, roundings)))


@pytest.mark.parametrize("difference, sign", [
    # flash_attention's global term under its tensor term on an RTX 4090: a wave count >= 1
    (1024 * N * sympy.ceiling(N / 16384) / 20166015625 - N / 984375000, 1),
    (sympy.ceiling(N / 7) * T - T / 2, 1),  # a ceiling of a positive quantity is >= 1
])
def test_rounded_sizes_prove_a_sign(difference, sign):
    assert decide.shifted_sign(difference) == sign


@pytest.mark.parametrize("difference", [
    2 * sympy.floor((N + 3) / 4) - 1,  # a floor may be 0: none is taken as a size
    sympy.ceiling(N - 2) * T + 1,  # the ceiling of a quantity that is not positive
    sympy.ceiling(N / 3) - N,  # the ceiling's tie to N is not used: no sign proven
])
def test_rounded_sizes_unproven(difference):
    assert decide.shifted_sign(difference) is None


# --- roundings through their bounds -------------------------------------------------------

ROUNDED = st.tuples(st.sampled_from([math.ceil, math.floor]), st.integers(1, 130),
                    st.integers(-3, 3))


@tiered(120)
@given(st.integers(1, 2), st.data())
def test_bounded_roundings_agree_with_exact_values(sizes, data):
    """Polynomials in sizes and a rounding of (size + c) / q next to the size itself, so that
    only the rounding's tie to its argument can decide: wherever a choice of bounds proves a
    sign, it holds at the rounded values."""
    roundings = [data.draw(ROUNDED) for _ in range(sizes)]
    slots = 2 * sizes  # N, rounding of N, then T, rounding of T
    top, bottom = data.draw(products(slots)), data.draw(products(slots))
    symbols = [symbol for size in SEVERAL[:sizes] for symbol in (size, sympy.Dummy())]
    rounded = {symbols[2 * k + 1]: SYMPY_ROUNDING[function]((SEVERAL[k] + shift) / quotient)
               for k, (function, quotient, shift) in enumerate(roundings)}

    difference = (_product_expr(top, slots, symbols)
                  / _product_expr(bottom, slots, symbols)).xreplace(rounded)
    sign = decide.rounded_sign(difference)
    event(f"rounded sign: {sign}")
    if sign is not None:
        _assert_sign_holds(sign, top, bottom, sizes, lambda point: tuple(
            value for size, (function, quotient, shift) in zip(point, roundings)
            for value in (size, function(Fraction(size + shift, quotient)))))


@pytest.mark.parametrize("difference, sign", [
    # gemm_tiled_clipped on an H100: the roof above the memory term (ceiling(N/128) >= N/128)
    (990 * 10**12 - 3350 * 10**9 * N * M * T / (
        N * M * sympy.ceiling(T / 128) + N * T * sympy.ceiling(M / 128) + M * T), 1),
    # moe_gemm: a floor under its argument, and a Min of sizes taken as a size
    (12 - sympy.floor(sympy.Integer(102400) / (512 * sympy.Min(64, M) + 66560)), 1),
    (sympy.ceiling(N / 7) * T - T * N / 7 + 1, 1),
])
def test_bounded_roundings_prove_a_sign(difference, sign):
    assert decide.shifted_sign(difference) is None
    assert decide.rounded_sign(difference) == sign


@pytest.mark.parametrize("difference", [
    sympy.ceiling(N / 128) - N / 128,  # 0 at multiples of 128: no strict sign
    sympy.ceiling(N / 2) - sympy.floor(N / 2),  # 0 or 1
    sympy.floor(N / 3) - N / 4,  # < 0 at N = 1, > 0 at N = 3
])
def test_bounded_roundings_unproven(difference):
    assert decide.rounded_sign(difference) is None
