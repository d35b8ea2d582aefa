"""quotients.cancel is sympy.cancel, expression for expression, on the rational functions of
sizes that closed forms are made of: sums, products and quotients of sizes, roundings, Min
and Max, with rational coefficients of either sign; and on what else reaches it, where it
must hand over to sympy when it cannot match it: symbols with no assumptions and Dummy ones
(held_quotients.cancelled holds each Min and Max as one), Min and Max nested, integers past 64 bits,
tiny rational coefficients, negative powers of sums, sums left open and floats. Its factor
lists are sympy's factor_list on products of sums, repeated factors included."""

import pytest
import sympy
from hypothesis import HealthCheck, assume, given
from hypothesis import strategies as st
from sympy.polys.domains import ZZ
from sympy.polys.polyutils import _sort_gens
from sympy.polys.rings import ring
from tiers import tiered

from kernelcost.algebra.factored_forms import (
    MAX_FACTOR_GENERATORS,
    _factor_list,
    _generators,
    factor,
    factored,
    readable,
    readable_cancelled,
    readable_expanded,
)
from kernelcost.algebra.quotients import cancel, expanded, scaled
from kernelcost.algebra.ring_order import sorted_generators
from kernelcost.base.symbols import size_symbol

N, M, T = (size_symbol(name) for name in ("N", "M", "T"))
ATOMS = [N, M, T, sympy.floor(N / T), sympy.ceiling((M + 1) / 2), sympy.Max(N, M),
         sympy.Min(N, 4), sympy.Integer(1), sympy.Rational(3, 2), sympy.Integer(-2),
         # arguments sympy's passes rewrite (signsimp, factor_terms reach into calls): the
         # nest campaign's ceiling(N/(N - M)) came back as ceiling(-N/(M - N))
         sympy.ceiling(N / (N - M)), sympy.floor((M - N) / (2 * T)), sympy.Min(N - M, T),
         sympy.Max(2 - N, M * T - M), sympy.Min(T, N / (N - M))]


x = sympy.Symbol("x")  # no assumptions: signs and integrality unknown to sympy
k = sympy.Symbol("k", integer=True, nonnegative=True)
WIDE_ATOMS = ATOMS + [
    x, sympy.Dummy("held"), sympy.Max(sympy.Min(N, M), T), sympy.Min(2 * N + 2, M),
    sympy.Integer(10**30 + 7), sympy.Rational(-1, 7), sympy.Rational(1, 10**12),
    # a sum left open (Summer keeps what sympy cannot close): sympy.cancel's factor_terms
    # takes N out of the summand, which no canonical form of the numerator does
    sympy.Sum(N * k + N, (k, 0, M - 1)), sympy.Sum(sympy.ceiling(k / T), (k, 0, N)),
    # floats: factor_terms rescales the coefficients over RR
    sympy.Float(0.5), sympy.Float(1e9), sympy.Float(1e30)]


def _combined(children, powers=st.integers(2, 3)):
    return st.one_of(
        st.tuples(children, children).map(lambda pair: pair[0] + pair[1]),
        st.tuples(children, children).map(lambda pair: pair[0] - pair[1]),
        st.tuples(children, children).map(lambda pair: pair[0] * pair[1]),
        st.tuples(children, children).map(lambda pair: pair[0] / pair[1]),
        st.tuples(children, powers).map(lambda pair: pair[0] ** pair[1]),
        children.map(lambda expr: -expr))


def _finite(expr) -> bool:
    return expr.is_finite is not False and not expr.has(sympy.zoo, sympy.nan)


expressions = st.recursive(st.sampled_from(ATOMS), _combined, max_leaves=10).filter(_finite)
def _wide_combined(children):
    # a*b - expand(a*b) plus a, 1 or 2: a form or a constant in disguise, no number until
    # expanded
    disguised = st.tuples(children, children, st.sampled_from([0, 1, 2])).map(
        lambda drawn: drawn[0] * drawn[1] - sympy.expand(drawn[0] * drawn[1])
        + (drawn[2] or drawn[0]))
    return st.one_of(_combined(children, st.sampled_from([2, 3, -1, -2])), disguised)


