"""quadratic_roots writes the roots of a quadratic in a size as sympy.solve writes them, or
declines (None) and leaves the polynomial to sympy.solve."""

from __future__ import annotations

import pytest
import sympy
from conftest import sample_spent
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost.algebra.quadratic import cubic_roots, quadratic_roots
from kernelcost.base.symbols import RIDGE

x = sympy.Symbol("S", positive=True)  # a size's positive real twin, as ridge equations use
t = RIDGE


def solved(polynomial: sympy.Expr) -> list[sympy.Expr]:
    return sympy.solve(polynomial, x, dict=False, simplify=False, check=False)


K = sympy.Symbol("K", integer=True, positive=True)  # a size left symbolic
y = sympy.Symbol("y")  # a symbol of unknown sign, maybe not real: solve's roots differ
# coefficients in the ridge (and sometimes a size or y): integers, fractions, squares
numbers = st.sampled_from((0, 1, -1, 2, -3, sympy.Rational(1, 3), sympy.Rational(-4, 9), 8289,
                           -1048576, 4096))
coefficients = st.builds(
    lambda c0, c1, c2, other: c0 + c1 * t + c2 * t**2 + other,
    numbers, st.sampled_from((0, 1, -1, 4, -32768)), st.sampled_from((0, 0, 1, -2, 9)),
    st.sampled_from((0, 0, 0, K, -K / 3, K * t, y)))


def roots_agree(a, b, c) -> None:
    polynomial = sympy.expand(a * x**2 + b * x + c)
    ours = quadratic_roots(polynomial, x)
    assert ours is None or ours == solved(polynomial)


@given(coefficients, coefficients, coefficients)
@settings(max_examples=60, deadline=None)  # 3000 in the slow twin below
def test_the_roots_are_sympys_or_left_to_it(a, b, c):
    roots_agree(a, b, c)


@pytest.mark.slow
@given(coefficients, coefficients, coefficients)
@settings(max_examples=3000, deadline=None)
def test_the_roots_are_sympys_or_left_to_it_at_length(a, b, c):
    if not sample_spent():
        roots_agree(a, b, c)


def test_a_ridge_equation_is_solved_here():
    # a causal attention's I_global(S) = I_crit (keys one tile over: global traffic
    # 8 H S d + 4 H Bc d at d = 128, H = 1, Bc = 64), cleared: the discriminant is
    # 4096 * (65536 I**2 - 2138368 I + 69239041)
    polynomial = -32768 * t * x - 1048576 * t + 8289 * x**2 + 1065088 * x
    ours = quadratic_roots(polynomial, x)
    assert ours is not None and ours == solved(polynomial)
    assert ours[1].has(sympy.sqrt(65536 * t**2 - 2138368 * t + 69239041))


def test_other_polynomials_are_left_to_sympy():
    assert quadratic_roots(x**2 - t, x) is None  # a binomial: roots_binomial's form
    assert quadratic_roots(sympy.expand((x - t) * (x + 2 * t + 1)), x) is None  # reducible
    assert quadratic_roots(x**2 + 3 * x + 1, x) is None  # numeric coefficients
    assert quadratic_roots(x**3 + t, x) is None


def test_a_quadratic_whose_content_leaves_numbers_is_left_to_sympy():
    # -t*x**2 - t*x + t: preprocess_roots takes the content t out and leaves -x**2 - x + 1,
    # whose roots sympy lists in the other order
    assert quadratic_roots(-t * x**2 - t * x + t, x) is None


# ------------------------------------------------------------------------------- cubics

cubic_coefficients = st.builds(
    lambda c0, c1, other: c0 + c1 * t + other,
    numbers, st.sampled_from((0, 1, -1, 4, -33024, sympy.Rational(1, 7))),
    st.sampled_from((0, 0, 0, K, -K / 3, K * t, y)))


def cubic_roots_agree(a, b, c, d) -> None:
    polynomial = sympy.expand(a * x**3 + b * x**2 + c * x + d)
    ours = cubic_roots(polynomial, x)
    assert ours is None or ours == solved(polynomial)
    if sympy.Poly(polynomial, x).degree() != 3:
        assert ours is None


@given(cubic_coefficients, cubic_coefficients, cubic_coefficients, cubic_coefficients)
@settings(max_examples=30, deadline=None)  # 1000 in the slow twin below
def test_a_cubics_roots_are_sympys_or_left_to_it(a, b, c, d):
    cubic_roots_agree(a, b, c, d)


@pytest.mark.slow
@given(cubic_coefficients, cubic_coefficients, cubic_coefficients, cubic_coefficients)
@settings(max_examples=1000, deadline=None)
def test_a_cubics_roots_are_sympys_or_left_to_it_at_length(a, b, c, d):
    if not sample_spent():
        cubic_roots_agree(a, b, c, d)


def test_a_cubic_ridge_equation_is_solved_here():
    # flash_attention_causal_split's I_global(S) = I_crit, cleared (d = 128, H = 1, Bc = 128)
    polynomial = (-33024 * t * x**2 - 8388608 * t * x + x**3 + 2130240 * x**2 + 273178624 * x
                  + 67108864)
    ours = cubic_roots(polynomial, x)
    assert ours is not None and len(ours) == 3 and ours == solved(polynomial)
