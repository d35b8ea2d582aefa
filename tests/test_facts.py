"""The facts module on its own: divisibility rewriting, slack substitutions from bounds and
rounding lower bounds (test_facts_within.py: the sign prover within a nest, and the budget).

The prover is tested both ways. What it proves is checked against a brute-force search over
small admissible sizes (and iterator points), so that a "proof" of something false fails here;
what it must not prove comes with the counterexample that makes it false."""

import itertools

import pytest
import sympy
from facts_checks import SMALL, facts_of, internal_names, smallest
from hypothesis import assume, given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.base.symbols import iterator_symbol, size_symbol
from kernelcost.count import facts as facts_module

N, M, K, T, S, Br, Bc = (size_symbol(s) for s in ("N", "M", "K", "T", "S", "Br", "Bc"))
i, j = iterator_symbol("i"), iterator_symbol("j")


# --- divisibility -------------------------------------------------------------------------


def test_one_divisor_writes_the_dividend_as_a_product_and_restores_it():
    facts = facts_of("T | N")
    (quotient,) = facts.backward
    assert facts.forward == {N: T * quotient}  # N = T*q, q a positive integer
    assert quotient.is_integer and quotient.is_positive
    # ceiling(N/T) = ceiling(q) = q; restored it is N/T, with no internal symbol left
    assert facts.apply(sympy.ceiling(N / T)) == quotient
    assert facts.restore(facts.apply(sympy.ceiling(N / T))) == N / T
    assert facts.restore(facts.apply(sympy.floor(N / T) * M)) == M * N / T


def test_one_divisor_keeps_roundings_it_does_not_prove_integral():
    facts = facts_of("T | N")
    # N/(2T) = q/2 is not an integer for odd q (N = 3, T = 1): the ceiling must stay
    kept = facts.apply(sympy.ceiling(N / (2 * T)))
    assert kept.has(sympy.ceiling)
    assert sympy.ceiling(sympy.Rational(3, 2)) != sympy.Rational(3, 2)
    assert facts.apply(sympy.ceiling(M / T)).has(sympy.ceiling)  # M is no multiple of T
    assert not facts.integral(facts.apply(N / (2 * T)))
    assert facts.integral(facts.apply(N / T))


@pytest.mark.parametrize("order", ["T | K, K | N", "K | N, T | K"])
def test_a_chain_of_divisors_is_closed_in_either_order(order):
    facts = facts_of(order, "N, K, T")
    # K = T*a and N = K*b = T*a*b: no image may still hold a dividend
    for image in facts.forward.values():
        assert not image.free_symbols & set(facts.forward)
    assert sympy.simplify(facts.apply(N) / facts.apply(K)).is_integer  # N/K = b
    # N/T = a*b, N/K = b, K/T = a: all three ceilings drop, and restore leaves sizes only
    for ratio in (N / T, N / K, K / T):
        applied = facts.apply(sympy.ceiling(ratio))
        assert not applied.has(sympy.ceiling)
        restored = facts.restore(applied)
        assert sympy.simplify(restored - ratio) == 0
        assert internal_names(restored) == set()
    # K/N = 1/b lies in (0, 1]: its ceiling is 1; 2K/N = 2/b is 2/3 at b = 3: that one stays
    assert facts.apply(sympy.ceiling(K / N)) == 1
    assert facts.apply(sympy.ceiling(2 * K / N)).has(sympy.ceiling)
    # the work of `for i in 0..N by T { for k in 0..K by T }` is N*K/T^2, in sizes only
    total = facts.restore(facts.apply(sympy.ceiling(N / T) * sympy.ceiling(K / T)))
    assert sympy.simplify(total - N * K / T**2) == 0 and internal_names(total) == set()


def test_several_divisors_of_one_size_each_drop_their_ceiling():
    facts = facts_of("Br | S, Bc | S", "N, S, Br, Bc")
    for divisor in (Br, Bc):
        applied = facts.apply(sympy.ceiling(S / divisor))
        assert not applied.has(sympy.ceiling)
        assert sympy.simplify(facts.restore(applied) - S / divisor) == 0
    # neither fact makes Br*Bc or Br + Bc a divisor: S = 4, Br = 2, Bc = 4 gives S/(Br*Bc) =
    # 1/2, and S = 2, Br = Bc = 1 gives S/(Br + Bc) = 2/3
    assert facts.apply(sympy.ceiling(S / (Br * Bc))).has(sympy.ceiling)
    assert facts.apply(sympy.ceiling(S / (Br + Bc))).has(sympy.ceiling)
    assert facts.apply(sympy.ceiling(2 * S / (3 * Bc))).has(sympy.ceiling)  # S = Bc = 1


