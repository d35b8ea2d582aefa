"""Plans and shifted expansions in Python's integers give sympy's exact numbers: a plan's
value is `expr.subs(point)` at random sizes for random rational functions with ceilings,
floors, Min and Max; an expansion's coefficients are sympy's Poly of the shifted polynomial;
and the deciders built on them answer as the sympy paths they replace."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra import rational_eval, shifted, surds, witnesses
from kernelcost.base.symbols import size_symbol, text_key
from kernelcost.oracle.compare import evaluate

SIZES = tuple(sorted((size_symbol(name) for name in ("N", "T", "M")), key=str))
SHIFTS = sympy.symbols("m0:3")
RATIONALS = st.builds(sympy.Rational, st.integers(-7, 7), st.sampled_from([1, 1, 2, 3, 128]))
POINTS = st.tuples(*(st.one_of(st.integers(1, 40), st.sampled_from([1024, 10**6, 7 * 10**8 + 3]))
                     for _ in SIZES))


EVERY_NODE = ("add", "mul", "div", "pow", "ceiling", "floor", "min", "max")
RATIONAL_NODES = ("add", "add", "mul", "div", "pow")  # rational functions: sums the most


@st.composite
def expressions(draw, depth: int = 3, kinds: tuple[str, ...] = EVERY_NODE) -> sympy.Expr:
    """A function of the sizes built of the kinds of node, by default a rational function
    with rounding, Min and Max anywhere in it."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.one_of(st.sampled_from(SIZES), RATIONALS))
    kind = draw(st.sampled_from(kinds))
    first, second = (draw(expressions(depth - 1, kinds)) for _ in range(2))
    if kind == "add":
        return first + second
    if kind == "mul":
        return first * second
    if kind == "div":
        return first / second if second != 0 else first
    if kind == "pow":
        exponent = draw(st.integers(-2, 3))
        return first**exponent if first != 0 or exponent > 0 else first
    if kind in ("ceiling", "floor"):
        return (sympy.ceiling if kind == "ceiling" else sympy.floor)(first / draw(RATIONALS
                                                                                   .filter(bool)))
    return (sympy.Min if kind == "min" else sympy.Max)(first, second)


def _exact(value: sympy.Expr) -> Fraction | None:
    return Fraction(int(value.p), int(value.q)) if value.is_Rational else None


N, T = (size_symbol(name) for name in ("N", "T"))


@tiered(300)
@given(expressions(), st.lists(POINTS, min_size=1, max_size=6))
@example(sympy.ceiling(-N / 3) * sympy.floor((N - 7) / 2), [(1, 5, 1), (3, 4, 1)])
@example((3 - N) ** -3 + 1 / (T - N), [(1, 5, 1), (1, 5, 7), (1, 3, 1)])
@example(sympy.Max(1 / (2 - N), -T) * sympy.Min(N - 6, -T / 3), [(1, 3, 1), (1, 1, 8)])
@example(sympy.Min(SIZES[0], SIZES[0] / (SIZES[0] - 1)), [(1, 1, 1)])  # Min(1, zoo): no number
def test_a_plan_gives_sympys_exact_value(expr, points):
    plan = rational_eval.compiled(expr, SIZES)
    assert plan is not None, expr
    for point in points:
        try:
            expected = _exact(expr.subs(dict(zip(SIZES, point))))
        except ValueError:  # a Min or Max meets zoo (M / (M - 1) at M = 1): no number
            expected = None
        try:
            value = plan(point)
        except ZeroDivisionError:  # sympy has no finite number there either
            assert expected is None, (expr, point)
            continue
        assert value[1] > 0
        assert Fraction(*value) == expected, (expr, point)


@tiered(200)
@given(st.one_of(expressions(), st.sampled_from([sympy.sqrt(SIZES[0]), 1 / (SIZES[0] - 2),
                                                 SIZES[0] + sympy.Symbol("x")])),
       POINTS, st.integers(0, 2))
def test_a_value_at_integers_is_value_at_sympys_integers(expr, point, dropped):
    """The point given as Python's integers (the oracle's sizes) gives value_at's answer,
    None included: no plan, a size without a value, a division by zero."""
    values = dict(zip(SIZES, point))
    if dropped and expr.free_symbols:  # a size left without a value
        values.pop(sorted(expr.free_symbols, key=text_key)[0], None)
    expected = rational_eval.value_at(expr, {s: sympy.Integer(v) for s, v in values.items()})
    assert rational_eval.value_at_integers(expr, values) == expected