wide_expressions = st.recursive(st.sampled_from(WIDE_ATOMS), _wide_combined,
                                max_leaves=10).filter(_finite)


def _outcome(function, expr):
    """The expression, or the error's type: where sympy raises, the shortcut must too."""
    try:
        return function(expr)
    except Exception as error:  # noqa: BLE001 - any error is compared, not hidden
        return type(error).__name__


@tiered(300)
@given(expressions)
def test_cancel_is_sympys_expression(expr):
    assert cancel(expr) == sympy.cancel(expr)


FACTORS = st.builds(sympy.Rational, st.integers(-12, 12).filter(bool),
                    st.sampled_from([1, 2, 3, 4, 6, 67, 10**12]))


@tiered(300)
@given(expressions, FACTORS)
def test_a_cancelled_expression_scaled_is_sympys_cancel(expr, factor):
    # an intensity over a ridge: cancelled once, then scaled by each machine's factor
    reduced = cancel(expr)
    assert scaled(reduced, factor) == sympy.cancel(factor * reduced)
    assert str(scaled(reduced, factor)) == str(sympy.cancel(factor * reduced))
    # built by distributing the factor over each side's kept expression: the same tree
    assert sympy.srepr(scaled(reduced, factor)) == sympy.srepr(sympy.cancel(factor * reduced))


@tiered(300)
@given(expressions)
def test_factored_is_factor_of_cancel(expr):
    # the parts factored as the ring's polynomials, or factor(cancel(expr)) where the ring
    # has other atoms (roundings, Min and Max) or rational coefficients
    assert str(factored(expr)) == str(factor(cancel(expr)))
    assert factored(expr) == sympy.factor(sympy.cancel(expr))


@tiered(300)
@given(expressions)
def test_readable_expanded_is_sympys_factor_of_the_expansion(expr):
    # a total's factor, read from the ring with its calls as generators: the expansion
    # sympy.factor would be given, factored
    expanded = sympy.expand(expr)
    assert readable_expanded(expr) == readable(expanded)
    if _generators(expanded) <= MAX_FACTOR_GENERATORS:
        assert readable_expanded(expr) == sympy.factor(expanded)


@tiered(300)
@given(expressions)
def test_expanded_is_sympys_expansion(expr):
    # multiplied out in the ring over a denominator of one term, else sympy's own
    assert str(expanded(expr)) == str(sympy.expand(expr))
    assert expanded(expr) == sympy.expand(expr)


@tiered(150, suppress_health_check=[HealthCheck.too_slow])
@given(wide_expressions)
def test_expanded_is_sympys_expansion_on_wider_expressions(expr):
    assert _outcome(expanded, expr) == _outcome(sympy.expand, expr)
    assert str(_outcome(expanded, expr)) == str(_outcome(sympy.expand, expr))


def test_a_denominator_of_one_term_is_distributed_and_one_of_several_kept():
    over_one = (N * M + 2 * sympy.ceiling((M + 1) / 2)) * (T + 3) / (4 * N * T)
    over_several = (N + 1) * M / (N + T)
    for expr in (over_one, over_several, sympy.Integer(3), N**2 * sympy.Max(N, M) / 6):
        assert str(expanded(expr)) == str(sympy.expand(expr))
    assert len(expanded(over_one).args) == 4  # (N*M + 2*c)*(T + 3): four terms, each / 4NT


# sizes none of ATOMS holds: a factor of both parts takes a quotient past
# MAX_FACTOR_GENERATORS and cancelling brings it back within them, or not
H, B, D = (size_symbol(name) for name in ("H", "B", "D"))


@tiered(200)
@given(expressions, expressions, st.sampled_from([1, D, B * D]))
def test_readable_cancelled_is_readable_of_cancel(numerator, denominator, kept):
    expr = H * kept * numerator / (H * B * denominator)
    assume(_finite(expr))
    assert str(readable_cancelled(expr)) == str(readable(sympy.cancel(expr)))
    assert readable_cancelled(expr) == readable(sympy.cancel(expr))


