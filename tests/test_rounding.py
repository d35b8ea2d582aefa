"""rounding.floor and rounding.ceiling build sympy's own expression, tree for tree, without
sympy's questions where the rounding takes two values."""

from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost import rounding

a, b, c = SYMBOLS = tuple(sympy.Symbol(name, integer=True, positive=True) for name in "abc")

monomials = st.builds(
    lambda coefficient, powers: coefficient * sympy.Mul(*(s**k for s, k in zip(SYMBOLS, powers))),
    st.sampled_from((1, 2, 3, 64, -1)), st.tuples(*[st.integers(0, 2)] * 3))
polynomials = st.lists(monomials, min_size=1, max_size=3).map(lambda terms: sympy.Add(*terms))


@st.composite
def arguments(draw) -> sympy.Expr:
    """Quotients of sizes, with integer terms beside them, a rounding inside, or none."""
    numerator, denominator = draw(polynomials), draw(polynomials)
    divisor = draw(st.sampled_from((1, 2, 7, 132, 2162688)))
    quotient = numerator / (denominator if draw(st.booleans()) else divisor)
    extra = draw(st.sampled_from((0, 1, -3, a, 2 * b, sympy.ceiling(a / 3),
                                  sympy.Rational(1, 2))))
    return quotient + extra


@given(arguments(), st.sampled_from(("floor", "ceiling")))
@settings(max_examples=300, deadline=None)
def test_sympy_builds_the_same_rounding(argument, kind):
    ours = getattr(rounding, kind)(argument)
    assert ours == getattr(sympy, kind)(argument)


def test_the_shortcut_leaves_constants_and_the_unplanned_to_sympy():
    assert rounding.ceiling(a / (a + 1)) == 1  # in (0, 1] at every size: sympy's question
    assert rounding.floor(sympy.Rational(7, 2)) == 3
    assert rounding.ceiling(a / 2 + 3) == sympy.ceiling(a / 2) + 3
    assert rounding.floor(2 * a) == 2 * a
    odd = sympy.Symbol("x", positive=True)  # not an integer: no witnesses, sympy's answer
    assert rounding.ceiling(odd / 2) == sympy.ceiling(odd / 2)
