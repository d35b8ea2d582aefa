"""Closed forms of sums over a counter m of polynomials in m and in floors and ceilings of
linear functions of m whose slopes are rational numbers, the bounds symbolic.

A causal loop `for j0 in 0..i0 + Br by Bc` over query tiles i0 = Br*m runs
ceiling((Br*m + Br)/Bc) key tiles: once the tile sizes are numbers (192 x 128) the slope is
3/2 and the sum over m has a closed form, though sympy's summation leaves it open. With T the
period (the lowest common denominator of the slopes), m = first + s + T*k for each residue
s = 0..T-1 turns each rounding into an integer multiple of k plus a rounding free of k,
so each residue class is a polynomial sum in k over k = 0..floor((count - 1 - s)/T): the
total is exact, with floors of the symbolic count where it is not a multiple of T.

A min or max of two arguments whose difference is monotone in m (a number times m, or a
number times one such rounding, plus terms free of m) picks one argument on a prefix of the
range and the other on the rest: the range is split where it changes, and each piece summed.
Anything else (a symbolic slope, a period over MAX_PERIOD, a rounding inside a rounding of
m) gives None: the caller keeps its unevaluated Sum."""

from __future__ import annotations

import math

import sympy

from .numeric_sums import sum_values

MAX_PERIOD = 64  # residue classes one sum may split into: terms grow with the period

_ROUNDINGS = (sympy.floor, sympy.ceiling)


def close_sums(expr: sympy.Expr, symbolic_only: bool = False) -> sympy.Expr:
    """expr with every Sum over one range that rounded_sum closes replaced by its closed
    form, innermost first; the others kept as they are. symbolic_only: only the Sums that
    keep a free size (one with none is a number that adding its terms gives sooner)."""
    if not isinstance(expr, sympy.Basic) or not expr.has(sympy.Sum):
        return expr
    replaced: dict[sympy.Expr, sympy.Expr] = {}
    for node in sympy.postorder_traversal(expr):
        if not isinstance(node, sympy.Sum) or node in replaced or len(node.limits) != 1:
            continue
        if symbolic_only and not node.free_symbols:
            continue
        counter, first, last = node.limits[0]
        summand = node.function.xreplace(replaced) if replaced else node.function
        closed = rounded_sum(summand, counter, first, last)
        if closed is not None:
            replaced[node] = closed
    return expr.xreplace(replaced) if replaced else expr


def summed_at_sizes(expr: sympy.Expr) -> sympy.Expr:
    """expr once sizes are put in: each Sum a size still holds closed where rounded_sum
    closes it (a rounding whose slope the tile sizes made a number), each Sum with no size
    left added up (numeric_sums: sooner than closing it)."""
    return sum_values(close_sums(expr, symbolic_only=True))


def rounded_sum(summand: sympy.Expr, counter: sympy.Symbol, first: sympy.Expr,
                last: sympy.Expr) -> sympy.Expr | None:
    """sum of summand for counter = first..last (last >= first - 1), or None where the
    summand is not of the kind this module closes."""
    if summand.has(sympy.Sum):
        return None
    if counter not in summand.free_symbols:
        return summand * (last - first + 1)
    node = _innermost_minmax(summand, counter)
    if node is not None:
        return _split(summand, counter, first, last, node)
    roundings = [node for node in sympy.preorder_traversal(summand)
                 if isinstance(node, _ROUNDINGS) and counter in node.free_symbols]
    if not roundings:
        return power_sum(sympy.expand(summand), counter, first, last)
    lines = {}
    for rounding in set(roundings):
        line = _line(rounding.args[0], counter)
        if line is None:
            return None
        lines[rounding] = line
    period = math.lcm(*(int(slope.q) for slope, _ in lines.values()))
    if period > MAX_PERIOD:
        return None
    return _by_residue(summand, counter, first, last, lines, period)


def _by_residue(summand: sympy.Expr, counter: sympy.Symbol, first: sympy.Expr,
                last: sympy.Expr, lines: dict, period: int) -> sympy.Expr | None:
    k = sympy.Dummy("k", integer=True, nonnegative=True)
    count = last - first + 1
    total = sympy.Integer(0)
    for residue in range(period):
        point = first + residue
        # rounding(slope*(point + T*k) + offset) = slope*T*k + rounding(slope*point + offset):
        # slope*T is an integer
        steps = {rounding: rounding.func(slope * point + offset) + slope * period * k
                 for rounding, (slope, offset) in lines.items()}
        term = summand.xreplace(steps).xreplace({counter: point + period * k})
        summed = power_sum(sympy.expand(term), k, sympy.Integer(0),
                           sympy.floor((count - 1 - residue) / sympy.Integer(period)))
        if summed is None:
            return None
        total += summed
    return total


