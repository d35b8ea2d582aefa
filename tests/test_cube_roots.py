"""Crossings solved by the cubic's formula (flash_attention_causal_split's intensities are
cubic in S). In symbolic sizes, its side, its value and its condition are not factored, which
took minutes (each cube root a generator of the ring); square roots still are. At a number,
a real root written through complex cube roots is the cubic's real root, exactly."""

import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra.equations import _side_of_slope, _simplified, _tidy, equation
from kernelcost.algebra.root_conditions import beyond_square_roots, positive_real_condition
from kernelcost.algebra.surds import exact_floor
from kernelcost.base.kinds import Side

B, D, S = sympy.symbols("B D S", positive=True, integer=True)
K = sympy.Symbol("k", integer=True)


def test_which_powers_are_beyond_square_roots():
    assert not beyond_square_roots(B**2 + 3 * D)
    assert not beyond_square_roots(sympy.sqrt(B * D + 1) - B)
    assert not beyond_square_roots(2**K * B)  # an integer exponent, symbolic
    assert beyond_square_roots(sympy.cbrt(B * D + 1) - B)
    assert beyond_square_roots(B + sympy.I * D)


def test_a_cube_root_in_sizes_stays_as_solved_and_its_side_is_undecided():
    root = sympy.cbrt(B**3 * D + 7 * B) - D / 2
    assert _simplified(root) == root
    assert _side_of_slope(S**3 - B * S - D, S, root) is None
    condition = positive_real_condition(root)  # the root as one factor: its sign asked whole
    assert condition.free_symbols <= {B, D}


def test_a_square_root_in_sizes_is_still_factored():
    root = (B * sympy.sqrt(D**2 + 4) - B * D) / 2
    assert _simplified(root) == B * (sympy.sqrt(D**2 + 4) - D) / 2
    assert _simplified(root).is_Mul  # B taken out, as factor takes it


T = sympy.Symbol("T", positive=True)
SIZE = sympy.Symbol("S", positive=True, integer=True)


def test_a_real_root_written_through_complex_cube_roots_is_a_crossing():
    """S^3 - 3 S + 10 = 11 has three real roots (2 cos(pi/9), 2 cos(7 pi/9), 2 cos(13 pi/9));
    the cubic's formula writes each through complex cube roots, whose realness sympy leaves
    undecided: the one at least 1 was dropped, and a kernel whose intensity crosses a ridge
    there was said never to."""
    roots = equation(SIZE**3 - 3 * SIZE + 10, SIZE, T).roots_at(sympy.Integer(11))
    assert len(roots) == 1
    assert roots[0].value == sympy.CRootOf(SIZE**3 - 3 * SIZE - 1, 2)
    assert float(roots[0].value) == pytest.approx(2 * math.cos(math.pi / 9), rel=1e-15)
    assert roots[0].side == Side.ABOVE


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.integers(-30, 30), st.integers(-60, 60), st.integers(1, 200))
def test_a_cubics_crossings_are_its_real_roots_from_one(a, b, c, target):
    """Every crossing of a S^3 + b S^2 + c S = target at S >= 1 is found, once, at the value
    sympy's exact real roots give, whatever radicals the closed form is written in."""
    cubic = a * SIZE**3 + b * SIZE**2 + c * SIZE
    found = equation(cubic, SIZE, T).roots_at(sympy.Integer(target))
    expected = sorted({float(root) for root in sympy.Poly(cubic - target, SIZE).real_roots()
                       if root >= 1})
    assert [float(root.value) for root in found] == pytest.approx(expected, rel=1e-12)


def _by_sympy(quantity: sympy.Expr, target: sympy.Expr) -> list:
    """roots_at where every formula in cube roots is substituted and evaluated by sympy."""
    solved = equation.__wrapped__(quantity, SIZE, T)
    solved.__dict__["_formulas"] = ()
    return solved.roots_at(target)


def test_formulas_in_cube_roots_are_placed_without_sympy_at_a_rational_target():
    """S^3 - 3 S + 10 = 11 again: its three formulas placed among the exact real roots, the
    one at least 1 found, the two below dropped, as sympy's evaluation finds them."""
    solved = equation.__wrapped__(SIZE**3 - 3 * SIZE + 10, SIZE, T)
    placed = solved._placed(sympy.Integer(11))
    assert placed is not None and len(placed) == 3
    assert [found.value for found in placed.values() if found.value is not None] == [
        sympy.CRootOf(SIZE**3 - 3 * SIZE - 1, 2)]
    assert solved.roots_at(sympy.Integer(11)) == _by_sympy(SIZE**3 - 3 * SIZE + 10,
                                                          sympy.Integer(11))


def test_only_the_formulas_that_cross_are_tidied():
    """S^3 - 3 S + 10 = 11 has one root from 1 of three: only its formula is tidied for
    printing, the same closed form as tidying all three gives; the two placed below 1 stay
    as solved."""
    solved = equation.__wrapped__(SIZE**3 - 3 * SIZE + 10, SIZE, T)
    [root] = solved.roots_at(sympy.Integer(11))
    assert len(solved.tidy) == 1
    assert root.expr == _tidy(solved.solved[next(iter(solved.tidy))])
    assert root.expr in equation.__wrapped__(SIZE**3 - 3 * SIZE + 10, SIZE, T).candidates


