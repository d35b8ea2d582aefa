"""The bounded-roundings decider: the sign a difference holding floors and ceilings has at
every size, proven by shifted coefficients with each rounding written through one of its
bounds (`decide.exact_sign` asks it after the shifted coefficients and the clamped sizes).

Each choice of bounds is first evaluated at a few points where every size, every Min or Max
taken as a size and every bound's offset is 1 or large, in exact rationals, without building
the bounded difference in sympy: where those values take both signs, or are zero at one
point and not at another, no shifted-coefficient proof exists for that choice (a proof gives
the numerator and the denominator each one sign, nonzero, at every point where each size is
at least 1, or the numerator zero at all of them), so shifted_sign would answer None and is
not asked. The verdicts ask this of differences such as `-S**2/c1 + c2*S*ceiling(S/k) -
S/c3`, positive at every size but not by a bound of the ceiling, for every machine."""

from __future__ import annotations

import itertools

import sympy

from .rational_eval import _FIELD_BITS, _Polynomial
from .shifted import part_sign, rational_sizes, shifted_sign

# Each rounding takes one of two bounds, so a difference with r roundings is tried 2^r ways.
MOST_BOUNDED_ROUNDINGS = 3

_UNKNOWN = object()  # the polynomial path cannot tell: the bounded difference goes to sympy

# Past this power, a difference goes to sympy (exponents stay far below a packed field's width).
MOST_POWER = 64

# The large value of a size or an offset at the points that rule a choice of bounds out.
LARGE = 1 << 20


def rounded_sign(difference: sympy.Expr) -> int | None:
    """The sign (-1, 0 or 1) the difference has at every size, proven by shifted coefficients
    with each floor and ceiling of a rational function x of sizes written through one of its
    bounds: ceiling(x) = x + r or x + 1 - r, floor(x) = x - r or x - 1 + r, with r >= 0 a
    variable of its own (each holds for some r in [0, 1]; a sign proven for every r >= 0
    holds for that one). A Min or Max of positive integers counts as a size. Which bound
    proves it depends on the side each rounding weighs on, so every choice is tried
    (`Min(990e12, 3.35e12*K*M*N/(K*M*ceiling(N/128) + ...))`: ceiling(N/128) >= N/128 bounds
    the quotient). None where no choice proves one, or past MOST_BOUNDED_ROUNDINGS."""
    sizes = _lattice_sizes(difference)
    roundings = [] if sizes is None else sorted(difference.atoms(sympy.floor, sympy.ceiling),
                                                key=sympy.default_sort_key)
    # each argument with its Min and Max as sizes, apart: replacing them inside a rounding
    # would rebuild it, and sympy's floor asks its assumptions on every rebuild
    arguments = [rounding.args[0].xreplace(sizes or {}) for rounding in roundings]
    if not roundings or len(roundings) > MOST_BOUNDED_ROUNDINGS or any(
            rational_sizes(argument) is None for argument in arguments):
        return None
    offsets = [sympy.Dummy(integer=True, positive=True) for _ in roundings]
    for uppers in itertools.product((False, True), repeat=len(roundings)):
        choice = dict(zip(roundings, uppers))
        found = _polynomial_sign(difference, sizes or {}, choice)
        if isinstance(found, int):
            return found
        if found is None:  # no shifted-coefficient proof for this choice
            continue
        if _ruled_out(difference, sizes or {}, choice):
            continue
        bounds = {rounding: _bound(rounding, argument, offset - 1, upper) for
                  rounding, argument, offset, upper in zip(roundings, arguments, offsets, uppers)}
        sign = shifted_sign(difference.xreplace({**(sizes or {}), **bounds}))
        if sign is not None:
            return sign
    return None


def _bound(rounding: sympy.Expr, argument: sympy.Expr, offset: sympy.Expr, upper: bool
           ) -> sympy.Expr:
    """The rounding of `argument` as it moved by `offset` >= 0, from below (upper: from
    above)."""
    lowest = argument if isinstance(rounding, sympy.ceiling) else argument - 1
    return lowest + 1 - offset if upper else lowest + offset