def test_three_divisors_of_one_size():
    facts = facts_of("T | N, M | N, K | N", "N, M, K, T")
    for divisor in (T, M, K):
        assert not facts.apply(sympy.ceiling(N / divisor)).has(sympy.ceiling)
    assert facts.apply(sympy.ceiling(N / (T + M))).has(sympy.ceiling)  # N = 2, T = M = 1


def test_a_circle_of_divisors_proves_nothing_false_and_leaks_nothing():
    facts = facts_of("N | K, K | N", "N, K")
    # N | K and K | N mean N = K; whatever is kept, nothing beyond that may be proven:
    # K/(2N) = 1/2
    assert facts.apply(sympy.ceiling(K / (2 * N))).has(sympy.ceiling)
    assert not facts.nonnegative(facts.apply(N - K - 1))  # N = K
    for expr in (sympy.ceiling(K / N) * N, sympy.ceiling(N / K) + K):
        assert internal_names(facts.restore(facts.apply(expr))) == set()


def test_a_circle_of_divisors_keeps_its_first_fact():
    # Facts._close_chains: "A circle (`N | K, K | N`) keeps its first fact only". The first
    # fact, N | K, writes K = N*q: ceiling(K/N) = q must drop, as it does for `N | K` alone.
    alone = facts_of("N | K", "N, K")
    assert not alone.apply(sympy.ceiling(K / N)).has(sympy.ceiling)
    circle = facts_of("N | K, K | N", "N, K")
    assert not circle.apply(sympy.ceiling(K / N)).has(sympy.ceiling)


def test_a_divisibility_fact_on_a_dividend_that_is_no_size_is_left_alone():
    facts = facts_of("T | 2*N")  # only a size can be written as a product
    assert facts.forward == {} and facts.further == []
    assert facts.apply(sympy.ceiling(N / T)).has(sympy.ceiling)  # N = 1, T = 2 -> 1/2


# --- bounds as slack ------------------------------------------------------------------------


# (assumption, what holds given it, its truth as a predicate on sizes)
PROVEN = [
    ("T <= N", N - T, lambda p: p[T] <= p[N]),
    ("N >= T", N - T, lambda p: p[N] >= p[T]),
    ("T < N", N - T - 1, lambda p: p[T] < p[N]),  # integers: T + 1 <= N
    ("N > T", N - T - 1, lambda p: p[N] > p[T]),
    ("N >= 3", N - 3, lambda p: p[N] >= 3),
    ("N > 3", N - 4, lambda p: p[N] > 3),
    ("2*T <= N", N - 2 * T, lambda p: 2 * p[T] <= p[N]),
    ("T/2 < N", N - T / 2, lambda p: sympy.Rational(p[T], 2) < p[N]),
    ("N/2 > T", N - 2 * T, lambda p: sympy.Rational(p[N], 2) > p[T]),  # T = N/2 - d
    ("T <= N - 2", N - T - 2, lambda p: p[T] <= p[N] - 2),
]

# (assumption, what does NOT follow from it, its truth as a predicate, a counterexample)
NOT_PROVEN = [
    ("T <= N", T - N, lambda p: p[T] <= p[N], {T: 1, N: 2}),  # the issue-9 defect 1
    ("T <= N", N - T - 1, lambda p: p[T] <= p[N], {T: 2, N: 2}),  # the slack may be 0
    ("N >= T", T - N, lambda p: p[N] >= p[T], {T: 1, N: 2}),
    ("T < N", N - T - 2, lambda p: p[T] < p[N], {T: 1, N: 2}),
    ("T < N", T - N, lambda p: p[T] < p[N], {T: 1, N: 2}),
    ("N >= 3", 3 - N, lambda p: p[N] >= 3, {N: 4}),  # the issue-9 defect 1, second form
    ("N >= 3", N - 4, lambda p: p[N] >= 3, {N: 3}),
    ("N > 3", N - 5, lambda p: p[N] > 3, {N: 4}),
    ("2*T <= N", N - 2 * T - 1, lambda p: 2 * p[T] <= p[N], {T: 1, N: 2}),
    # T/2 is no integer: the strict bound gives no gap of one (T = 1, N = 1: 1/2 < 1)
    ("T/2 < N", N - T / 2 - 1, lambda p: sympy.Rational(p[T], 2) < p[N], {T: 1, N: 1}),
    ("N/2 > T", N - 2 * T - 2, lambda p: sympy.Rational(p[N], 2) > p[T], {T: 1, N: 3}),
    ("T <= N", M - T, lambda p: p[T] <= p[N], {T: 2, N: 2, M: 1}),  # says nothing of M
]


