"""The model's comparisons: sympy's own answers and expressions for relations, Min and Max
wherever sympy decides, the undecidable ones settled by witness sizes instead of the
assumption system, and rational functions of sizes decided exactly (shifted coefficients
for any number of sizes, real roots for one), also where sympy cannot (checked against exact
values at sizes from 1 to 10^9)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import assume, event, given
from hypothesis import strategies as st
from test_rational_eval import RATIONAL_NODES, expressions
from tiers import tiered

from kernelcost.algebra import decide, held_quotients, witnesses
from kernelcost.algebra.decide import (
    at_least,
    at_most,
    largest,
    less_than,
    proven_less_than,
    smallest,
)
from kernelcost.algebra.held_quotients import cancelled
from kernelcost.base.symbols import size_symbol

n, N, T, M, K = (size_symbol(name) for name in ("n", "N", "T", "M", "K"))
# conv3x3's global intensity over the H100 FP32 ridge (20 FLOP/B): rises from 0.012 at n = 1
# towards 9/80 = 0.1125, so it crosses 1/10 and never reaches 1
CONV_RATIO = 9 * n**2 / (80 * n**2 + 160 * n + 520)
# gemm_tiled's intensity at M = K = N: 64N/(N + 64) for T = 128, below T/2 for every N
TILED = T * N / (2 * N + T)

RELATIONS = [
    (CONV_RATIO, sympy.Rational(1, 10)),  # crosses: undecided
    (CONV_RATIO, 1),  # always below
    (sympy.Integer(10), CONV_RATIO),  # never
    (TILED, 64),  # crosses in T
    (N, N + 1),
    (N, N),
    (sympy.Integer(3), sympy.Rational(1, 10)),
    (sympy.ceiling(N / 128) * 128, N),  # never below: only >=
    (sympy.Max(N, 100), 50),
]


@pytest.mark.parametrize("left, right", RELATIONS)
def test_relations_answer_as_sympy_does(left, right):
    assert less_than(left, right) == decide.decided(sympy.sympify(left) < right)
    assert at_most(left, right) == decide.decided(sympy.sympify(left) <= right)
    assert at_least(left, right) == decide.decided(sympy.sympify(left) >= right)


def test_witnesses_settle_what_crosses():
    # at n = 1 the ratio is 9/760 < 1/10, at n = 10**6 it is about 0.1125 > 1/10
    assert witnesses.both_signs(CONV_RATIO - sympy.Rational(1, 10), zero_counts_as=1)
    assert less_than(CONV_RATIO, sympy.Rational(1, 10)) is None
    # always below 1: the witnesses agree, and sympy proves it
    assert not witnesses.both_signs(CONV_RATIO - 1, zero_counts_as=1)
    assert less_than(CONV_RATIO, 1) is True


LATTICES = [
    (990 * 10**12, CONV_RATIO * 20 * 335 * 10**10),  # performance: min(P, I * B)
    (1, CONV_RATIO),
    (N / 1000, 2 * N**2 / 10**9, sympy.Rational(1, 10**5)),  # t_min terms that cross
    (N, N + 1),
    (N, 2 * N, 3),
    (sympy.Max(N, 3), N),  # nested: left to sympy
    (N, sympy.oo),
    # gemm_hopper's t_min terms on an H100 (M, N, K free): the two K*M*N terms order, each
    # crosses the rest, so sympy is asked of one group of two
    (M * N * K / 156 / 10**12, (K * M + K * N + M * N) / 10**12,
     K * M * N / 3456 / 10**11 + M * N / 27 / 10**11, K * M * N / 4992 / 10**11),
    (N / 1000, N / 2000, 2 * N**2 / 10**9, 2 * N**2 / 10**10, sympy.Rational(1, 10**5), 1),
]


@pytest.mark.parametrize("arguments", LATTICES)
def test_min_and_max_are_sympys(arguments):
    assert smallest(*arguments) == sympy.Min(*arguments)
    assert largest(*arguments) == sympy.Max(*arguments)
    assert smallest(*arguments).args == sympy.Min(*arguments).args


def test_relations_of_numbers_are_exact():
    third = sympy.Rational(1, 3)
    assert less_than(third, sympy.Rational(333333, 1000000)) is False
    assert at_most(third, third) is True
    assert largest(third, sympy.Rational(1, 4)) == third


def test_pairs_that_witnesses_split_are_not_asked():
    # N and N/2 order; N**2 crosses both (below at N = 1, above at N = 10**6); 3 crosses all
    arguments = [N, N / 2, N**2 / 1000, sympy.Integer(3)]
    assert decide._pair_orders(arguments, 1) == {(0, 1): 1, (1, 0): -1}  # N - N/2 > 0
    assert largest(*arguments) == sympy.Max(N, N**2 / 1000, 3)


def test_two_arguments_another_one_bounds_are_not_ordered():
    # N bounds N/2 and N/3 in a Max: whichever of those two is larger, both are dropped
    assert decide._pair_orders([N, N / 2, N / 3], 1) == {(0, 1): 1, (1, 0): -1,
                                                         (0, 2): 1, (2, 0): -1}
    assert largest(N, N / 2, N / 3) == N
    # the leader is paired first wherever it stands
    assert decide._pair_orders([N / 3, N / 2, N], 1) == {(1, 2): -1, (2, 1): 1,
                                                         (0, 2): -1, (2, 0): 1}
    # in a Min, N is the one that bounds: 2*N and 3*N are not ordered
    assert decide._pair_orders([N, 2 * N, 3 * N], -1) == {(0, 1): -1, (1, 0): 1,
                                                          (0, 2): -1, (2, 0): 1}
    assert smallest(3 * N, 2 * N, N) == N
    # proven equal, the earlier argument is kept and the later one is bounded
    assert decide._pair_orders([N, N, N / 2], 1) == {(0, 1): 0, (1, 0): 0,
                                                     (0, 2): 1, (2, 0): -1}


def test_what_no_decider_orders_stays_and_numbers_order_by_value():
    """No assumption system behind the deciders: a pair they cannot order keeps both."""
    crossing = (T * N / (2 * N + T), N / 64)  # crosses at N = 64 - T/2 when T < 128
    assert smallest(*crossing, 5, sympy.Rational(7, 2)) == sympy.Min(
        *crossing, sympy.Rational(7, 2), evaluate=False)
    equal = (N * (N + 1), N**2 + N)  # the same value, two forms: the first stays
    assert largest(*equal) == equal[0]


HOPPER_T_MIN = sympy.Max(K * M * N / 156 / 10**12, (K * M + K * N + M * N) / 10**12,
                         K * M * N / 3456 / 10**11 + M * N / 27 / 10**11)
CANCELLED = [
    2 * K * M * N / HOPPER_T_MIN,  # the verdict's performance, W / t_min
    1 - sympy.Max(N / 1000, 2 * N**2 / 10**9) / HOPPER_T_MIN,  # the grid's tail share
    (N**2 - 1) / (N + 1) * sympy.Min(1, CONV_RATIO) + sympy.Min(1, CONV_RATIO) / 3,
    (N**2 - 1) / (N + 1),  # no Min or Max: sympy.cancel itself
]


@pytest.mark.parametrize("expr", CANCELLED)
def test_cancelled_is_sympys_cancel(expr):
    assert cancelled(expr) == sympy.cancel(expr)
    assert str(cancelled(expr)) == str(sympy.cancel(expr))


L, b, h, Theta = (size_symbol(name) for name in ("L", "b", "h", "Theta"))
# int4_decode's t_min on an H100
INT4_T_MIN = sympy.Max(33 * Theta / 214400000000000, 43 * Theta * b / 21120000000000000,
                       Theta * b / 20480000000000000 + 2 * b / sympy.Integer(1220703125))
CEILING = sympy.ceiling(b * h / 66)
# decode_attention's t_min: sympy's cancel expands its terms, and the first is always below
# the last, which sympy cannot prove
DECODE_T_MIN = sympy.Max(11 * (65 * L / 128 + 136) * CEILING / 325000000000,
                         11 * L * CEILING / 78125000000, (256 * L + 2048) * CEILING / 7500000000000,
                         L * b * h / 52343750000 + 133 * b * h / 26171875000)
HELD = [
    b / INT4_T_MIN,  # int4_decode's tokens per second
    b / (INT4_T_MIN + sympy.Rational(1, 250000)),  # with the launch overhead
    b / DECODE_T_MIN,
    1 - sympy.Max(L * b, h / 3) / DECODE_T_MIN,  # two Max
    (h - L * b) / (sympy.Min(L * b, h / 3) - DECODE_T_MIN),  # a sign to normalise
]


@pytest.mark.parametrize("expr", HELD)
def test_cancelled_keeps_each_lattice_and_the_value(expr):
    """Where sympy's cancel would rewrite a Max's terms, the Max stays as the verdict printed
    it, and the value is sympy's at every size."""
    result = cancelled(expr)
    assert result.atoms(sympy.Min, sympy.Max) == expr.atoms(sympy.Min, sympy.Max)
    reference = sympy.cancel(expr)
    symbols = sorted(expr.free_symbols, key=str)
    for values in itertools.product((1, 3, 64, 10**6), repeat=len(symbols)):
        point = dict(zip(symbols, map(sympy.Integer, values)))
        assert result.xreplace(point) == reference.xreplace(point) == expr.xreplace(point)


