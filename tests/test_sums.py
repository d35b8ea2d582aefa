"""The sums module on its own: `Summer.range_sum` and `Summer.over_loops`.

Every closed form is derived by hand where it is short, and always compared, at several small
sizes, with a plain Python loop written here."""

import itertools

import pytest
import sympy

import kernelcost
from kernelcost.base.symbols import iterator_symbol, size_symbol
from kernelcost.count.facts import Facts
from kernelcost.count.nest import build_nest
from kernelcost.count.sums import Summer
from kernelcost.oracle import evaluate

N, M, T = (size_symbol(s) for s in ("N", "M", "T"))
i, j = iterator_symbol("i"), iterator_symbol("j")
t = sympy.Symbol("t", integer=True, nonnegative=True)  # a counter


def checked(assume: str = "", body: str = "for i in 0..N { y[i] = x[i] }"):
    fact = f"assume {assume}\n" if assume else ""
    return kernelcost.loads(f"kernel k(N, M, T) {{ {fact} in x: f32[N]\n out y: f32[N]\n"
                            f" {body} }}").checked


def summer(assume: str = "") -> Summer:
    return Summer(Facts(checked(assume)))


def value(expr, **sizes):
    """expr at the given sizes; an unevaluated Sum is carried out."""
    result = expr.subs({size_symbol(name): v for name, v in sizes.items()})
    if result.has(sympy.Sum):
        result = result.doit()
    # a rational as it is: sympy 1.14's nsimplify writes 4753/2 as a product of radicals
    return result if result.is_Rational else sympy.nsimplify(result)


def grid(**ranges):
    names = list(ranges)
    for combination in itertools.product(*ranges.values()):
        yield dict(zip(names, combination))


# --- polynomial sums and empty ranges -------------------------------------------------


def test_a_polynomial_sum_is_closed():
    s = summer()
    total = s.range_sum(t**2, t, sympy.Integer(0), N - 1)
    assert sympy.expand(total - (N - 1) * N * (2 * N - 1) / 6) == 0  # sum of squares below N
    assert s.closed
    for n in range(0, 8):
        assert value(total, N=n) == sum(k * k for k in range(n))


def test_a_summand_free_of_the_counter_is_multiplied_by_the_count():
    s = summer()
    assert s.range_sum(N * M, t, sympy.Integer(2), N + 1) == N * M * N  # N values: 2..N+1
    assert s.closed


def test_the_range_one_below_its_start_is_empty():
    s = summer()
    assert s.range_sum(t, t, sympy.Integer(0), sympy.Integer(-1)) == 0
    assert s.range_sum(t**3 + 5, t, N, N - 1) == 0  # first = N, last = N - 1
    assert s.range_sum(sympy.Integer(7), t, N, N - 1) == 0
    assert s.range_sum(sympy.Min(T, t), t, N, N - 1).subs({N: 3, T: 2}) == 0


def test_a_range_further_below_its_start_is_empty_too():
    # Summer.range_sum: "sum of summand for counter = first..last (empty when last < first)";
    # t = 3..1 holds no t, so the sum is 0 (sympy's summation convention would give -2)
    s = summer()
    assert s.range_sum(t, t, sympy.Integer(3), sympy.Integer(1)) == 0
    assert s.range_sum(sympy.Integer(1), t, sympy.Integer(5), sympy.Integer(2)) == 0


# --- min and max -----------------------------------------------------------------------------


def test_min_of_a_constant_and_the_counter_under_a_lower_bound_on_the_size():
    # sum of min(2, i) over i = 0..N-1; at N = 10: 0 + 1 + 2*8 = 17
    s = summer("N >= 3")
    total = s.range_sum(sympy.Min(2, t), t, sympy.Integer(0), N - 1)
    assert value(total, N=10) == 17
    assert sympy.expand(total - (2 * N - 3)) == 0  # 0 + 1 + 2(N - 2) for N >= 2
    assert not total.has(sympy.Min)  # the split point 2 lies inside the range
    for n in range(3, 12):
        assert value(total, N=n) == sum(min(2, k) for k in range(n))