@pytest.mark.parametrize("expr", [sympy.Float(0.5) * SIZES[0], sympy.sqrt(SIZES[0]),
                                  sympy.Mod(SIZES[0], 3) + 1, SIZES[0] + sympy.Symbol("x")])
def test_other_nodes_have_no_plan(expr):
    assert rational_eval.compiled(expr, SIZES) is None


@tiered(200)
@given(expressions(), POINTS)
@example(sympy.Min(N, N / sympy.floor(N / 2), evaluate=False), (1, 1, 1))  # Min(1, zoo)
def test_witness_signs_are_sympys(expr, point):
    try:
        value = expr.xreplace(dict(zip(SIZES, map(sympy.Integer, point))))
    except ValueError:  # an infinite argument of Min or Max: no value
        value = sympy.zoo
    expected = (None if not value.is_Number or not value.is_finite
                else 1 if value.is_positive else -1 if value.is_negative else 0)
    assert witnesses.sign_of(expr, SIZES, point) == expected


@st.composite
def polynomials(draw) -> sympy.Expr:
    """Sums of products of powers of the sizes and of small polynomials, rational
    coefficients."""
    terms = []
    for _ in range(draw(st.integers(1, 4))):
        factors = [draw(RATIONALS)]
        for _ in range(draw(st.integers(0, 3))):
            base = draw(st.one_of(st.sampled_from(SIZES),
                                  st.builds(lambda s, c: s + c, st.sampled_from(SIZES), RATIONALS)))
            factors.append(base ** draw(st.integers(0, 4)))
        terms.append(sympy.Mul(*factors))
    return sympy.Add(*terms)


@tiered(200)
@given(polynomials())
def test_shifted_expansion_is_sympys_poly(polynomial):
    shifted = polynomial.xreplace({size: 1 + m for size, m in zip(SIZES, SHIFTS)})
    expected = {exponents: Fraction(int(c.p), int(c.q)) for exponents, c in
                sympy.Poly(shifted, *SHIFTS, domain=sympy.QQ).as_dict().items() if c}
    assert rational_eval.shifted_terms(polynomial, SIZES) == expected


@pytest.mark.parametrize("expr", [1 / SIZES[0], sympy.ceiling(SIZES[0] / 2), SIZES[0] ** 100000000,
                                  sympy.Symbol("x") + 1])
def test_shifted_expansion_leaves_other_forms(expr):
    assert rational_eval.shifted_terms(expr, SIZES) is None


@tiered(200)
@given(polynomials(), st.sampled_from([3, 10, 40, shifted.MOST_SHIFTED_TERMS]))
def test_shifted_sign_of_a_part_is_the_polys(polynomial, most):
    """Signs, the zero polynomial and the limit on terms as sympy's Poly path gives them."""
    poly = sympy.Poly(polynomial, *SIZES, domain=sympy.QQ)
    saved, shifted.MOST_SHIFTED_TERMS = shifted.MOST_SHIFTED_TERMS, most
    try:
        expected = 0 if poly.is_zero else shifted._shifted_coefficient_sign(poly)
        assert shifted.part_sign(polynomial, list(SIZES)) == expected
    finally:
        shifted.MOST_SHIFTED_TERMS = saved


@given(polynomials(), POINTS)
@example(SIZES[0] - 1, (1, 1, 1))
@example(SIZES[0] * SIZES[1] - SIZES[1], (1, 5, 1))
def test_a_polynomial_shifted_nonnegative_is_nonnegative_at_every_size(polynomial, point):
    # facts.nonnegative asks it before sympy's assumptions: a proof must hold at any point
    if shifted.shifted_nonnegative(polynomial):
        assert polynomial.xreplace(dict(zip(SIZES, map(sympy.Integer, point)))) >= 0


COUNTER = sympy.Symbol("k", integer=True, nonnegative=True)  # a loop's counter: 0, 1, ...


@given(polynomials(), POINTS, st.integers(0, 3))
@example(SIZES[0] * SIZES[1] * COUNTER + SIZES[0] * SIZES[1] - 1, (1, 1, 1), 0)
@example(SIZES[0] * COUNTER - 1, (1, 1, 1), 0)
def test_a_counter_from_zero_shifted_nonnegative_is_nonnegative_at_zero_too(polynomial, point,
                                                                           counter):
    """One size made a counter from 0: a proof holds where the counter is 0 as well."""
    polynomial = polynomial.xreplace({SIZES[0]: COUNTER})
    if shifted.shifted_nonnegative(polynomial):
        values = {COUNTER: sympy.Integer(counter), **dict(zip(SIZES[1:], map(sympy.Integer,
                                                                             point[1:])))}
        assert polynomial.xreplace(values) >= 0


