"""The bounded-roundings decider asked of one expression against many constants: what a
verdict asks of every machine (an intensity against each ridge, each a difference such as
`-16 + (64*S**2 + ... ceiling(S/176)*ceiling(S/128))/(S**2 + 32*S*ceiling(S/176))`). A
difference is its rest (every term but its constant) plus a rational k, and each step of
`bounded_roundings.rounded_sign` reads of rest + k what it reads of rest, plus k: the
integer expansion, the values at the points that rule a choice of bounds out, and the
shifted numerator N and denominator D of the bounded rest, those of rest + k being N + k D
and D (shifted_sign writes k over no denominator, beside rest's terms). So rest is read
once, each choice of bounds on first use, and each constant then costs integer arithmetic,
where the difference built in sympy cost milliseconds a machine. It answers as
`rounded_sign` of the whole difference (a property test holds them equal); a bounded rest
whose fraction this does not read sends the difference there whole."""

from __future__ import annotations

import functools
import itertools

import sympy

from .bounded_roundings import (
    _UNKNOWN,
    LARGE,
    MOST_BOUNDED_ROUNDINGS,
    _bound,
    _expanded,
    _expanded_sign,
    _lattice_sizes,
    _pair_sign,
    _Unevaluated,
    _value,
)
from .bounded_roundings import rounded_sign as whole_sign
from .rational_eval import _MOST_DEGREE, _fraction_degrees, _Polynomial, shifted_fraction
from .shifted import part_sign, rational_sizes, rounded_sizes


def rounded_sign(difference: sympy.Expr) -> int | None:
    """bounded_roundings.rounded_sign(difference), from what the difference less its
    constant term keeps for every constant (_Varied)."""
    constant, rest = difference.as_coeff_Add()
    if not constant or not constant.is_Rational or rest.is_Number:
        return whole_sign(difference)  # no constant: a difference asked once (two terms)
    return _varied(rest).sign(constant, difference)


class _Choice:
    """One choice of bounds for the rest of a difference (all but its constant term), with
    what whole_sign reads of the whole difference found once for every constant k: the
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
        self.rest, self.replaced = rest, {**lattices, **bounds}
        self._fraction: tuple | None = None  # built where no point rules the choice out

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
                top, bottom = value
                signs.add(_pair_sign((top * int(constant.q) + int(constant.p) * bottom,
                                      bottom * int(constant.q))))
                if len(signs) > 1:
                    return True
        return False

    def shifted_sign(self, constant: sympy.Rational) -> int | object | None:
        """shifted_sign of the bounded difference; _UNKNOWN where the bounded rest is no
        form whose numerator and denominator this writes (the difference is then built)."""
        if self._fraction is None:
            bounded = self.rest.xreplace(self.replaced)
            self._fraction = (bounded.is_Add, _bounded_fraction(bounded))
        is_sum, found = self._fraction
        if found == ():
            return _UNKNOWN
        (numerator, denominator), sizes, (top, bottom) = found
        if constant and not is_sum:  # rest + k a sum of two: k over rest's
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
        point = dict.fromkeys(symbols, (size_value, 1))
        point.update(dict.fromkeys(lattices, (size_value, 1)))
        try:
            values.append(_value(rest, point, lattices, uppers, (offset_value - 1, 1)))
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
    """whole_sign(rest + k) for every rational k, with each choice of bounds read off rest
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
        """whole_sign(difference), difference being rest + constant; where a choice's
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
                return whole_sign(difference)
            if sign is not None:
                return sign  # type: ignore[return-value]
        return None


@functools.lru_cache(maxsize=256)
def _varied(rest: sympy.Expr) -> _Varied:
    return _Varied(rest)
