"""numeric_roots lambdifies a quantity once and subtracts each target from its values
(GridSearch), where it lambdified `quantity - target` for every target: the roots, their
values and sides must be those the difference's own function gives, bit for bit."""

from __future__ import annotations

import itertools

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra import numeric_roots as module
from kernelcost.algebra.numeric_roots import GRID, Root, numeric_roots
from kernelcost.base.symbols import size_symbol

S = size_symbol("S")


def lambdified_roots(quantity: sympy.Expr, target: sympy.Expr,
                     ties_exceed: bool = True) -> list[Root]:
    """numeric_roots as it was: the difference lambdified as one form, every grid point
    evaluated through it."""
    difference = sympy.lambdify(S, quantity - target, modules="math")
    roots = []
    for left, right in itertools.pairwise(GRID):
        before, after = module._sign(difference, left), module._sign(difference, right)
        if module._sides_differ(before, after, ties_exceed):
            root = module._bisect(difference, left, right, ties_exceed)
            if root < 1:
                continue
            side = module.ABOVE if module._exceeds(after, ties_exceed) else module.BELOW
            roots.append(Root(None, sympy.true, sympy.Float(root), side,
                              module._edge(quantity - target, S, root, side, ties_exceed)))
    return roots


coefficients = st.integers(1, 2000)
divisors = st.sampled_from((2, 7, 64, 128, 132, 176, 256))


@st.composite
def quantities(draw) -> sympy.Expr:
    """Intensities of the forms the ridge equations search: a sum of powers and products of
    ceilings over another, or a product."""
    def part() -> sympy.Expr:
        terms = [draw(coefficients) * S ** draw(st.integers(0, 2)) for _ in range(draw(
            st.integers(1, 3)))]
        terms.append(draw(coefficients) * sympy.ceiling(S / draw(divisors))
                     * sympy.ceiling(S / draw(divisors)))
        return sympy.Add(*terms)

    numerator, denominator = part(), part()
    if draw(st.booleans()):
        denominator = draw(coefficients) * S * sympy.ceiling(S / draw(divisors))
    return numerator / denominator


targets = st.one_of(st.integers(-5, 300).map(sympy.Integer),
                    st.fractions(min_value=-10, max_value=2000, max_denominator=5000).map(
                        lambda f: sympy.Rational(f.numerator, f.denominator)))


@given(quantities(), st.lists(targets, max_size=2), st.lists(st.integers(1, 5000), max_size=2),
       st.booleans())
@settings(max_examples=60, deadline=None)
def test_one_function_for_every_target_finds_the_same_roots(quantity, targets, sizes,
                                                           ties_exceed):
    # the quantity's own values at some sizes are targets it crosses
    for target in [*targets, *(quantity.xreplace({S: size}) for size in sizes)]:
        assert numeric_roots(quantity, S, target, ties_exceed) == lambdified_roots(
            quantity, target, ties_exceed)


def test_a_sum_or_a_float_target_keeps_its_own_difference():
    """A sum's number would be merged with the target's by sympy, and a float is printed by
    its digits: both lambdify the difference as it was."""
    assert not module._apart(S + 3 + sympy.ceiling(S / 7), sympy.Integer(5))
    assert not module._apart(S * sympy.ceiling(S / 7), sympy.Float(2.5))
    assert module._apart(S * sympy.ceiling(S / 7), sympy.Rational(5, 3))
    quantity = S / 64 + sympy.ceiling(S / 7) / 3 + 1
    assert numeric_roots(quantity, S, sympy.Integer(40)) == lambdified_roots(
        quantity, sympy.Integer(40))


def test_an_integer_past_a_double_counts_for_no_sign():
    """An integer quantity too large for a double, less a fraction, raises OverflowError
    where the difference is one function: the point counts for no sign either way."""
    quantity = 3 * sympy.ceiling(S / 7) ** 40
    target = sympy.Rational(5, 3)
    assert numeric_roots(quantity, S, target) == lambdified_roots(quantity, target)


def halved_200_times(function, left: float, right: float, ties_exceed: bool) -> float:
    """The bisection as it was: 200 halvings, the side at left asked at every one (a point
    of no number on neither side)."""
    def side(x: float) -> bool | None:
        sign = module._sign(function, x)
        return None if sign is None else module._exceeds(sign, ties_exceed)

    for _ in range(200):
        middle = (left + right) / 2
        if side(middle) == side(left):
            left = middle
        else:
            right = middle
    return (left + right) / 2


@tiered(300)
@given(st.integers(1, 10**6), st.integers(1, 10**6), st.integers(0, len(GRID) - 2),
       st.sampled_from(("line", "pole", "step", "flat", "zero")), st.booleans())
def test_the_bisection_stops_where_its_200_halvings_would_end(p, q, index, shape,
                                                              ties_exceed):
    """Stopped once a halving moves neither end, the bisection gives the 200 halvings'
    double, bit for bit: at a crossing, a pole (no number there), a step between adjacent
    doubles and a function of one sign."""
    left, right = GRID[index], GRID[index + 1]
    root = left + (right - left) * p / (p + q)
    functions = {"line": lambda x: x - root,
                 "pole": lambda x: 1 / (x - root),
                 "step": lambda x: 1.0 if x >= root else -1.0,
                 "flat": lambda x: float(p),
                 "zero": lambda x: 0.0 if x >= root else -1.0}  # a step onto the target
    function = functions[shape]
    assert module._bisect(function, left, right, ties_exceed) == halved_200_times(
        function, left, right, ties_exceed)


VALUES = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True),
                   st.integers(-10**400, 10**400), st.sampled_from([0, 0.0, -0.0, 10**309]))


@settings(max_examples=300, deadline=None)
@given(st.lists(VALUES, max_size=20),
       st.one_of(st.integers(-10**20, 10**20), st.floats(allow_nan=False, allow_infinity=False)))
def test_the_grids_signs_are_those_sign_reads_of_each_difference(values, number):
    """GridSearch's signs in one loop against _sign of the difference at each point: None
    (no value there), an overflow and NaN are no sign (None), zero is 0."""
    def difference_at(value):
        if value is None:
            raise ZeroDivisionError  # a point where the quantity had no value
        return value - number

    try:  # an integer difference past a double: _sign's reading raises, as it did
        expected = [module._sign(lambda _, value=value: difference_at(value), 0.0)
                    for value in values]
    except OverflowError:
        with pytest.raises(OverflowError):
            module._difference_signs(values, number)
        return
    assert module._difference_signs(values, number) == expected


@given(quantities(), targets, st.sampled_from(["", "floor", "max", "float"]))
@settings(max_examples=60, deadline=None)
def test_the_math_function_is_lambdifys(quantity, target, extra):
    """math_function prints the same source as lambdify(..., modules="math") (its printer
    only skips an import CodePrinter.doprint makes for assignments), so the same doubles."""
    import inspect

    expr = quantity - target
    if extra == "floor":
        expr += sympy.floor(S / 3) / 7
    elif extra == "max":
        expr = sympy.Max(expr, S / 5 - 2)
    elif extra == "float":
        expr += sympy.Float("0.25") * S
    ours, sympys = module.math_function(S, expr), sympy.lambdify(S, expr, modules="math")
    assert inspect.getsource(ours) == inspect.getsource(sympys)
    assert [ours(x) for x in (1.0, 37.5, 4096.0)] == [sympys(x) for x in (1.0, 37.5, 4096.0)]