def test_shifted_nonnegative_takes_a_zero_at_the_smallest_size():
    # H - 1 is 0 at H = 1: no one sign there, but never negative
    N, T, M = (size_symbol(name) for name in ("N", "T", "M"))
    assert shifted.shifted_nonnegative(N - 1)
    assert shifted.shifted_nonnegative(T * N - T)
    assert shifted.shifted_nonnegative(sympy.ceiling(N / T) - 1)
    assert not shifted.shifted_nonnegative(N - 2)
    assert not shifted.shifted_nonnegative(N - M)
    # a counter from 0 is its own m: k >= 0 and T*k + T - 1 >= 0, not k - 1 (k = 0)
    assert shifted.shifted_nonnegative(COUNTER)
    assert shifted.shifted_nonnegative(T * COUNTER + T - 1)
    assert not shifted.shifted_nonnegative(COUNTER - 1)
    assert not shifted.shifted_nonnegative(sympy.Symbol("x", integer=True))


@tiered(200)
@given(st.lists(expressions(depth=2), min_size=2, max_size=4))
def test_arguments_split_as_their_differences_do(arguments):
    """Each argument evaluated once a point splits the pairs that its differences split."""
    checked = witnesses.ArgumentWitnesses(arguments)
    for i in range(len(arguments)):
        for j in range(i + 1, len(arguments)):
            difference = arguments[i] - arguments[j]
            assert checked.split(i, j, difference) == witnesses.both_signs(difference, 0)
            if checked.split(i, j):  # before the difference: both signs at some true sizes
                pair = arguments[i].free_symbols | arguments[j].free_symbols
                assert _both_signs_at_sizes(difference, tuple(sorted(pair, key=str)))


@given(st.lists(expressions(depth=2), min_size=2, max_size=3),
       st.lists(expressions(depth=2), min_size=1, max_size=2))
def test_arguments_read_in_one_max_split_alike_in_another(first, others):
    """An argument's values, kept from a Min or Max over other symbols (the sizes of its own
    taken out of each point), split the pairs of a later one as its differences do: the
    later one's arguments are the first's in another order, beside others."""
    witnesses.ArgumentWitnesses([*others, *first]).split(0, len(others))
    later = [*reversed(first), *others]
    checked = witnesses.ArgumentWitnesses(later)
    for i, j in itertools.combinations(range(len(later)), 2):
        difference = later[i] - later[j]
        assert checked.split(i, j, difference) == witnesses.both_signs(difference, 0)


POLYNOMIAL_NODES = ("add", "add", "mul", "pow", "ceiling")  # negative powers: not all


@tiered(300)
@given(st.lists(expressions(kinds=POLYNOMIAL_NODES), min_size=2, max_size=4))
@example([sympy.ceiling(N / 3) * T + N, sympy.ceiling(N / 3) * T + 2 * N])  # one rounding
def test_a_pairs_shifted_sign_is_that_of_its_difference_built_in_sympy(arguments):
    """Two polynomials' shifted coefficients give the sign shifted_sign reads off their
    difference (a number's sign where the difference is one); where either argument is no
    polynomial in sizes, none."""
    polynomials = shifted.ShiftedPolynomials(arguments)
    for i, j in itertools.permutations(range(len(arguments)), 2):
        difference = arguments[i] - arguments[j]
        expected = (surds.exact_number_sign(difference) if difference.is_Rational
                    else shifted.shifted_sign(difference))
        ours = polynomials.sign(i, j)
        if polynomials.expanded[i] is None or polynomials.expanded[j] is None:
            assert ours is None
        # a rounding that cancels in the difference is a size to the arguments alone
        elif ours is not None or not any(arguments[k].has(sympy.ceiling) for k in (i, j)):
            assert ours == expected, (arguments[i], arguments[j])


def _both_signs_at_sizes(difference: sympy.Expr, symbols) -> bool:
    """Whether the difference takes both signs at the witness sizes of `symbols`."""
    signs = set()
    for point in witnesses.witness_values(len(symbols)):
        value = difference.xreplace(dict(zip(symbols, map(sympy.Integer, point))))
        if value.is_Rational and value:
            signs.add(value > 0)
    return len(signs) == 2


def _expanded(terms: rational_eval.Terms) -> dict:
    coefficients, denominator = terms
    return {exponents: Fraction(value, denominator) for exponents, value in coefficients.items()}


