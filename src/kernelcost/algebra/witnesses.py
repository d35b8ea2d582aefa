"""Witness sizes: a difference of sizes at a few points, where both signs show that no
decider can prove either, before any costlier decider is asked. Each expression is evaluated
by its plan in Python's integers where it has one (substituting into sympy rebuilds the
expression, tens of times slower), else as sympy evaluates it."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction

import sympy

from ..base.symbols import text_key
from . import rational_eval
from .rational_eval import Value
from .surds import NotASurd, exact_number_sign, surd_sign, surd_value

# Sizes tried for every free symbol: small ones, where edges and ceilings matter, and large
# ones, where the leading terms decide.
WITNESS_SIZES = (1, 2, 3, 5, 8, 64, 1024, 10**6, 10**12)


# The same points for a positive symbol that need not be an integer (a ridge, a capacity):
# position by position, a positive rational for each witness size.
WITNESS_REALS = (sympy.Rational(1, 1000), sympy.Rational(1, 10), sympy.Rational(1, 2),
                 sympy.Integer(1), sympy.Integer(3), sympy.Integer(10), sympy.Integer(1000),
                 sympy.Integer(10**6), sympy.Integer(10**12))


def signs_at_witnesses(expr: sympy.Expr) -> set[int]:
    """The signs expr takes where its sizes are at the witness sizes and its other positive
    symbols at WITNESS_REALS, by sympy's exact arithmetic; the points where it is neither a
    rational nor a rational plus a square root (1/0, other radicals) count for neither. Empty
    where a symbol cannot take its witness values (one that may be complex, or negative
    only)."""
    symbols = _witnessed_symbols(expr.free_symbols)
    if not symbols:
        return set()
    tables = [WITNESS_SIZES if symbol.is_integer else _WITNESS_FRACTIONS for symbol in symbols]
    sizes = {size: index for index, size in enumerate(WITNESS_SIZES)}
    signs = set()
    for point in witness_values(len(symbols)):
        values = {symbol: table[sizes[size]] for symbol, table, size in zip(symbols, tables, point)}
        sign = _sign_at(expr, values)
        if sign:
            signs.add(sign)
        if len(signs) == 2:
            break
    return signs


_WITNESS_FRACTIONS = tuple(Fraction(int(real.p), int(real.q)) for real in WITNESS_REALS)


def _sign_at(expr: sympy.Expr, values: dict) -> int | None:
    """The sign of expr where its symbols take the values, as exact_number_sign gives it of
    the number sympy's substitution builds: from the value in Q(sqrt(q)) (`surd_value`)
    where expr is of the form sympy reduces to a + b sqrt(q), else from sympy's own."""
    try:
        whole, root, radicand = surd_value(expr, values)
    except ZeroDivisionError:  # sympy's 1/0 is zoo, no sign
        return None
    except NotASurd:
        try:
            value = expr.xreplace({symbol: sympy.Rational(number.numerator, number.denominator)
                                   for symbol, number in values.items()})
        except ValueError:  # sympy's Min and Max refuse an infinite argument
            return None
        return exact_number_sign(value)
    return surd_sign(whole, root, radicand)


def sizes_of(expr: sympy.Expr) -> tuple[sympy.Symbol, ...] | None:
    """The free symbols of expr in a fixed order, where it has some and every one is a size
    (a positive integer); None otherwise."""
    symbols = free_symbols(expr)
    if not symbols or not all(symbol.is_integer and symbol.is_positive for symbol in symbols):
        return None
    return tuple(sorted(symbols, key=text_key))


# kept: the arguments of a verdict's Min and Max calls recur (the bound's terms, the model's,
# at the maximum clock), and free_symbols walks an expression whole each time it is asked
@functools.lru_cache(maxsize=4096)
def free_symbols(expr: sympy.Expr) -> frozenset[sympy.Symbol]:
    """expr.free_symbols, kept."""
    return frozenset(expr.free_symbols)


def integers_of(expr: sympy.Expr) -> tuple[sympy.Symbol, ...] | None:
    """The free symbols of expr in a fixed order, where it has some and every one is an
    integer that may be any positive integer (a size, an iterator, a loop's counter): the
    witness sizes are values each can take. None otherwise."""
    symbols = _witnessed_symbols(expr.free_symbols)
    return symbols if symbols and all(symbol.is_integer for symbol in symbols) else None


def both_signs(difference: sympy.Expr, zero_counts_as: int) -> bool:
    """Whether the difference is negative at some witness sizes and positive at others (a
    zero counts as `zero_counts_as`: 0 for neither side)."""
    ordered = _witnessed_symbols(difference.free_symbols)
    return bool(ordered) and split_signs((sign_of(difference, ordered, values)
                                          for values in witness_values(len(ordered))),
                                         zero_counts_as)


