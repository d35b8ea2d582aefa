"""Asymptotic forms: the leading term of a size expression and limits as sizes grow.

Sizes grow together: each symbol s in the growing set becomes lam*s and lam -> oo. Floors and
ceilings are replaced by their argument first (same leading behaviour)."""

from __future__ import annotations

import sympy

_SCALE = sympy.Symbol("_lambda", positive=True)


def _smooth(expr: sympy.Expr) -> sympy.Expr:
    return expr.replace(lambda e: isinstance(e, (sympy.floor, sympy.ceiling)),
                        lambda e: e.args[0])


def _scaled_parts(expr, growing):
    """Numerator and denominator of expr(lam*s) as polynomials in lam, or None."""
    scaled = _smooth(expr).subs({s: _SCALE * s for s in growing}, simultaneous=True)
    numerator, denominator = sympy.fraction(sympy.together(scaled))
    try:
        return sympy.Poly(numerator, _SCALE), sympy.Poly(denominator, _SCALE)
    except sympy.PolynomialError:
        return None


def leading_term(expr: sympy.Expr, growing) -> sympy.Expr | None:
    """The part of expr that dominates as every symbol in `growing` goes to infinity together
    (2*(M*K + K*N + M*N) stays whole; 4*M*N*K/T + 2*M*N -> 4*M*N*K/T), or None."""
    growing = [s for s in growing if s in expr.free_symbols]
    if not growing:
        return expr
    parts = _scaled_parts(expr, growing)
    if parts is None:
        return None
    numerator, denominator = parts
    top = numerator.LC() * _SCALE ** numerator.degree()
    bottom = denominator.LC() * _SCALE ** denominator.degree()
    return sympy.factor(sympy.cancel((top / bottom).subs(_SCALE, 1)))


def limit_at_infinity(expr: sympy.Expr, growing) -> sympy.Expr | None:
    """lim expr as every symbol in `growing` goes to infinity together; oo, a finite
    expression in the other symbols, or None when it cannot be found."""
    growing = [s for s in growing if s in expr.free_symbols]
    if not growing:
        return expr
    parts = _scaled_parts(expr, growing)
    if parts is None:
        return _sympy_limit(expr, growing)
    numerator, denominator = parts
    if numerator.degree() > denominator.degree():
        sign = sympy.sign(numerator.LC() / denominator.LC())
        return sympy.oo * sign if sign.is_number else sympy.oo
    if numerator.degree() < denominator.degree():
        return sympy.Integer(0)
    return sympy.factor(sympy.cancel(numerator.LC() / denominator.LC()))


def _sympy_limit(expr, growing):
    scaled = _smooth(expr).subs({s: _SCALE * s for s in growing}, simultaneous=True)
    try:
        result = sympy.limit(scaled, _SCALE, sympy.oo)
    except (NotImplementedError, ValueError, TypeError):
        return None
    if result.has(sympy.Limit) or result.has(_SCALE):
        return None
    return result