QUOTIENTS = [(b, INT4_T_MIN), (b, INT4_T_MIN + sympy.Rational(1, 250000)),
             (b, DECODE_T_MIN + sympy.Rational(1, 200000)), (h - L * b, DECODE_T_MIN - h),
             (2 * K * M * N, HOPPER_T_MIN), (L * b, 3 * sympy.Min(L * b, h / 3) + 7)]


@pytest.mark.parametrize("numerator, denominator", QUOTIENTS)
def test_a_quotient_cancelled_is_the_same_expression_as_before_its_lattices_are_held(
        numerator, denominator):
    # the quotient built with each lattice held, and the lattices put back into the product
    # without sympy's rebuilding: the expression the plain xreplace gives, argument for
    # argument, as it is printed
    expr = numerator / denominator
    held = {lattice: sympy.Dummy() for lattice in sorted(
        expr.atoms(sympy.Min, sympy.Max), key=sympy.default_sort_key)}
    reference = sympy.cancel(expr.xreplace(held)).xreplace(
        {symbol: lattice for lattice, symbol in held.items()})
    result = held_quotients.cancelled_quotient(numerator, denominator)
    assert result == reference == cancelled(expr)
    assert result.args == reference.args and str(result) == str(reference)


@pytest.mark.parametrize("expr", [b / INT4_T_MIN, 2 * b * L**2 / (3 * DECODE_T_MIN**2),
                                  Theta / 6, sympy.Rational(3, 4), sympy.Min(L, b) * h])
