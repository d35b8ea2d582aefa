"""The model's comparisons: sympy's own answers and expressions for relations, Min and Max
wherever sympy decides, the undecidable ones settled by witness sizes instead of the
assumption system, and rational functions of sizes decided exactly (shifted coefficients
for any number of sizes, real roots for one), also where sympy cannot; the random rational
functions checked against exact values at sizes from 1 to 10^9 are in test_decide_random.py."""

from __future__ import annotations

import itertools

import pytest
import sympy
from hypothesis import given
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
