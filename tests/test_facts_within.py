"""The facts module's one-sided sign prover within a nest and its budget, checked both ways:
what it proves against a brute-force search over small sizes and iterator points, what it
must not prove with the counterexample that makes it false."""

import itertools

import pytest
import sympy
from facts_checks import admissible, checked, facts_of
from hypothesis import given
from test_rational_eval import expressions
from tiers import tiered

from kernelcost.base.errors import KcostError
from kernelcost.base.symbols import iterator_symbol, size_symbol
from kernelcost.count.facts import DEFAULT_BUDGET_S, Facts
from kernelcost.count.nest import build_nest

N, M, K, T, S, Br, Bc = (size_symbol(s) for s in ("N", "M", "K", "T", "S", "Br", "Bc"))
i, j = iterator_symbol("i"), iterator_symbol("j")


# --- signs within a nest ----------------------------------------------------------------------


def triangle_loops():
    """The loops of `for i in 0..N { for j in 0..i + 1 }` (j <= i)."""
    kernel = checked(body="for i in 0..N { for j in 0..i + 1 { y[i] += x[j] } }")
    facts = Facts(kernel)
    return facts, build_nest(kernel, facts, "spec").executions[0].loops


def triangle_points(n):
    for i_ in range(n):
        for j_ in range(i_ + 1):
            yield {i: i_, j: j_}


def least_in_triangle(expr):
    return min(expr.subs({**point, N: n, T: t})
               for n in range(1, 7) for t in range(1, 4) for point in triangle_points(n))


WITHIN_PROVEN = [
    i - j,  # j <= i
    N - 1 - i,
    N - 1 - j,
    sympy.Min(T, i),  # both arguments are nonnegative
    N - sympy.Min(N, i),  # a subtracted min: one argument suffices
    i - sympy.Min(N, i),
    N - 1 - sympy.Min(N, i),  # min(N, i) = i <= N - 1
    N - 1 - sympy.Max(i, j),  # a subtracted max: both arguments
    3 * sympy.Max(i, j) - 3 * i,  # positive coefficient on a max: one argument
    2 * i - 2 * sympy.Max(i, j),  # negative coefficient on a max: both (max(i, j) = i)
    sympy.Max(i - N, j) - j,
    sympy.Min(i, j) - 2 * sympy.Min(i, j) + j,  # j - min(i, j) >= 0
]

WITHIN_NOT_PROVEN = [
    i - j - 1,  # j = i
    N - 2 - i,  # i = N - 1
    j - i,  # i = 1, j = 0
    N - 1 - i - j,  # i = j = N - 1 (N >= 2)
    sympy.Min(T, i) - 1,  # i = 0
    sympy.Min(N, i) - i + sympy.Min(0, j - 1),  # j = 0
    -sympy.Max(i, j) + j,  # = j - i, negative for j < i
    sympy.Max(i, j) - j - 1,  # i = j
    T - sympy.Max(i, j),  # T = 1, i = 2
    2 * sympy.Max(N - 1, j) - 2 * N + 1,  # 2(N - 1) - 2N + 1 = -1
    -2 * sympy.Min(i, T) + T,  # T = 1, i = 1 gives -1
]


@pytest.mark.parametrize("expr", WITHIN_PROVEN)
def test_nonnegative_within_proves_what_holds_at_every_point(expr):
    facts, loops = triangle_loops()
    assert facts.nonnegative_within(expr, loops)
    assert least_in_triangle(expr) >= 0


@pytest.mark.parametrize("expr", WITHIN_NOT_PROVEN)
def test_nonnegative_within_proves_nothing_false(expr):
    facts, loops = triangle_loops()
    assert least_in_triangle(expr) < 0  # false somewhere in the nest
    assert not facts.nonnegative_within(expr, loops)


@pytest.mark.parametrize("expr", [*WITHIN_PROVEN, *WITHIN_NOT_PROVEN, (i + 1) * N - i * N - 1])
def test_a_loop_the_expression_does_not_use_leaves_the_answer_as_it_is(expr):
    """A loop that moves nothing in expr is passed over (no expansion, no slope of 0): the
    triangle inside a loop over h, which no expression here uses, gets the triangle's own
    answers (the bounds of an inner loop are asked over every loop around them)."""
    facts, loops = triangle_loops()
    kernel = checked(params="N, M, T, K",
                     body="for h in 0..K { for i in 0..N { for j in 0..i + 1 { y[i] += x[j] } } }")
    outer_facts = Facts(kernel)
    outer_loops = build_nest(kernel, outer_facts, "spec").executions[0].loops
    assert [loop.var for loop in outer_loops][1:] == [loop.var for loop in loops]
    assert (outer_facts.nonnegative_within(expr, outer_loops)
            == facts.nonnegative_within(expr, loops))


def test_a_subtracted_max_of_sizes_needs_both_arguments():
    facts = facts_of()
    # M + 1 - max(0, M - 1): both M + 1 and 2 are nonnegative
    assert facts.nonnegative_within(M + 1 - sympy.Max(0, M - 1), ())
    # M - max(0, N) is M - N for N > 0: false at M = 1, N = 2
    assert (M - sympy.Max(0, N)).subs({M: 1, N: 2}) < 0
    assert not facts.nonnegative_within(M - sympy.Max(0, N), ())
    assert not facts.nonnegative_within(-sympy.Max(N, M) + N, ())  # M = 2, N = 1


