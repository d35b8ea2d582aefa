"""The shortcuts on the counting's hot paths give exactly what the sympy calls they stand for
give (factor, cancel, xreplace; the printed closed forms must not change): compared by srepr,
structure and all."""

import itertools

import sympy
from conftest import size

from kernelcost.algebra.factored_forms import factor
from kernelcost.base.symbols import is_monomial, replace_symbols

M, N, K, T = (size(s) for s in ("M", "N", "K", "T"))
x = sympy.Symbol("x")  # no assumptions: sign and integrality unknown

POLYNOMIALS = [
    2 * K * M + 2 * K * N + 2 * M * N,  # content 2, irreducible rest
    12 * K * M * N + 4 * M * N,  # 4*M*N*(3*K + 1)
    -T * M + M,  # a negative leading term: -M*(T - 1)
    T + M - 1,
    M / 2 + N,  # rational coefficients: (M + 2*N)/2
    sympy.Rational(3, 4) * M**2 - sympy.Rational(3, 4) * N**2,  # (M - N)*(M + N) times 3/4
    (M - N) ** 2 * (K + 1) * T,
    x**2 - 1,
]


def same(a, b) -> bool:
    return sympy.srepr(a) == sympy.srepr(b)


def test_polynomials_factor_as_sympy_factors_them():
    for polynomial in POLYNOMIALS:
        expanded = sympy.expand(polynomial)
        assert same(factor(expanded), sympy.factor(expanded)), expanded


def test_products_of_polynomials_factor_as_sympy_factors_them():
    for a, b in itertools.combinations(POLYNOMIALS, 2):
        expanded = sympy.expand(a * b)
        assert same(factor(expanded), sympy.factor(expanded)), expanded


def test_what_is_no_polynomial_in_plain_symbols_goes_to_sympy_factor():
    for expr in (sympy.Float(0.5) * M + N,  # over RR factor gives a different product
                 M / T + N, sympy.ceiling(M / T) * T - T, sympy.Integer(6)):
        assert same(factor(expr), sympy.factor(expr)), expr


def test_monomials_are_what_factor_and_cancel_give_back():
    for expr in (2 * K * M * N, M / 6, 1 / T, -3 * M**2 / (7 * N**3), x**2 / T, M):
        assert is_monomial(expr)
        assert same(sympy.factor(sympy.cancel(expr)), expr), expr
        assert same(sympy.factor(sympy.expand(expr)), expr), expr
    for expr in (M + 1, sympy.ceiling(M / T), M ** N, (M + 1) ** 2):
        assert not is_monomial(expr), expr


def test_replacing_symbols_builds_what_xreplace_builds():
    i, t = sympy.Symbol("i", integer=True), sympy.Symbol("t", integer=True, nonnegative=True)
    clipped = sympy.Min(i + T, M) - i  # a clipped tile's width
    nested = sympy.Max(0, sympy.Min(i + T, M) - sympy.Min(i, N)) * K + i
    for expr in (clipped, nested, clipped * nested, M + i, M):
        # a symbol mapped to itself; images of symbols a node does not hold (its cache key
        # leaves them out: the third set meets the first's cached nodes)
        for images in ({i: T * t}, {i: T * t + 1, K: 2}, {N: M}, {i: T * t, K: K, t: 3}):
            assert same(replace_symbols(expr, images), expr.xreplace(images)), (expr, images)
            assert same(replace_symbols(expr, images), expr.xreplace(images))  # from the cache
    assert replace_symbols(nested, {i: i, K: K}) is nested