def split_signs(signs: Iterable[int | None], zero_counts_as: int) -> bool:
    """Whether signs, read as far as needed, hold both -1 and 1 (None skipped, a zero counted
    as `zero_counts_as`)."""
    seen = set()
    for sign in signs:
        if sign is None:
            continue
        sign = sign or zero_counts_as
        if sign:
            seen.add(sign)
        if len(seen) == 2:
            return True
    return False


def shows(difference: sympy.Expr, signs: tuple[int, ...]) -> bool:
    """Whether the difference takes one of the signs at some witness sizes."""
    ordered = _witnessed_symbols(difference.free_symbols)
    return bool(ordered) and any(sign_of(difference, ordered, values) in signs
                                 for values in witness_values(len(ordered)))


@functools.lru_cache(maxsize=1024)
def _witnessed_set(symbols: frozenset[sympy.Symbol]) -> tuple[sympy.Symbol, ...]:
    """_witnessed_symbols of a pair's symbols, kept: every pair of every Min and Max asks."""
    return _witnessed_symbols(symbols)


def _witnessed_symbols(symbols) -> tuple[sympy.Symbol, ...]:
    """The symbols in a fixed order, where there are some and every one may take each of its
    witness values (a size, an iterator, a ridge); none otherwise (a symbol that may be
    negative only, or complex)."""
    if not symbols or not all(map(_takes_witnesses, symbols)):
        return ()
    return tuple(sorted(symbols, key=text_key))


# What every positive integer, and every positive rational, has of a symbol's facts
_SIZE_FACTS = sympy.Symbol("size", integer=True, positive=True).assumptions0
_REAL_FACTS = sympy.Symbol("real", positive=True).assumptions0


# kept: a symbol's facts do not change, and every pair of every Max asks them of its sizes
@functools.lru_cache(maxsize=4096)
def _takes_witnesses(symbol: sympy.Symbol) -> bool:
    """Whether each witness value of the symbol (a size for an integer, a positive rational
    otherwise) has every fact the symbol is declared with: a real symbol whose facts are
    all those of a positive size (positive real): an iterator, a nonnegative remainder."""
    facts = _SIZE_FACTS if symbol.is_integer else _REAL_FACTS
    return bool(symbol.is_real) and all(facts.get(fact) == value
                                        for fact, value in symbol.assumptions0.items())


def sign_of(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...],
            values: tuple[int, ...]) -> int | None:
    """The sign of expr where the symbols have the values, or None where it is no finite
    number. By its plan in Python's integers where it has one (substituting into sympy
    rebuilds the expression, tens of times slower), else as sympy evaluates it, which also
    says what 1/0 gives."""
    value = planned_value(rational_eval.compiled(expr, symbols), values)
    if value is not None:
        return rational_eval.sign(value)
    try:
        value = expr.xreplace(dict(zip(symbols, map(sympy.Integer, values))))
    except ValueError:  # sympy's Min and Max refuse an infinite argument: Min(M, M/floor(M/2))
        return None
    except TypeError:  # a Min or Max of a sum sympy cannot evaluate there, whose comparison
        return None  # it cannot decide (a Sum of ceiling's derivative at -63/2)
    if not value.is_Number or not value.is_finite:
        return None
    return 1 if value.is_positive else -1 if value.is_negative else 0


@functools.cache
def witness_values(count: int) -> tuple[tuple[int, ...], ...]:
    """Every symbol at each witness size together, then the sizes rotated among the symbols so
    that they also differ from one another, then the corners: one symbol at the largest size
    and the others at 1, and one at 1 and the others at the largest. Sizes by the position
    of their symbol."""
    sizes = WITNESS_SIZES
    points = [(size,) * count for size in sizes]
    if count > 1:
        for shift in range(1, len(sizes)):
            points.append(tuple(sizes[(index * shift + shift) % len(sizes)]
                                for index in range(count)))
        for corner in range(count):
            points.append(tuple(sizes[-1] if index == corner else sizes[0]
                                for index in range(count)))
            points.append(tuple(sizes[0] if index == corner else sizes[-1]
                                for index in range(count)))
    return tuple(points)