def test_min_of_a_constant_and_the_counter_without_assumptions_clamps_the_split():
    s = summer()
    total = s.range_sum(sympy.Min(2, t), t, sympy.Integer(0), N - 1)
    assert total.has(sympy.Min)  # N = 1 leaves the split point 2 outside 0..N-1
    for n in range(1, 12):
        assert value(total, N=n) == sum(min(2, k) for k in range(n))


def test_min_with_a_size_is_clamped_unless_an_assumption_places_it():
    # sum of min(T, t), t = 0..N-1: T(T-1)/2 + T(N - T) when T <= N
    bounded = summer("T <= N").range_sum(sympy.Min(T, t), t, sympy.Integer(0), N - 1)
    assert sympy.expand(bounded - (T * (T - 1) / 2 + T * (N - T))) == 0
    free = summer().range_sum(sympy.Min(T, t), t, sympy.Integer(0), N - 1)
    assert free.has(sympy.Min)
    for point in grid(N=range(1, 8), T=range(1, 8)):
        truth = sum(min(point["T"], k) for k in range(point["N"]))
        assert value(free, **point) == truth
        if point["T"] <= point["N"]:  # the equal case too: the slack may be zero
            assert value(bounded, **point) == truth


def test_a_non_strict_assumption_at_its_equal_case():
    # issue 9, defect 1: from T <= N the prover once also took N <= T and dropped the split;
    # sum of min(T, i) over i = 0..9 at T = 2 is 0 + 1 + 2*8 = 17
    total = summer("T <= N").range_sum(sympy.Min(T, t), t, sympy.Integer(0), N - 1)
    assert value(total, N=10, T=2) == 17
    assert value(total, N=5, T=5) == 10  # 0+1+2+3+4


def test_a_min_with_a_negative_slope():
    # min(N - t, 2): N - t until it drops below 2, at t = N - 2
    s = summer()
    total = s.range_sum(sympy.Min(N - t, 2), t, sympy.Integer(0), M - 1)
    assert s.closed
    for point in grid(N=range(1, 7), M=range(1, 9)):
        assert value(total, **point) == sum(min(point["N"] - k, 2) for k in range(point["M"]))


def test_a_max_with_a_positive_and_a_negative_argument_slope():
    s = summer()
    total = s.range_sum(sympy.Max(N - t, t), t, sympy.Integer(0), M - 1)  # a V shape
    assert s.closed
    for point in grid(N=range(1, 7), M=range(1, 9)):
        assert value(total, **point) == sum(max(point["N"] - k, k) for k in range(point["M"]))


def test_arguments_moving_together_keep_a_min_of_sizes():
    # min(t + T, t + N) = t + min(T, N): slope 0 in the difference
    s = summer()
    total = s.range_sum(sympy.Min(t + T, t + N), t, sympy.Integer(0), M - 1)
    assert sympy.expand(total - (M * (M - 1) / 2 + M * sympy.Min(N, T))) == 0
    assert s.closed
    total = s.range_sum(sympy.Max(2 * t - N, 2 * t - 3), t, sympy.Integer(0), M - 1)
    for point in grid(N=range(1, 6), M=range(1, 6)):
        truth = sum(max(2 * k - point["N"], 2 * k - 3) for k in range(point["M"]))
        assert value(total, **point) == truth


def test_a_min_the_facts_decide_is_not_split():
    s = summer()
    # t <= M - 1 < M + t + 1 everywhere: min(t, M + t + 1) is t (differences -M-1 at both ends)
    total = s.range_sum(sympy.Min(t, M + t + 1), t, sympy.Integer(0), N - 1)
    assert sympy.expand(total - N * (N - 1) / 2) == 0
    # max(t, -1) is t on t >= 0
    total = s.range_sum(sympy.Max(t, -1), t, sympy.Integer(0), N - 1)
    assert sympy.expand(total - N * (N - 1) / 2) == 0


