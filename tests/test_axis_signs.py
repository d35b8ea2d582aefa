"""axis_signs: the sign a ridge's root has at every ridge, exactly, against its values at
sample ridges from 1/97 to 10**4; and the condition of a causal attention's crossing (its
keys one tile over: global traffic 8 H S d + 4 H Bc d), which it proves true (sympy proves
neither it nor its radicand's sign)."""

from fractions import Fraction

import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra.axis_signs import sign_for_every_positive
from kernelcost.algebra.root_conditions import positive_real_condition
from kernelcost.algebra.surds import exact_number_sign
from kernelcost.base.symbols import RIDGE

I = RIDGE
SAMPLES = [sympy.Rational(p, q) for p, q in ((1, 97), (1, 7), (1, 2), (1, 1), (3, 2), (2, 1),
                                             (5, 1), (13, 1), (65, 2), (100, 1),
                                             (10_000, 1))]
# that causal attention's radicand (its discriminant in the ridge) has no real root
RADICAND = 65536 * I**2 - 2138368 * I + 69239041


def _sign_at(expr: sympy.Expr, value: sympy.Rational) -> int | None:
    """expr's exact sign at the ridge `value`; None where it is not a real number there."""
    number = expr.xreplace({I: value})
    if not number.is_finite or any(power.base.is_negative for power in number.atoms(sympy.Pow)
                                   if not power.exp.is_Integer):
        return None
    return exact_number_sign(number)


def test_the_causal_crossing_holds_at_every_ridge():
    larger = (16384 * I + 64 * sympy.sqrt(RADICAND) - 532544) / 8289
    smaller = (16384 * I - 64 * sympy.sqrt(RADICAND) - 532544) / 8289
    assert sign_for_every_positive(larger) == 1
    assert sign_for_every_positive(smaller) == -1
    assert positive_real_condition(larger) == sympy.true
    assert positive_real_condition(smaller) == sympy.false
    assert {_sign_at(larger, value) for value in SAMPLES} == {1}
    assert {_sign_at(smaller, value) for value in SAMPLES} == {-1}


def test_a_root_that_changes_sign_or_leaves_the_reals_is_left_undecided():
    for expr in (I - 1, (I - 3) / (I + 1), sympy.sqrt(I - 1), sympy.sqrt(I**2 + 1) - 2 * I,
                 1 / (I - 2), (24576 * I - 1065088) / (8289 - 64 * I),
                 sympy.sqrt(I**2 - 4 * I + 4),
                 (8 - 4 * I) / (4 - 2 * I)):  # 2, but undefined at I = 2 (0/0)
        assert sign_for_every_positive(expr) is None, expr
    # another symbol, another root, an integer's root: not this form
    N = sympy.Symbol("N", positive=True)
    for expr in (I + N, sympy.sqrt(I) + sympy.sqrt(I + 1), I ** sympy.Rational(1, 3) + 1,
                 sympy.exp(I) + 1):
        assert sign_for_every_positive(expr) is None, expr


small = st.integers(-6, 6)
polynomials = st.lists(small, min_size=1, max_size=3).map(
    lambda coefficients: sum(c * I**k for k, c in enumerate(coefficients)))


@tiered(300)
@given(polynomials, polynomials, polynomials, polynomials)
def test_a_decided_sign_holds_at_every_sample_ridge(a, b, radicand, d):
    if d == 0:
        return
    expr = (a + b * sympy.sqrt(radicand)) / d
    sign = sign_for_every_positive(expr)
    if sign is None:
        return
    assert sign in (1, -1)
    assert {_sign_at(expr, value) for value in SAMPLES} == {sign}, expr
    assert sympy.sympify(expr).is_positive is not (sign < 0)


@tiered(100)
@given(st.integers(1, 50), st.integers(0, 50), st.integers(1, 9))
def test_sums_of_positive_terms_are_positive(slope, constant, power):
    assert sign_for_every_positive(slope * I**power + constant) == 1
    assert sign_for_every_positive(-(slope * I**power + constant) / (I + Fraction(1, 2))) == -1


COEFFICIENTS = st.lists(st.integers(-4, 4), min_size=1, max_size=3)


@tiered(300)
@given(numerator=COEFFICIENTS, denominator=COEFFICIENTS.filter(any),
       scale=st.sampled_from([1, 2, 7, sympy.Rational(1, 3)]))
@example(numerator=[1, -2, 1], denominator=[-1, 1], scale=1)  # (I - 1)^3: odd
@example(numerator=[-2, 0, 1], denominator=[-4, 0, 2], scale=1)  # a surd pair twice: even
@example(numerator=[-2, 0, 1], denominator=[1], scale=3)  # a surd pair once: odd
def test_signs_read_off_the_coefficients_are_those_of_sympys_poly(numerator, denominator,
                                                                  scale):
    """A quotient of polynomials of degree 2 at most in the ridge, as written: its sign at
    every ridge and whether it changes sign, read off its rational coefficients, are those
    sympy's Poly and real-root isolation find."""
    from kernelcost.algebra import axis_signs

    top = sympy.Add(*(scale * c * I**k for k, c in enumerate(numerator)))
    bottom = sympy.Add(*(c * I**k for k, c in enumerate(denominator)))
    expr = top / bottom
    assert sign_for_every_positive(expr) == axis_signs._sign_by_poly(expr)
    if expr.free_symbols == {I}:
        assert axis_signs.changes_sign(expr) == axis_signs._changes_sign_by_poly(expr, I)
