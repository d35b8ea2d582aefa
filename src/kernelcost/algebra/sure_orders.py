"""The order sympy finds of two arguments of a Min or Max, where it surely finds one.

Building a Min or Max, sympy's `MinMaxBase._is_connected(x, y)` asks whether x >= y, y >= x,
and the same as <=, then all of it again of `factor_terms(x - y)` against 0, and answers Max
(x is the larger) or Min at the first question that has an answer, False where none has.
Each question walks the assumptions of a sum: a millisecond or more where the first round
has no answer, as for a warpgroup's clipped bound, whose difference `Br - WM` is
`WM*(Br/WM - 1)` once factored (3 ms, found in the second round).

Where x - y, or its factored form, is a sum sympy's assumptions surely prove nonnegative
(`surely_nonnegative`: sums and products of nonnegative numbers and symbols, of integer
powers of positive symbols, and of a positive integer less at most 1), and x - y is positive
at some witness sizes, every question of either round that has an answer says x is the
larger (no sound proof of y >= x exists where x - y > 0 somewhere), and the factored one has
one: sympy answers Max, whichever question finds it. Likewise Min for y - x. Anything else
is left to sympy. Property tests hold `surely_nonnegative` to sympy's proof and `sure_order`
to sympy's `_is_connected`."""

from __future__ import annotations

import sympy
from sympy.core.exprtools import factor_terms

from .witnesses import shows


def surely_nonnegative(expr: sympy.Expr) -> bool:
    """Whether expr is built of nonnegative rationals and symbols, integer powers of positive
    symbols, and a positive integer symbol plus a rational of at least -1, by sums and
    products: forms sympy's assumptions prove nonnegative, as `expr >= 0` evaluates."""
    if expr.is_Rational:
        return bool(expr >= 0)
    if expr.is_Symbol:
        return expr.is_nonnegative is True and expr.is_finite is True
    if expr.is_Pow:
        return bool(expr.base.is_Symbol and expr.exp.is_Integer
                    and expr.base.is_positive is True and expr.base.is_finite is True)
    if expr.is_Mul:
        return all(map(surely_nonnegative, expr.args))
    if expr.is_Add:
        return all(map(surely_nonnegative, expr.args)) or _integer_less_one(expr)
    return False


def _polynomial_form(expr: sympy.Expr) -> bool:
    """Whether expr is sums, products and integer powers of rationals and symbols."""
    if expr.is_Rational or expr.is_Symbol:
        return True
    if expr.is_Pow:
        return bool(expr.exp.is_Integer) and _polynomial_form(expr.base)
    return bool(expr.is_Add or expr.is_Mul) and all(map(_polynomial_form, expr.args))


def _integer_less_one(expr: sympy.Expr) -> bool:
    """s + c with s a positive integer symbol and c a rational in [-1, 0)."""
    if len(expr.args) != 2:
        return False
    constant, symbol = expr.args
    return bool(constant.is_Rational and -1 <= constant < 0 and symbol.is_Symbol
            and symbol.is_integer is True and symbol.is_positive is True
            and symbol.is_finite is True)


def sure_order(x: sympy.Expr, y: sympy.Expr) -> type[sympy.Max] | type[sympy.Min] | None:
    """sympy's `_is_connected(x, y)` (x != y) where it surely answers Max or Min, found
    without its questions; None where that is not known."""
    difference = x - y  # as sympy's x >= y forms it
    if not _polynomial_form(difference):
        return None  # a call (a rounding, a Min) is no part of a sure form, factored or not
    factored = factor_terms(difference)  # as sympy's second round forms it
    if surely_nonnegative(difference) or surely_nonnegative(factored):
        return sympy.Max if shows(difference, (1,)) else None
    opposite = y - x  # as sympy's y >= x forms it
    if surely_nonnegative(opposite) or surely_nonnegative(sympy.S.Zero - factored):
        return sympy.Min if shows(opposite, (1,)) else None
    return None