def test_a_product_of_sizes_and_lattices_is_in_lowest_terms(expr):
    # returned as it stands: what cancel gives with each lattice held as a symbol
    held = {lattice: sympy.Dummy() for lattice in sorted(
        expr.atoms(sympy.Min, sympy.Max), key=sympy.default_sort_key)}
    reference = sympy.cancel(expr.xreplace(held)).xreplace(
        {symbol: lattice for lattice, symbol in held.items()})
    assert cancelled(expr) == reference == expr


SIGNED = [
    CONV_RATIO - sympy.Rational(1, 10),
    TILED - 64,
    sympy.ceiling(N / 128) * 128 - N - 1,
    sympy.floor(N / 3) - sympy.Max(N / 4, T / 8) + sympy.Min(1, N - T),
    1 / (N - 1) - 1 / (T - 2),  # no number where N = 1 or T = 2
    sympy.Float(0.1) * N - 1,  # floats: sympy's own evaluation
    N**-2 * T**3 - 5,
]


@pytest.mark.parametrize("expr", SIGNED)
def test_signs_at_witnesses_are_sympys(expr):
    symbols = tuple(sorted(expr.free_symbols, key=str))
    for values in witnesses.witness_values(len(symbols)):
        value = expr.xreplace(dict(zip(symbols, map(sympy.Integer, values))))
        expected = (None if not value.is_Number or not value.is_finite
                    else 1 if value.is_positive else -1 if value.is_negative else 0)
        assert witnesses.sign_of(expr, symbols, values) == expected, values