@pytest.mark.parametrize("summand, truth", [
    # the difference (N - 1)t - 5 has a slope N - 1, proven >= 0 but zero at N = 1
    (sympy.Min(N * t, t + 5), lambda n, k: min(n * k, k + 5)),
    # the difference (1 - N)t + 5 has a slope 1 - N, proven <= 0 but zero at N = 1
    (sympy.Min(t + 5, N * t), lambda n, k: min(k + 5, n * k)),
])
def test_a_slope_that_may_be_zero_still_sums_at_every_size(summand, truth):
    # at N = 1, M = 4: min(t, t + 5) = t, so 0 + 1 + 2 + 3 = 6; the split point
    # -offset/slope = 5/(N - 1) must not be divided out where the slope can vanish
    total = summer().range_sum(summand, t, sympy.Integer(0), M - 1)
    for point in grid(N=range(1, 5), M=range(1, 9)):
        expected = sum(truth(point["N"], k) for k in range(point["M"]))
        assert value(total, **point) == expected, point


def test_nested_min_and_max():
    s = summer()
    total = s.range_sum(sympy.Min(sympy.Max(t, 2), N), t, sympy.Integer(0), M - 1)
    for point in grid(N=range(1, 7), M=range(1, 9)):
        truth = sum(min(max(k, 2), point["N"]) for k in range(point["M"]))
        assert value(total, **point) == truth


def test_a_min_times_a_polynomial():
    s = summer()
    total = s.range_sum(t * sympy.Min(t, T) + 1, t, sympy.Integer(0), N - 1)
    for point in grid(N=range(1, 8), T=range(1, 6)):
        truth = sum(k * min(k, point["T"]) + 1 for k in range(point["N"]))
        assert value(total, **point) == truth


# --- what stays unevaluated ---------------------------------------------------------------------


@pytest.mark.parametrize("summand", [
    sympy.Min(t**2, N),  # a split point of a quadratic
    sympy.Min(3 * t, N * t),  # the difference (3 - N)t has a slope of unknown sign
])
def test_a_min_it_cannot_split_stays_an_exact_unevaluated_sum(summand):
    s = summer()
    total = s.range_sum(summand, t, sympy.Integer(0), M - 1)
    assert isinstance(total, sympy.Sum) and not s.closed
    for point in grid(N=range(1, 6), M=range(1, 6)):
        at = summand.subs(N, point["N"])
        assert value(total, **point) == sum(at.subs(t, k) for k in range(point["M"]))


def test_the_closed_flag_stays_down_once_lowered():
    s = summer()
    s.range_sum(sympy.Min(t**2, N), t, sympy.Integer(0), M - 1)
    assert not s.closed
    s.range_sum(t, t, sympy.Integer(0), N - 1)  # closed itself
    assert not s.closed


def test_a_summation_sympy_gives_up_on_stays_a_sum():
    s = summer()
    total = s.range_sum(1 / (t + N), t, sympy.Integer(0), M - 1)
    assert total.has(sympy.Sum) and not s.closed
    assert value(total, N=2, M=3) == sympy.Rational(13, 12)  # 1/2 + 1/3 + 1/4


