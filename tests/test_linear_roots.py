"""Ridge and capacity equations linear in the size are solved as -b/a without sympy.solve
(closed_roots.linear_roots), and those of higher degree by solve without its checks
(closed_roots.polynomial_roots). The closed form is printed, so it must be sympy.solve's own
answer, expression for expression: generated equations are solved both ways. The conditions
under which a root is a positive real skip sympy's questions where witnesses show both signs,
and must read as the questions give them."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from conftest import sample_spent
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra import root_conditions, surds, witnesses
from kernelcost.algebra.axis_signs import changes_sign
from kernelcost.algebra.closed_roots import linear_roots, polynomial_roots
from kernelcost.algebra.equations import equation
from kernelcost.base.symbols import CAPACITY, RIDGE, size_symbol

VARIABLE = sympy.Symbol("N", positive=True)  # as solve.py makes the size it solves for
K, M, T = (size_symbol(name) for name in ("K", "M", "T"))
FREE = sympy.Symbol("y")  # no assumptions: solve keeps every root in it
# the other symbols a coefficient may hold: sizes, the targets, one of unknown sign
OTHERS = (K, M, T, RIDGE, CAPACITY, FREE)

numbers = st.one_of(st.integers(-6, 6), st.fractions(-6, 6, max_denominator=4)).map(
    lambda n: sympy.Rational(Fraction(n).numerator, Fraction(n).denominator))
monomials = st.lists(st.sampled_from(OTHERS), max_size=2).map(lambda s: sympy.Mul(*s))
coefficients = st.lists(st.tuples(numbers, monomials), min_size=1, max_size=3).map(
    lambda terms: sympy.expand(sum(number * monomial for number, monomial in terms)))
# a coefficient 0 at the smallest sizes and of one sign above them (3 - 3*K*M, 2*T - 2):
# sympy settles a strict relation of it outright (K*M - 1 < 0 is false), where the other
# coefficients leave one undecided; zero too, so that such a term stands alone in a root
at_least_one = st.tuples(numbers, st.lists(st.sampled_from((K, M, T)), min_size=1,
                                           max_size=2)).map(
    lambda term: sympy.expand(term[0] * (sympy.Mul(*term[1]) - 1)))
condition_coefficients = st.one_of(st.just(sympy.Integer(0)), coefficients, at_least_one)


def solved_by_sympy(cleared: sympy.Expr) -> list[sympy.Expr]:
    return sympy.solve(cleared, VARIABLE, dict=False, simplify=False)


@tiered(150)
@given(coefficients, coefficients)
def test_a_linear_equation_is_solved_as_sympy_solves_it(slope, rest):
    assume(slope != 0)
    cleared = sympy.expand(slope * VARIABLE + rest)
    assume(cleared.is_Add)
    roots = linear_roots(cleared, VARIABLE)
    assert roots is not None  # every such sum is one the shortcut takes
    assert roots == solved_by_sympy(cleared)
    assert [str(root) for root in roots] == [str(root) for root in solved_by_sympy(cleared)]


@tiered(100)
@given(coefficients, coefficients, coefficients, coefficients,
       st.sampled_from((RIDGE, CAPACITY)))
def test_a_cleared_rational_equation_is_solved_as_sympy_solves_it(a, b, c, d, target):
    # quantity(N) = (a N + b) / (c N + d) = target: linear in N once the denominator is
    # cleared, or no longer in N at all where the target's term cancels it
    assume(c != 0 or d != 0)
    cleared = equation((a * VARIABLE + b) / (c * VARIABLE + d), VARIABLE, target).cleared
    assume(cleared is not None and cleared.has(VARIABLE) and cleared.is_Add)
    assert linear_roots(cleared, VARIABLE) == solved_by_sympy(cleared)


def test_a_root_the_size_cannot_take_is_dropped_as_solve_drops_it():
    # N + K = 0: N = -K is negative for a positive K, so neither answer has a root
    assert linear_roots(VARIABLE + K, VARIABLE) == solved_by_sympy(VARIABLE + K) == []


def test_the_working_set_crossing_is_sympys():
    # gemm_tiled's working set against L2: 2(KM + KN + MN) = capacity
    cleared = 2 * K * M + 2 * K * VARIABLE + 2 * M * VARIABLE - CAPACITY
    [root] = linear_roots(cleared, VARIABLE)
    assert root == -2 * K * M / (2 * K + 2 * M) + CAPACITY / (2 * K + 2 * M)
    assert [root] == solved_by_sympy(cleared)


def test_what_is_not_a_rational_linear_sum_is_left_to_sympy():
    assert linear_roots(VARIABLE**2 - RIDGE, VARIABLE) is None  # degree 2
    assert linear_roots(sympy.sqrt(2) * VARIABLE - RIDGE, VARIABLE) is None  # a radical
    assert linear_roots(sympy.ceiling(M / T) * VARIABLE - RIDGE, VARIABLE) is None
    assert linear_roots(sympy.Float(0.5) * VARIABLE - RIDGE, VARIABLE) is None
    assert linear_roots(3 * VARIABLE, VARIABLE) is None  # a product: solve splits it


@settings(max_examples=25, deadline=None)
@given(coefficients, coefficients, coefficients, st.booleans())
@example(1 - 2 * K, 1, 1, False)  # a leading coefficient of unknown sign: solve sorts
def test_a_polynomial_equation_is_solved_as_sympy_solves_it(a, b, c, cubic):
    # a N^2 + b N + c (or a N^3 + b N + c): roots with radicals, some negative for every
    # value of the other symbols (dropped) and some of unknown sign (kept)
    polynomial_roots_agree(a, b, c, cubic)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(coefficients, coefficients, coefficients, st.booleans())
def test_a_polynomial_equation_is_solved_as_sympy_solves_it_at_length(a, b, c, cubic):
    if not sample_spent():
        polynomial_roots_agree(a, b, c, cubic)


def polynomial_roots_agree(a, b, c, cubic) -> None:
    assume(a != 0)
    cleared = sympy.expand(a * VARIABLE ** (3 if cubic else 2) + b * VARIABLE + c)
    roots = polynomial_roots(cleared, VARIABLE)
    assert roots == solved_by_sympy(cleared)
    assert [str(root) for root in roots] == [str(root) for root in solved_by_sympy(cleared)]


def test_polynomial_roots_drop_the_roots_a_size_cannot_take():
    # N^2 + 3 N + 2 = (N + 1)(N + 2): both roots negative; N^2 - K^2: -K dropped, K kept
    assert polynomial_roots(VARIABLE**2 + 3 * VARIABLE + 2, VARIABLE) == []
    assert polynomial_roots(VARIABLE**2 - K**2, VARIABLE) == [K]


@settings(max_examples=50, deadline=None)
@given(condition_coefficients, condition_coefficients, condition_coefficients,
       condition_coefficients)
@example(sympy.Integer(0), 3 - 3 * K * M, sympy.Integer(0), sympy.Integer(1))
def test_witnesses_leave_the_conditions_as_sympys_assumptions_give_them(a, b, c, d):
    # where a root, a factor or a relation takes both signs at the witnesses, sympy is not
    # asked: the condition must be the one its questions give
    conditions_agree(a, b, c, d)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(condition_coefficients, condition_coefficients, condition_coefficients,
       condition_coefficients)
def test_witnesses_leave_the_conditions_as_sympys_assumptions_give_them_at_length(a, b, c, d):
    if not sample_spent():
        conditions_agree(a, b, c, d)


def conditions_agree(a, b, c, d) -> None:
    assume(c != 0 or d != 0)
    root = (a * RIDGE + b) / (c * RIDGE + d)
    with_witnesses = root_conditions.positive_real_condition(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(root_conditions, "_both_signs", lambda expr: False)
        asked = root_conditions.positive_real_condition(root)
    assert with_witnesses == asked
    assert str(with_witnesses) == str(asked)


def test_a_condition_sympy_settles_is_its_truth_value():
    # 3 - 3*K*M is 0 at K = M = 1 and negative above: never a positive real. Its one
    # undecided factor, K*M - 1 < 0, is one sympy settles as false (K*M - 1 is a
    # nonnegative integer), and it once went on to be isolated as a relation
    # (AttributeError: 'BooleanFalse' object has no attribute 'lhs')
    root = 3 - 3 * K * M
    assert [root.subs({K: k, M: m}) for k, m in [(1, 1), (2, 1), (3, 2)]] == [0, -3, -15]
    assert root_conditions.positive_real_condition(root) is sympy.false
    # beside a factor of both signs the relation stays undecided, and holds where the
    # root is positive: 3 at K = 2, M = 1, ridge 1; 0 at K = M = 1
    condition = root_conditions.positive_real_condition(root / (1 - 2 * RIDGE))
    for k, m, ridge, positive in [(2, 1, 1, True), (1, 1, 1, False), (2, 1, 0.25, False)]:
        at = {K: k, M: m, RIDGE: sympy.nsimplify(ridge)}
        assert bool(condition.subs(at)) is positive is bool((root / (1 - 2 * RIDGE)).subs(at) > 0)


def test_signs_at_witnesses_take_a_ridge_below_one():
    # I_crit is a positive real: 8 I_crit - 1 is negative at 1/10 and positive at 1
    assert witnesses.signs_at_witnesses(8 * RIDGE - 1) == {1, -1}
    assert witnesses.signs_at_witnesses(RIDGE + K) == {1}
    assert witnesses.signs_at_witnesses(RIDGE + FREE) == set()  # FREE may be negative


@given(numbers, numbers, st.integers(1, 10**6), st.integers(1, 50))
def test_a_rational_plus_a_square_root_has_its_exact_sign(rational, coefficient, top, bottom):
    # a quadratic's root at a ridge: a + b sqrt(q), signed without evaluating the root
    value = rational + coefficient * sympy.sqrt(sympy.Rational(top, bottom))
    expected = sympy.sign(value.evalf(60))
    assert surds.exact_number_sign(value) == int(expected)


@given(numbers, numbers, st.integers(1, 10**6), st.integers(1, 50))
def test_a_rational_plus_a_square_root_has_sympys_floor_and_ceiling(rational, coefficient,
                                                                    top, bottom):
    # a crossing's integer bound: the sizes from the root up, or up to it
    value = rational + coefficient * sympy.sqrt(sympy.Rational(top, bottom))
    assert surds.exact_floor(value) == int(sympy.floor(value))
    assert -surds.exact_floor(-value) == int(sympy.ceiling(value))


def test_a_root_a_hair_from_a_whole_number_has_sympys_floor():
    # sqrt(10**12 + 1) is 10**6 + 5e-7: the double's guess is within a rounding of the
    # integer, and the exact signs settle it
    near = sympy.sqrt(10**12 + 1)
    for value in (near, -near, 10**6 - sympy.sqrt(10**12 - 1), near - 10**6, sympy.Integer(7)):
        assert surds.exact_floor(value) == int(sympy.floor(value))
    assert surds.exact_floor(sympy.sqrt(2) * 10**20) is None  # past a double's integers


def test_other_numbers_have_no_exact_sign_here():
    assert surds.exact_number_sign(1 + sympy.sqrt(2) + sympy.sqrt(3)) is None
    assert surds.exact_number_sign(sympy.cbrt(2) - 1) is None
    assert surds.exact_number_sign(sympy.zoo) is None


def test_a_sign_change_between_the_witnesses_is_found_exactly():
    # flash_attention_causal's l2 root: (64 I - 8289)(192 I - 8321) is negative only for
    # 43.3 < I < 129.5, between the witnesses 10 and 1000
    product = (64 * RIDGE - 8289) * (192 * RIDGE - 8321)
    assert witnesses.signs_at_witnesses(product) == {1}
    assert changes_sign(product)
    assert not changes_sign((64 * RIDGE - 8289) ** 2)  # touches 0, one sign
    assert not changes_sign(RIDGE * (RIDGE + 3))  # its roots are at 0 and below
    assert not changes_sign(K * RIDGE - 1)  # not a function of one symbol
    root = (24576 * RIDGE - 1065088) / (8289 - 64 * RIDGE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(root_conditions, "_both_signs", lambda expr: False)
        asked = root_conditions.positive_real_condition(root)
    assert root_conditions.positive_real_condition(root) == asked
    assert str(asked) == "(64*I_crit - 8289)*(192*I_crit - 8321) < 0"


positive_rationals = st.fractions(Fraction(1, 8), 40, max_denominator=8).map(
    lambda value: sympy.Rational(value.numerator, value.denominator))


@tiered(150)
@given(st.lists(st.tuples(positive_rationals, st.integers(1, 3), st.booleans()),
                min_size=1, max_size=4),
       st.sampled_from((1, -1)))
def test_a_rational_function_of_the_ridge_changes_sign_where_a_root_is_odd(factors, sign):
    # prod (I - r)^k, each factor in the numerator or the denominator: it takes both signs
    # exactly where the multiplicities of some root r > 0 add up to an odd number
    expr = sign * sympy.Mul(*[(RIDGE - root) ** (multiplicity if above else -multiplicity)
                              for root, multiplicity, above in factors])
    multiplicities = {}
    for root, multiplicity, _ in factors:
        multiplicities[root] = multiplicities.get(root, 0) + multiplicity
    odd = any(total % 2 == 1 for total in multiplicities.values())
    assert changes_sign(sympy.together(expr)) == odd
    assert changes_sign(expr) == odd