# ------------------------------------------------------------- one size, decided exactly

ONE_SIZE = [
    # (difference, its sign at every n >= 1)
    (CONV_RATIO - 1, -1),  # below 9/80 < 1: sympy proves it too
    (CONV_RATIO * 20 - 20, -1),  # conv3x3's intensity under the H100 ridge, 9/4 < 20
    (n**2 - 2 * n + 2, 1),  # (n - 1)^2 + 1: complex roots only
    (n * (n + 1) - n**2 - n, 0),  # the same polynomial written twice
    (1 / (n + 3) - sympy.Rational(1, 3), -1),  # 1/4 at n = 1, falling
    (sympy.Rational(1, 2) - n / (2 * n + 1), 1),  # n/(2n + 1) rises towards 1/2
    ((n - sympy.Rational(1, 2)) * (n + 2), 1),  # roots below 1 only
]
UNDECIDED_BY_ONE_SIZE = [
    CONV_RATIO - sympy.Rational(1, 10),  # crosses between n = 18 and 19
    (n - 3)**2,  # a double root at 3: >= 0, but not proven here
    n - 1,  # zero at n = 1
    1 / (n - 2),  # no value at n = 2
    sympy.floor(n / 2) - n,  # floor: another function
    sympy.Float(0.5) * n - 1,  # a float coefficient
    N - T,  # two sizes
    sympy.Symbol("x") ** 2 + 1,  # not a size: it may be below 1
]


@pytest.mark.parametrize("difference, sign", ONE_SIZE)
def test_one_size_proves_a_constant_sign(difference, sign):
    assert decide.one_size_sign(difference) == sign
    assert less_than(difference, 0) is (sign < 0)
    assert at_most(difference, 0) is (sign <= 0)
    assert at_least(difference, 0) is (sign >= 0)


@pytest.mark.parametrize("difference", UNDECIDED_BY_ONE_SIZE)
def test_one_size_leaves_the_rest(difference):
    assert decide.one_size_sign(difference) is None


# -------------------------------------------------- several sizes, shifted coefficients

# matvec's global intensity over the H100 FP32 ridge (20 FLOP/B): below 1/40 at every M, N
MATVEC_RATIO = M * N / (20 * (2 * M * N + 2 * M + 2 * N))
SHIFTED = [
    # (difference, its sign at every size >= 1); sympy decides none of them
    (MATVEC_RATIO - 1, -1),  # Min(1, ratio) is the ratio
    (MATVEC_RATIO - sympy.Rational(1, 10), -1),  # in the clearly memory-bound zone
    (TILED - T / 2, -1),  # -T^2 / (2(2N + T))
    (N * T - N - T + 2, 1),  # (1 + m)(1 + k) - m - k: 1 + m k
    (-(N**2) * T + N * T - 3, -1),  # -n^2 t + n t - 3 = -(1 + m) m (1 + k) - 3
    (N * (N + T) - N**2 - N * T, 0),  # written twice
]
NOT_SHIFTED = [
    N - T,  # both signs
    N * T - N,  # zero where T = 1
    N**2 - 3 * N + 3,  # 1 - m + m^2 > 0, but a negative coefficient
    sympy.floor(N / 2) * T - 1,  # floor: another function
    sympy.Float(0.5) * N * T + 1,  # a float coefficient
    1 / (N * T - 2),  # the denominator crosses zero
]


@pytest.mark.parametrize("difference, sign", SHIFTED)
def test_shifted_coefficients_prove_a_constant_sign(difference, sign):
    assert decide.shifted_sign(difference) == sign
    assert less_than(difference, 0) is (sign < 0)
    assert at_most(difference, 0) is (sign <= 0)
    assert at_least(difference, 0) is (sign >= 0)


