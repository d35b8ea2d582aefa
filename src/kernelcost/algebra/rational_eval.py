"""Rational functions of sizes in Python's integers, for the deciders that ask the same
expressions at many sizes: sympy rebuilds an expression on every substitution and expands a
polynomial through its generic machinery, each tens of times slower than integers.

- `compiled(expr, symbols)`: an evaluation plan, built once per expression from its sympy
  tree (sums, products, integer powers, rationals, symbols, floor, ceiling, Min, Max), that
  gives the expression's exact value at a point as a numerator and a positive denominator.
  None for any other node, which the caller evaluates with sympy instead.
- `shifted_terms(expr, symbols)`: the coefficients of a polynomial in the sizes with every
  size n written 1 + m, expanded directly; None for a form other than a polynomial of sums,
  products, non-negative integer powers, rationals and symbols."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

import sympy

from ..base.symbols import text_key

# A rational number as (numerator, denominator), the denominator positive and the pair not
# necessarily in lowest terms: reducing costs more than the few digits it saves here.
Value = tuple[int, int]
# A plan: the expression's value at a point, the sizes given in the order of the symbols it
# was compiled for. Raises ZeroDivisionError where a power divides by zero, as sympy's own
# exact evaluation does.
Plan = Callable[[Sequence[int]], Value]


def sign(value: Value) -> int:
    """-1, 0 or 1, as the denominator is positive."""
    numerator = value[0]
    return (numerator > 0) - (numerator < 0)


def compare(first: Value, second: Value) -> int:
    """The sign of first - second."""
    left, right = first[0] * second[1], second[0] * first[1]
    return (left > right) - (left < right)


class _Unplanned(Exception):
    """A node that plans do not evaluate."""


@functools.lru_cache(maxsize=8192)
def compiled(expr: sympy.Expr, symbols: tuple[sympy.Symbol, ...]) -> Plan | None:
    """The plan of expr over the symbols (which hold every free symbol of it), or None where
    it has a node a plan does not evaluate."""
    try:
        return _plan(expr, {symbol: index for index, symbol in enumerate(symbols)})
    except _Unplanned:
        return None


def value_at(expr: sympy.Expr, values: Mapping[sympy.Symbol, sympy.Expr]) -> Value | None:
    """expr's exact value where `values` gives each of its symbols an integer, from its plan
    (the number substituting gives, without rebuilding expr in sympy); None where it has no
    plan, a symbol has no integer value, or it divides by zero."""
    symbols = _symbols(expr)
    if not all(getattr(values.get(symbol), "is_Integer", False) for symbol in symbols):
        return None
    plan = compiled(expr, symbols)
    if plan is None:
        return None
    try:
        return plan([int(values[symbol]) for symbol in symbols])
    except ZeroDivisionError:
        return None


def value_at_integers(expr: sympy.Expr, values: Mapping[sympy.Symbol, int]) -> Value | None:
    """value_at(expr, {s: Integer(v)}) for a point already in Python's integers, without
    making sympy numbers of them (the self-verification resolves the sizes of every draw)."""
    symbols, plan = _symbols_and_plan(expr)
    if plan is None:
        return None
    try:
        point = [values[symbol] for symbol in symbols]
    except KeyError:  # a symbol without a value
        return None
    try:
        return plan(point)
    except ZeroDivisionError:
        return None


# kept: the comparisons ask the same few closed forms at each of thousands of rows; one
# lookup here saves hashing the expression and its symbols twice a row
@functools.lru_cache(maxsize=8192)
def _symbols_and_plan(expr: sympy.Expr) -> tuple[tuple[sympy.Symbol, ...], Plan | None]:
    symbols = _symbols(expr)
    return symbols, compiled(expr, symbols)


# kept: the self-verification evaluates each closed form at every sample and block, and
# finding an expression's symbols walks its whole tree (a tenth of the comparisons' time)
@functools.lru_cache(maxsize=8192)
def _symbols(expr: sympy.Expr) -> tuple[sympy.Symbol, ...]:
    """expr's free symbols in text order, the order of its plan's point."""
    return tuple(sorted(expr.free_symbols, key=text_key))


def _plan(expr: sympy.Expr, index: dict[sympy.Symbol, int]) -> Plan:
    if expr.is_Rational:
        constant = (int(expr.p), int(expr.q))
        return lambda point: constant
    if expr.is_Symbol:
        if expr not in index:
            raise _Unplanned(expr)
        position = index[expr]
        return lambda point: (point[position], 1)
    if expr.is_Add:
        return _sum([_plan(arg, index) for arg in expr.args])
    if expr.is_Mul:
        return _product([_plan(arg, index) for arg in expr.args])
    if expr.is_Pow and expr.exp.is_Integer:
        return _power(_plan(expr.base, index), int(expr.exp))
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        return _rounded(_plan(expr.args[0], index), isinstance(expr, sympy.ceiling))
    if isinstance(expr, (sympy.Min, sympy.Max)):
        return _extreme([_plan(arg, index) for arg in expr.args], isinstance(expr, sympy.Max))
    raise _Unplanned(expr)


def _sum(terms: list[Plan]) -> Plan:
    def plan(point: Sequence[int]) -> Value:
        numerator, denominator = 0, 1
        for term in terms:
            top, bottom = term(point)
            if bottom == denominator:
                numerator += top
            else:
                numerator = numerator * bottom + top * denominator
                denominator *= bottom
        # reduced once a sum: the coefficients' large denominators (1/325000000000) would
        # otherwise all multiply into the sums above
        common = math.gcd(numerator, denominator)
        if common == 1:
            return numerator, denominator
        return numerator // common, denominator // common
    return plan


def _product(factors: list[Plan]) -> Plan:
    def plan(point: Sequence[int]) -> Value:
        numerator, denominator = 1, 1
        for factor in factors:  # every factor, as a zero does not excuse a later 1/0
            top, bottom = factor(point)
            numerator, denominator = numerator * top, denominator * bottom
        return numerator, denominator
    return plan


def _power(base: Plan, exponent: int) -> Plan:
    if exponent >= 0:
        def plan(point: Sequence[int]) -> Value:
            top, bottom = base(point)
            return top**exponent, bottom**exponent
        return plan
    inverse = -exponent

    def reciprocal(point: Sequence[int]) -> Value:
        top, bottom = base(point)
        if top == 0:
            raise ZeroDivisionError("a negative power of 0")
        if top < 0:  # the denominator stays positive
            top, bottom = -top, -bottom
        return bottom**inverse, top**inverse
    return reciprocal


def _rounded(inner: Plan, up: bool) -> Plan:
    if up:
        def ceiling(point: Sequence[int]) -> Value:
            top, bottom = inner(point)
            return -(-top // bottom), 1
        return ceiling

    def floor(point: Sequence[int]) -> Value:
        top, bottom = inner(point)
        return top // bottom, 1
    return floor


def _extreme(arguments: list[Plan], largest: bool) -> Plan:
    wanted = 1 if largest else -1

    def plan(point: Sequence[int]) -> Value:
        values = [argument(point) for argument in arguments]  # each, for its 1/0
        best = values[0]
        for value in values[1:]:
            if compare(value, best) == wanted:
                best = value
        return best
    return plan


# ------------------------------------------------------------------ shifted expansion

# Exponents packed into one integer, a field per size, so that multiplying two monomials is
# one addition; a polynomial whose degree could reach a field's width is left to sympy.
_FIELD_BITS = 24
_MOST_DEGREE = 1 << (_FIELD_BITS - 1)


class _Polynomial:
    """Integer coefficients by packed exponents, over a common positive denominator."""

    __slots__ = ("denominator", "terms")

    def __init__(self, terms: dict[int, int], denominator: int = 1):
        self.terms, self.denominator = terms, denominator

    def plus(self, other: _Polynomial) -> _Polynomial:
        denominator = math.lcm(self.denominator, other.denominator)
        scale, other_scale = denominator // self.denominator, denominator // other.denominator
        terms = {key: value * scale for key, value in self.terms.items()}
        for key, value in other.terms.items():
            terms[key] = terms.get(key, 0) + value * other_scale
        return _Polynomial(terms, denominator)

    def times(self, other: _Polynomial) -> _Polynomial:
        terms: dict[int, int] = {}
        for key, value in self.terms.items():
            for other_key, other_value in other.terms.items():
                product_key = key + other_key
                terms[product_key] = terms.get(product_key, 0) + value * other_value
        return _Polynomial(terms, self.denominator * other.denominator)

    def key(self) -> tuple:
        """The same for equal polynomials: coefficients and denominator in lowest terms."""
        common = math.gcd(self.denominator, *self.terms.values())
        return (frozenset((key, value // common) for key, value in self.terms.items() if value),
                self.denominator // common)

    def power(self, exponent: int) -> _Polynomial:
        result, square = _Polynomial({0: 1}), self
        while exponent:  # by squaring: (N + 1)**4 in two products
            if exponent & 1:
                result = result.times(square)
            exponent >>= 1
            if exponent:
                square = square.times(square)
        return result


def shifted_terms(expr: sympy.Expr, symbols: Sequence[sympy.Symbol]
                  ) -> dict[tuple[int, ...], Fraction] | None:
    """The polynomial expr in the symbols with each n written 1 + m, as its nonzero
    coefficients by exponents of the m; None where expr is no polynomial this expands."""
    expanded = shifted_integers(expr, symbols)
    if expanded is None:
        return None
    terms, denominator = expanded
    return {exponents: Fraction(value, denominator) for exponents, value in terms.items()}


def shifted_integers(expr: sympy.Expr, symbols: Sequence[sympy.Symbol],
                     leaves: Mapping[sympy.Expr, sympy.Symbol] | None = None
                     ) -> tuple[dict[tuple[int, ...], int], int] | None:
    """shifted_terms as integer coefficients over one positive denominator, which the signs
    of the coefficients do not need. `leaves`: nodes of expr (a rounding) each read as the
    symbol it maps to, as if expr were rebuilt with them put in."""
    index = _index(symbols, leaves)
    if _degree_bound(expr, index) >= _MOST_DEGREE:
        return None
    polynomial = _shifted(expr, index)
    mask, count = (1 << _FIELD_BITS) - 1, len(symbols)
    terms = {tuple((key >> (_FIELD_BITS * position)) & mask for position in range(count)): value
             for key, value in polynomial.terms.items() if value}
    return terms, polynomial.denominator


Terms = tuple[dict[tuple[int, ...], int], int]  # shifted coefficients over a denominator


def shifted_fraction(expr: sympy.Expr, symbols: Sequence[sympy.Symbol],
                     leaves: Mapping[sympy.Expr, sympy.Symbol] | None = None
                     ) -> tuple[Terms, Terms] | None:
    """A rational function of the symbols as a numerator and a denominator, each in the
    form of shifted_integers, as expr.as_numer_denom() would give them (the terms of a sum
    over one denominator; the distinct denominators multiplied, unreduced), without building
    either in sympy. None where expr is no rational function this expands. `leaves` as for
    shifted_integers."""
    index = _index(symbols, leaves)
    if max(_fraction_degrees(expr, index)) >= _MOST_DEGREE:
        return None
    numerator, denominator = _fraction(expr, index)
    return _unpacked(numerator, len(symbols)), _unpacked(denominator, len(symbols))


def _index(symbols: Sequence[sympy.Symbol],
           leaves: Mapping[sympy.Expr, sympy.Symbol] | None) -> dict[sympy.Expr, int]:
    """Each symbol's position, and each leaf node's: that of its symbol (a leaf inside
    another, ceiling(ceiling(M/2)/2), is never reached, and its symbol is not among them)."""
    index: dict[sympy.Expr, int] = {symbol: position for position, symbol in enumerate(symbols)}
    for node, symbol in (leaves or {}).items():
        if symbol in index:
            index[node] = index[symbol]
    return index


def _unpacked(polynomial: _Polynomial, count: int) -> Terms:
    mask = (1 << _FIELD_BITS) - 1
    terms = {tuple((key >> (_FIELD_BITS * position)) & mask for position in range(count)): value
             for key, value in polynomial.terms.items() if value}
    return terms, polynomial.denominator


def _fraction_degrees(expr: sympy.Expr, index: dict[sympy.Symbol, int]) -> tuple[int, int]:
    """Bounds on the exponents of the numerator and the denominator _fraction expands."""
    if expr.is_Rational:
        return 0, 0
    if expr.is_Symbol:
        return (1, 0) if expr in index else (_MOST_DEGREE, 0)
    if expr.is_Add or expr.is_Mul:
        degrees = [_fraction_degrees(arg, index) for arg in expr.args]
        denominator = sum(bottom for _, bottom in degrees)
        top = (max(degrees)[0] + denominator if expr.is_Add
               else sum(top for top, _ in degrees))
        return top, denominator
    if expr.is_Pow and expr.exp.is_Integer:
        top, bottom = _fraction_degrees(expr.base, index)
        power = abs(int(expr.exp))
        return (top * power, bottom * power) if expr.exp >= 0 else (bottom * power, top * power)
    return (1, 0) if expr in index else (_MOST_DEGREE, 0)


def _fraction(expr: sympy.Expr, index: dict[sympy.Symbol, int]
              ) -> tuple[_Polynomial, _Polynomial]:
    if expr.is_Add:
        return _sum_fraction([_fraction(arg, index) for arg in expr.args])
    if expr.is_Mul:
        parts = [_fraction(arg, index) for arg in expr.args]
        return (functools.reduce(_Polynomial.times, (top for top, _ in parts)),
                functools.reduce(_Polynomial.times, (bottom for _, bottom in parts)))
    if expr.is_Pow and not (expr.base.is_Symbol and expr.exp.is_nonnegative):
        # a quotient's power, either way up: (M + M/N)**2 is (M*N + M)**2/N**2
        top, bottom = _fraction(expr.base, index)
        power = int(expr.exp)
        if power < 0:
            top, bottom, power = bottom, top, -power
        return top.power(power), bottom.power(power)
    return _shifted(expr, index), _Polynomial({0: 1})


def _sum_fraction(parts: list[tuple[_Polynomial, _Polynomial]]
                  ) -> tuple[_Polynomial, _Polynomial]:
    """Terms over one denominator: those of equal denominators summed first, each sum then
    multiplied by the other denominators, as sympy's Add.as_numer_denom does."""
    groups: dict[tuple, tuple[_Polynomial, _Polynomial]] = {}
    for top, bottom in parts:
        key = bottom.key()
        if key in groups:
            top, bottom = groups[key][0].plus(top), groups[key][1]
        groups[key] = (top, bottom)
    bottoms = [bottom for _, bottom in groups.values()]
    numerator: _Polynomial | None = None
    for position, (top, _) in enumerate(groups.values()):
        term = functools.reduce(_Polynomial.times, [top] + bottoms[:position]
                                + bottoms[position + 1:])
        numerator = term if numerator is None else numerator.plus(term)
    assert numerator is not None  # a sum of at least one group
    return numerator, functools.reduce(_Polynomial.times, bottoms)


