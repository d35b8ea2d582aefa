"""Signs of an expression in one positive real symbol (a ridge, a capacity) over all its
values, exactly: the sign it keeps, where it is a rational function with rational
coefficients plus such a function times the square root of a polynomial (the form of a
quadratic's root, (a + b*sqrt(P)) / d); whether a rational function changes sign.

Where f = (A + B*sqrt(P)) / D, f can be zero only where A**2 - B**2*P is (or P is), and can
change sign only there or where D is; so where none of D, P and A**2 - B**2*P has a positive
real root (real-root isolation), f keeps the sign it has at x = 1 over the whole positive
axis. sympy's own questions (is the root positive, is its radicand nonnegative) search over
derivatives and often answer nothing for such a root, after tens of milliseconds."""

from __future__ import annotations

import sympy

from .witnesses import exact_number_sign


def sign_for_every_positive(expr: sympy.Expr) -> int | None:
    """1 or -1 where expr is positive, or negative, at every positive value of its one
    symbol (a positive real); None where it is zero, undefined or of the other sign at
    some, or of another form."""
    parts = _parts(expr)
    if parts is None:
        return None
    numerator, root_factor, radicand, denominator = parts
    critical = denominator * (numerator**2 - root_factor**2 * radicand) * radicand
    if critical.is_zero or _positive_roots(critical) > 0 or radicand.eval(1) < 0:
        return None
    at_one = numerator.eval(1) + root_factor.eval(1) * sympy.sqrt(radicand.eval(1))
    sign = exact_number_sign(at_one / denominator.eval(1))
    return sign or None


def changes_sign(expr: sympy.Expr) -> bool:
    """Whether expr, a rational function with rational coefficients of one positive real
    symbol (a ridge, a capacity), takes both signs: where its numerator times its
    denominator has a positive root of odd multiplicity (real-root isolation). A sign change
    between the witnesses, (64 I - 8289)(192 I - 8321) < 0 within 43 < I < 130, is found
    here; False for any other expression."""
    symbols = expr.free_symbols
    if len(symbols) != 1:
        return False
    [symbol] = symbols
    if not symbol.is_positive or symbol.is_integer:
        return False
    try:
        parts = [sympy.Poly(part, symbol) for part in expr.as_numer_denom()]
    except sympy.PolynomialError:
        return False
    if any(part.domain not in (sympy.ZZ, sympy.QQ) or part.is_zero for part in parts):
        return False
    _, factors = (parts[0] * parts[1]).sqf_list()
    return any(multiplicity % 2 == 1 and _positive_roots(factor) > 0
               for factor, multiplicity in factors)


def _positive_roots(polynomial: sympy.Poly) -> int:
    """The real roots above 0 (count_roots counts those in [0, oo))."""
    return int(polynomial.count_roots(0, None)) - int(polynomial.eval(0) == 0)


def _parts(expr: sympy.Expr):
    """expr as (A, B, P, D) for f = (A + B*sqrt(P)) / D, polynomials in its one symbol over
    the rationals (P = 1 where expr has no root); None for another form."""
    symbols = expr.free_symbols
    if len(symbols) != 1:
        return None
    [variable] = symbols
    if not variable.is_positive:
        return None
    powers = [power for power in expr.atoms(sympy.Pow) if not power.exp.is_Integer]
    radicands = {power.base for power in powers}
    if len(radicands) > 1 or any(power.exp != sympy.S.Half for power in powers):
        return None
    root = sympy.Dummy("root")
    radicand = next(iter(radicands), sympy.Integer(1))
    if radicands:
        expr = expr.xreplace({sympy.sqrt(radicand): root})
    # as written, not cancelled: a factor the two share is a point where expr is undefined
    # ((8 - 4*I)/(4 - 2*I) at I = 2), which the denominator's roots must then show
    numerator, denominator = expr.as_numer_denom()
    try:
        top = sympy.Poly(numerator, root, variable)
        polynomials = [sympy.Poly(part, variable) for part in (denominator, radicand)]
    except sympy.PolynomialError:
        return None
    if (top.degree(root) > 1 or any(poly.domain not in (sympy.ZZ, sympy.QQ)
                                    for poly in (top, *polynomials))
            or polynomials[0].is_zero):
        return None
    without, with_root = (sympy.Poly(top.as_expr().coeff(root, power), variable)
                          for power in (0, 1))
    return without, with_root, polynomials[1], polynomials[0]