@pytest.mark.parametrize("difference", NOT_SHIFTED)
def test_shifted_coefficients_leave_the_rest(difference):
    assert decide.shifted_sign(difference) is None


def test_min_of_two_sizes_is_the_proven_argument():
    # matvec on an H100: sympy keeps Min(1, ratio) and Min(P, I B)
    assert isinstance(sympy.Min(1, MATVEC_RATIO), sympy.Min)
    assert smallest(1, MATVEC_RATIO) == MATVEC_RATIO
    peak, bandwidth = 67 * 10**12, 335 * 10**10
    assert isinstance(sympy.Min(peak, MATVEC_RATIO * 20 * bandwidth), sympy.Min)
    assert smallest(peak, MATVEC_RATIO * 20 * bandwidth) == MATVEC_RATIO * 20 * bandwidth


def test_min_and_max_drop_what_one_size_orders():
    # pairs sympy leaves in a Min and a Max; one size orders them, and the Min or Max is the
    # proven argument
    pairs = [
        (n / (n + 1), (n + 1) / (n + 2)),  # the difference is -1/((n + 1)(n + 2))
        (n - 1, (n**2 + 1) / (n + 1)),  # the difference is -2/(n + 1)
        (n**2 - n, n**3 - 2 * n + 2),  # n^3 - n^2 - n + 2: 1 at n = 1, then rising
    ]
    for lower, higher in pairs:
        assert isinstance(sympy.Max(lower, higher), sympy.Max)
        assert isinstance(sympy.Min(lower, higher), sympy.Min)
        assert smallest(lower, higher) == smallest(higher, lower) == lower
        assert largest(lower, higher) == largest(higher, lower) == higher
    # conv3x3's time terms on an H100: sympy cannot tell work >= traffic, one size can
    work, traffic = 9 * n**2 / 33500000000000, (2 * n**2 + 4 * n + 13) / 837500000000
    assert at_least(work, traffic) is False and at_least(traffic, work) is True
    # what one size cannot order stays, in sympy's order: here N/2 goes, N**2 crosses N
    assert largest(N, N / 2, N**2 / 1000) == sympy.Max(N, N**2 / 1000)


# Random rational functions of n: numerator and denominator of degree 0 to 3 with small
# integer coefficients, times (n - r) or (n - r)^2 for a root r in [1, 10] (on an integer
# or between two), or written twice (an exact zero).
ROOTS = st.builds(Fraction, st.integers(2, 20), st.sampled_from([1, 2]))
COEFFICIENTS = st.lists(st.integers(-4, 4), min_size=1, max_size=4)


@st.composite
def polynomials(draw) -> list[Fraction]:
    """Coefficients, constant term first."""
    coefficients = [Fraction(c) for c in draw(COEFFICIENTS)]
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):  # a root in range, maybe double
        root = draw(ROOTS)
        coefficients = _times(coefficients, [-root, Fraction(1)])
    return coefficients


def _times(first: list[Fraction], second: list[Fraction]) -> list[Fraction]:
    product = [Fraction(0)] * (len(first) + len(second) - 1)
    for i, a in enumerate(first):
        for j, b in enumerate(second):
            product[i + j] += a * b
    return product


def _value(coefficients: list[Fraction], size: int) -> Fraction:
    return sum((c * size**power for power, c in enumerate(coefficients)), Fraction(0))


def _expr(coefficients: list[Fraction]) -> sympy.Expr:
    return sympy.Add(*(sympy.Rational(c.numerator, c.denominator) * n**power
                       for power, c in enumerate(coefficients)))


def _sign_of_difference(difference, polynomials, size: int) -> int:
    """The sign at `size` in Python's fractions, or as sympy evaluates it where a
    denominator vanishes (sympy reads 0/(n - 2) as 0 and (n - 2)/(n - 2) as 1)."""
    top, bottom, other_top, other_bottom = (_value(p, size) for p in polynomials)
    if bottom and other_bottom:
        value = top / bottom - other_top / other_bottom
    else:
        by_sympy = difference.subs(n, size)
        assert by_sympy.is_Rational, (size, by_sympy)
        value = Fraction(int(by_sympy.p), int(by_sympy.q))
    return (value > 0) - (value < 0)


