"""The cleared ridge equation in Python fractions: whether a root lies at or above 1 is
sympy's count of real roots there, and the slope's sign at a root is that of d(N/D)/dx there,
for random N and D of degree 0 to 2 and random targets."""

from __future__ import annotations

from fractions import Fraction

import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra.cleared import ClearedQuadratic, has_root_from_one, terms_in

x, t = sympy.symbols("x t")
# roots at, just beside and far from 1, so that the count's edge is reached
ROOTS = st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(3, 2), Fraction(0), Fraction(-1),
                         Fraction(2), Fraction(99, 100), Fraction(101, 100), Fraction(7, 3)])
SCALES = st.sampled_from([Fraction(1), Fraction(-1), Fraction(3, 2), Fraction(-2, 7)])
SMALL = st.builds(Fraction, st.integers(-9, 9), st.sampled_from([1, 2, 3, 7]))


@st.composite
def quadratics(draw) -> list[Fraction]:
    """c0, c1, c2 not all zero: from two roots, one root, or random coefficients."""
    kind = draw(st.sampled_from(["roots", "linear", "random"]))
    scale = draw(SCALES)
    if kind == "roots":
        first, second = draw(ROOTS), draw(ROOTS)
        return [scale * first * second, -scale * (first + second), scale]
    if kind == "linear":
        return [-scale * draw(ROOTS), scale]
    coefficients = [draw(SMALL) for _ in range(3)]
    return coefficients if any(coefficients) else [Fraction(1)]


def _poly(coefficients: list[Fraction]) -> sympy.Poly:
    return sympy.Poly(sum(sympy.Rational(c.numerator, c.denominator) * x**power
                          for power, c in enumerate(coefficients)), x, domain=sympy.QQ)


@tiered(400)
@given(quadratics())
@example([Fraction(1), Fraction(-2), Fraction(1)])  # a double root at 1
@example([Fraction(5), Fraction(0)])  # a nonzero constant: no root
def test_a_root_from_one_is_sympys_count(coefficients):
    assert has_root_from_one(coefficients) == (_poly(coefficients).count_roots(1) > 0)


@tiered(200)
@given(quadratics(), quadratics(), SMALL)
def test_the_slope_sign_at_each_root_is_that_of_the_quotient(numerator, denominator, target):
    numerator_expr, denominator_expr = (_poly(part).as_expr() for part in (numerator,
                                                                            denominator))
    cleared = sympy.expand(numerator_expr - t * denominator_expr)
    polynomial = sympy.Poly(cleared, x, t)
    if polynomial.is_zero or polynomial.degree(x) not in (1, 2):
        return
    terms = {powers: Fraction(int(value.p), int(value.q)) for powers, value in polynomial.terms()}
    assert terms_in(cleared, x, t) == terms  # read from the ring as the Poly reads them
    equation = ClearedQuadratic(terms)
    at_target = sympy.Rational(target.numerator, target.denominator)
    coefficients = equation.at(target)
    assert _poly(coefficients) == sympy.Poly(cleared.subs(t, at_target), x, domain=sympy.QQ)
    slope = sympy.diff(numerator_expr / denominator_expr, x)
    for root in sympy.roots(cleared.subs(t, at_target), x, filter="R"):
        if denominator_expr.subs(x, root) == 0:
            continue  # no quotient there
        value = slope.subs(x, root).evalf(60)  # 0 to 60 digits: a tangency
        expected = 0 if abs(value) < sympy.Float("1e-40") else 1 if value > 0 else -1
        assert equation.slope_sign(root, at_target) == expected, root
