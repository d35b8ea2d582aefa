"""sound_signs.no_bound: where it says sympy's `_monotonic_sign` has no bound for a
polynomial in one positive symbol, sympy's own finds none; and `roots_above`, Sturm's count in
fractions, against sympy's real-root count."""

from __future__ import annotations

from fractions import Fraction

import sympy
from hypothesis import given
from hypothesis import strategies as st
from sympy.core import exprtools
from tiers import tiered

from kernelcost.algebra import sound_signs, sympy_scope
from kernelcost.base.symbols import RIDGE

X = sympy.Symbol("x", positive=True)
N = sympy.Symbol("n", integer=True, positive=True)
rationals = st.fractions(min_value=-50, max_value=50, max_denominator=7).map(
    lambda value: sympy.Rational(value.numerator, value.denominator))
positive = st.fractions(min_value=Fraction(1, 7), max_value=60, max_denominator=7).map(
    lambda value: sympy.Rational(value.numerator, value.denominator))


def _sympys_bound(expr: sympy.Expr) -> object:
    with sympy_scope.sympys_own():
        return exprtools._monotonic_sign(expr)


@st.composite
def written(draw: st.DrawFn) -> sympy.Expr:
    """A polynomial as sympy's roots write them: products and powers of sums in one
    symbol, left unexpanded, plus a constant."""
    symbol = draw(st.sampled_from((X, N, RIDGE)))
    factors = draw(st.lists(st.builds(lambda a, b, k: (a * symbol + b) ** k, rationals,
                                      rationals, st.integers(1, 3)), min_size=1, max_size=3))
    scale, constant = draw(rationals), draw(rationals)
    return scale * sympy.Mul(*factors) + draw(rationals) * symbol**2 + constant


@tiered(120)
@given(written())
def test_no_bound_where_sympy_finds_none(expr):
    if sound_signs.no_bound(expr):
        assert _sympys_bound(expr) is None


@tiered(60)
@given(st.sampled_from((X, N, RIDGE)), positive, positive, rationals)
def test_a_polynomial_with_a_dip_past_the_least_value_is_caught(symbol, first, gap, constant):
    # (x - r)(x - s) + c with 1 < r < s turns at (r + s)/2, above both 0 and 1
    expr = sympy.expand((symbol - 1 - first) * (symbol - 1 - first - gap)) * 3 + constant
    assert sound_signs.no_bound(expr)
    assert _sympys_bound(expr) is None


def test_the_discriminant_of_a_ridges_cubic_is_caught_without_sympys_derivative():
    # flash_attention_causal_split's cubic in S: the radicand under its square root
    discriminant = (-(2048 * RIDGE + 3 * (11095 - 172 * RIDGE)**2 - 66694)**3
                    + 27 * ((11095 - 172 * RIDGE)**3
                            - (11095 - 172 * RIDGE) * (33347 - 1024 * RIDGE) + 128)**2)
    assert sound_signs.no_bound(discriminant)
    assert _sympys_bound(discriminant) is None
    # a slope that stays positive: sympy is asked, and bounds it
    rising = RIDGE**3 + 2 * RIDGE + 5
    assert not sound_signs.no_bound(rising)
    assert _sympys_bound(rising) == 5
    # rising from -5 at 0, no turn: no bound, sympy's too
    assert sound_signs.no_bound(rising - 10)
    assert _sympys_bound(rising - 10) is None
    # a ridge's cubic in S at d = 128, falling from 3.9e17 at I_crit = 0
    falling = (2 * (2130240 - 33024 * RIDGE)**3 / 27
               - (2130240 - 33024 * RIDGE) * (273178624 - 8388608 * RIDGE) / 3)
    assert sound_signs.no_bound(falling)
    assert _sympys_bound(falling) is None


@tiered(120)
@given(st.lists(rationals, min_size=2, max_size=7).filter(lambda c: c[0] != 0), rationals)
def test_sturms_count_is_sympys_count_of_real_roots(coefficients, point):
    polynomial = sympy.Poly(coefficients, X, domain=sympy.QQ)
    counted = sound_signs.roots_above([Fraction(int(c.p), int(c.q)) for c in coefficients],
                                      Fraction(int(point.p), int(point.q)))
    if polynomial.eval(point) == 0:
        assert counted == -1
    else:
        distinct = sympy.Poly(polynomial.sqf_part(), X)
        assert counted == distinct.count_roots(point, None)