def test_a_quotient_cancelled_within_the_generators_is_factored_from_its_pair(monkeypatch):
    """One of flash_attention_hopper's intensities, work over traffic with the heads H in
    every term (six generators left once they cancel): sympy's factor, which readable calls,
    took 20-60 ms on such a quotient, its pair 6-10 ms."""
    S, Bc, Br, d = (size_symbol(name) for name in ("S", "Bc", "Br", "d"))
    tiles = sympy.ceiling(S / Bc) * sympy.ceiling(S / Br)
    work = sympy.expand(H * (4 * Bc * Br * tiles + Br * d * tiles + 4 * Br * tiles
                             + 4 * S**2 * d + S * d))
    expr = work / sympy.expand(H * (8 * S * d + 2 * S * Br * tiles))
    assert _generators(expr) == MAX_FACTOR_GENERATORS + 1
    expected = readable(sympy.cancel(expr))
    monkeypatch.setattr("kernelcost.algebra.factored_forms.factor", lambda expr: pytest.fail(
        f"factor asked for {expr}"))
    assert str(readable_cancelled(expr)) == str(expected)


WIDE = tiered(150, suppress_health_check=[HealthCheck.too_slow])


@WIDE
@given(wide_expressions)
def test_cancel_is_sympys_expression_on_wider_expressions(expr):
    assert _outcome(cancel, expr) == _outcome(sympy.cancel, expr)


@WIDE
@given(wide_expressions)
def test_factor_is_sympys_expression_on_wider_expressions(expr):
    assert _outcome(factor, expr) == _outcome(sympy.factor, expr)


def test_cancel_hands_sums_left_open_and_floats_to_sympy():
    # found by the wider generator: sympy.cancel writes N*Sum(k, ...) + N*Sum(1, ...), and
    # 1.0e-21 - 1.0e-30*Min(4, N) over 1.0*Min(4, N) - 1.0, where the numerator's canonical
    # form alone keeps Sum(N*k, ...) and the coefficients as written
    open_sum = sympy.Sum(N * k + N, (k, 0, M - 1))
    assert cancel(N * open_sum) == sympy.cancel(N * open_sum)
    assert cancel(open_sum / N) == sympy.cancel(open_sum / N)
    floats = (sympy.Float(1e9) - sympy.Min(4, N)) / (sympy.Float(1e30) * (sympy.Min(4, N) - 1))
    assert cancel(floats) == sympy.cancel(floats)


def test_factor_of_a_constant_in_disguise_is_sympys():
    # (N + 1)**2 - N**2 - 2*N is 1, but not a number until expanded: Poly finds no generator
    disguised = (N + 1)**2 - N**2 - 2 * N
    for expr in (disguised, disguised / M, M / disguised, M * (disguised - 1)):
        assert _outcome(factor, expr) == _outcome(sympy.factor, expr)


def test_a_call_keeps_the_form_the_sums_around_it_leave():
    """Found by the generator: sympy's passes rewrite a call's argument alone
    (ceiling(N/(N - M)) becomes ceiling(-N/(M - N))), but not inside a sum they turn over
    first, and the call is a generator of the result."""
    call = sympy.ceiling(N / (N - M))
    extremum = sympy.Min(T, N / (N - M))  # the same for Min and Max
    for expr in (N * (-(call - N)**2 + sympy.floor(N / T)), call * N + M, (call - N)**2,
                 extremum * N + N, extremum):
        assert cancel(expr) == sympy.cancel(expr)
        assert factored(expr) == sympy.factor(sympy.cancel(expr))


def test_cancel_reduces_to_lowest_terms():
    assert cancel((N**2 - M**2) / (2 * N + 2 * M)) == N / 2 - M / 2
    assert cancel((T * N + T) / (T**2 * (N + 1))) == 1 / T
    assert cancel(sympy.floor(N / T) * N / (N * M)) == sympy.floor(N / T) / M


