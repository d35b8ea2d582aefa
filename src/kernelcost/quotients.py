"""Rational functions of sizes brought to lowest terms, as sympy.cancel writes them, without
the passes sympy makes first.

sympy.cancel runs `signsimp` and `factor_terms` over the expression before it reduces the
numerator and the denominator; on a closed form of a few hundred terms that preparation is
most of its time (factor_terms builds a `Factors` of every term, each comparing a dict with
S.One through sympify). The reduced pair is canonical: coprime over the integers, the
content divided out, the sign on the numerator, so the pair reached from the raw numerator
and denominator is the one sympy reaches, and the expression built from it is the same."""

from __future__ import annotations

import sympy
from sympy.polys.polyerrors import PolynomialError
from sympy.polys.rings import sring


def cancel(expr) -> sympy.Expr:
    """sympy.cancel(expr), the same expression, in a fraction of the time where expr is a
    rational function of commuting atoms (sizes, roundings, Min and Max); anything else goes
    to sympy.cancel itself."""
    expr = sympy.sympify(expr)
    if (not isinstance(expr, sympy.Expr) or expr.is_Number or not expr.is_commutative
            or expr.has(sympy.Piecewise)):
        return sympy.cancel(expr)
    try:
        ring, (numerator, denominator) = sring(expr.as_numer_denom())
    except PolynomialError:
        return sympy.cancel(expr)
    if not ring.ngens:
        return sympy.cancel(expr)  # a constant: sympy expands its prepared form
    numerator, denominator = numerator.cancel(denominator)
    return numerator.as_expr() / denominator.as_expr()
