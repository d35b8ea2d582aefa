"""The model's comparisons: the same answers and expressions as sympy's own relations, Min and
Max, with the undecidable ones settled by witness sizes instead of the assumption system."""

from __future__ import annotations

import pytest
import sympy

from kernelcost import decide
from kernelcost.decide import at_least, at_most, cancelled, largest, less_than, smallest
from kernelcost.symbols import size_symbol

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
    (TILED, T / 2),  # always below
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
    assert decide._both_signs(CONV_RATIO - sympy.Rational(1, 10), zero_counts_as=1)
    assert less_than(CONV_RATIO, sympy.Rational(1, 10)) is None
    # always below 1: the witnesses agree, and sympy proves it
    assert not decide._both_signs(CONV_RATIO - 1, zero_counts_as=1)
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


def test_groups_are_what_witnesses_cannot_split():
    # N and N/2 order; N**2 crosses both (below at N = 1, above at N = 10**6); 3 crosses all
    groups = decide._orderable_groups([N, N / 2, N**2 / 1000, sympy.Integer(3)])
    assert sorted(map(len, groups)) == [1, 1, 2]
    assert [N, N / 2] in groups


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
    for point in decide._witness_points(sorted(expr.free_symbols, key=str)):
        value = expr.xreplace(point)
        expected = (None if not value.is_Number or not value.is_finite
                    else 1 if value.is_positive else -1 if value.is_negative else 0)
        assert decide._sign_at(expr, point) == expected, point