def test_nonnegative_within_a_bounded_nest_uses_the_assumption():
    # for i in 0..min(T, N): with T <= N, T - 1 - i >= 0, but not N - T - 1 - i (i = 0, T = N)
    kernel = checked("T <= N", body="for i in 0..min(T, N) { y[i] = x[i] }")
    facts = Facts(kernel)
    (loop,) = build_nest(kernel, facts, "spec").executions[0].loops
    assert facts.nonnegative_within(T - 1 - i, (loop,))
    assert facts.nonnegative_within(N - 1 - i, (loop,))
    assert not facts.nonnegative_within(N - T - 1 - i, (loop,))
    assert not facts.nonnegative_within(T - N, (loop,))
    for n, t in itertools.product(range(1, 6), repeat=2):
        if t <= n:
            assert all(t - 1 - i_ >= 0 and n - 1 - i_ >= 0 for i_ in range(min(t, n)))


def test_an_unknown_sign_coefficient_proves_nothing():
    facts, loops = triangle_loops()
    # (i - 2)*min(i, N): the coefficient changes sign; at i = 1 it is -1
    assert not facts.nonnegative_within((i - 2) * sympy.Min(i, N), loops)
    # the square of a min is no linear use of it
    assert not facts.nonnegative_within(sympy.Min(i, N - 2) ** 2 - 1, loops)


# --- budget -------------------------------------------------------------------------------------


def test_an_exhausted_budget_stops_with_an_error():
    facts = Facts(checked(), budget_s=-1.0)  # the deadline has passed before it starts
    with pytest.raises(KcostError, match="more than -1 s of symbolic work"):
        facts.nonnegative(N)
    with pytest.raises(KcostError):
        facts.check_budget()


def test_a_budget_left_proves_as_usual():
    facts = Facts(checked(), budget_s=30.0)
    facts.check_budget()  # no error
    assert facts.nonnegative(N)


def test_the_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("KERNELCOST_BUDGET_S", "2.5")
    assert Facts(checked()).budget_s == 2.5
    monkeypatch.setenv("KERNELCOST_BUDGET_S", "soon")  # unreadable: the default
    assert Facts(checked()).budget_s == DEFAULT_BUDGET_S
    monkeypatch.delenv("KERNELCOST_BUDGET_S")
    assert Facts(checked()).budget_s == DEFAULT_BUDGET_S
    assert Facts(checked(), budget_s=7.0).budget_s == 7.0  # an explicit one wins


def test_a_step_taken_as_positive_later_proves_what_the_prover_refused_before():
    # nonnegative's answers are remembered; a fact added afterwards (a loop step `by M - N`,
    # taken as positive while the nest is built) must not be hidden by an earlier "no"
    facts = facts_of()
    assert not facts.nonnegative(M - N - 1)  # false at M = N = 1
    facts.assume_positive(M - N)
    assert facts.nonnegative(M - N - 1)  # an integer M - N > 0 is at least 1
    for point in admissible((N, M), lambda p: p[M] - p[N] > 0):
        assert (M - N - 1).subs(point) >= 0


@tiered(300)
@given(expressions(kinds=("add", "mul", "div")))
def test_integrality_is_asked_only_where_sympy_can_prove_it(value):
    # a term over a power of a non-number is never an integer to sympy: not asked
    from kernelcost.algebra.rounding import may_be_proven_integer

    value = sympy.sympify(value)
    if not may_be_proven_integer(value):
        assert value.is_integer is not True


def test_a_quotient_of_sizes_is_not_asked_whether_it_is_an_integer():
    from kernelcost.algebra.rounding import may_be_proven_integer

    a, b, w = (size_symbol(name) for name in ("a", "b", "w"))
    i0 = iterator_symbol("i0")
    assert not may_be_proven_integer((a * b * w + i0) / (a * w))  # flash_attention_causal
    assert may_be_proven_integer(a * b * w + i0) and may_be_proven_integer((a + b) / 2)


def test_a_bound_on_some_sizes_leaves_the_others_refuted_at_small_points():
    # `T <= N` narrows T and N only: M - K is still refuted at K = 2, M = 1 without a search
    # through its variants, and N - T is still proven through the bound
    facts = facts_of("T <= N", "N, M, T, K")
    M, K, N, T = (size_symbol(name) for name in ("M", "K", "N", "T"))
    assert facts._refuted(M - K) and not facts.nonnegative(M - K)
    assert not facts._refuted(N - T) and facts.nonnegative(N - T)
    assert not facts._refuted(T - N) and not facts.nonnegative(T - N)


def test_a_quotient_of_sizes_against_a_number_is_refuted_at_a_size_of_three():
    # flash_attention_split's `B*S*W/P - 1`, 1 at ones, twos and the counting points: a
    # search through its variants, 5 ms, that proves nothing
    facts = facts_of("", "N, B, S, W, P")
    B, S, W, P = (size_symbol(name) for name in ("B", "S", "W", "P"))
    assert facts._refuted(B * S * W / P - 1) and not facts.nonnegative(B * S * W / P - 1)
    assert not facts._refuted(B * S * W / P) and facts.nonnegative(B * S * W / P)


@tiered(200)
@given(expressions(kinds=("add", "mul", "div", "ceiling", "floor", "min", "max")))
def test_what_is_refuted_no_variant_proves(expr):
    """The refutation by small points (by plan where the expression has one) skips only
    searches that would prove nothing: sympy proves no variant of what it refutes."""
    facts = facts_of("", "N, M, T")
    expanded = sympy.expand(expr)
    if facts._refuted(expanded):
        assert not any(candidate.is_nonnegative for candidate in facts._variants(expanded))