def _lattice_sizes(expr: sympy.Expr) -> dict[sympy.Expr, sympy.Dummy] | None:
    """A size of its own for each Min and Max of positive integers in expr (an integer at
    least 1, whichever argument it takes); None when an argument is not proven so."""
    sizes: dict[sympy.Expr, sympy.Dummy] = {}
    for lattice in expr.atoms(sympy.Min, sympy.Max):
        if not all(argument.is_integer and (argument >= 1 if argument.is_Number
                                            else shifted_sign(argument) == 1)
                   for argument in lattice.args):
            return None
        sizes[lattice] = sympy.Dummy(integer=True, positive=True)
    return sizes


class _Unevaluated(Exception):
    """A form the points do not evaluate (a function other than a rounding, Min or Max; a
    power that is not an integer one; a float)."""


def _ruled_out(difference: sympy.Expr, lattices: dict[sympy.Expr, sympy.Dummy],
               uppers: dict[sympy.Expr, bool]) -> bool:
    """Whether the difference, its roundings bounded as `uppers` says (each offset r = o - 1)
    and its Min and Max as sizes, takes both signs, or zero and a nonzero value, at the
    points where every size and every o is 1 or LARGE: shifted_sign of that bounded
    difference is then None. False where the points cannot tell or a form is not evaluated."""
    symbols = sorted(difference.free_symbols, key=sympy.default_sort_key)
    signs: set[int] = set()
    for size_value, offset_value in itertools.product((1, LARGE), repeat=2):
        values = dict.fromkeys(symbols, (size_value, 1))
        values.update(dict.fromkeys(lattices, (size_value, 1)))
        try:
            value = _value(difference, values, lattices, uppers, (offset_value - 1, 1))
        except ZeroDivisionError:  # a denominator zero at this point: no value here
            continue
        except _Unevaluated:
            return False
        signs.add(_pair_sign(value))
        if len(signs) > 1:
            return True
    return False


Pair = tuple[int, int]  # p / q, q nonzero and of either sign, not reduced


def _pair_sign(value: Pair) -> int:
    numerator, denominator = value
    return ((numerator > 0) - (numerator < 0)) * ((denominator > 0) - (denominator < 0))


def _value(expr: sympy.Expr, values: dict, lattices: dict[sympy.Expr, sympy.Dummy],
           uppers: dict[sympy.Expr, bool], offset: Pair) -> Pair:
    """expr at `values` as xreplace would rebuild it: a Min or Max of `lattices` is its value
    (before what it holds), a rounding in `uppers` its bound at `offset` (before what it
    holds), the rest by its arithmetic: exact, as integer pairs that are never reduced (a
    Fraction's gcd at every step cost most of the rule)."""
    if expr.is_Rational:
        return int(expr.p), int(expr.q)
    if expr in lattices or expr.is_Symbol:
        if expr not in values:
            raise _Unevaluated
        return values[expr]
    if expr in uppers:
        top, bottom = _value(expr.args[0], values, lattices, uppers, offset)
        if not isinstance(expr, sympy.ceiling):
            top -= bottom  # the lowest the rounding is: its argument, less 1 for a floor
        moved, scale = offset
        if uppers[expr]:  # lowest + 1 - offset
            return (top + bottom) * scale - moved * bottom, bottom * scale
        return top * scale + moved * bottom, bottom * scale
    if expr.is_Add:
        top, bottom = 0, 1
        for arg in expr.args:
            other_top, other_bottom = _value(arg, values, lattices, uppers, offset)
            top, bottom = top * other_bottom + other_top * bottom, bottom * other_bottom
        return top, bottom
    if expr.is_Mul:
        top, bottom = 1, 1
        for arg in expr.args:
            other_top, other_bottom = _value(arg, values, lattices, uppers, offset)
            top, bottom = top * other_top, bottom * other_bottom
        return top, bottom
    if expr.is_Pow and expr.exp.is_Integer:
        top, bottom = _value(expr.base, values, lattices, uppers, offset)
        power = int(expr.exp)
        if power < 0:
            if top == 0:
                raise ZeroDivisionError
            top, bottom, power = bottom, top, -power
        return top**power, bottom**power
    raise _Unevaluated