@pytest.mark.parametrize("assume, expr, truth", PROVEN)
def test_a_bound_proves_what_follows_from_it(assume, expr, truth):
    facts = facts_of(assume)
    assert facts.nonnegative(expr)
    assert facts.nonpositive(-expr)
    # and it is true: brute force over small admissible sizes
    assert smallest(expr, (N, M, T), truth) >= 0


@pytest.mark.parametrize("assume, expr, truth, counterexample", NOT_PROVEN)
def test_a_bound_proves_nothing_beyond_itself(assume, expr, truth, counterexample):
    point = {N: 1, M: 1, T: 1, **counterexample}
    assert truth(point) and expr.subs(point) < 0  # the counterexample is admissible
    facts = facts_of(assume)
    assert not facts.nonnegative(expr)
    assert not facts.nonpositive(-expr)


@pytest.mark.parametrize("assume, integer", [("T <= N", True), ("T < N", True),
                                             ("T/2 < N", False), ("N/2 >= T", False)])
def test_the_slack_is_an_integer_only_between_integer_sides(assume, integer):
    (substitution,) = facts_of(assume).slack
    (delta,) = {s for value in substitution.values() for s in value.free_symbols} - {N, T}
    assert bool(delta.is_integer) is integer
    # a non-strict slack may be zero: it must never be declared positive (nor zero)
    strict = "<" in assume and "=" not in assume
    assert bool(delta.is_positive) is strict
    assert delta.is_nonnegative and delta.is_zero is not True


def test_a_bound_without_a_lone_size_on_either_side_is_solved_for_a_unit_size():
    facts = facts_of("T + 1 <= 2*N")  # T = 2*N - 1 - d, d >= 0
    assert facts.nonnegative(2 * N - T - 1)
    assert not facts.nonnegative(N - T)  # N = 2, T = 3: T + 1 = 4 <= 4, N - T = -1
    assert facts_of("2*T <= 3*N").slack == []  # no size with coefficient 1: nothing proven


def test_a_bound_on_a_dividend_is_read_through_its_product():
    facts = facts_of("T | N, M <= N")
    assert facts.nonnegative(facts.apply(N - M))
    assert not facts.nonnegative(facts.apply(M - N))  # M = 1, N = T = 2
    assert not facts.nonnegative(facts.apply(N - M - 1))  # M = N


def test_a_quick_counterexample_is_taken_only_where_the_symbols_allow_it():
    # refusing a proof by a negative value at small points must respect each symbol's
    # assumptions: -x < 0 at x = 1, but x is declared negative
    facts = facts_of()
    x = sympy.Symbol("x", integer=True, negative=True)
    assert facts.nonnegative(-x) and facts.nonnegative(-x - 1)
    assert not facts.nonnegative(x + N)  # x = -1, N = 0 is no size; x = -2, N = 1 is
    assert facts.nonnegative(2 * N * T + M / T)  # a sum of products of sizes


def test_a_counter_from_zero_is_a_size_less_one():
    # flash_attention_causal's tiles: a product of quotients times a counter k >= 0, plus the
    # product, less 1, is >= 0 at k = 0 too (sympy's assumptions could not prove it)
    facts = facts_of()
    k = sympy.Symbol("k", integer=True, nonnegative=True)
    assert facts.nonnegative(N * M * T * k + N * M * T - 1)
    assert not facts.nonnegative(N * k - 1)  # -1 at k = 0
    assert all((N * M * T * k + N * M * T - 1).subs({N: n, M: m, T: t, k: c}) >= 0
               for n, m, t, c in itertools.product(SMALL, SMALL, SMALL, range(4)))