@tiered(300)
@given(expressions(kinds=RATIONAL_NODES))
@example(1 / (N + 1) + (N - T) / (2 * N + 2))  # denominators equal only as polynomials
@example((N + N / T) ** 2)  # a fraction raised to a positive power
def test_shifted_fraction_is_sympys_numerator_and_denominator(expr):
    """The parts sympy's as_numer_denom writes, expanded at n = 1 + m: the same up to one
    positive factor where sympy grouped the same denominators, else the same quotient."""
    numerator, denominator = rational_eval.shifted_fraction(expr, SIZES)
    expected = [rational_eval.shifted_terms(part, SIZES) for part in expr.as_numer_denom()]
    ours = [_expanded(numerator), _expanded(denominator)]
    if not expected[1] or not ours[1]:
        return
    # ours / expected is the same constant for both parts where the groupings agree
    key = next(iter(expected[1]))
    ratio = ours[1].get(key, 0) / expected[1][key]
    if ratio > 0 and all(ours[1].get(k, 0) == ratio * v for k, v in expected[1].items()):
        assert ours[0] == {k: ratio * v for k, v in expected[0].items()}
    # the same function in any case: the cross products agree
    shift = {size: 1 + m for size, m in zip(SIZES, SHIFTS)}
    top, bottom = (_in_shifts(part) for part in ours)
    their_top, their_bottom = (part.xreplace(shift) for part in expr.as_numer_denom())
    assert sympy.expand(top * their_bottom - bottom * their_top) == 0


def _in_shifts(terms: dict) -> sympy.Expr:
    return sympy.Add(*(value * sympy.Mul(*(m**e for m, e in zip(SHIFTS, exponents)))
                       for exponents, value in terms.items()))


@pytest.mark.parametrize("symbol", [*SIZES, sympy.Symbol("I_crit", positive=True),
                                    sympy.Dummy(integer=True, positive=True), sympy.Dummy("held")])
def test_symbols_sort_by_their_text(symbol):
    # the witnesses order sizes by this key, and must order them as str() would
    assert text_key(symbol) == str(symbol)


@tiered(200)
@given(expressions(), POINTS)
def test_the_oracle_evaluates_a_closed_form_as_substituting_does(expr, point):
    # self-verification reads the closed forms at its samples through the plans
    value = expr.xreplace(dict(zip(SIZES, map(sympy.Integer, point))))
    expected = Fraction(int(value.p), int(value.q)) if value.is_Rational else None
    assert evaluate(expr, dict(zip(SIZES, map(sympy.Integer, point)))) == expected


CEILING_NODES = ("add", "add", "mul", "div", "pow", "ceiling", "ceiling", "min")


def _rebuilt_shifted_sign(difference: sympy.Expr) -> int | None:
    """shifted_sign as it read a difference before: rebuilt with each ceiling's size put in."""
    rounded = shifted.rounded_as_sizes(difference)
    sizes = None if rounded is None else shifted.rational_sizes(rounded)
    if sizes is None or rounded is None:
        return None
    numerator, denominator = (rational_eval.shifted_fraction(rounded, sizes)
                              or rounded.as_numer_denom())
    denominator_sign = shifted.part_sign(denominator, sizes)
    numerator_sign = shifted.part_sign(numerator, sizes) if denominator_sign else None
    return None if numerator_sign is None else numerator_sign * denominator_sign


@tiered(150)
@given(first=expressions(kinds=CEILING_NODES), second=expressions(kinds=CEILING_NODES))
@example(first=sympy.ceiling(SIZES[0] / 66) * SIZES[1] / 7, second=SIZES[1] + 3)
@example(first=sympy.Max(sympy.ceiling(SIZES[0] / 2), 1), second=SIZES[0])
@example(first=SIZES[0], second=sympy.ceiling(sympy.ceiling(SIZES[0] / 2) / 2))  # nested
@example(first=SIZES[0], second=sympy.Min(3, 128 * sympy.ceiling(SIZES[0] / 2)))  # settled
def test_ceilings_read_as_sizes_give_the_rebuilt_answers(first, second):
    """Each ceiling read as its size in place, as the expression rebuilt with the sizes put
    in reads: shifted_sign's answer, and a Max's pairs by their shifted polynomials."""
    assert shifted.shifted_sign(first - second) == _rebuilt_shifted_sign(first - second)
    polynomials = shifted.ShiftedPolynomials((first, second))
    for index, argument in enumerate((first, second)):
        rounded = shifted.rounded_as_sizes(argument)
        own = (None if rounded is None else () if rounded.is_Rational
               else shifted.rational_sizes(rounded))
        assert polynomials.own[index] == own
        if own:
            assert polynomials._expanded(index) == rational_eval.shifted_integers(
                rounded, polynomials.sizes)
