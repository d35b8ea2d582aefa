"""The asymptotic module on its own: `Asymptotics.leading` and `Asymptotics.limit`.

A rounding of growing sizes is its argument plus a bounded remainder; a rounding of fixed sizes
stays; a form in which a remainder survives has no single limit and gives None. Limits found are
also checked numerically, at large values of the growing sizes, with exact rationals."""

import pytest
import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from test_quotients import wide_expressions
from test_rational_eval import SIZES, expressions
from tiers import tiered

from kernelcost.base.symbols import size_symbol
from kernelcost.count import asymptotic
from kernelcost.count.asymptotic import Asymptotics, leading_term

M, N, K, T = (size_symbol(s) for s in ("M", "N", "K", "T"))
ceil, floor = sympy.ceiling, sympy.floor


def numeric_limit(expr, growing, fixed, scale=10**12):
    """expr with every growing size at scale times a small odd multiple (so that a rounding
    of it is not exact by accident) and the others at `fixed`: exact, then a float."""
    point = {**fixed, **{s: scale * 7 + 3 * n + 1 for n, s in enumerate(growing)}}
    return float(expr.subs(point))


# --- leading terms ---------------------------------------------------------------------------


def test_the_leading_term_of_a_tiled_gemm():
    # W = 4MNK/T + 2MN: degree 3 against degree 2 as M, N, K grow together
    assert Asymptotics(4 * M * N * K / T + 2 * M * N).leading([M, N, K]) == 4 * M * N * K / T
    assert leading_term(4 * M * N * K / T + 2 * M * N, [M, N, K]) == 4 * M * N * K / T


def test_terms_of_one_degree_stay_whole():
    leading = Asymptotics(2 * (M * K + K * N + M * N)).leading([M, N, K])
    assert sympy.expand(leading - 2 * (M * K + K * N + M * N)) == 0


def test_no_growing_size_leaves_the_expression_as_it_is():
    expr = ceil(N / T) * M + 3
    assert Asymptotics(expr).leading([]) == expr
    assert Asymptotics(expr).limit([]) == expr
    assert Asymptotics(expr).limit([K]) == expr  # K does not occur: nothing grows


def test_the_leading_term_in_one_size_keeps_the_others():
    # (N + 1)M^2 + N^3 M as M grows: (N + 1)M^2
    leading = Asymptotics((N + 1) * M**2 + N**3 * M).leading([M])
    assert sympy.expand(leading - (N + 1) * M**2) == 0


def test_a_ceiling_of_a_growing_size_leads_with_its_argument():
    # ceiling(N/T)*T = N + T*r, 0 <= r < 1: the leading term is N
    assert Asymptotics(ceil(N / T) * T).leading([N]) == N
    leading = Asymptotics(ceil(N / T) * ceil(M / T)).leading([N, M])
    assert sympy.simplify(leading - M * N / T**2) == 0


def test_a_leading_term_that_keeps_a_remainder_is_none():
    # N*ceiling(N/2) - N^2/2 = N*r with r in {0, 1/2}: no single leading term
    expr = N * ceil(N / 2) - N**2 / 2
    assert Asymptotics(expr).leading([N]) is None
    assert expr.subs(N, 10**6) == 0 and expr.subs(N, 10**6 + 1) > 0


# --- limits ------------------------------------------------------------------------------------


@pytest.mark.parametrize("expr, growing, expected", [
    (N * M / (N + M), [N], M),  # N grows alone: M*N/(N + M) -> M
    (N * M / (N + M), [N, M], sympy.oo),  # degree 2 over degree 1
    (N / (N + M), [N, M], N / (N + M)),  # scale-free: the ratio stays
    (M / N, [N], sympy.Integer(0)),
    (M - N**2, [N], -sympy.oo),  # a negative leading coefficient
    (N**2 - M, [N], sympy.oo),
    ((3 * N + 1) / (2 * N + 5), [N], sympy.Rational(3, 2)),
])
def test_limits_of_rational_forms(expr, growing, expected):
    limit = Asymptotics(expr).limit(growing)
    if expected in (sympy.oo, -sympy.oo):
        assert limit == expected
    else:
        assert sympy.simplify(limit - expected) == 0
    if expected.is_number and expected.is_finite:
        assert numeric_limit(expr, growing, {M: 5}) == pytest.approx(float(expected), rel=1e-9)


