"""Signs of an expression in one positive real symbol (a ridge, a capacity) over all its
values, exactly: the sign it keeps, where it is a rational function with rational
coefficients plus such a function times the square root of a polynomial (the form of a
quadratic's root, (a + b*sqrt(P)) / d); whether a rational function changes sign.

Where f = (A + B*sqrt(P)) / D, f can be zero only where A**2 - B**2*P is (or P is), and can
change sign only there or where D is; so where none of D, P and A**2 - B**2*P has a positive
real root (real-root isolation), f keeps the sign it has at x = 1 over the whole positive
axis. sympy's own questions (is the root positive, is its radicand nonnegative) search over
derivatives and often answer nothing for such a root, after tens of milliseconds.

Without a radical, and A and D of degree 2 at most (a crossing's root in the ridge is
mostly linear over linear), their positive roots are read off their rational coefficients
exactly (Vieta), which sympy's Poly and its Sturm sequences take a millisecond to find."""

from __future__ import annotations

import math
from fractions import Fraction

import sympy

from .quotients import polynomial_terms
from .surds import exact_number_sign


def sign_for_every_positive(expr: sympy.Expr) -> int | None:
    """1 or -1 where expr is positive, or negative, at every positive value of its one
    symbol (a positive real); None where it is zero, undefined or of the other sign at
    some, or of another form."""
    rational = _rational_parts(expr)
    if rational is not None:  # no radical: f = A / D, whose sign changes only at their roots
        numerator, denominator = rational
        found = [_has_positive_root(part) for part in rational if any(part)]
        if len(found) == 2 and None not in found:
            if True in found:
                return None
            at_one = _value_at_one(numerator) / _value_at_one(denominator)
            return (at_one > 0) - (at_one < 0) or None
    return _sign_by_poly(expr)


def _sign_by_poly(expr: sympy.Expr) -> int | None:
    """sign_for_every_positive through sympy's Poly and real-root isolation: any form."""
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
    rational = _rational_parts(expr)
    if rational is not None and all(len(part) <= 3 and any(part) for part in rational):
        return _odd_positive_root(rational)
    return _changes_sign_by_poly(expr, symbol)


def _odd_positive_root(parts: tuple[list[Fraction], ...]) -> bool:
    """Whether the product of polynomials of degree 2 at most has a root above 0 of odd
    multiplicity: each part's real roots counted exactly, a rational one by its value, a
    pair of conjugate surds by their monic quadratic."""
    multiplicity: dict[object, int] = {}
    positive: dict[object, bool] = {}
    for part in parts:
        if len(part) == 2:
            root = -part[0] / part[1]
            multiplicity[root] = multiplicity.get(root, 0) + 1
            positive[root] = root > 0
        elif len(part) == 3:
            constant, linear = part[0] / part[2], part[1] / part[2]  # monic
            discriminant = linear * linear - 4 * constant
            if discriminant < 0:
                continue
            whole = _square_root(discriminant)
            if whole is None:  # two conjugate surds, both of this quadratic's multiplicity
                key = (constant, linear)
                multiplicity[key] = multiplicity.get(key, 0) + 1
                positive[key] = _has_positive_root([constant, linear, Fraction(1)]) is True
                continue
            for root in ((-linear + whole) / 2, (-linear - whole) / 2):
                multiplicity[root] = multiplicity.get(root, 0) + 1
                positive[root] = root > 0
    return any(count % 2 == 1 and positive[key] for key, count in multiplicity.items())


def _square_root(value: Fraction) -> Fraction | None:
    """The rational square root of a nonnegative rational, or None where it has none."""
    top, bottom = math.isqrt(value.numerator), math.isqrt(value.denominator)
    if top * top != value.numerator or bottom * bottom != value.denominator:
        return None
    return Fraction(top, bottom)


def _changes_sign_by_poly(expr: sympy.Expr, symbol: sympy.Symbol) -> bool:
    """changes_sign through sympy's Poly, square-free factors and real-root isolation."""
    try:
        parts = [sympy.Poly(part, symbol) for part in expr.as_numer_denom()]
    except sympy.PolynomialError:
        return False
    if any(part.domain not in (sympy.ZZ, sympy.QQ) or part.is_zero for part in parts):
        return False
    _, factors = (parts[0] * parts[1]).sqf_list()
    return any(multiplicity % 2 == 1 and _positive_roots(factor) > 0
               for factor, multiplicity in factors)


def _rational_parts(expr: sympy.Expr) -> tuple[list[Fraction], list[Fraction]] | None:
    """expr's numerator and denominator as written (expr.as_numer_denom()), each the rational
    coefficients of a polynomial in its one positive symbol, lowest degree first, read from
    the ring as sympy's Poly would read them; None for another form (radicals, other
    symbols), which Poly then reads."""
    symbols = expr.free_symbols
    if len(symbols) != 1 or any(not power.exp.is_Integer for power in expr.atoms(sympy.Pow)):
        return None
    [symbol] = symbols
    if not symbol.is_positive:
        return None
    parts = [_coefficients(part, symbol) for part in expr.as_numer_denom()]
    if parts[0] is None or parts[1] is None:
        return None
    return parts[0], parts[1]


def _coefficients(part: sympy.Expr, symbol: sympy.Symbol) -> list[Fraction] | None:
    """part as a polynomial in symbol with rational coefficients, lowest degree first (a
    zero polynomial: [0]); None for another form."""
    if part.is_Rational:
        return [Fraction(int(part.p), int(part.q))]
    written = polynomial_terms(part)
    if written is None or written[0] != (symbol,):
        return None
    coefficients = [Fraction(0)] * (max(exponents[0] for exponents, _ in written[1]) + 1)
    for (power,), value in written[1]:
        coefficients[power] = Fraction(int(value.p), int(value.q))
    return coefficients


def _has_positive_root(coefficients: list[Fraction]) -> bool | None:
    """Whether a nonzero polynomial of degree 2 at most has a real root above 0, exactly;
    None for a higher degree."""
    if len(coefficients) == 1:
        return False
    if len(coefficients) == 2:
        return -coefficients[0] / coefficients[1] > 0
    if len(coefficients) > 3:
        return None
    constant, linear, square = coefficients
    discriminant = linear * linear - 4 * square * constant
    if discriminant < 0:
        return False
    total, product = -linear / square, constant / square  # of the two roots, by Vieta
    if discriminant == 0:
        return total > 0  # a double root, total / 2
    return product < 0 or total > 0 if product else total > 0


def _value_at_one(coefficients: list[Fraction]) -> Fraction:
    return sum(coefficients, Fraction(0))


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