def test_a_summand_holding_a_sum_left_open_stays_a_sum_over_it():
    # sympy's summation of an open inner sum cannot close it and searched for minutes (F6)
    s = summer()
    u = sympy.Symbol("u", integer=True, nonnegative=True)
    inner = sympy.Sum(sympy.ceiling((N - t) / 2), (t, 0, u))  # a stepped trip count
    total = s.range_sum(M * inner, u, sympy.Integer(0), N - 1)
    assert total.has(sympy.Sum) and not s.closed
    for point in grid(N=range(1, 7), M=range(1, 3)):
        n, m = point["N"], point["M"]
        at = {N: sympy.Integer(n), M: sympy.Integer(m)}
        assert evaluate(total, at) == m * sum(-(-(n - k) // 2) for u_ in range(n)
                                                for k in range(u_ + 1))


# --- over the loops of a nest -------------------------------------------------------------------


def loops_of(body: str, assume: str = ""):
    kernel = checked(assume, body)
    facts = Facts(kernel)
    return Summer(facts), build_nest(kernel, facts, "spec").executions[0].loops, facts


def test_over_a_triangle():
    s, loops, _ = loops_of("for i in 0..N { for j in 0..i + 1 { y[i] += x[j] } }")
    points = s.over_loops(sympy.Integer(1), loops)
    assert sympy.expand(points - N * (N + 1) / 2) == 0  # 1 + 2 + ... + N
    weighted = s.over_loops(j, loops)  # sum_i i(i+1)/2 = (N-1)N(N+1)/6
    assert sympy.expand(weighted - (N - 1) * N * (N + 1) / 6) == 0
    for n in range(1, 8):
        assert value(weighted, N=n) == sum(j_ for i_ in range(n) for j_ in range(i_ + 1))


def test_over_a_strided_loop():
    s, loops, _ = loops_of("for i in 0..N by T { y[i] = x[i] }")
    total = s.over_loops(i, loops)  # T(0 + 1 + ... + (c - 1)), c = ceiling(N/T)
    c = sympy.ceiling(N / T)
    assert sympy.expand(total - T * c * (c - 1) / 2) == 0
    for point in grid(N=range(1, 10), T=range(1, 5)):
        assert value(total, **point) == sum(range(0, point["N"], point["T"]))


def test_over_loops_that_may_be_empty():
    # j in i..M runs max(0, M - i) times
    s, loops, _ = loops_of("for i in 0..N { for j in i..M { y[i] += x[j] } }")
    total = s.over_loops(sympy.Integer(1), loops)
    for point in grid(N=range(1, 8), M=range(1, 8)):
        assert value(total, **point) == sum(1 for i_ in range(point["N"])
                                            for _ in range(i_, point["M"]))


def test_over_a_triangle_bounded_by_two_sizes():
    # issue 9, defect 2: i in 0..M, j in i..N, k in j..M; at N = 7, M = 5 by hand:
    # sum over i < 5 of sum_{j=i}^{4} (5 - j) = 15 + 10 + 6 + 3 + 1 = 35
    s, loops, _ = loops_of("for i in 0..M, j in i..N, k in j..M { y[k] = x[j] * 2 }")
    total = s.over_loops(sympy.Integer(1), loops)
    assert value(total, N=7, M=5) == 35
    for point in grid(N=range(1, 7), M=range(1, 7)):
        n, m = point["N"], point["M"]
        assert value(total, **point) == sum(1 for i_ in range(m) for j_ in range(i_, n)
                                            for _ in range(j_, m))


def test_over_clipped_tiles_counts_every_element_once():
    s, loops, _ = loops_of("for i0 in 0..N by T { for i in i0..min(i0 + T, N) { y[i] = x[i] } }")
    total = s.over_loops(sympy.Integer(1), loops)
    for point in grid(N=range(1, 12), T=range(1, 6)):
        assert value(total, **point) == point["N"]  # full tiles plus the remainder
    weighted = s.over_loops(i, loops)
    for point in grid(N=range(1, 9), T=range(1, 5)):
        assert value(weighted, **point) == sum(range(point["N"]))


def test_over_a_nest_with_a_min_under_a_non_strict_bound():
    s, loops, _ = loops_of("for i in 0..N { for j in 0..min(T, i) { y[i] += x[j] } }",
                           assume="T <= N")
    total = s.over_loops(sympy.Integer(1), loops)
    assert value(total, N=10, T=2) == 17  # min(2, i) over i = 0..9: 0 + 1 + 2*8
    for point in grid(N=range(1, 8), T=range(1, 8)):
        if point["T"] <= point["N"]:
            truth = sum(1 for i_ in range(point["N"]) for _ in range(min(point["T"], i_)))
            assert value(total, **point) == truth


def test_over_no_loops_is_the_summand():
    s = summer()
    assert s.over_loops(N + 1, ()) == N + 1


# --- Faulhaber's formula against sympy's summation and a plain loop --------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tiers import tiered  # noqa: E402

from kernelcost.count.sums import _power_sums  # noqa: E402

_coefficients = st.sampled_from([1, 2, -3, sympy.Rational(1, 2), N, M, N * M, 2 * T, N - 1])
_bounds = st.tuples(st.integers(-2, 2), st.sampled_from([0, 1, 2])).map(
    lambda pair: pair[0] + pair[1] * N)


@tiered(120)  # 30 in the fast tier
@given(st.lists(st.tuples(_coefficients, st.integers(0, 4)), min_size=1, max_size=4),
       _bounds, _bounds)
def test_power_sums_are_sympys_summation_and_the_loops_sum(terms, first, last_offset):
    summand = sympy.expand(sum(c * t**k for c, k in terms))
    last = first + last_offset + M
    closed = _power_sums(summand, t, first, last)
    if not summand.has(t):
        assert closed is None or sympy.expand(closed - summand * (last - first + 1)) == 0
        return
    assert sympy.expand(closed - sympy.summation(summand, (t, first, last))) == 0
    for sizes in grid(N=range(0, 3), M=range(0, 3), T=range(1, 3)):
        lo, hi = (int(bound.subs({N: sizes["N"], M: sizes["M"]})) for bound in (first, last))
        truth = sum(summand.subs({t: k, N: sizes["N"], M: sizes["M"], T: sizes["T"]})
                    for k in range(lo, hi + 1))
        if hi >= lo - 1:
            assert value(closed, **sizes) == truth


_points = st.sampled_from([N, N - 1, sympy.ceiling(N / T) - 1, 2 * sympy.ceiling(M / T) - N,
                           sympy.Max(N, T) - 1, sympy.Integer(3)])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(_coefficients, st.integers(0, 4)), min_size=1, max_size=4), _points)
