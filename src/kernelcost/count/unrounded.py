"""A lower bound of an expression with floors and ceilings that holds none of them: each
rounding replaced by its bound on the side its coefficient needs (x - 1 < floor(x) <= x,
x <= ceiling(x) < x + 1, tighter for a quotient of integers). The sign prover (facts) tries
such bounds where the rounded expression defeats the assumptions."""

from __future__ import annotations

import sympy

from ..algebra.quotients import cancel


def _integer_ratio(value: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr] | None:
    numerator, denominator = sympy.fraction(sympy.together(value))
    if numerator.is_integer and denominator.is_integer and denominator.is_positive:
        return numerator, denominator
    return None


def _floor_at_least(value: sympy.Expr) -> sympy.Expr:
    """floor(p/q) >= (p - q + 1)/q for integers p and q > 0; else floor(x) > x - 1."""
    ratio = _integer_ratio(value)
    return value - 1 if ratio is None else (ratio[0] - ratio[1] + 1) / ratio[1]


def _ceiling_at_most(value: sympy.Expr) -> sympy.Expr:
    """ceiling(p/q) <= (p + q - 1)/q for integers p and q > 0; else ceiling(x) < x + 1."""
    ratio = _integer_ratio(value)
    return value + 1 if ratio is None else (ratio[0] + ratio[1] - 1) / ratio[1]


def unrounded_lower_bound(expr: sympy.Expr, ceiling_to_floor: bool = False) -> sympy.Expr | None:
    """A lower bound of expr free of floor/ceiling terms (x - 1 < floor(x) <= x, and
    x <= ceiling(x) < x + 1), chosen by the sign of each term's coefficient; or with
    ceiling_to_floor, ceiling(x) >= floor(x) where a ceiling adds. None when a term is not
    of the form coefficient * floor(...)."""
    terms = []
    for term in sympy.Add.make_args(sympy.expand(expr)):
        rounded = [f for f in term.atoms(sympy.floor, sympy.ceiling)]
        if not rounded:
            terms.append(term)
            continue
        if len(rounded) > 1:
            return None
        (node,) = rounded
        coefficient = cancel(term / node)
        if coefficient.has(sympy.floor, sympy.ceiling):
            return None
        inner = node.args[0]
        adds = coefficient.is_nonnegative
        subtracts = coefficient.is_nonpositive
        if ceiling_to_floor:
            if isinstance(node, sympy.ceiling) and adds:
                terms.append(coefficient * sympy.floor(inner))
            else:
                terms.append(term)
            continue
        if isinstance(node, sympy.floor):
            value = inner if subtracts else (_floor_at_least(inner) if adds else None)
        else:
            value = inner if adds else (_ceiling_at_most(inner) if subtracts else None)
        if value is None:
            return None
        terms.append(coefficient * value)
    return sympy.expand(sympy.Add(*terms))
