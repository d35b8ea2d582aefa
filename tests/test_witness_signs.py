"""signs_at_witnesses evaluates a ridge's roots and conditions (rationals and one square root)
in exact arithmetic, with the signs sympy's own substitution gives."""

from __future__ import annotations

from fractions import Fraction

import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra import surds, witnesses
from kernelcost.base.symbols import RIDGE

t = RIDGE  # a positive real: its witnesses are rationals from 1/1000 to 10**12
n = sympy.Symbol("n", integer=True, positive=True)

numbers = st.sampled_from((0, 1, -1, 3, -8321, 65536, sympy.Rational(1, 8289)))
polynomials = st.builds(lambda c0, c1, c2: c0 + c1 * t + c2 * t**2 + c0 * n, numbers, numbers,
                        numbers)
radicals = st.builds(lambda p, square: sympy.sqrt(p) * square,
                     polynomials, st.sampled_from((1, 4, 2 * t, n)))
terms = st.one_of(polynomials, radicals, polynomials.map(lambda p: 1 / (p + t + 1)),
                  st.builds(lambda p, r: p * r, polynomials, radicals),
                  st.builds(lambda r, s: r * s, radicals, radicals),
                  st.builds(sympy.floor, polynomials.map(lambda p: p / 3)))
expressions = st.lists(terms, min_size=1, max_size=3).map(lambda parts: sympy.Add(*parts))


def sympys_sign(expr: sympy.Expr, values: dict) -> int | None:
    rule = {symbol: sympy.Rational(value.numerator, value.denominator)
            for symbol, value in values.items()}
    for _ in range(2):  # sympy 1.14 raises once on some products of two large square roots
        try:  # (sympy/sympy#28621), and answers the second time
            return surds.exact_number_sign(expr.xreplace(rule))
        except ValueError:
            continue
    return None  # Min and Max refuse an infinite argument


@tiered(400)
@given(expressions, st.sampled_from(witnesses.WITNESS_REALS),
       st.sampled_from(witnesses.WITNESS_SIZES))
@example(4 * t**2 * sympy.sqrt(-t**2 - t + n + 1) * sympy.sqrt(t**2 - t + n + 1),
         sympy.Integer(3), 10**12)  # the first product of the two raised in sympy 1.14
def test_the_sign_at_a_point_is_sympys(expr, ridge, size):
    values = {t: Fraction(int(ridge.p), int(ridge.q)), n: size}
    values = {symbol: value for symbol, value in values.items() if symbol in expr.free_symbols}
    assert witnesses._sign_at(expr, values) == sympys_sign(expr, values)


def test_a_ridge_root_is_signed_without_sympy():
    root = 16384 * t / 8289 - 64 * sympy.sqrt(65536 * t**2 - 2138368 * t + 69239041) / 8289
    assert surds.surd_value(root, {t: Fraction(1000)})[1] != 0  # in Q(sqrt(q))
    assert witnesses.signs_at_witnesses(root - 532544 / sympy.Integer(8289)) == {-1}


def test_a_min_sympy_cannot_build_at_the_witnesses_has_no_sign_there():
    k = sympy.Symbol("k", integer=True)
    n = sympy.Symbol("n", integer=True, positive=True)
    expr = sympy.Min(sympy.Sum(k * sympy.ceiling(k / 2), (k, 0, n)), 5, evaluate=False)
    assert witnesses.sign_of(expr, (n,), (40,)) is None


@tiered(100)
@given(st.fractions(Fraction(1, 50), 10**6, max_denominator=50),
       st.fractions(Fraction(1, 50), 10**6, max_denominator=50), st.integers(-3, 3))
def test_a_product_of_two_square_roots_is_the_root_of_the_product_sympy_writes(q, r, b):
    # sqrt(q) sqrt(r) reduced here as sympy reduces it (sqrt(2) sqrt(8) = 4, sqrt(2)
    # sqrt(3) = sqrt(6)), without asking sympy, whose first such product can raise
    expr = b * sympy.sqrt(n) * sympy.sqrt(t)
    whole, root, radicand = surds.surd_value(expr, {n: q, t: r})
    assert whole + root * sympy.sqrt(sympy.Rational(radicand.numerator, radicand.denominator)) \
        == b * sympy.sqrt(sympy.Rational(q.numerator, q.denominator)) \
        * sympy.sqrt(sympy.Rational(r.numerator, r.denominator))