def power_sum(polynomial: sympy.Expr, counter: sympy.Symbol, first: sympy.Expr,
              last: sympy.Expr) -> sympy.Expr | None:
    """sum of an expanded polynomial in counter over first..last by Faulhaber's formula
    (zero where last = first - 1), or None where it is no polynomial in counter."""
    total = sympy.Integer(0)
    for term in sympy.Add.make_args(polynomial):
        coefficient, power = term.as_coeff_exponent(counter)
        if counter in coefficient.free_symbols or not (power.is_Integer and power >= 0):
            return None
        p = int(power)
        total += coefficient * (sympy.bernoulli(p + 1, last + 1)
                                - sympy.bernoulli(p + 1, first)) / (p + 1)
    return total


def _line(expr: sympy.Expr, counter: sympy.Symbol) -> tuple[sympy.Rational, sympy.Expr] | None:
    """(slope, offset) of expr = slope*counter + offset with a rational slope and an offset
    free of counter, else None."""
    expanded = sympy.expand(expr)
    slope = expanded.coeff(counter, 1)
    offset = sympy.expand(expanded - slope * counter)
    if not slope.is_Rational or slope == 0 or counter in offset.free_symbols:
        return None
    return slope, offset


def _innermost_minmax(expr: sympy.Expr, counter: sympy.Symbol) -> sympy.Expr | None:
    for arg in expr.args:
        found = _innermost_minmax(arg, counter)
        if found is not None:
            return found
    if isinstance(expr, (sympy.Min, sympy.Max)) and counter in expr.free_symbols:
        return expr
    return None


def _split(summand: sympy.Expr, counter: sympy.Symbol, first: sympy.Expr, last: sympy.Expr,
           node: sympy.Expr) -> sympy.Expr | None:
    left, *rest = node.args
    right = node.func(*rest) if len(rest) > 1 else rest[0]
    # `left` is picked where difference <= 0
    difference = left - right if isinstance(node, sympy.Min) else right - left
    side = _where_nonpositive(sympy.expand(difference), counter)
    if side is None:
        return None
    prefix, threshold = side
    # the prefix first..cut and the rest cut + 1..last, each of count >= 0
    cut = sympy.Max(first - 1, sympy.Min(threshold if prefix else threshold - 1, last))
    before, after = (left, right) if prefix else (right, left)
    head = rounded_sum(summand.xreplace({node: before}), counter, first, cut)
    tail = rounded_sum(summand.xreplace({node: after}), counter, cut + 1, last)
    return None if head is None or tail is None else head + tail


def _where_nonpositive(difference: sympy.Expr,
                       counter: sympy.Symbol) -> tuple[bool, sympy.Expr] | None:
    """Where difference <= 0 over the integers, as (True, t): counter <= t, or (False, t):
    counter >= t; None where the difference is not a number times counter, or a number
    times one rounding of a line in counter, plus terms free of counter."""
    varying: list[sympy.Expr] = []
    fixed: list[sympy.Expr] = []
    for term in sympy.Add.make_args(difference):
        (varying if counter in term.free_symbols else fixed).append(term)
    rest = sympy.Add(*fixed)
    line = _line(sympy.Add(*varying), counter)
    if line is not None:  # slope*m + rest <= 0
        return _solved(line[0], rest, _LE)
    factors = sympy.Mul.make_args(sympy.Add(*varying)) if len(varying) == 1 else ()
    rounds = [f for f in factors if isinstance(f, _ROUNDINGS)]
    if len(rounds) != 1:
        return None
    rounding = rounds[0]
    scale = sympy.Add(*varying) / rounding
    inner = _line(rounding.args[0], counter)
    if not scale.is_Rational or inner is None or scale == 0:
        return None
    slope, offset = inner
    bound = -rest / scale  # rounding <= bound (scale > 0) or rounding >= bound (scale < 0)
    if scale > 0:  # ceil(x) <= c <=> x <= floor(c); floor(x) <= c <=> x < floor(c) + 1
        relation = (_LE, sympy.floor(bound)) if rounding.func is sympy.ceiling else (
            _LT, sympy.floor(bound) + 1)
    else:  # ceil(x) >= c <=> x > ceil(c) - 1; floor(x) >= c <=> x >= ceil(c)
        relation = (_GT, sympy.ceiling(bound) - 1) if rounding.func is sympy.ceiling else (
            _GE, sympy.ceiling(bound))
    kind, value = relation
    return _solved(slope, offset - value, kind)


_LE, _LT, _GE, _GT = "<=", "<", ">=", ">"


def _solved(slope: sympy.Rational, offset: sympy.Expr, kind: str) -> tuple[bool, sympy.Expr]:
    """slope*m + offset (kind) 0 over the integers m, as (prefix, t) of _where_nonpositive."""
    point = -offset / slope
    if slope < 0:  # dividing by a negative slope turns the relation round
        kind = {_LE: _GE, _LT: _GT, _GE: _LE, _GT: _LT}[kind]
    if kind == _LE:
        return True, sympy.floor(point)
    if kind == _LT:
        return True, sympy.ceiling(point) - 1
    if kind == _GE:
        return False, sympy.ceiling(point)
    return False, sympy.floor(point) + 1
