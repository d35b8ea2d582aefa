"""factor_terms of an expanded sum read off its terms (common_factors) is sympy's
factor_terms, expression for expression and character for character: the content and the
common factor of sizes and calls pulled out, calls rewritten inside, signs, rational
coefficients and powers of sums left to sympy."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from sympy.core.exprtools import factor_terms
from test_quotients import WIDE_ATOMS, _combined, _finite, _outcome
from tiers import tiered

from kernelcost.algebra.common_factors import factor_terms_of
from kernelcost.base.symbols import size_symbol

N, M, T, W = (size_symbol(name) for name in ("N", "M", "T", "W"))
i0 = sympy.Symbol("i0", integer=True, nonnegative=True)
# a call factor_terms writes anew once expanded: ceiling(-i0/W + Max(...)/W)
CLIPPED = sympy.ceiling(sympy.expand((-i0 + sympy.Max(W + i0, sympy.Min(N, T + i0))) / W))
ATOMS = [N, M, T, W, i0, CLIPPED, sympy.ceiling(N / T), sympy.floor((M + 1) / 2),
         sympy.Max(N, M), sympy.Min(N, 4), sympy.Integer(2), sympy.Integer(6),
         sympy.Rational(3, 2), sympy.Integer(-4)]

sums = st.recursive(st.sampled_from(ATOMS), _combined, max_leaves=10).filter(
    _finite).map(sympy.expand)
wide_sums = st.recursive(st.sampled_from(WIDE_ATOMS + ATOMS), _combined,
                         max_leaves=8).filter(_finite).map(sympy.expand)


def _same(expr) -> None:
    ours, theirs = _outcome(factor_terms_of, expr), _outcome(factor_terms, expr)
    assert str(ours) == str(theirs)
    assert ours == theirs


@tiered(300)
@given(sums)
def test_factor_terms_of_an_expanded_sum_is_sympys(expr):
    _same(expr)


@tiered(150, suppress_health_check=[HealthCheck.too_slow])
@given(wide_sums)
def test_factor_terms_of_wider_sums_is_sympys(expr):
    _same(expr)


@pytest.mark.parametrize("expr", [
    6 * N * M + 4 * N * T,  # content 2, N common: 2*N*(3*M + 2*T)
    4 * N * M * CLIPPED + 2 * W * M * sympy.ceiling(N / T) * CLIPPED,  # the call written anew
    2 * W * M * CLIPPED + 4 * N * M,  # no common factor, a call written anew
    3 * N / W + 6 / W,  # a denominator common to every term
    N * M / W + T,  # a denominator in one term only
    -2 * N - 4 * M,  # every term negative: -1 taken out
    N / 2 + M / 3,  # rational coefficients
    N**2 * M + N * M**2 + N * M,
])
def test_factor_terms_of_a_sum_of_each_kind_is_sympys(expr):
    _same(sympy.expand(expr))


@tiered(200, suppress_health_check=[HealthCheck.too_slow])
@given(sums, sums, st.integers(-2, 2), st.sampled_from([1, 2, 6]))
def test_factor_terms_of_a_product_or_quotient_of_sums_is_sympys(first, second, power, number):
    # an intensity: the work's sum over a level's traffic, a number and powers in front
    _same(number * first / second if second != 0 else first)
    _same(first * second**power if second != 0 or power > 0 else first)
    _same(CLIPPED * first)
    _same((2 * first) ** power if first != 0 or power > 0 else second)
