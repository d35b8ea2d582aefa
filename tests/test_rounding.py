"""The package's floor and ceiling evaluation (rounding.install) builds sympy's own expression,
tree for tree, without sympy's questions where the rounding takes two values."""

from __future__ import annotations

import pytest
import sympy
from conftest import sample_spent
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra import rounding

a, b, c = SIZES = tuple(sympy.Symbol(name, integer=True, positive=True) for name in "abc")
i = sympy.Symbol("i", integer=True)  # an iterator: any integer
t = sympy.Symbol("t", integer=True, nonnegative=True)  # a loop's counter 0, 1, 2, ...
SYMBOLS = (*SIZES, i, t)

monomials = st.builds(
    lambda coefficient, powers: coefficient * sympy.Mul(*(s**k for s, k in zip(SYMBOLS, powers))),
    st.sampled_from((1, 2, 3, 64, -1)), st.tuples(*[st.integers(0, 2)] * len(SYMBOLS)))
polynomials = st.lists(monomials, min_size=1, max_size=3).map(lambda terms: sympy.Add(*terms))


@st.composite
def arguments(draw) -> sympy.Expr:
    """Quotients of sizes and iterators, with integer terms beside them, a rounding inside, or
    none."""
    numerator, denominator = draw(polynomials), draw(polynomials)
    divisor = draw(st.sampled_from((1, 2, 7, 132, 2162688)))
    quotient = numerator / (denominator if draw(st.booleans()) else divisor)
    extra = draw(st.sampled_from((0, 1, -3, a, 2 * b, i, t, sympy.ceiling(a / 3),
                                  sympy.ceiling(i / 2), sympy.Rational(1, 2))))
    return quotient + extra


def sympys_own(kind, argument: sympy.Expr) -> sympy.Expr:
    """kind(argument) as sympy's own evaluation builds it."""
    found = rounding.SYMPY_EVAL[kind](kind, argument)
    return kind(argument, evaluate=False) if found is None else found


@tiered(120)
@given(arguments(), st.sampled_from((sympy.floor, sympy.ceiling)))
def test_sympy_builds_the_same_rounding(argument, kind):
    assert kind(argument) == sympys_own(kind, argument)


@pytest.mark.slow
@given(arguments(), st.sampled_from((sympy.floor, sympy.ceiling)))
@settings(max_examples=3000, deadline=None)
def test_sympy_builds_the_same_rounding_at_length(argument, kind):
    if not sample_spent():
        assert kind(argument) == sympys_own(kind, argument)


def test_the_witnesses_answer_where_the_rounding_takes_two_values():
    assert rounding.evaluated(sympy.ceiling, (i + a) / 2) is None  # stays, unevaluated
    assert rounding.evaluated(sympy.ceiling, i / 2 + a) == sympy.ceiling(i / 2) + a
    assert rounding.evaluated(sympy.ceiling, a / 2 + 3) == sympy.ceiling(a / 2) + 3
    assert rounding.evaluated(sympy.ceiling, t * a + a) == t * a + a
    assert rounding.evaluated(sympy.floor, 2 * a) == 2 * a


def test_constants_and_the_unplanned_are_left_to_sympy():
    assert rounding.evaluated(sympy.ceiling, a / (a + 1)) is rounding.ASK_SYMPY  # always 1
    assert sympy.ceiling(a / (a + 1)) == 1
    assert rounding.evaluated(sympy.floor, sympy.Rational(7, 2)) is rounding.ASK_SYMPY
    odd = sympy.Symbol("x", positive=True)  # not an integer: no witnesses
    assert rounding.evaluated(sympy.ceiling, odd / 2) is rounding.ASK_SYMPY
