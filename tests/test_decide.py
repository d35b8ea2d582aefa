"""The model's comparisons: the same answers and expressions as sympy's own relations, Min and
Max, with the undecidable ones settled by witness sizes instead of the assumption system."""

from __future__ import annotations

import pytest
import sympy

from kernelcost import decide
from kernelcost.decide import at_least, at_most, largest, less_than, smallest
from kernelcost.symbols import size_symbol

n, N, T = (size_symbol(name) for name in ("n", "N", "T"))
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
