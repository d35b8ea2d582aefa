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

import functools
import itertools
from fractions import Fraction

import sympy

from .rational_eval import (
    _FIELD_BITS,
    _MOST_DEGREE,
    _fraction_degrees,
    _Polynomial,
    shifted_fraction,
)
from .shifted import part_sign, rational_sizes, rounded_sizes, shifted_sign

# Each rounding takes one of two bounds, so a difference with r roundings is tried 2^r ways.
MOST_BOUNDED_ROUNDINGS = 3

_UNKNOWN = object()  # the polynomial path cannot tell: the bounded difference goes to sympy

# Past this power, a difference goes to sympy (exponents stay far below a packed field's width).
MOST_POWER = 64

# The large value of a size or an offset at the points that rule a choice of bounds out.
LARGE = 1 << 20


def rounded_sign(difference: sympy.Expr) -> int | None:
    """_rounded_sign(difference), from what the difference less its constant term keeps for
    every constant (_Varied): a verdict asks it of one intensity against each machine's
    ridge, and of one grid term against each machine's peaks."""
    constant, rest = difference.as_coeff_Add()
    if not constant.is_Rational or rest.is_Number:
        return _rounded_sign(difference)
    return _varied(rest).sign(constant, difference)


def _rounded_sign(difference: sympy.Expr) -> int | None:
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
        values = dict.fromkeys(symbols, Fraction(size_value))
        values.update(dict.fromkeys(lattices, Fraction(size_value)))
        try:
            value = _value(difference, values, lattices, uppers, Fraction(offset_value - 1))
        except ZeroDivisionError:  # a denominator zero at this point: no value here
            continue
        except _Unevaluated:
            return False
        signs.add((value > 0) - (value < 0))
        if len(signs) > 1:
            return True
    return False


def _value(expr: sympy.Expr, values: dict, lattices: dict[sympy.Expr, sympy.Dummy],
           uppers: dict[sympy.Expr, bool], offset: Fraction) -> Fraction:
    """expr at `values` as xreplace would rebuild it: a Min or Max of `lattices` is its value
    (before what it holds), a rounding in `uppers` its bound at `offset` (before what it
    holds), the rest by its arithmetic."""
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    if expr in lattices or expr.is_Symbol:
        if expr not in values:
            raise _Unevaluated
        return values[expr]
    if expr in uppers:
        argument = _value(expr.args[0], values, lattices, uppers, offset)
        lowest = argument if isinstance(expr, sympy.ceiling) else argument - 1
        return lowest + 1 - offset if uppers[expr] else lowest + offset
    if expr.is_Add:
        return sum((_value(arg, values, lattices, uppers, offset) for arg in expr.args),
                   Fraction(0))
    if expr.is_Mul:
        product = Fraction(1)
        for arg in expr.args:
            product *= _value(arg, values, lattices, uppers, offset)
        return product
    if expr.is_Pow and expr.exp.is_Integer:
        return _value(expr.base, values, lattices, uppers, offset) ** int(expr.exp)
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


class _Choice:
    """One choice of bounds for the rest of a difference (all but its constant term), with
    what _rounded_sign reads of the whole difference found once for every constant k: the
    integer expansion (that of rest + k is it plus k), the values at the points that rule the
    choice out (rest's plus k), and the shifted numerator N and denominator D of the bounded
    rest (those of rest + k, as shifted_sign writes them, are N + k D and D: k joins the
    terms over no denominator)."""

    def __init__(self, rest: sympy.Expr, lattices: dict[sympy.Expr, sympy.Dummy],
                 uppers: dict[sympy.Expr, bool], bounds: dict[sympy.Expr, sympy.Expr]):
        variables: dict[sympy.Expr, int] = {}
        try:
            self.polynomial: _Polynomial | None = _expanded(rest, lattices, uppers, variables,
                                                            {})
        except _Unevaluated:
            self.polynomial = None
        self.variables = tuple(variables)
        self.values = _point_values(rest, lattices, uppers)
        self.bounded = rest.xreplace({**lattices, **bounds})
        self._fraction: tuple | None = None

    def polynomial_sign(self, constant: sympy.Rational) -> int | object | None:
        if self.polynomial is None:
            return _UNKNOWN
        return _expanded_sign(self.polynomial.plus(
            _Polynomial({0: int(constant.p)} if constant.p else {}, int(constant.q))),
            self.variables)

    def ruled_out(self, constant: sympy.Rational) -> bool:
        signs: set[int] = set()
        for value in self.values:
            if value is _UNEVALUATED:
                return False
            if value is not _NO_VALUE:
                value += Fraction(int(constant.p), int(constant.q))
                signs.add((value > 0) - (value < 0))
                if len(signs) > 1:
                    return True
        return False

    def shifted_sign(self, constant: sympy.Rational) -> int | object | None:
        """shifted_sign of the bounded difference; _UNKNOWN where the bounded rest is no
        form whose numerator and denominator this writes (the difference is then built)."""
        if self._fraction is None:
            self._fraction = _bounded_fraction(self.bounded)
        if self._fraction == ():
            return _UNKNOWN
        (numerator, denominator), sizes, (top, bottom) = self._fraction
        if constant and not self.bounded.is_Add:  # rest + k a sum of two: k over rest's
            top += bottom  # denominator (a sum of rest's terms keeps their degrees)
        if max(top, bottom) >= _MOST_DEGREE:
            return _UNKNOWN
        denominator_sign = part_sign(denominator, sizes)
        if not denominator_sign:
            return None
        (terms, scale), (other_terms, other_scale) = numerator, denominator
        # N/scale + k D/other_scale over scale * other_scale * q: N other_scale q + k.p D scale
        combined = {exponents: value * other_scale * int(constant.q)
                    for exponents, value in terms.items()}
        for exponents, value in other_terms.items():
            combined[exponents] = (combined.get(exponents, 0)
                                   + int(constant.p) * value * scale)
        numerator_sign = part_sign(({exponents: value for exponents, value in combined.items()
                                     if value}, 1), sizes)
        return None if numerator_sign is None else numerator_sign * denominator_sign