SIZES = [*range(1, 201), *(10**k for k in range(3, 10)), *(7 * 10**k + 3 for k in range(3, 9))]


@tiered(100)
@given(polynomials(), polynomials(), polynomials(), st.booleans())
def test_one_size_agrees_with_exact_values_and_sympy(top, bottom, other_top, twice):
    if not any(bottom):
        bottom = [Fraction(1)]
    if twice:  # f - f written as (f * g) / (bottom * g), g without positive roots
        other_top, other_bottom = _times(top, [Fraction(3), Fraction(1)]), _times(bottom, [3, 1])
    else:
        other_bottom = [Fraction(1)]
    first, second = _expr(top) / _expr(bottom), _expr(other_top) / _expr(other_bottom)
    difference = first - second
    assume(difference.free_symbols == {n})
    sign = decide.one_size_sign(difference)
    if sign is not None:
        for size in SIZES:  # a proven sign holds at every size
            assert _sign_of_difference(difference, (top, bottom, other_top, other_bottom),
                                       size) == sign, size
    # what the deciders prove, sympy never contradicts (it proves more, squares among them,
    # and sometimes what is false: F14)
    for by_sympy, ours in ((difference < 0, less_than(difference, 0)),
                           (difference <= 0, at_most(difference, 0)),
                           (difference >= 0, at_least(difference, 0))):
        if decide.decided(by_sympy) is not None and ours is not None:
            assert ours == decide.decided(by_sympy)
    by_sympy = sympy.Min(first, second)
    ours = smallest(first, second)
    if not isinstance(by_sympy, sympy.Min) and not isinstance(ours, sympy.Min):
        assert sympy.cancel(ours - by_sympy) == 0  # of two equal forms, either
    if sign:
        assert smallest(first, second) == (second if sign > 0 else first)
        assert largest(first, second) == (first if sign > 0 else second)


# Random rational functions of two or three sizes: numerator and denominator each a product
# of one or two polynomials with degree 0 to 2 in every size and small integer coefficients,
# mostly positive, so that the shifted coefficients often decide.
SEVERAL = (N, T, M)
GRID = range(1, 31)
LARGE = (10**3, 10**6, 7 * 10**8 + 3)
TERMS = st.tuples(st.tuples(*(st.integers(0, 2) for _ in SEVERAL)),
                  st.sampled_from([-3, -1, 1, 1, 2, 3, 5]))


@st.composite
def products(draw, sizes: int) -> list[dict[tuple[int, ...], int]]:
    """One or two polynomials to multiply, each {exponents: coefficient}."""
    factors = []
    for _ in range(draw(st.integers(1, 2))):
        terms: dict[tuple[int, ...], int] = {}
        for exponents, coefficient in draw(st.lists(TERMS, min_size=1, max_size=4)):
            exponents = exponents[:sizes]
            terms[exponents] = terms.get(exponents, 0) + coefficient
        factors.append(terms)
    return factors


def _product_value(factors, point: tuple[int, ...]) -> int:
    return math.prod(sum(coefficient * math.prod(size**e for size, e in zip(point, exponents))
                         for exponents, coefficient in terms.items()) for terms in factors)


def _product_expr(factors, sizes: int, symbols=SEVERAL) -> sympy.Expr:
    return sympy.Mul(*(sympy.Add(*(coefficient * sympy.Mul(*(symbol**e for symbol, e in
                                                             zip(symbols[:sizes], exponents)))
                                   for exponents, coefficient in terms.items()))
                       for terms in factors))


def _assert_sign_holds(sign: int, top, bottom, sizes: int, values_at) -> None:
    """The quotient top / bottom has `sign` at every point of the grid and of the large
    sizes where bottom is not 0, its variables taking values_at(point)."""
    for point in itertools.chain(itertools.product(GRID, repeat=sizes),
                                 itertools.product(LARGE, repeat=sizes)):
        values = values_at(point)
        bottom_value = _product_value(bottom, values)
        if bottom_value:
            value = Fraction(_product_value(top, values), bottom_value)
            assert (value > 0) - (value < 0) == sign, (point, values)