def test_what_is_not_a_rational_function_goes_to_sympy():
    assert cancel(sympy.Integer(6) / 4) == sympy.Rational(3, 2)
    assert cancel(sympy.sqrt(2) * N / N) == sympy.sqrt(2)
    assert cancel(sympy.Eq(N, M)) == sympy.Eq(N, M)


@tiered(300)
@given(expressions)
def test_factor_is_sympys_expression(expr):
    assert factor(expr) == sympy.factor(expr)


def test_factor_keeps_the_coefficient_outside():
    assert str(factor(2 * M + 2 * N)) == "2*(M + N)"
    assert str(factor((N**2 - 1) / (2 * T + 2))) == "(N - 1)*(N + 1)/(2*(T + 1))"
    assert factor(sympy.Float(0.5) * N + sympy.Float(0.5)) == sympy.factor(
        sympy.Float(0.5) * N + sympy.Float(0.5))


def test_factor_leaves_roundings_min_and_max_to_sympy(monkeypatch):
    """As generators of one polynomial they can send Wang's factoring into minutes (the
    property campaign's intensity with many min/max generators, under some random states):
    sympy's own factor splits the polynomial first."""
    asked = []
    real = sympy.factor
    monkeypatch.setattr(sympy, "factor", lambda expr: asked.append(expr) or real(expr))
    for expr in (N * sympy.Min(N, M) + N * T, sympy.ceiling(N / T) * M + M):
        assert factor(expr) == real(expr)
    assert len(asked) == 2
    assert factor(N * M + N * T) == N * (M + T) and len(asked) == 2


def test_a_factor_that_is_a_number_in_disguise_distributes_as_sympys():
    """Found by the wider generator: sympy factors a product factor by factor, and the
    constant one's coefficient distributes over the rest."""
    expr = (M + N) * (N * (M + N) - M * N - N**2 + 2)
    assert factor(expr) == sympy.factor(expr) == 2 * M + 2 * N


RING, *GENERATORS = ring("a, b, c, d, e", ZZ)
_terms = st.tuples(st.sampled_from([-3, -2, -1, 1, 2, 5]),
                   st.lists(st.tuples(st.sampled_from(GENERATORS), st.integers(1, 2)),
                            max_size=3))
_polynomials = st.lists(_terms, min_size=1, max_size=4).map(
    lambda terms: sum((coefficient * RING.mul(*[g**power for g, power in powers])
                       for coefficient, powers in terms), RING.zero))


@tiered(200, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(-6, 6).filter(bool),
       st.lists(st.tuples(_polynomials, st.integers(1, 2)), min_size=1, max_size=3))
def test_factor_list_is_sympys_on_products_of_sums(scale, parts):
    """Products of sums of degree 1 (read off by Gauss's lemma) and of degree 2 in each
    generator (left to sympy), repeated factors and common monomials included."""
    product = RING(scale)
    for polynomial, power in parts:
        product *= polynomial**power
    if product:
        coefficient, factors = _factor_list(product)
        expected_coefficient, expected_factors = product.factor_list()
        assert coefficient == expected_coefficient
        assert sorted(map(str, factors)) == sorted(map(str, expected_factors))


# generators as rings meet them: sizes, the quotients facts make (K__over__T), names that
# end in digits (sympy orders x2 before x10), the names sympy orders first, calls, Dummies
_GENERATOR_POOL = [*(atom for atom in WIDE_ATOMS if atom.free_symbols and not atom.is_Add),
                   *(sympy.Symbol(name, integer=True, positive=True) for name in (
                       "x2", "x10", "x", "y", "z", "a", "t1", "K__over__T", "_i0_t", "WM")),
                   sympy.Symbol("x2"), sympy.Dummy("x2"), sympy.ceiling(M / T + 1)]


@tiered(200)
@given(st.lists(st.sampled_from(_GENERATOR_POOL), max_size=8, unique=True))
def test_sorted_generators_is_sympys_order(generators):
    """ring_order.sorted_generators is sympy's _sort_gens, order and ties included (a
    Symbol and a Dummy of one name keep the order given)."""
    assert sorted_generators(generators) == _sort_gens(list(generators))
