"""Pairs of a Min or Max that sympy surely leaves unordered, found without its questions:
in place of sympy 1.14's `MinMaxBase._is_connected`, where it surely answers False.

Building a Min or Max, `_is_connected(x, y)` asks `x >= y`, `y >= x`, `x <= y`, `y <= x`,
then the same of F = `factor_terms(x - y)` against 0, and answers False where every one stays
an unevaluated relation. For arguments with no comparison of their own (Symbol, Add, Mul,
Pow, Min, Max compare by `Expr.__ge__`, with no `_eval_is_ge` dispatch but the (Expr, Expr)
default), neither a number nor infinite, `relational.is_ge(a, b)` answers
`(a - b).is_extended_nonnegative` and nothing else, so the eight questions are that fact of
four sums: x - y, y - x, F and 0 - F.

A sum with no number term whose terms are each finite and positive or negative, some of
each, has that fact unknown in sympy: with no number term, Add's handlers for extended
positive, negative, nonnegative and nonpositive read its terms' signs alone (no
`_monotonic_sign`), and terms of both signs leave each None; its zero handler answers None
where every term is nonzero; no other fact of a sum (integer, odd, real, finite...) implies a
sign. A product's sign is that of its factors where each is finite and positive or negative
(Mul's handlers), so the factors, which the four sums share, are asked, not each product
the subtraction builds anew. Where all four sums are such, sympy answers False.

It is what a clipped bound `Bc*ceiling(S/Bc)` against S comes to, or `Min(Br, S)` against WM:
orders true under a spec's facts that sympy cannot prove, found unproven in some 2 ms a pair
of its questions (flash_attention_hopper builds three). Anything else is left to sympy; a
property test holds `unordered` to sympy's `_is_connected`, and the Min and Max built with it
to sympy's own."""

from __future__ import annotations

import sympy

from .common_factors import factor_terms_of

# the classes whose comparison is Expr's own (ceiling and floor have theirs, numbers theirs)
_PLAIN = (sympy.Symbol, sympy.Add, sympy.Mul, sympy.Pow, sympy.Min, sympy.Max)


def unordered(x: sympy.Expr, y: sympy.Expr) -> bool:
    """Whether sympy's `_is_connected(x, y)` surely answers False, by the sums it asks."""
    if x == y or not (_plain(x) and _plain(y)):
        return False
    if not (_unsigned(x - y) and _unsigned(y - x)):
        return False
    factored = factor_terms_of(x - y)  # sympy's factor_terms, read off the terms
    return _unsigned(factored) and _unsigned(sympy.S.Zero - factored)


def _plain(expr: sympy.Expr) -> bool:
    return type(expr) in _PLAIN and expr.is_infinite is False and not expr.is_number


def _unsigned(expr: sympy.Expr) -> bool:
    """A sum with no number term whose terms are finite, each positive or negative, some of
    each: sympy knows no sign of it."""
    if not expr.is_Add or expr.is_number or expr.args[0].is_Number:
        return False
    signs = set()
    for term in expr.args:
        sign = _term_sign(term)
        if sign is None:
            return False
        signs.add(sign)
    return len(signs) == 2


def _term_sign(term: sympy.Expr) -> int | None:
    """The sign sympy gives a finite term (1 or -1), None where it gives none or the term may
    be infinite. A product's is that of its factors, as Mul's handlers find it where each
    factor is finite and positive or negative: asked of the factors, which the sums share,
    not of each product the subtraction builds anew."""
    if not term.is_Mul:
        return _factor_sign(term)
    sign = 1
    for factor in term.args:
        factor_sign = _factor_sign(factor)
        if factor_sign is None:
            return None
        sign *= factor_sign
    return sign


def _factor_sign(factor: sympy.Expr) -> int | None:
    if factor.is_infinite is not False:
        return None
    if factor.is_extended_positive:
        return 1
    if factor.is_extended_negative:
        return -1
    return None