def test_power_sums_over_one_point_are_faulhabers_form(terms, point):
    # the summand at the point, expanded, as the difference of the Bernoulli polynomials
    # expands: the same expression, written the same
    summand = sympy.expand(sum(c * t**k for c, k in terms))
    powers: dict[int, sympy.Expr] = {}
    free = sympy.Integer(0)
    for term in sympy.Add.make_args(summand):
        coefficient, power = term.as_coeff_exponent(t)
        if power == 0:
            free += coefficient
        else:
            powers[int(power)] = powers.get(int(power), sympy.Integer(0)) + coefficient
    faulhaber = free * (point - point + 1) + sympy.Add(*(
        coefficient * sympy.expand((sympy.bernoulli(power + 1, point + 1)
                                    - sympy.bernoulli(power + 1, point)) / (power + 1))
        for power, coefficient in powers.items()))
    closed = _power_sums(summand, t, point, point)
    assert closed == faulhaber
    assert str(closed) == str(faulhaber)


def test_power_sums_take_each_power_once_as_summation_does():
    # summation's Poly in the counter adds the terms of one power first: (-T - 1) t, not
    # -T t - t; a Sum left open around it keeps that form, as sympy's own steps write it
    closed = _power_sums(N - T * t - t, t, sympy.Integer(0), M - 1)
    assert closed == N * M + (-T - 1) * (M**2 / 2 - M / 2)


def test_power_sums_leave_other_summands_to_sympy():
    assert _power_sums(1 / (t + 1), t, sympy.Integer(0), N) is None
    assert _power_sums(2**t, t, sympy.Integer(0), N) is None
    assert _power_sums(N * sympy.sqrt(t), t, sympy.Integer(0), N) is None


def test_a_range_summed_again_gives_the_same_sum_and_the_same_flags():
    """A range's sum is kept for its summand, range and facts: asked again (the loops around
    another statement), it is the same expression, and it leaves a Sum open, and counts the
    pieces of its splits, as the first time did."""
    splits, opened = summer(), summer()
    clipped = sympy.Min(T, N - T * t)
    first = splits.range_sum(clipped, t, sympy.Integer(0), sympy.ceiling(N / T) - 1)
    pieces = splits.pieces
    assert splits.range_sum(clipped, t, sympy.Integer(0), sympy.ceiling(N / T) - 1) is first
    assert splits.pieces - pieces == pieces - 1 and splits.closed
    open_summand = sympy.Min(t, N - t**2)  # no split point in closed form: the Sum stays
    left = opened.range_sum(open_summand, t, sympy.Integer(0), N)
    assert not opened.closed and left.has(sympy.Sum)
    opened.closed = True
    assert opened.range_sum(open_summand, t, sympy.Integer(0), N) is left
    assert not opened.closed
