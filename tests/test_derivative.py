"""symbols.derivative: sympy.diff's expression, the same tree, whatever the expression (an
affine index read off its terms, anything else through sympy.diff)."""

import sympy
from hypothesis import given
from hypothesis import strategies as st
from test_rational_eval import SIZES, expressions
from tiers import tiered

from kernelcost.base.symbols import counter_symbol, derivative, iterator_symbol

COUNTER, ITERATOR = counter_symbol("c"), iterator_symbol("i")
STAND_IN = sympy.Dummy("node")
VARIABLES = (*SIZES, COUNTER, ITERATOR, STAND_IN)


def affine(draw_terms) -> sympy.Expr:
    return sympy.Add(*[sympy.Mul(*factors) for factors in draw_terms])


FACTORS = st.one_of(st.sampled_from(VARIABLES), st.integers(-5, 5).map(sympy.Integer),
                    expressions(depth=2))


@tiered(300)
@given(st.lists(st.lists(FACTORS, min_size=1, max_size=3), min_size=1, max_size=4),
       st.sampled_from(VARIABLES))
def test_derivative_is_sympy_diff(terms, variable):
    expr = affine(terms)
    found, expected = derivative(expr, variable), sympy.diff(expr, variable)
    assert found == expected and found.args == expected.args


def test_an_affine_index_is_read_off_its_terms():
    N, T = SIZES[0], SIZES[1]
    index = T * COUNTER + 3 * N * ITERATOR - 2 * COUNTER + N
    assert derivative(index, COUNTER) == T - 2
    assert derivative(index, ITERATOR) == 3 * N
    assert derivative(index, STAND_IN) == 0


def test_a_term_nonlinear_in_the_variable_goes_to_sympy_diff():
    T = SIZES[1]
    assert derivative(COUNTER**2 + T * COUNTER, COUNTER) == 2 * COUNTER + T
    assert derivative(COUNTER * sympy.floor(COUNTER / T), COUNTER) == sympy.diff(
        COUNTER * sympy.floor(COUNTER / T), COUNTER)