@tiered(60)
@given(st.integers(2, 3), st.data())
def test_shifted_coefficients_agree_with_exact_values_and_sympy(sizes, data):
    top, bottom, other_top, other_bottom = (data.draw(products(sizes)) for _ in range(4))
    first = _product_expr(top, sizes) / _product_expr(bottom, sizes)
    second = _product_expr(other_top, sizes) / _product_expr(other_bottom, sizes)
    difference = first - second
    assume(len(difference.free_symbols) >= 2)
    sign = decide.shifted_sign(difference)
    event(f"shifted sign: {sign}")
    if sign is not None:  # a proven sign holds at every size where the function has a value
        points = itertools.chain(itertools.product(GRID, repeat=sizes),
                                 itertools.product(LARGE, repeat=sizes))
        for point in points:
            top_value, bottom_value, other_top_value, other_bottom_value = (
                _product_value(part, point) for part in (top, bottom, other_top, other_bottom))
            if bottom_value and other_bottom_value:
                value = (Fraction(top_value, bottom_value)
                         - Fraction(other_top_value, other_bottom_value))
                assert (value > 0) - (value < 0) == sign, point
    for by_sympy, ours in ((difference < 0, less_than(difference, 0)),
                           (difference <= 0, at_most(difference, 0)),
                           (difference >= 0, at_least(difference, 0))):
        if decide.decided(by_sympy) is not None and ours is not None:
            assert ours == decide.decided(by_sympy)
        if sign is not None:
            assert ours is not None


ROUNDINGS = st.one_of(st.none(), st.tuples(st.sampled_from([math.ceil, math.floor]),
                                           st.integers(1, 4), st.integers(-3, 3)))
SYMPY_ROUNDING = {math.ceil: sympy.ceiling, math.floor: sympy.floor}


@tiered(60)
@given(st.integers(1, 3), st.data())
def test_rounded_sizes_agree_with_exact_values(sizes, data):
    """A ceiling of (size + c) / q taken as a size of its own: wherever the shifted
    coefficients then decide, the sign holds at the rounded values of every size."""
    roundings = [data.draw(ROUNDINGS) for _ in range(sizes)]
    top, bottom = data.draw(products(sizes)), data.draw(products(sizes))
    rounded = {symbol: SYMPY_ROUNDING[rounding[0]]((symbol + rounding[2]) / rounding[1])
               for symbol, rounding in zip(SEVERAL, roundings) if rounding is not None}
    difference = (_product_expr(top, sizes) / _product_expr(bottom, sizes)).xreplace(rounded)
    sign = decide.shifted_sign(difference)
    event(f"shifted sign: {sign}")
    if sign is not None:
        _assert_sign_holds(sign, top, bottom, sizes, lambda point: tuple(
            size if rounding is None else rounding[0](Fraction(size + rounding[2], rounding[1]))
            for size, rounding in zip(point, roundings)))


@pytest.mark.parametrize("difference, sign", [
    # flash_attention's global term under its tensor term on an RTX 4090: a wave count >= 1
    (1024 * N * sympy.ceiling(N / 16384) / 20166015625 - N / 984375000, 1),
    (sympy.ceiling(N / 7) * T - T / 2, 1),  # a ceiling of a positive quantity is >= 1
])
def test_rounded_sizes_prove_a_sign(difference, sign):
    assert decide.shifted_sign(difference) == sign


@pytest.mark.parametrize("difference", [
    2 * sympy.floor((N + 3) / 4) - 1,  # a floor may be 0: none is taken as a size
    sympy.ceiling(N - 2) * T + 1,  # the ceiling of a quantity that is not positive
    sympy.ceiling(N / 3) - N,  # the ceiling's tie to N is not used: no sign proven
])
def test_rounded_sizes_unproven(difference):
    assert decide.shifted_sign(difference) is None


# --- roundings through their bounds -------------------------------------------------------

