"""The equation solver under the crossings: the roots of a quantity at a target, the side
the quantity crosses from, and the condition that isolates a positive size."""

from __future__ import annotations

import itertools

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost.algebra import equations
from kernelcost.algebra.equations import Equation, equation
from kernelcost.algebra.numeric_roots import ABOVE, BELOW
from kernelcost.algebra.root_conditions import positive_real_condition
from kernelcost.base.symbols import RIDGE, size_symbol

n, T = size_symbol("n"), size_symbol("T")


def test_positive_real_condition_isolates_a_size():
    assert positive_real_condition(RIDGE * T / (T - 2 * RIDGE)) == (T > 2 * RIDGE)
    assert positive_real_condition(3 * RIDGE) == sympy.true
    assert positive_real_condition(-RIDGE) == sympy.false


# conv3x3's global intensity with the channels set: it rises to 9/4 and never reaches it
CONV_INTENSITY = 9 * n**2 / (2 * (2 * n**2 + 4 * n + 13))


def brute_force_crossings(quantity, target: sympy.Rational, sizes: int = 200) -> list[int]:
    """The integer sizes n >= 1 after which quantity - target changes sign, up to `sizes`."""
    signs = [sympy.sign(quantity.subs(n, size) - target) for size in range(1, sizes + 1)]
    return [size for size, (left, right) in enumerate(itertools.pairwise(signs), start=1)
            if left != right or left == 0]


@pytest.mark.parametrize("target", [sympy.Rational(*fraction) for fraction in
                                    ((1, 2), (2, 1), (9, 4), (3, 1), (300, 1))])
def test_roots_at_agree_with_enumeration(target):
    positive = sympy.Symbol("n", positive=True)
    roots = equation(CONV_INTENSITY.subs(n, positive), positive, RIDGE).roots_at(target)
    # each root lies between the integer sizes where the sign changes
    assert [int(root.value) for root in roots] == brute_force_crossings(CONV_INTENSITY, target)


# a causal attention's global intensity in S with its keys one tile over (global traffic
# 8 H S d + 4 H Bc d at d = 128, H = 1, Br = 128, Bc = 64): it
# rises without bound; the other root of its quadratic is never positive
CAUSAL_INTENSITY = (8289 * n**2 + 1065088 * n) / (32768 * (n + 32))


@pytest.mark.parametrize("target", [sympy.Rational(*fraction) for fraction in
                                    ((1, 2), (27, 1), (156, 1), (591, 2))])
def test_a_quadratic_crossing_agrees_with_enumeration(target):
    positive = sympy.Symbol("n", positive=True)
    roots = equation(CAUSAL_INTENSITY.subs(n, positive), positive, RIDGE).roots_at(target)
    assert [int(root.value) for root in roots] == brute_force_crossings(CAUSAL_INTENSITY,
                                                                        target, 2000)
    # the intensity rises through every crossing: compute-bound above it
    assert [root.side for root in roots] == [ABOVE] * len(roots)


def sign_near(quantity, variable, root, target, offset) -> int:
    """The sign of quantity - target at root + offset, counted exactly at a rational point
    closer to the root than any other root of the numerator or denominator."""
    point = sympy.Rational(sympy.N(root, 40)) + offset
    return int(sympy.sign(quantity.subs(variable, point) - target))


def side_seen(quantity, variable, root, target) -> str | None:
    """`above` where the quantity rises through the target at the root, `below` where it
    falls through it, None where it touches it and turns back (a tangency)."""
    below, above = (sign_near(quantity, variable, root, target, sympy.Rational(step, 10**12))
                    for step in (-1, 1))
    return None if below == above else {1: ABOVE, -1: BELOW}[above]


small = st.integers(-9, 9)


@settings(max_examples=60, deadline=None)
@given(small, small, small, st.integers(1, 9), small, st.integers(1, 400))
def test_the_side_of_a_root_is_read_off_the_cleared_polynomial(a, b, c, d, e, target):
    # (a n^2 + b n + c) / (d n + e): at each root the sign of D P' (exact arithmetic on the
    # surd) says the side, as the slope of the quantity there, and as its values just above
    positive = sympy.Symbol("n", positive=True)
    quantity = (a * positive**2 + b * positive + c) / (d * positive + e)
    equation_ = equation(quantity, positive, RIDGE)
    for root in equation_.roots_at(sympy.Integer(target)):
        assert root.side == equations._side_of_slope(equation_.slope, positive, root.value)
        assert root.side == side_seen(quantity, positive, root.value, target)


def test_a_root_where_the_quantity_touches_the_target_has_no_side():
    # n + 1/n = 2 at n = 1 only, and above 2 on both sides: a tangency, not a crossing
    positive = sympy.Symbol("n", positive=True)
    [root] = equation((positive**2 + 1) / positive, positive, RIDGE).roots_at(sympy.Integer(2))
    assert root.value == 1 and root.side is None
    assert side_seen((positive**2 + 1) / positive, positive, root.value, 2) is None


def test_a_linear_crossing_at_exactly_one_is_kept():
    positive = sympy.Symbol("n", positive=True)
    layernorm = equation((7 * positive + 5) / (16 * positive), positive, RIDGE)  # falls to 7/16
    values = {target: [root.value for root in layernorm.roots_at(sympy.Rational(*target))]
              for target in ((3, 4), (1, 2), (4, 5))}
    # (7n + 5) / 16n = I at n = 5 / (16 I - 7): 1 at 3/4, 5 at 1/2, 25/29 (below 1) at 4/5
    assert values == {(3, 4): [1], (1, 2): [5], (4, 5): []}


def test_a_target_with_no_root_from_one_leaves_the_quadratic_unsolved():
    positive = sympy.Symbol("n", positive=True)
    never = Equation(CONV_INTENSITY.subs(n, positive), positive, RIDGE,
                     sympy.expand(9 * positive**2 - 2 * RIDGE * (2 * positive**2
                                                                  + 4 * positive + 13)))
    # 9/4 is the limit, 1/10 is reached only below n = 1 (n = 0.82): no size crosses
    assert never.roots_at(sympy.Rational(9, 4)) == []
    assert never.roots_at(sympy.Rational(1, 10)) == []
    assert "solved" not in vars(never)  # counted exactly, sympy.solve never called
    [root] = never.roots_at(sympy.Integer(2))
    assert root.value == 8 + 2 * sympy.sqrt(29)  # n^2 - 16 n - 52 = 0
    assert "solved" in vars(never)

