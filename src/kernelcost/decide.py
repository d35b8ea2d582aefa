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
import math
from fractions import Fraction

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
    witnesses can order all stay, in sympy's canonical order, and sympy's evaluation (two to
    four relations asked of every pair) runs only within the groups witnesses cannot split.
    Nested Min or Max and infinities are left to sympy, which rewrites them."""
    arguments = [sympy.sympify(argument) for argument in arguments]
    if len(arguments) < 2 or any(_rewritten_by_lattice(argument) for argument in arguments):
        return kind(*arguments)
    kept = []
    for group in _orderable_groups(arguments):
        if len(group) == 1:
            kept += group
            continue
        evaluated = kind(*group)
        kept += evaluated.args if isinstance(evaluated, kind) else [evaluated]
    return kind(*kept, evaluate=False)


def _orderable_groups(arguments: list[sympy.Expr]) -> list[list[sympy.Expr]]:
    """The arguments in groups that no pair of witnesses separates, directly or through a
    chain. sympy keeps or drops an argument only on comparing it with one it can order, so it
    evaluates each group apart as it would the whole: only the pairs within a group are asked,
    the costly part being pairs it cannot order (`Max(K*M*N/c, (K*M + K*N + M*N)/d)`)."""
    group_of = list(range(len(arguments)))

    def root(index: int) -> int:
        while group_of[index] != index:
            index = group_of[index]
        return index

    for (i, first), (j, second) in itertools.combinations(enumerate(arguments), 2):
        if root(i) != root(j) and not _both_signs(first - second, zero_counts_as=0):
            group_of[root(j)] = root(i)
    groups: dict[int, list[sympy.Expr]] = {}
    for index, argument in enumerate(arguments):
        groups.setdefault(root(index), []).append(argument)
    return list(groups.values())


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
        sign = _sign_at(difference, point)
        if sign is None:
            continue
        sign = sign or zero_counts_as
        if sign:
            signs.add(sign)
        if len(signs) == 2:
            return True
    return False


def _sign_at(expr: sympy.Expr, point: dict) -> int | None:
    """The sign of expr at the point (-1, 0 or 1), or None where it is no finite number. In
    Python's exact fractions where it can (substituting into sympy rebuilds the expression,
    about ten times slower), else as sympy evaluates it."""
    try:
        value = _exact(expr, point)
    except (_NotExact, ZeroDivisionError):  # sympy says what 1/0 or a float part gives
        value = expr.xreplace(point)
        if not value.is_Number or not value.is_finite:
            return None
        return 1 if value.is_positive else -1 if value.is_negative else 0
    return (value > 0) - (value < 0)


class _NotExact(Exception):
    """A part of an expression that _exact does not evaluate."""


def _exact(expr: sympy.Expr, point: dict) -> Fraction:
    """expr at the point (symbol -> Integer): the rational sympy would compute."""
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    if expr.is_Symbol:
        return Fraction(int(point[expr]))
    if expr.is_Add:
        return sum((_exact(arg, point) for arg in expr.args), Fraction(0))
    if expr.is_Mul:
        return math.prod((_exact(arg, point) for arg in expr.args), start=Fraction(1))
    if expr.is_Pow and expr.exp.is_Integer:
        return _exact(expr.base, point) ** int(expr.exp)
    if isinstance(expr, sympy.floor):
        return Fraction(math.floor(_exact(expr.args[0], point)))
    if isinstance(expr, sympy.ceiling):
        return Fraction(math.ceil(_exact(expr.args[0], point)))
    if isinstance(expr, (sympy.Min, sympy.Max)):
        values = [_exact(arg, point) for arg in expr.args]
        return min(values) if isinstance(expr, sympy.Min) else max(values)
    raise _NotExact(expr)


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


def cancelled(expr: sympy.Expr) -> sympy.Expr:
    """sympy.cancel(expr) with each Min and Max held as a symbol meanwhile: to cancel they are
    generators, but cancel's passes (factor_terms, expand) rebuild and re-evaluate them, asking
    every pair of arguments again."""
    lattices = sorted(expr.atoms(sympy.Min, sympy.Max), key=sympy.default_sort_key)
    if not lattices:
        return sympy.cancel(expr)
    held = {lattice: sympy.Dummy() for lattice in lattices}
    result = sympy.cancel(expr.xreplace(held))
    return result.xreplace({symbol: lattice for lattice, symbol in held.items()})