@tiered(80)  # 20 in the fast tier, each a cubic solved twice (ours and sympy's)
@given(st.integers(1, 5), st.integers(-40, 40), st.integers(-90, 90), st.integers(-50, 50),
       st.integers(0, 3), st.integers(1, 9), st.integers(1, 400), st.integers(1, 7))
def test_placed_formulas_give_what_sympys_evaluation_gives(a, b, c, e, f, g, p, q):
    """formula_roots against sympy's path on random cubic quotients N/D at rational targets:
    the same roots (the same exact values, in order), sides and closed forms; and the floors
    of the roots it placed as sympy's."""
    quantity = (a * SIZE**3 + b * SIZE**2 + c * SIZE + e) / (f * SIZE + g)
    target = sympy.Rational(p, q)
    found = equation.__wrapped__(quantity, SIZE, T).roots_at(target)
    assert found == _by_sympy(quantity, target)
    for root in found:  # the integer bounds, from the brackets formula_roots kept
        for value in (root.value, -root.value, root.value / 3):
            floor = exact_floor(value)  # None for a radical (sympy's floor then answers)
            assert floor == int(sympy.floor(value)) or (
                floor is None and not value.has(sympy.CRootOf))


def test_placed_formulas_at_rational_roots_are_those_rationals():
    """(S - 2)(S - 3)(S - 5) = 0 at the target 30: the three formulas are 2, 3 and 5, each
    with its side (the cubic rises through 2 and 5, falls through 3), as sympy finds them."""
    quantity = SIZE**3 - 10 * SIZE**2 + 31 * SIZE
    solved = equation.__wrapped__(quantity, SIZE, T)
    assert solved._placed(sympy.Integer(30)) is not None
    found = solved.roots_at(sympy.Integer(30))
    assert [(root.value, root.side) for root in found] == [
        (2, Side.ABOVE), (3, Side.BELOW), (5, Side.ABOVE)]
    assert found == _by_sympy(quantity, sympy.Integer(30))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-60, 60), min_size=4, max_size=4).filter(lambda c: c[0] != 0),
       st.sampled_from([sympy.Integer(1), sympy.Integer(-64), sympy.Rational(3, 7),
                        sympy.Rational(-5, 2)]))
def test_the_floor_of_a_scaled_real_root_is_sympys(coefficients, scale):
    """exact_floor of q * CRootOf (formula_roots.root_floor: Sturm counts, no evaluation
    past a double's guess) against sympy's floor, on every real root of random cubics."""
    for root in sympy.Poly(coefficients, SIZE).real_roots():
        value = scale * root
        floor = exact_floor(value)  # None for a radical, -2**(1/3) of S^3 + 2: sympy's floor
        assert floor == int(sympy.floor(value)) or (
            floor is None and not value.has(sympy.CRootOf))


def test_a_target_where_the_cubic_loses_its_degree_is_left_to_sympy():
    """(S^3 + S)/(S^3/2 + 1) = 2 clears to S - 2 = 0 (its cubic term is 0 there): the
    cubic's formulas divide by zero, so formula_roots answers nothing and sympy's path
    answers as before there (formula_roots does at the targets around it, the same)."""
    quantity = (SIZE**3 + SIZE) / (SIZE**3 / 2 + 1)
    solved = equation.__wrapped__(quantity, SIZE, T)
    assert solved._placed(sympy.Integer(2)) is None
    assert solved._placed(sympy.Rational(5, 2)) is not None
    for target in (sympy.Integer(2), sympy.Rational(5, 2), sympy.Rational(3, 2)):
        assert solved.roots_at(target) == _by_sympy(quantity, target)


def _conditions_both_ways(quantity: sympy.Expr) -> None:
    """Each closed-form root's condition with sympy's sign questions asked before the
    witnesses (a formula in cube roots) and with the witnesses taken first: the same."""
    from kernelcost.algebra import root_conditions

    for candidate in equation.__wrapped__(quantity, SIZE, T).candidates or ():
        asked_first = positive_real_condition(candidate)
        sympy.core.cache.clear_cache()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(root_conditions, "_asked_first", lambda expr: False)
            witnessed_first = positive_real_condition(candidate)
        sympy.core.cache.clear_cache()
        assert asked_first == witnessed_first
        assert str(asked_first) == str(witnessed_first)


def test_a_cubic_roots_condition_is_the_same_asked_before_the_witnesses():
    # flash_attention_causal_split's global intensity at d = 128 (the cubic of its ridge)
    _conditions_both_ways((SIZE**3 / 32768 + SIZE**2 * 65 / 1008 + SIZE / 4 + 1 / 2)
                          / (SIZE**2 / 4096 + SIZE))


@settings(max_examples=6, deadline=None)
@given(st.integers(1, 4), st.integers(-30, 30), st.integers(-60, 60), st.integers(1, 9))
def test_random_cubic_roots_conditions_are_the_same_asked_before_the_witnesses(a, b, c, g):
    _conditions_both_ways((a * SIZE**3 + b * SIZE**2 + c * SIZE) / (SIZE + g))
