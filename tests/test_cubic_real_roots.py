"""cubic_real_roots against sympy: the same CRootOf objects as Poly.real_roots() for an
irreducible cubic, and, from an exact bracket, the same double as sympy's float of a rational
times one of them."""

from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kernelcost.algebra import cubic_real_roots
from kernelcost.algebra.cubic_real_roots import _rounded, known_float, known_real, real_roots

S = sympy.Symbol("S", positive=True)
COEFFICIENT = st.integers(-10**12, 10**12)
SCALE = st.sampled_from([1, 2, 16, 64, 3, sympy.Rational(1, 7), -64, sympy.Rational(-5, 3)])


def _poly(a: int, b: int, c: int, d: int, denominator: int) -> sympy.Poly:
    coefficients = [sympy.Rational(value, denominator) for value in (a, b, c, d)]
    domain = sympy.ZZ if denominator == 1 else sympy.QQ
    return sympy.Poly(coefficients, S, domain=domain)


def _made(polynomial: sympy.Poly) -> list[sympy.Expr] | None:
    return real_roots([Fraction(int(value.p), int(value.q))
                       for value in reversed(polynomial.all_coeffs())])


# x = k y scales the coefficients by powers of k (sympy's integer basis takes it out again)
@settings(max_examples=60, deadline=None)
@given(COEFFICIENT.filter(bool), COEFFICIENT, COEFFICIENT, COEFFICIENT,
       st.sampled_from([1, 1, 3, 2039, 2**20]), st.sampled_from([1, 1, 2, 6, 16, 64, 1000]))
def test_the_roots_are_sympys(a, b, c, d, denominator, scale):
    a, b, c, d = a // 1000, b * scale, c * scale**2, d * scale**3
    assume(a)
    polynomial = _poly(a, b, c, d, denominator)
    made = _made(polynomial)
    assume(made is not None)
    expected = polynomial.real_roots()
    assert made == expected
    assert [sympy.srepr(root) for root in made] == [sympy.srepr(root) for root in expected]
    assert all(known_real(root.as_coeff_Mul()[1]) for root in made)


def test_a_reducible_cubic_or_a_binomial_is_left_to_sympy():
    assert _made(sympy.Poly((S - 3) * (S**2 + 5), S)) is None  # a rational root
    assert _made(sympy.Poly(S**3 - 2, S)) is None  # radicals
    assert _made(sympy.Poly(S**2 - 2, S)) is None  # another degree


def test_the_ridge_cubic_is_irreducible_with_three_real_roots():
    """flash_attention_causal_split's cleared cubic at H100's ridge, 1125/4."""
    polynomial = sympy.Poly([1, -2086117376, -7157760, 67108864], S)
    made = _made(polynomial)
    assert made is not None and len(made) == 3
    assert made == polynomial.real_roots()


def _bracket(value: sympy.Expr, polynomial: sympy.Poly) -> tuple[Fraction, Fraction] | None:
    """An exact interval of 10**-40 of its size around the value, a root of the polynomial,
    found in mpmath (not by sympy's CRootOf, whose intervals it would refine)."""
    coefficients = [Fraction(int(v.p), int(v.q)) for v in polynomial.all_coeffs()]
    with mpmath.workdps(60):
        try:
            found = mpmath.polyroots([mpmath.mpf(v.numerator) / v.denominator
                                      for v in coefficients], maxsteps=200, extraprec=200)
        except mpmath.libmp.NoConvergence:
            return None
        approximations = sorted(float(r.real) for r in found
                                if abs(r.imag) < 1e-30 * max(abs(r), 1))
    true = Fraction(sympy.Rational(str(sympy.N(value, 60))))
    for approximation in approximations:
        # refine the double to a tight exact bracket by bisection on exact signs
        middle = Fraction(approximation)
        width = abs(middle) * Fraction(1, 10**9) + Fraction(1, 10**30)
        low, high = middle - width, middle + width
        if _sign(coefficients, low) * _sign(coefficients, high) >= 0:
            continue
        while high - low > abs(low) * Fraction(1, 10**40):
            middle = (low + high) / 2
            if _sign(coefficients, middle) == _sign(coefficients, low):
                low = middle
            else:
                high = middle
        if low <= true <= high:
            return low, high
    return None


def _sign(coefficients: list[Fraction], point: Fraction) -> int:
    total = Fraction(0)
    for coefficient in coefficients:
        total = total * point + coefficient
    return (total > 0) - (total < 0)


@settings(max_examples=40, deadline=None)
@given(COEFFICIENT.filter(bool), COEFFICIENT, COEFFICIENT, COEFFICIENT, SCALE,
       st.integers(0, 2))
def test_the_double_is_sympys(a, b, c, d, scale, which):
    polynomial = _poly(a, b, c, d, 1)
    made = _made(polynomial)
    assume(made is not None and which < len(made))
    value = made[which]
    expected = float(scale * value)  # sympy's first float of the root, from its interval
    bracket = _bracket(value, polynomial)
    assume(bracket is not None)
    cubic_real_roots.bracket(value, *bracket)
    found = known_float(scale * value)
    if found is not None:
        assert found == expected


def test_a_double_near_a_midpoint_is_left_to_sympy():
    """S = CRootOf(8x^3 - 13837455x^2 - 5658411008x + 536870912, 2) lies 3.6e-18 of its size
    above a midpoint of doubles; sympy's 57-bit value lands on it and rounds to even, below:
    no bracket decides that, so sympy is asked."""
    polynomial = sympy.Poly([8, -13837455, -5658411008, 536870912], S)
    made = _made(polynomial)
    assert made is not None
    value = made[2]
    bracket = _bracket(value, polynomial)
    assert bracket is not None
    cubic_real_roots.bracket(value, *bracket)
    assert known_float(value) is None
    assert float(value) == pytest.approx(1730090.6982703162, rel=1e-15)


@given(st.fractions(min_value=Fraction(-10**9), max_value=Fraction(10**9)).filter(bool))
def test_rounding_to_57_bits_is_mpmaths(value):
    negative, mantissa, exponent, _ = mpmath.libmp.from_rational(
        value.numerator, value.denominator, 57, mpmath.libmp.round_nearest)
    exact = Fraction(int(mantissa)) * Fraction(2) ** exponent
    assert _rounded(value, 57) == (-exact if negative else exact)
