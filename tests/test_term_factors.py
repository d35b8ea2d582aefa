"""A term's `Factors` built from a dict without sympy's comparisons of the dict
(term_factors) holds what sympy's own `Factors.__init__` builds, and factor_terms and
gcd_terms, which build them, give sympy's own answers."""

from __future__ import annotations

from collections import defaultdict

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from sympy.core.exprtools import Factors, factor_terms, gcd_terms
from tiers import tiered

from kernelcost.algebra import sympy_scope, term_factors

M, N, K = (sympy.Symbol(name, integer=True, positive=True) for name in "MNK")
x = sympy.Symbol("x")
BASES = [M, N, K, x, sympy.ceiling(N / M), sympy.Min(M, N + 1), sympy.Integer(2),
         sympy.Integer(3), sympy.S.NegativeOne, sympy.S.One, sympy.I, M + N]
EXPONENTS = [sympy.S.One, sympy.Integer(2), sympy.S.NegativeOne, sympy.Integer(-3),
             sympy.S.Half, sympy.S.Zero, N, 2, -1]


def sympys(factors):
    built = Factors.__new__(Factors)
    term_factors._SYMPYS_INIT(built, factors)
    return built


@tiered(300)
@given(st.dictionaries(st.sampled_from(BASES), st.sampled_from(EXPONENTS), max_size=6))
def test_factors_from_a_dict_are_sympys(factors):
    assert sympy_scope.active()  # the session computes as kernelcost does
    expected, ours = sympys(dict(factors)), Factors(dict(factors))
    assert ours.factors == expected.factors
    assert list(ours.factors) == list(expected.factors)  # the same order of bases
    assert ours.gens == expected.gens


@tiered(300)
@given(st.dictionaries(st.sampled_from(BASES), st.sampled_from(EXPONENTS), max_size=6),
       st.sampled_from([int, lambda: sympy.S.Zero]))
def test_factors_from_a_defaultdict_are_sympys(factors, default):
    """Term reads a term's exponents into defaultdicts of ints: sympy compares each with 1
    and 0 through a sorted Dict before it takes the dict's branch."""
    expected = sympys(defaultdict(default, factors))
    ours = Factors(defaultdict(default, factors))
    assert type(ours.factors) is type(expected.factors)
    assert ours.factors == expected.factors
    assert list(ours.factors) == list(expected.factors)
    assert ours.gens == expected.gens
    assert ours.factors.default_factory is expected.factors.default_factory


@pytest.mark.parametrize("given_factors", [None, 1, 0, sympy.S.One, sympy.S.Zero, 6,
                                           sympy.Rational(-3, 4), 2 * M**2 * N, sympy.I * M,
                                           M + N, Factors(3 * K)])
def test_anything_but_a_dict_is_sympys_own(given_factors):
    assert Factors(given_factors).factors == sympys(given_factors).factors


SUMS = [3 * M * N + 6 * M + 9 * M * sympy.ceiling(N / M),
        -2 * M * K - 4 * K * sympy.Min(M, N) + 2 * K,
        M / 2 + N / 4 + sympy.Rational(1, 8),
        16 * M * N * sympy.ceiling(N / 64) + 8 * N * K * sympy.ceiling(N / 64) + 4 * N,
        x * M / N + x / (N * K) - 3 * x**2]


@pytest.mark.parametrize("expr", SUMS)
def test_factor_terms_and_gcd_terms_give_sympys_answers(expr):
    ours = (factor_terms(expr), gcd_terms(expr), factor_terms(sympy.expand(expr * (M + 1))))
    with sympy_scope.sympys_own():
        expected = (factor_terms(expr), gcd_terms(expr),
                    factor_terms(sympy.expand(expr * (M + 1))))
    assert [str(each) for each in ours] == [str(each) for each in expected]
    assert ours == expected
