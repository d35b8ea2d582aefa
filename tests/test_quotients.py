"""quotients.cancel is sympy.cancel, expression for expression, on the rational functions of
sizes that closed forms are made of: sums, products and quotients of sizes, roundings, Min
and Max, with rational coefficients of either sign."""

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost.quotients import cancel, factor
from kernelcost.symbols import size_symbol

N, M, T = (size_symbol(name) for name in ("N", "M", "T"))
ATOMS = [N, M, T, sympy.floor(N / T), sympy.ceiling((M + 1) / 2), sympy.Max(N, M),
         sympy.Min(N, 4), sympy.Integer(1), sympy.Rational(3, 2), sympy.Integer(-2)]


def _combined(children):
    return st.one_of(
        st.tuples(children, children).map(lambda pair: pair[0] + pair[1]),
        st.tuples(children, children).map(lambda pair: pair[0] - pair[1]),
        st.tuples(children, children).map(lambda pair: pair[0] * pair[1]),
        st.tuples(children, children).map(lambda pair: pair[0] / pair[1]),
        st.tuples(children, st.integers(2, 3)).map(lambda pair: pair[0] ** pair[1]))


expressions = st.recursive(st.sampled_from(ATOMS), _combined, max_leaves=10).filter(
    lambda expr: expr.is_finite is not False and not expr.has(sympy.zoo, sympy.nan))


@settings(max_examples=300, deadline=None)
@given(expressions)
def test_cancel_is_sympys_expression(expr):
    assert cancel(expr) == sympy.cancel(expr)


def test_cancel_reduces_to_lowest_terms():
    assert cancel((N**2 - M**2) / (2 * N + 2 * M)) == N / 2 - M / 2
    assert cancel((T * N + T) / (T**2 * (N + 1))) == 1 / T
    assert cancel(sympy.floor(N / T) * N / (N * M)) == sympy.floor(N / T) / M


def test_what_is_not_a_rational_function_goes_to_sympy():
    assert cancel(sympy.Integer(6) / 4) == sympy.Rational(3, 2)
    assert cancel(sympy.sqrt(2) * N / N) == sympy.sqrt(2)
    assert cancel(sympy.Eq(N, M)) == sympy.Eq(N, M)


@settings(max_examples=300, deadline=None)
@given(expressions)
def test_factor_is_sympys_expression(expr):
    assert factor(expr) == sympy.factor(expr)


def test_factor_keeps_the_coefficient_outside():
    assert str(factor(2 * M + 2 * N)) == "2*(M + N)"
    assert str(factor((N**2 - 1) / (2 * T + 2))) == "(N - 1)*(N + 1)/(2*(T + 1))"
    assert factor(sympy.Float(0.5) * N + sympy.Float(0.5)) == sympy.factor(
        sympy.Float(0.5) * N + sympy.Float(0.5))
