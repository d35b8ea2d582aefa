"""Comparisons the model asks of symbolic sizes, answered as sympy answers them but without its
assumption system where a few numbers already settle the question.

sympy decides `ratio < 1/10` or `Min(P, I*B)` by asking the signs of differences through its
assumption system: tens of milliseconds per question for a rational function of one size, and
most such questions have no answer (the ratio crosses 1/10 as N grows). sympy is sound, so it
can only prove `a < b` when no size makes it false. Evaluating the difference at a few
positive integer sizes (every size symbol is a positive integer) gives witnesses: where both
outcomes occur, sympy's answer is "undecided" and it need not be asked. Where the witnesses
agree the question goes to sympy as before, so every answer is the one sympy gives."""

from __future__ import annotations

import itertools

import sympy

# Sizes tried for every free symbol: small ones, where edges and ceilings matter, and large
# ones, where the leading terms decide.
WITNESS_SIZES = (1, 2, 3, 5, 8, 64, 1024, 10**6)


def decided(relation) -> bool | None:
    """True or False when sympy decided a relation, None otherwise."""
    if relation is sympy.true or relation is True:
        return True
    if relation is sympy.false or relation is False:
        return False
    return None


def less_than(left, right) -> bool | None:
    """left < right as sympy decides it; None when undecided."""
    if _both_signs(sympy.sympify(left) - right, zero_counts_as=1):
        return None
    return decided(left < right)


def at_most(left, right) -> bool | None:
    """left <= right as sympy decides it; None when undecided."""
    if _both_signs(sympy.sympify(left) - right, zero_counts_as=-1):
        return None
    return decided(sympy.sympify(left) <= right)


def at_least(left, right) -> bool | None:
    """left >= right as sympy decides it; None when undecided."""
    return at_most(right, left)


def smallest(*arguments) -> sympy.Expr:
    """sympy.Min(*arguments), the same expression."""
    return _lattice(sympy.Min, arguments)


def largest(*arguments) -> sympy.Expr:
    """sympy.Max(*arguments), the same expression."""
    return _lattice(sympy.Max, arguments)


def _lattice(kind, arguments) -> sympy.Expr:
    """Min and Max drop every argument another one provably bounds; arguments that no pair of
    witnesses can order all stay, in sympy's canonical order, and then sympy's evaluation has
    nothing to do (it is skipped: it asks two to four relations of every pair). Nested Min or
    Max and infinities are left to sympy, which rewrites them."""
    arguments = [sympy.sympify(argument) for argument in arguments]
    if len(arguments) < 2 or any(_rewritten_by_lattice(argument) for argument in arguments):
        return kind(*arguments)
    for first, second in itertools.combinations(arguments, 2):
        if not _both_signs(first - second, zero_counts_as=0):
            return kind(*arguments)
    return kind(*arguments, evaluate=False)


def _rewritten_by_lattice(argument: sympy.Expr) -> bool:
    return (isinstance(argument, (sympy.Min, sympy.Max))
            or argument.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan))


def _both_signs(difference: sympy.Expr, zero_counts_as: int) -> bool:
    """Whether the difference is negative at some witness sizes and positive at others (a
    zero counts as `zero_counts_as`: 0 for neither side)."""
    symbols = difference.free_symbols
    if not symbols or not all(symbol.is_positive for symbol in symbols):
        return False
    signs = set()
    for point in _witness_points(sorted(symbols, key=str)):
        value = difference.xreplace(point)
        if not value.is_Number or not value.is_finite:
            continue
        sign = 1 if value.is_positive else -1 if value.is_negative else zero_counts_as
        if sign:
            signs.add(sign)
        if len(signs) == 2:
            return True
    return False


def _witness_points(symbols: list[sympy.Symbol]):
    """Every symbol at each witness size together, then the sizes rotated among the symbols so
    that they also differ from one another."""
    sizes = [sympy.Integer(size) for size in WITNESS_SIZES]
    for size in sizes:
        yield {symbol: size for symbol in symbols}
    if len(symbols) > 1:
        for shift in range(1, len(sizes)):
            yield {symbol: sizes[(index * shift + shift) % len(sizes)]
                   for index, symbol in enumerate(symbols)}
