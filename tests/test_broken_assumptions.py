"""broken_assumptions substitutes numbers for sizes by xreplace where every key is a symbol
and every value a number: the same expression subs builds, divisibility facts and bounds
alike; anything else still goes through subs."""

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.analysis.api import _substitution
from kernelcost.base.symbols import size_symbol

SIZES = [size_symbol(name) for name in ("M", "N", "T", "g", "BM")]
_atoms = st.one_of(st.sampled_from(SIZES), st.integers(-3, 9).map(sympy.Integer))


def _combined(children):
    return st.one_of(
        st.tuples(children, children).map(lambda pair: pair[0] + pair[1]),
        st.tuples(children, children).map(lambda pair: pair[0] - pair[1]),
        st.tuples(children, children).map(lambda pair: pair[0] * pair[1]),
        st.tuples(children, children.filter(lambda expr: expr != 0)).map(
            lambda pair: pair[0] / pair[1]),
        st.tuples(children, st.integers(-2, 3)).map(
            lambda pair: pair[0] ** pair[1] if pair[0] != 0 else pair[0]))


_expressions = st.recursive(_atoms, _combined, max_leaves=8)
_relations = st.tuples(_expressions, _expressions,
                       st.sampled_from([sympy.Le, sympy.Lt, sympy.Ge, sympy.Gt])).map(
    lambda drawn: drawn[2](drawn[0], drawn[1], evaluate=False))
# sizes are positive (a size of 0 is refused before any substitution): at M = N = 0, M/N is
# 0 by subs, which replaces M first, and nan by xreplace; neither is a size's answer
_numbers = st.one_of(st.integers(1, 300).map(sympy.Integer),
                     st.fractions(1, 50).map(lambda f: sympy.Rational(f.numerator,
                                                                      f.denominator)),
                     st.floats(0.5, 1e4).map(sympy.Float))
_values = st.dictionaries(st.sampled_from(SIZES), _numbers)


@tiered(400)
@given(st.one_of(_expressions, _relations), _values)
def test_numbers_for_sizes_by_xreplace_are_what_subs_gives(expr, values):
    try:
        expected = sympy.srepr(expr.subs(values))
    except TypeError:  # a relation with a side that divides by zero there: both refuse it
        with pytest.raises(TypeError):
            _substitution(values)(expr)
        return
    assert sympy.srepr(_substitution(values)(expr)) == expected


def test_other_values_go_through_subs():
    M, N = SIZES[:2]
    at = _substitution({M: N + 1, N: sympy.Integer(3)})  # subs replaces in turn: M -> 4
    assert at(M * N) == (M * N).subs({M: N + 1, N: 3}) == 12