def _degree_bound(expr: sympy.Expr, index: dict[sympy.Symbol, int]) -> int:
    """A bound on every exponent of expr's expansion; _MOST_DEGREE for a form not expanded,
    so that whatever is not a polynomial is found before any expansion."""
    if expr.is_Rational:
        return 0
    if expr.is_Symbol:
        return 1 if expr in index else _MOST_DEGREE
    if expr.is_Add:
        return max(_degree_bound(arg, index) for arg in expr.args)
    if expr.is_Mul:
        return sum(_degree_bound(arg, index) for arg in expr.args)
    if expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
        base = _degree_bound(expr.base, index)  # a form not expanded stays one at power 0
        return base if base >= _MOST_DEGREE else base * int(expr.exp)
    return 1 if expr in index else _MOST_DEGREE


def _shifted(expr: sympy.Expr, index: dict[sympy.Symbol, int]) -> _Polynomial:
    """expr of a form _degree_bound accepts, expanded with every n as 1 + m."""
    if expr.is_Rational:
        return _Polynomial({0: int(expr.p)} if expr.p else {}, int(expr.q))
    if expr.is_Symbol:
        return _Polynomial({0: 1, 1 << (_FIELD_BITS * index[expr]): 1})
    if expr.is_Add:
        return functools.reduce(_Polynomial.plus, (_shifted(arg, index) for arg in expr.args))
    if expr.is_Mul:
        return functools.reduce(_Polynomial.times, (_shifted(arg, index) for arg in expr.args))
    if not expr.is_Pow:  # a leaf: _degree_bound let no other form through
        return _Polynomial({0: 1, 1 << (_FIELD_BITS * index[expr]): 1})
    exponent = int(expr.exp)  # a power
    if expr.base.is_Symbol:  # (1 + m)^e directly by its binomial coefficients
        shift = _FIELD_BITS * index[expr.base]
        return _Polynomial({power << shift: math.comb(exponent, power)
                            for power in range(exponent + 1)})
    return _shifted(expr.base, index).power(exponent)