class ArgumentWitnesses:
    """The arguments of one Min or Max at witness sizes, each evaluated once a point however
    many pairs ask it. Where both of a pair have a value, the difference has theirs: sympy's
    subtraction only collects and cancels terms, exactly. Where either has none (1/0, a part
    plans do not evaluate), the difference is evaluated as it stands, as both_signs does."""

    def __init__(self, arguments: Sequence[sympy.Expr]):
        self.arguments = arguments
        self.free = [free_symbols(argument) for argument in arguments]
        self.symbols = tuple(sorted(set().union(*self.free), key=text_key))
        self.position = {symbol: index for index, symbol in enumerate(self.symbols)}
        self.tables = [_argument_table(argument, free, self.position)
                       for argument, free in zip(arguments, self.free)]
        self.points: dict[tuple[sympy.Symbol, ...], list[tuple[int, ...]]] = {}
        self.columns: dict[tuple[int, tuple[sympy.Symbol, ...]], list[Value | None]] = {}

    def split(self, i: int, j: int, difference: sympy.Expr | None = None) -> bool:
        """both_signs(difference, zero_counts_as=0), at the witnesses of the difference's
        own symbols; a symbol it lost to cancellation is 1 for the arguments. Without the
        difference, at the witnesses of the two arguments' symbols, where both have a value:
        sizes all the same, so both signs there are both signs of the difference, found
        before it is built."""
        ordered = (_witnessed_symbols(difference.free_symbols) if difference is not None
                   else _witnessed_set(self.free[i] | self.free[j]))
        if not ordered:
            return False
        seen: set[int] = set()  # split_signs' reading, a zero for neither side
        compare = rational_eval.compare
        for values, first, second in zip(witness_values(len(ordered)),
                                         self._column(i, ordered), self._column(j, ordered)):
            sign: int | None
            if first is not None and second is not None:
                sign = compare(first, second)
            elif difference is not None:
                sign = sign_of(difference, ordered, values)
            else:
                continue
            if sign:
                seen.add(sign)
                if len(seen) == 2:
                    return True
        return False

    def _column(self, index: int, ordered: tuple[sympy.Symbol, ...]) -> list[Value | None]:
        """The argument's values at the witness points of these symbols, in their order: most
        pairs of one Min or Max ask the same symbols' points of each argument."""
        key = (index, ordered)
        column = self.columns.get(key)
        if column is None:
            plan, own, values = self.tables[index]
            column = []
            for point in self._points(ordered):
                taken = own(point)
                value = values[taken] if taken in values else values.setdefault(
                    taken, planned_value(plan, taken))
                column.append(value)
            self.columns[key] = column
        return column

    def _points(self, ordered: tuple[sympy.Symbol, ...]) -> list[tuple[int, ...]]:
        """The witness points of these symbols over all the arguments' symbols (the others
        at 1), in witness_values' order, made once for every pair that asks them."""
        points = self.points.get(ordered)
        if points is None:
            positions = [self.position[symbol] for symbol in ordered]
            points = []
            for values in witness_values(len(ordered)):
                point = [1] * len(self.symbols)
                for position, value in zip(positions, values):
                    point[position] = value
                points.append(tuple(point))
            self.points[ordered] = points
        return points

    def leaders_first(self, winning_sign: int) -> list[int]:
        """The arguments' indices, those largest (winning_sign 1; smallest for -1) where every
        size is the largest witness first, those without a value there last: an argument
        that bounds all the others is one of the first."""
        point = (WITNESS_SIZES[-1],) * len(self.symbols)
        values = [self.value(index, point) for index in range(len(self.arguments))]

        def later(first: int, second: int) -> int:
            first_value, second_value = values[first], values[second]
            if first_value is None or second_value is None:
                return (first_value is None) - (second_value is None)
            return winning_sign * rational_eval.compare(second_value, first_value)

        return sorted(range(len(self.arguments)), key=functools.cmp_to_key(later))

    def value(self, index: int, point: tuple[int, ...]) -> Value | None:
        plan, own, values = self.tables[index]
        key = own(point)
        if key in values:
            return values[key]
        value = values[key] = planned_value(plan, key)
        return value


# Each argument's values at the witness points, by the values of its own symbols: the Min
# and Max of one verdict share most of their arguments (t_bound's terms and t_model's, those
# at the maximum clock), and an argument's value there does not depend on the other
# arguments' symbols, which stand at 1 or elsewhere in each call's points.
_TABLES: dict[sympy.Expr, tuple[rational_eval.Plan | None,
                                dict[tuple[int, ...], Value | None],
                                tuple[sympy.Symbol, ...]]] = {}
_MOST_TABLES = 4096


def _argument_table(argument: sympy.Expr, free: frozenset[sympy.Symbol],
                    position: dict[sympy.Symbol, int]
                    ) -> tuple[rational_eval.Plan | None, Callable[[tuple[int, ...]],
                                                                    tuple[int, ...]],
                               dict[tuple[int, ...], Value | None]]:
    """The argument's plan over its own symbols (in text order), what takes their values out
    of a point over all the arguments' symbols, and its values found so far."""
    found = _TABLES.get(argument)
    if found is None:
        if len(_TABLES) >= _MOST_TABLES:
            _TABLES.clear()
        own = tuple(sorted(free, key=text_key))
        found = _TABLES[argument] = (rational_eval.compiled(argument, own), {}, own)
    positions = [position[symbol] for symbol in found[2]]
    if len(positions) == 1:
        only = positions[0]
        return found[0], lambda point: (point[only],), found[1]
    taken = operator.itemgetter(*positions) if positions else (lambda point: ())
    return found[0], taken, found[1]


def planned_value(plan: rational_eval.Plan | None, point: tuple[int, ...]) -> Value | None:
    if plan is None:
        return None
    try:
        return plan(point)
    except ZeroDivisionError:
        return None