def test_a_ceiling_of_a_growing_size_has_the_limit_of_its_argument():
    # ceiling(N/T)/N = 1/T + r/N -> 1/T as N grows
    expr = ceil(N / T) / N
    assert Asymptotics(expr).limit([N]) == 1 / T
    assert numeric_limit(expr, [N], {T: 4}) == pytest.approx(0.25, rel=1e-9)


def test_nested_roundings_of_a_growing_size():
    # floor(ceiling(N/3)/2) = N/6 + a bounded remainder: divided by N, 1/6
    expr = floor(ceil(N / 3) / 2) / N
    assert Asymptotics(expr).limit([N]) == sympy.Rational(1, 6)
    assert numeric_limit(expr, [N], {}) == pytest.approx(1 / 6, rel=1e-9)


def test_a_ceiling_of_fixed_sizes_stays():
    # M/(M + 1) -> 1 as M grows; ceiling(N/T) holds no growing size and stays as it is
    expr = ceil(N / T) * M / (M + 1)
    assert Asymptotics(expr).limit([M]) == ceil(N / T)
    assert Asymptotics(expr).leading([M]) == ceil(N / T)


def test_a_clipped_gemm_limit_keeps_the_fixed_ceiling():
    # W = 2MNK; Q = 2KM*ceiling(N/T) + 2KN*ceiling(M/T) + 2MN (bf16 tiles of A, B, and C):
    # as M grows, ceiling(M/T) -> M/T and ceiling(N/T) stays:
    # 2NK / (2K*ceiling(N/T) + 2KN/T + 2N); at N = 7, K = 9, T = 4: 126 / (36 + 31.5 + 14)
    work = 2 * M * N * K
    traffic = 2 * K * M * ceil(N / T) + 2 * K * N * ceil(M / T) + 2 * M * N
    intensity = work / traffic
    limit = Asymptotics(intensity).limit([M])
    assert limit.has(sympy.ceiling)
    fixed = {N: 7, K: 9, T: 4}
    assert limit.subs(fixed) == sympy.Rational(252, 163)
    assert Asymptotics(intensity.subs(fixed)).limit([M]) == sympy.Rational(252, 163)
    assert numeric_limit(intensity, [M], fixed) == pytest.approx(252 / 163, rel=1e-9)
    # replacing the fixed ceiling by its argument gave 2NK/(2K*N/T + 2KN/T + 2N) instead
    assert (2 * N * K / (4 * K * N / T + 2 * N)).subs(fixed) != sympy.Rational(252, 163)


@pytest.mark.parametrize("expr", [
    N - T * floor(N / T),  # N mod T: 0 .. T - 1 forever
    ceil(N / 2) - N / 2,  # 0, 1/2, 0, 1/2, ...
    (N * ceil(N / 2) - N**2 / 2) / N,  # the same, scaled
])
def test_a_surviving_remainder_gives_no_limit(expr):
    assert Asymptotics(expr).limit([N]) is None
    values = {expr.subs({N: n, T: 4}) for n in range(10**6, 10**6 + 4)}
    assert len(values) > 1  # it does oscillate


def test_forms_sympy_limits_directly():
    assert Asymptotics(sympy.sqrt(N) / N).limit([N]) == 0
    assert Asymptotics(sympy.log(N) / N).limit([N]) == 0


