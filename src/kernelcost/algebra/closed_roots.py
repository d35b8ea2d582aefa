"""The closed-form roots of a cleared ridge or capacity equation, as sympy.solve writes them
and without its costly steps: -b/a where the equation is linear in the size with rational
coefficients, a quadratic's or cubic's formulas, else solve itself without its checks; each
root kept where the variable's assumptions leave it possible (`equations` solves with these
once for every machine)."""

from __future__ import annotations

from collections.abc import Callable

import sympy
from sympy.core.assumptions import check_assumptions

from ..base.symbols import text_key
from .quadratic import cubic_roots, quadratic_roots
from .quotients import polynomial_terms
from .witnesses import signs_at_witnesses

Possible = Callable[[sympy.Expr], bool]  # whether a root is one the caller can use


def linear_roots(cleared: sympy.Expr, variable: sympy.Symbol,
                 possible: Possible | None = None) -> list[sympy.Expr] | None:
    """sympy.solve(cleared, variable, simplify=False) where `cleared` is a sum of degree 1 in
    the variable with rational coefficients in every symbol; None where it is not. A root
    is then -b/a, written as sympy's solve_linear writes it (the closed form is printed, so
    it must be the same expression), and dropped where the variable's assumptions rule it
    out, as solve drops it (or where `possible(root)` is False, given). It skips solve's
    preprocessing and its other strategies: about 3 ms less per equation, out of 8."""
    if not cleared.is_Add or not _linear_with_rational_coefficients(cleared, variable):
        return None
    numerator = cleared.as_numer_denom()[0]
    # solve_linear's derivative and value at 0, read off the terms: diff and subs cost more
    rest, _ = numerator.as_independent(variable, as_Add=True)
    return _possible([sympy.expand_mul(-1 / numerator.coeff(variable) * rest)], variable,
                     possible)


def polynomial_roots(cleared: sympy.Expr, variable: sympy.Symbol,
                     possible: Possible | None = None) -> list[sympy.Expr]:
    """sympy.solve(cleared, variable, simplify=False) for a polynomial in the variable, less
    solve's checks that cannot fail there: no denominator holds the variable, and an exact
    root is never proven to leave a nonzero value (checksol substitutes each root back and
    simplifies, half of a quadratic's solve), and the questions it asks of a quadratic's
    discriminant (quadratic_roots). Roots the variable's assumptions rule out are dropped, as
    solve drops them (or where `possible(root)` is False, given)."""
    roots = quadratic_roots(cleared, variable)
    if roots is None:
        roots = cubic_roots(cleared, variable)
    if roots is None:
        roots = sympy.solve(cleared, variable, dict=False, simplify=False, check=False)
    return _possible(roots, variable, possible)


def _possible(roots: list[sympy.Expr], variable: sympy.Symbol,
              possible: Possible | None) -> list[sympy.Expr]:
    if possible is None:
        return [root for root in roots if may_be(root, variable)]
    return [root for root in roots if possible(root)]


def may_be(root: sympy.Expr, variable: sympy.Symbol) -> bool:
    """Whether the variable's assumptions leave the root possible, as solve checks them. A
    root positive at some witness sizes is possible for a positive variable: no assumption
    of it can be proven false there, and sympy's questions (tens of milliseconds for a
    quotient in I_crit) are not asked."""
    if variable.is_positive and 1 in signs_at_witnesses(root):
        return True
    return check_assumptions(root, **variable.assumptions0) is not False


def _linear_with_rational_coefficients(expr: sympy.Expr, variable: sympy.Symbol) -> bool:
    """True for a polynomial of degree 1 in `variable` whose coefficients, in every symbol,
    are rational numbers: solve has no radicals, floats or functions to treat there. Read
    from the ring where it writes expr out, else by sympy's Poly."""
    written = polynomial_terms(expr)
    if written is not None:
        symbols, terms = written
        if variable not in symbols:
            return False
        position = symbols.index(variable)
        return max(exponents[position] for exponents, _ in terms) == 1
    try:
        polynomial = sympy.Poly(expr, *sorted(expr.free_symbols, key=text_key))
    except sympy.PolynomialError:
        return False
    return polynomial.domain in (sympy.ZZ, sympy.QQ) and polynomial.degree(variable) == 1