ROUNDED = st.tuples(st.sampled_from([math.ceil, math.floor]), st.integers(1, 130),
                    st.integers(-3, 3))


@tiered(120)
@given(st.integers(1, 2), st.data())
def test_bounded_roundings_agree_with_exact_values(sizes, data):
    """Polynomials in sizes and a rounding of (size + c) / q next to the size itself, so that
    only the rounding's tie to its argument can decide: wherever a choice of bounds proves a
    sign, it holds at the rounded values."""
    roundings = [data.draw(ROUNDED) for _ in range(sizes)]
    slots = 2 * sizes  # N, rounding of N, then T, rounding of T
    top, bottom = data.draw(products(slots)), data.draw(products(slots))
    symbols = [symbol for size in SEVERAL[:sizes] for symbol in (size, sympy.Dummy())]
    rounded = {symbols[2 * k + 1]: SYMPY_ROUNDING[function]((SEVERAL[k] + shift) / quotient)
               for k, (function, quotient, shift) in enumerate(roundings)}

    difference = (_product_expr(top, slots, symbols)
                  / _product_expr(bottom, slots, symbols)).xreplace(rounded)
    sign = decide.rounded_sign(difference)
    event(f"rounded sign: {sign}")
    if sign is not None:
        _assert_sign_holds(sign, top, bottom, sizes, lambda point: tuple(
            value for size, (function, quotient, shift) in zip(point, roundings)
            for value in (size, function(Fraction(size + shift, quotient)))))


@pytest.mark.parametrize("difference, sign", [
    # gemm_tiled_clipped on an H100: the roof above the memory term (ceiling(N/128) >= N/128)
    (990 * 10**12 - 3350 * 10**9 * N * M * T / (
        N * M * sympy.ceiling(T / 128) + N * T * sympy.ceiling(M / 128) + M * T), 1),
    # moe_gemm: a floor under its argument, and a Min of sizes taken as a size
    (12 - sympy.floor(sympy.Integer(102400) / (512 * sympy.Min(64, M) + 66560)), 1),
    (sympy.ceiling(N / 7) * T - T * N / 7 + 1, 1),
])
def test_bounded_roundings_prove_a_sign(difference, sign):
    assert decide.shifted_sign(difference) is None
    assert decide.rounded_sign(difference) == sign


@pytest.mark.parametrize("difference", [
    sympy.ceiling(N / 128) - N / 128,  # 0 at multiples of 128: no strict sign
    sympy.ceiling(N / 2) - sympy.floor(N / 2),  # 0 or 1
    sympy.floor(N / 3) - N / 4,  # < 0 at N = 1, > 0 at N = 3
])
def test_bounded_roundings_unproven(difference):
    assert decide.rounded_sign(difference) is None


@pytest.mark.parametrize("left, right", [*RELATIONS, *((right, left) for left, right in RELATIONS),
                                         (216 * n * sympy.ceiling(N / 108), 2 * N * n)])
def test_a_proof_alone_is_what_the_relations_prove(left, right):
    # where a witness size shows the relation failing, no decider is asked; 216 n
    # ceiling(N/108) >= 2 N n touches zero at N = 108, and less_than has no sign for it
    assert proven_less_than(left, right) is (less_than(left, right) is True)


@tiered(150)
@given(expressions(), expressions())
def test_a_proof_alone_is_what_the_relations_prove_for_generated_pairs(left, right):
    assert proven_less_than(left, right) is (less_than(left, right) is True)


@tiered(200)
@given(left=expressions(kinds=RATIONAL_NODES + ("ceiling", "floor")),
       right=expressions(kinds=RATIONAL_NODES + ("ceiling", "floor")))
def test_a_proof_of_less_than_is_the_same_with_the_sizes_at_1_asked_first(left, right):
    """proven_less_than asks where every size is 1 before it builds the difference: the
    answer is the one shows and the deciders give."""
    decide.proven_less_than.cache_clear()
    expected = (not witnesses.shows(left - right, (0, 1))
                and decide._compared(left, right, strict=True) is True)
    assert decide.proven_less_than(left, right) == expected
