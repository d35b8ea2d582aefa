"""The roots of a quadratic in a size, exactly as sympy.solve writes them, less the questions
it asks of the discriminant's sign.

sympy.solve(p, x, simplify=False, check=False) of an irreducible quadratic p goes through
roots(): p's numerator as a polynomial in x (its coefficients in the other symbols), then
roots_quadratic's B -+ D with D = sqrt(d) / 2a, d the discriminant factored. Taking sqrt(d)
is two thirds of the solve: of d = c * P, Mul's power asks whether d is imaginary and then
whether P is nonnegative, each through sympy's search over P's derivative (15 ms for a
ridge's discriminant 65536*I**2 - 2138368*I + 69239041). Where c is a positive rational and
P the only factor that is not a positive symbol, sqrt(d) is sqrt(c) * sqrt(P) whatever sympy
finds of P's sign, and is built so without asking. The rest of solve's path is followed step
for step; any polynomial off it (another degree, a zero root, a rescaled or factored
polynomial, a discriminant of another form) is left to sympy.solve (None).

`cubic_roots` is the same call for a cubic, where nothing is left out of roots() but what
solve does around it: solve_linear's check that the polynomial is not linear (its derivative,
a quarter of a cubic's solve) and solve's preprocessing of the equation. It calls roots() as
_solve calls it and orders the roots as solve does."""

from __future__ import annotations

import sympy
from sympy import default_sort_key
from sympy.core.mul import expand_2arg
from sympy.polys.polyerrors import GeneratorsNeeded
from sympy.polys.polyroots import preprocess_roots


def quadratic_roots(polynomial: sympy.Expr, variable: sympy.Symbol
                    ) -> list[sympy.Expr] | None:
    """sympy.solve(polynomial, variable, dict=False, simplify=False, check=False) where the
    polynomial is an irreducible quadratic in the variable with a discriminant c * P as
    above; None for any other."""
    # solve's polynomial is the numerator (solve_linear's), its denominators multiplied out
    quadratic = sympy.Poly(polynomial.as_numer_denom()[0], variable, composite=True)
    if quadratic.degree() != 2 or not quadratic.get_domain().is_Composite:
        return None
    (zero_multiplicity,), quadratic = quadratic.terms_gcd()
    scale, quadratic = preprocess_roots(quadratic)
    # the content taken out may leave numbers alone (-t*x**2 - t*x + t is -x**2 - x + 1),
    # which roots() solves by another path
    if zero_multiplicity or scale is not sympy.S.One or not quadratic.get_domain().is_Composite:
        return None
    quadratic = quadratic.to_field()
    # roots() solves a binomial (here a x**2 + c) by another formula, and each factor of a
    # reducible polynomial on its own
    if quadratic.length() != 3 or len(sympy.Poly(quadratic.as_expr()).factor_list()[1]) != 1:
        return None
    roots = _roots_quadratic(*quadratic.all_coeffs())
    # solve sorts its solutions, each a {variable: root}, by default_sort_key: where the
    # leading coefficient's sign is unknown (1 - 2K), roots_quadratic's order is not that
    return None if roots is None else sorted(
        roots, key=lambda root: default_sort_key({variable: root}))


def _roots_quadratic(a: sympy.Expr, b: sympy.Expr, c: sympy.Expr) -> list[sympy.Expr] | None:
    """sympy's roots_quadratic over a composite domain (its coefficients are not numbers
    alone), where b and c are not zero, with the root of the discriminant taken as
    `_real_sqrt` takes it."""
    root_of_d = _real_sqrt(sympy.factor(b**2 - 4 * a * c))
    if root_of_d is None:
        return None
    A = 2 * a
    B = sympy.factor(-b / A)
    D = sympy.factor_terms(root_of_d / A)
    r0, r1 = B - D, B + D
    if a.is_negative:
        return _distinct([r1, r0])
    return _distinct([expand_2arg(r0), expand_2arg(r1)])


def _real_sqrt(d: sympy.Expr) -> sympy.Expr | None:
    """roots_quadratic's _sqrt(d): even powers come out, then sympy.sqrt of the rest, where
    that is a positive rational times positive symbols and at most one other factor P, a sum
    of positive symbols' terms. sympy's root of such a product (Pow's expand_power_base)
    is the product of each factor's root, P's the same whether P is proven nonnegative or
    not; here it is built without asking. None for another d."""
    even, rest = [], []
    for factor in sympy.Mul.make_args(d):
        if factor.is_Pow and factor.exp.is_Integer and factor.exp % 2 == 0:
            even.append(sympy.Pow(factor.base, factor.exp // 2))
        else:
            rest.append(factor)
    sums = [factor for factor in rest if factor.is_Add]
    if (len(sums) > 1 or not all(symbol.is_positive for symbol in d.free_symbols)
            or not all(factor.is_positive and (factor.is_Rational or factor.is_Symbol)
                       for factor in rest if not factor.is_Add)):
        return None
    root = sympy.Mul(*[sympy.Pow(factor, sympy.S.Half, evaluate=False) for factor in rest])
    return sympy.Mul(*even) * root if even else root


def _distinct(roots: list[sympy.Expr]) -> list[sympy.Expr]:
    """The roots as roots() lists them: a double root once."""
    return roots[:1] if roots[0] == roots[1] else roots


def cubic_roots(polynomial: sympy.Expr, variable: sympy.Symbol) -> list[sympy.Expr] | None:
    """sympy.solve(polynomial, variable, dict=False, simplify=False, check=False) where the
    polynomial is a cubic in the variable, the one generator that holds it, and roots() finds
    all three roots (with multiplicity); None for any other."""
    numerator = polynomial.as_numer_denom()[0]  # solve_linear's numerator
    try:
        generators = [g for g in sympy.Poly(numerator).gens if g.has(variable)]
    except (sympy.PolynomialError, GeneratorsNeeded):  # a number: no cubic
        return None
    if generators != [variable]:
        return None
    cubic = sympy.Poly(numerator, variable, composite=True)
    if cubic.degree() != 3:
        return None
    found = sympy.roots(cubic, cubics=True, quartics=True, quintics=True)
    if sum(found.values()) < 3:
        return None  # solve turns to CRootOf
    return sorted(found, key=lambda root: default_sort_key({variable: root}))