@pytest.mark.parametrize("expr, growing", [
    (ceil(N / T) / N, [T]),  # 1/N once T > N; the remainder form cannot tell
    (sympy.Max(N, M) / N, [N]),  # 1
    (sympy.Min(N, M) / N, [N]),  # 0
])
def test_a_limit_not_found_is_none_never_a_wrong_value(expr, growing):
    limit = Asymptotics(expr).limit(growing)
    if limit is not None:
        fixed = {s: 3 for s in (M, N, T) if s not in growing}
        assert float(limit.subs(fixed)) == pytest.approx(numeric_limit(expr, growing, fixed),
                                                         rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("expr", [
    (M - 5) * N**2 + N,  # -oo for M < 5, N for M = 5, oo for M > 5
    sympy.Max(0, M - 5) * N / 4,  # 0 for M <= 5: the intensity of `for a in 5..M` nests
])
def test_a_leading_coefficient_of_unknown_sign_gives_no_infinite_limit(expr):
    # Asymptotics.limit: "oo, a finite expression in the other symbols, or None". A leading
    # coefficient whose sign depends on M must not be read as positive: at M = 3 the limit of
    # (M - 5)N^2 + N is -oo, and that of max(0, M - 5)*N/4 is 0 (it is 0 for every N)
    limit = Asymptotics(expr).limit([N])
    for m in range(1, 8):
        truth = sympy.limit(expr.subs(M, m), N, sympy.oo)
        assert limit is None or limit.subs(M, m) == truth, (m, limit, truth)


def test_a_sum_left_open_has_no_leading_term_or_limit():
    # F6's class: a trip count ceil((N - j)/2) summed over a triangle stays an open Sum;
    # sympy's limit and the min/max settling searched such forms for minutes
    j, i = sympy.Symbol("j", integer=True), sympy.Symbol("i", integer=True)
    open_sum = sympy.Sum(ceil((N - j) / 2) * sympy.Min(M, N - j), (j, 0, i), (i, 0, N - 1))
    forms = Asymptotics(N + open_sum)
    assert forms.leading([N, M]) is None
    assert forms.limit([N]) is None and forms.limit([N, M]) is None


def _leading_by_scaling(part, growing):
    """The leading term as sympy's Poly in lam gives it: the step _leading_in_scale stands for."""
    polynomial = sympy.Poly(part.xreplace({s: asymptotic._SCALE * s for s in growing}),
                            asymptotic._SCALE)
    return (-1, 0) if polynomial.is_zero else (polynomial.degree(), polynomial.LC())


@tiered(300)
@given(expressions(kinds=("add", "add", "mul", "div", "pow", "ceiling", "min")),
       st.sets(st.sampled_from(SIZES), min_size=1))
@example((M + sympy.Rational(1, 2)) / (M / 2 + sympy.Rational(1, 4)), {M})
def test_the_leading_term_in_the_scale_is_sympys_poly(expr, growing):
    # every part a numerator or denominator can be: polynomials in the sizes, and others with
    # a rounding or a Min among its atoms (then read as a polynomial in lam, or none). The
    # parts are split as Asymptotics splits them (as_numer_denom, over one denominator):
    # sympy.fraction leaves a sum of quotients whole, which sympy's Poly refuses (or, as
    # its cache has it, fails on with a KeyError) where our reading cancels it to a number.
    growing = tuple(sorted(growing, key=str))
    for part in sympy.expand(expr).as_numer_denom():
        try:
            expected = _leading_by_scaling(part, growing)
        except sympy.PolynomialError:
            with pytest.raises(sympy.PolynomialError):
                asymptotic._leading_in_scale(part, growing)
            continue
        leading = asymptotic._leading_in_scale(part, growing)
        assert (leading.degree, leading.coefficient) == expected
        assert str(leading.coefficient) == str(expected[1])


@tiered(150)
@given(expressions(kinds=("add", "mul", "div")))
def test_a_plainly_positive_sign_is_sympys(expr):
    # sums, products and quotients of positive sizes and numbers: 1 without sympy's search,
    # as sympy finds it; anything else (a negative number in it) is sympy's own answer
    assert asymptotic._sign(expr) == sympy.sign(expr)
    assert asymptotic._sign((4 * K * N**2 + N**2) / (16 * K * N)) == 1


def test_a_form_past_the_operations_limit_has_no_leading_term_or_limit(monkeypatch):
    """A warpgroup loop clipped inside a stepped loop counted to a form of 2809 operations,
    nested Min of ceilings, on which settling the min/max took 23 s a growing set and
    sympy's limit longer: ten minutes without an answer. Past MAX_OPERATIONS neither is
    tried, and the form has no leading term or limit (as an open sum has none)."""
    M, N, W = size_symbol("M"), size_symbol("N"), size_symbol("W")
    nested = sum(sympy.Min(sympy.ceiling(M / (W + shift)), sympy.floor(N * (shift + 1) / W))
                 for shift in range(1, 80))
    assert sympy.count_ops(nested) > asymptotic.MAX_OPERATIONS

    def tried(*arguments):
        raise AssertionError("settled or limited past the limit")

    monkeypatch.setattr(asymptotic, "eventual", tried)
    monkeypatch.setattr(asymptotic, "_sympy_limit", tried)
    forms = Asymptotics(nested)
    assert forms.leading([M, N]) is None
    assert forms.limit([M]) is None and forms.limit([M, N]) is None
    small = sympy.Min(sympy.ceiling(M / W), N)  # under the limit: settled as before
    monkeypatch.undo()
    assert Asymptotics(small).limit([M]) == N


def _nodes(expr) -> int:
    count, pending = 0, [expr]
    while pending:
        count += 1
        pending.extend(pending.pop().args)
    return count


_coefficients = st.sampled_from([1, -1, 3, sympy.Rational(2, 3), sympy.Rational(-5, 7)])


@tiered(400)
@given(wide_expressions, _coefficients, wide_expressions)
def test_count_ops_counts_at_most_four_operations_a_node(first, coefficient, second):
    """The bound _past_operations rests on, over products and quotients that fraction
    splits (a rational distributing over a sum in the numerator or the denominator)."""
    for expr in (first, coefficient * first * second, coefficient * first / second,
                 coefficient * (first + second) / (second - 3),
                 sympy.Mul(coefficient, first + second, second, evaluate=False)):
        if not expr.has(sympy.Sum):
            assert sympy.count_ops(expr) <= 4 * _nodes(expr)


@tiered(100)
@given(wide_expressions, st.integers(1, 150))
def test_past_operations_is_count_ops_past_the_limit(form, copies):
    """Sums of up to 150 shifted copies of a random form, on both sides of the limit (a
    fifth of them past it)."""
    expr = sympy.Add(*[form.xreplace({N: N + shift, M: M + 2 * shift, T: T + shift})
                       for shift in range(copies)])
    assert asymptotic._past_operations(expr) == (sympy.count_ops(expr)
                                                 > asymptotic.MAX_OPERATIONS)


@tiered(150)
@given(st.lists(st.tuples(st.sampled_from(SIZES), st.integers(-3, 3)), min_size=1, max_size=4),
       st.sampled_from([1, 2, sympy.Rational(1, 6), sympy.Rational(-3, 4)]),
       st.sets(st.sampled_from(SIZES), min_size=1))
def test_a_monomials_leading_term_is_the_scaled_forms(powers, number, growing):
    # a product of sizes is its own leading term, as the scaled numerator and denominator
    # give it back
    monomial = number * sympy.Mul(*[size**power for size, power in powers])
    shortcut = Asymptotics(monomial).leading(growing)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(asymptotic, "is_monomial", lambda expr: False)
        scaled = Asymptotics(monomial).leading(growing)
    assert shortcut == scaled and str(shortcut) == str(scaled)


@tiered(150)
@given(st.lists(expressions(kinds=("add", "mul", "div", "ceiling", "floor")), min_size=2,
                max_size=4),
       st.sets(st.sampled_from(SIZES), min_size=1))
def test_forms_sharing_their_remainders_are_the_forms_alone(exprs, growing):
    # an analysis smooths its work, traffic and their quotients with one table of remainders
    shared: dict = {}
    for expr in [*exprs, exprs[0] / exprs[1] if exprs[1] != 0 else exprs[0]]:
        alone, together = Asymptotics(expr), Asymptotics(expr, shared)
        assert together.leading(growing) == alone.leading(growing)
        assert together.limit(growing) == alone.limit(growing)