_UNEVALUATED, _NO_VALUE = object(), object()  # a point _value cannot evaluate; 1/0 there


def _point_values(rest: sympy.Expr, lattices: dict[sympy.Expr, sympy.Dummy],
                  uppers: dict[sympy.Expr, bool]) -> list:
    """rest's values at _ruled_out's points in its order, up to the first it cannot
    evaluate (_UNEVALUATED: _ruled_out stops there); _NO_VALUE where a denominator is 0."""
    symbols = sorted(rest.free_symbols, key=sympy.default_sort_key)
    values: list = []
    for size_value, offset_value in itertools.product((1, LARGE), repeat=2):
        point = dict.fromkeys(symbols, Fraction(size_value))
        point.update(dict.fromkeys(lattices, Fraction(size_value)))
        try:
            values.append(_value(rest, point, lattices, uppers, Fraction(offset_value - 1)))
        except ZeroDivisionError:
            values.append(_NO_VALUE)
        except _Unevaluated:
            values.append(_UNEVALUATED)
            break
    return values


def _bounded_fraction(bounded: sympy.Expr) -> tuple:
    """((N, D), sizes, degrees) of the bounded rest as shifted_sign expands it; () where it
    would not (a rounding left, no sizes, a form shifted_fraction does not expand)."""
    if rounded_sizes(bounded) != {}:
        return ()
    sizes = rational_sizes(bounded)
    if sizes is None:
        return ()
    degrees = _fraction_degrees(bounded, dict(zip(sizes, range(len(sizes)))))
    if max(degrees) >= _MOST_DEGREE:
        return ()
    fraction = shifted_fraction(bounded, sizes)
    return () if fraction is None else (fraction, sizes, degrees)


class _Varied:
    """_rounded_sign(rest + k) for every rational k, with each choice of bounds read off rest
    once: the roundings, lattices and arguments are rest's, and each decider's answer for
    rest + k follows from rest's by integer arithmetic (_Choice)."""

    def __init__(self, rest: sympy.Expr):
        sizes = _lattice_sizes(rest)
        roundings = [] if sizes is None else sorted(rest.atoms(sympy.floor, sympy.ceiling),
                                                    key=sympy.default_sort_key)
        arguments = [rounding.args[0].xreplace(sizes or {}) for rounding in roundings]
        self.none = (not roundings or len(roundings) > MOST_BOUNDED_ROUNDINGS
                     or any(rational_sizes(argument) is None for argument in arguments))
        self.rest, self.sizes, self.roundings = rest, sizes or {}, roundings
        self.arguments = arguments
        self.offsets = [sympy.Dummy(integer=True, positive=True) for _ in roundings]
        self.choices: dict[tuple[bool, ...], _Choice] = {}

    def _choice(self, uppers: tuple[bool, ...]) -> _Choice:
        if uppers not in self.choices:
            bounds = {rounding: _bound(rounding, argument, offset - 1, upper)
                      for rounding, argument, offset, upper in zip(
                          self.roundings, self.arguments, self.offsets, uppers)}
            self.choices[uppers] = _Choice(self.rest, self.sizes,
                                           dict(zip(self.roundings, uppers)), bounds)
        return self.choices[uppers]

    def sign(self, constant: sympy.Rational, difference: sympy.Expr) -> int | None:
        """_rounded_sign(difference), difference being rest + constant; where a choice's
        bounded rest is no form the fraction is read of, the difference goes there whole."""
        if self.none:
            return None
        for uppers in itertools.product((False, True), repeat=len(self.roundings)):
            choice = self._choice(uppers)
            found = choice.polynomial_sign(constant)
            if isinstance(found, int):
                return found
            if found is None or choice.ruled_out(constant):
                continue
            sign = choice.shifted_sign(constant)
            if sign is _UNKNOWN:
                return _rounded_sign(difference)
            if sign is not None:
                return sign  # type: ignore[return-value]
        return None


@functools.lru_cache(maxsize=256)
def _varied(rest: sympy.Expr) -> _Varied:
    return _Varied(rest)