def test_a_quotient_that_cancels_to_a_polynomial_is_whole():
    # the key loop's trips in flash_attention_causal's quotients: (a*b*c*k + a*b*c)/(a*c)
    # is b*(k + 1), where sympy's is_integer answers nothing of the quotient
    facts = facts_of()
    k = sympy.Symbol("k", integer=True, nonnegative=True)
    assert facts.integral((N * M * T * k + N * M * T) / (N * T))
    assert not facts.integral((N * M * T * k + N) / (N * T))  # 1/T at M = k = 1, T = 2


def test_without_assumptions_only_what_holds_for_all_positive_integers():
    facts = facts_of()
    assert facts.nonnegative(N - 1)  # sizes are positive integers
    assert not facts.nonnegative(N - 2)  # N = 1
    assert not facts.nonnegative(N - T)  # N = 1, T = 2
    assert not facts.nonnegative(M - sympy.Max(0, N))  # M = 1, N = 2
    assert not facts.nonpositive(N - T)
    assert facts.nonpositive(-N)


# --- rounding lower bounds -------------------------------------------------------------


ROUNDED_PROVEN = [
    # floor(p/q) >= (p - q + 1)/q for integers p, q > 0
    sympy.floor(N / T) - (N - T + 1) / T,
    sympy.floor(N / T) + 1 - N / T,  # floor(x) > x - 1
    sympy.ceiling(N / T) - N / T,  # ceiling(x) >= x
    N / T + 1 - 1 / T - sympy.ceiling(N / T),  # ceiling(p/q) <= (p + q - 1)/q
    sympy.ceiling(N / T) - sympy.floor(N / T),  # ceiling >= floor
    2 * sympy.ceiling(N / T) - sympy.floor(N / T) - N / T,
]

ROUNDED_NOT_PROVEN = [
    (sympy.floor(N / T) - N / T, {N: 1, T: 2}),  # floor rounds down: 0 - 1/2
    (N / T - sympy.ceiling(N / T), {N: 1, T: 2}),  # 1/2 - 1
    (sympy.floor(N / T) - sympy.ceiling(N / T), {N: 1, T: 2}),  # 0 - 1
    (sympy.floor(N / T) - (N - T + 2) / T, {N: 1, T: 2}),  # 0 - 1/2: one above the bound
    (N / T - sympy.ceiling(N / T) + 1 - 2 / T, {N: 1, T: 2}),  # 1/2 - 1 + 1 - 1 = -1/2
]


@pytest.mark.parametrize("expr", ROUNDED_PROVEN)
def test_rounding_bounds_prove_what_holds(expr):
    assert facts_of().nonnegative(expr)
    assert smallest(expr, (N, T), lambda p: True) >= 0  # brute force, N, T in 1..8


@pytest.mark.parametrize("expr, counterexample", ROUNDED_NOT_PROVEN)
def test_rounding_bounds_prove_nothing_false(expr, counterexample):
    assert expr.subs(counterexample) < 0
    assert not facts_of().nonnegative(expr)


# --- the plain decider against sympy's assumptions -----------------------------------------

_WITHIN = sympy.Symbol("_within", integer=True, nonnegative=True)
_SLACK = sympy.Dummy("slack", nonnegative=True)
_PLAIN_FACTORS = st.one_of(
    st.sampled_from([N, M, T, _WITHIN, _SLACK, sympy.Symbol("q", integer=True, positive=True)]),
    st.builds(sympy.Rational, st.integers(0, 9), st.sampled_from([1, 2, 3, 128])),
    st.builds(lambda base, power: base**power, st.sampled_from([N, M, T]),
              st.integers(-3, 3)))


@tiered(200)
@given(st.lists(st.lists(_PLAIN_FACTORS, min_size=1, max_size=4), min_size=1, max_size=5))
def test_a_plainly_nonnegative_sum_is_one_sympy_proves(terms):
    # the prover returns True on an unrounded bound this decider passes without asking
    # sympy of the expression first: sympy, asked, would prove that bound too
    expr = sympy.expand(sympy.Add(*[sympy.Mul(*factors) for factors in terms]))
    assume(facts_module._plainly_nonnegative(expr))  # a square of a slack is not, say
    assert expr.is_nonnegative is True, expr