def _polynomial_sign(difference: sympy.Expr, lattices: dict[sympy.Expr, sympy.Dummy],
                     uppers: dict[sympy.Expr, bool]) -> int | object | None:
    """shifted_sign of the bounded difference (each rounding through the bound `uppers`
    says, each Min and Max a size), expanded in integers without building it in sympy, where
    the difference is a polynomial in its sizes, roundings and lattices and each rounding's
    argument one in the sizes: the bounded difference is then a polynomial, whose numerator
    as shifted_sign writes it is the polynomial over a positive integer, so its shifted
    coefficients have the same signs however sympy would write it. _UNKNOWN for anything
    else (a quotient of sizes, a symbol that is no size, a constant), which goes to sympy."""
    variables: dict[sympy.Expr, int] = {}
    try:
        polynomial = _expanded(difference, lattices, uppers, variables, {})
    except _Unevaluated:
        return _UNKNOWN
    return _expanded_sign(polynomial, tuple(variables))


def _expanded_sign(polynomial: _Polynomial, variables: tuple[sympy.Expr, ...]
                   ) -> int | object | None:
    """_polynomial_sign of the difference whose bounded expansion is `polynomial` in the
    `variables` (each 1 + m)."""
    count = len(variables)
    mask = (1 << _FIELD_BITS) - 1
    terms = {tuple((key >> (_FIELD_BITS * position)) & mask for position in range(count)):
             value for key, value in polynomial.terms.items() if value}
    if not any(any(exponents) for exponents in terms):
        return _UNKNOWN  # no size left: sympy's form may be a number, which it refuses
    return part_sign((terms, polynomial.denominator), variables)


def _variable(node: sympy.Expr, variables: dict[sympy.Expr, int]) -> _Polynomial:
    """1 + m for a size of its own (a symbol, a lattice or an offset)."""
    position = variables.setdefault(node, len(variables))
    return _Polynomial({0: 1, 1 << (_FIELD_BITS * position): 1})


def _expanded(expr: sympy.Expr, lattices: dict[sympy.Expr, sympy.Dummy],
              uppers: dict[sympy.Expr, bool], variables: dict[sympy.Expr, int],
              offsets: dict[sympy.Expr, sympy.Dummy]) -> _Polynomial:
    """expr bounded as _value evaluates it, expanded with each size n as 1 + m; raises
    _Unevaluated for anything but a polynomial."""
    if expr.is_Rational:
        return _Polynomial({0: int(expr.p)} if expr.p else {}, int(expr.q))
    if expr in lattices:
        return _variable(expr, variables)
    if expr.is_Symbol:
        if not (expr.is_integer and expr.is_positive):
            raise _Unevaluated
        return _variable(expr, variables)
    if expr in uppers:
        argument = _expanded(expr.args[0], lattices, uppers, variables, offsets)
        offset = offsets.setdefault(expr, sympy.Dummy())
        moved = _variable(offset, variables).plus(_Polynomial({0: -1}))  # r = o - 1 = m
        if isinstance(expr, sympy.ceiling):
            lowest = argument
        else:
            lowest = argument.plus(_Polynomial({0: -1}))
        if uppers[expr]:
            return lowest.plus(_Polynomial({0: 1})).plus(moved.times(_Polynomial({0: -1})))
        return lowest.plus(moved)
    if expr.is_Add or expr.is_Mul:
        parts = [_expanded(arg, lattices, uppers, variables, offsets) for arg in expr.args]
        combined = parts[0]
        for part in parts[1:]:
            combined = combined.plus(part) if expr.is_Add else combined.times(part)
        return combined
    if expr.is_Pow and expr.exp.is_Integer and 0 <= expr.exp <= MOST_POWER:
        return _expanded(expr.base, lattices, uppers, variables, offsets).power(int(expr.exp))
    raise _Unevaluated

