"""The shifted-coefficient decider: the sign a rational function of sizes has at every size,
read off its numerator and denominator with each size n written 1 + m (m >= 0). A polynomial
in the m whose coefficients all have one sign and whose constant term (its value where every
size is 1) is nonzero keeps that sign at every size. `decide` asks it first of every
difference; `thresholds` asks it of one expression against many numbers."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import sympy

from ..base.symbols import text_key
from . import rational_eval
from .witnesses import sizes_of

# Past this many terms after the shift, a polynomial is left to the other deciders.
MOST_SHIFTED_TERMS = 2000


def shifted_sign(difference: sympy.Expr) -> int | None:
    """The sign (-1, 0 or 1) the difference has at every size, when it is a rational function
    of sizes with rational coefficients whose numerator and denominator, each size n written
    1 + m, have coefficients of one sign and a nonzero constant term (their value where every
    size is 1): a sum of such terms at m >= 0 keeps that sign. A ceiling of a positive
    quantity counts as a size. None for anything else."""
    roundings = rounded_sizes(difference)
    if roundings is None:
        return None
    sizes = _sizes_within(difference, roundings)
    if sizes == _UNREAD:
        difference, roundings = difference.xreplace(roundings), {}
        sizes = rational_sizes(difference)
    if sizes is None or isinstance(sizes, str):
        return None
    # expanded in integers as sympy's as_numer_denom would write them, each ceiling read as
    # its size; else by sympy, from the difference with the sizes put in
    fraction = rational_eval.shifted_fraction(difference, sizes, roundings)
    if fraction is None:
        fraction = difference.xreplace(roundings).as_numer_denom()
    numerator, denominator = fraction
    denominator_sign = part_sign(denominator, sizes)
    if not denominator_sign:
        return None
    numerator_sign = part_sign(numerator, sizes)
    return None if numerator_sign is None else numerator_sign * denominator_sign


class ShiftedPolynomials:
    """The arguments of one Min or Max that are polynomials in sizes (a ceiling of a
    positive quantity counting as one), each expanded once with every size n written 1 + m.
    A polynomial's shifted coefficients are its own however it is written, so those of a
    pair's difference are the differences of theirs: `sign` is shifted_sign of the
    difference (a number's sign where it is one), read without building it in sympy, which
    costs more than the rest of the question; None where shifted_sign would find none or
    either argument is no such polynomial."""

    def __init__(self, arguments: Sequence[sympy.Expr]):
        # each ceiling read as its size where the rest is sums, products and powers (the
        # argument with the sizes put in is then that same polynomial), not rebuilt in sympy
        self.rounded: list[sympy.Expr | None] = []
        self.roundings: dict[sympy.Expr, sympy.Symbol] = {}
        sizes: list[tuple[sympy.Symbol, ...] | None] = []
        for argument in arguments:
            roundings, read, rounded, rebuilt = _argument_read(argument)
            if roundings and not rebuilt:
                self.roundings.update(roundings)
            self.rounded.append(None if roundings is None else rounded)
            sizes.append(None if isinstance(read, str) else read)
        self.sizes = tuple(sorted(set().union(*filter(None, sizes)), key=text_key))
        self.own = sizes
        self.expanded: dict[int, rational_eval.Terms | None] = {}  # each at its first pair
        self.context = (self.sizes, tuple(self.roundings.items()))

    def _expanded(self, index: int) -> rational_eval.Terms | None:
        if index not in self.expanded:
            self.expanded[index] = (None if self.own[index] is None else
                                    _shifted_integers(self.rounded[index], self.context,
                                                      self.roundings))
        return self.expanded[index]

    def sign(self, first: int, second: int) -> int | None:
        first_expanded, second_expanded = self._expanded(first), self._expanded(second)
        if first_expanded is None or second_expanded is None:
            return None
        (terms, scale), (other_terms, other_scale) = first_expanded, second_expanded
        difference = {exponents: value * other_scale for exponents, value in terms.items()}
        for exponents, value in other_terms.items():
            difference[exponents] = difference.get(exponents, 0) - value * scale
        return part_sign(({exponents: value for exponents, value in difference.items()
                           if value}, scale * other_scale), self.sizes)


# Each argument's expansion over the sizes and roundings of its Min or Max: a verdict's
# t_bound and t_model (and the terms at the maximum clock) are Max calls over mostly the same
# arguments and sizes.
_EXPANDED: dict[tuple[sympy.Expr, tuple[object, ...]], rational_eval.Terms | None] = {}
_MOST_EXPANDED = 4096


def _shifted_integers(rounded: sympy.Expr | None,
                      context: tuple[tuple[sympy.Symbol, ...], tuple[object, ...]],
                      roundings: dict[sympy.Expr, sympy.Symbol]) -> rational_eval.Terms | None:
    """rational_eval.shifted_integers(rounded, sizes, roundings), kept by the argument and
    its sizes and roundings (`context`: the sizes and the roundings' items)."""
    key = (rounded, context)
    if key not in _EXPANDED:
        if len(_EXPANDED) >= _MOST_EXPANDED:
            _EXPANDED.clear()
        _EXPANDED[key] = rational_eval.shifted_integers(rounded, context[0], roundings)
    return _EXPANDED[key]


# kept: a verdict's Min and Max calls share most arguments (the bound's terms, the model's,
# at the maximum clock), and reading one walks it whole
@functools.lru_cache(maxsize=4096)
def _argument_read(argument: sympy.Expr) -> tuple[dict[sympy.Expr, sympy.Symbol] | None,
                                                  tuple[sympy.Symbol, ...] | str | None,
                                                  sympy.Expr, bool]:
    """An argument as ShiftedPolynomials reads it: the size of each ceiling (None where one
    is no size), its sizes, the form it expands, and whether that form was rebuilt with the
    sizes put in (where they cannot be read off it: sympy may settle it to a number,
    Min(3, 128 c))."""
    roundings = rounded_sizes(argument)
    read = (None if roundings is None else () if argument.is_Rational
            else _sizes_within(argument, roundings))
    if read != _UNREAD:
        return roundings, read, argument, False
    assert roundings is not None
    rebuilt = argument.xreplace(roundings)
    return roundings, () if rebuilt.is_Rational else rational_sizes(rebuilt), rebuilt, True


def shifted_nonnegative(expr: sympy.Expr) -> bool:
    """Whether expr >= 0 at every size, read off its shifted coefficients: a polynomial in
    sizes (a ceiling of a positive quantity counting as one) whose coefficients, each size
    n written 1 + m, are all >= 0, as H - 1 and T*q - T have. A zero constant term is
    allowed here, which shifted_sign must refuse (the sign is then not one sign). A counter
    from 0 (an integer declared nonnegative: a loop's counter, a slack) is a size less one,
    its m itself: T*k + T - 1 >= 0 for every k >= 0."""
    expr = rounded_as_sizes(_counters_as_sizes(expr))
    sizes = None if expr is None else rational_sizes(expr)
    expanded = None if sizes is None else rational_eval.shifted_integers(expr, sizes)
    return expanded is not None and all(value >= 0 for value in expanded[0].values())


def _counters_as_sizes(expr: sympy.Expr) -> sympy.Expr:
    counters = [symbol for symbol in expr.free_symbols
                if symbol.is_integer and symbol.is_nonnegative and not symbol.is_positive]
    return expr.xreplace({counter: sympy.Dummy(integer=True, positive=True) - 1
                          for counter in counters}) if counters else expr


def rounded_as_sizes(expr: sympy.Expr) -> sympy.Expr | None:
    """expr with each ceiling of a positive quantity as a size of its own: an integer at
    least 1 whatever the sizes inside it, so a sign proven for every value of it holds for
    the one it takes (`ceiling(R/110)`, a grid's waves). None when a ceiling is not proven
    so, or for a floor (which may be 0)."""
    sizes = rounded_sizes(expr)
    if sizes is None:
        return None
    return expr.xreplace(sizes) if sizes else expr


def rounded_sizes(expr: sympy.Expr) -> dict[sympy.Expr, sympy.Symbol] | None:
    """The size rounded_as_sizes puts in for each ceiling of expr; None where it gives
    None."""
    if expr.has(sympy.floor):
        return None
    sizes = {}
    for rounding in expr.atoms(sympy.ceiling):
        size = _rounding_size(rounding)
        if size is None:
            return None
        sizes[rounding] = size
    return sizes


_UNREAD = "unread"  # _sizes_within cannot tell: the expression is rebuilt with the sizes in


def _sizes_within(expr: sympy.Expr, roundings: dict[sympy.Expr, sympy.Symbol]
                  ) -> tuple[sympy.Symbol, ...] | str | None:
    """rational_sizes(expr.xreplace(roundings)), read off expr where it is built of rationals,
    symbols and the roundings by sums, products and integer powers: rebuilding such a form
    with other atoms changes neither its symbols nor its polynomial. _UNREAD for any other
    form, which sympy might evaluate anew once a ceiling is a size (Max(ceiling(x), 1))."""
    if not roundings:
        return rational_sizes(expr)
    found: set[sympy.Symbol] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if node in roundings:
            found.add(roundings[node])
        elif node.is_Symbol:
            found.add(node)
        elif node.is_Add or node.is_Mul:
            stack.extend(node.args)
        elif node.is_Pow and node.exp.is_Integer:
            stack.append(node.base)
        elif not node.is_Rational:
            return _UNREAD
    if not found or not all(symbol.is_integer and symbol.is_positive for symbol in found):
        return None
    return tuple(sorted(found, key=text_key))


# kept: a verdict's terms share their ceilings (a grid's waves), and one size for each lets
# the plans and signs of the differences built on it be found again
@functools.lru_cache(maxsize=1024)
def _rounding_size(rounding: sympy.Expr) -> sympy.Dummy | None:
    """The size a ceiling of a positive quantity counts as, the same one each time; None
    where the quantity is not proven positive."""
    if shifted_sign(rounding.args[0]) != 1:
        return None
    return sympy.Dummy(integer=True, positive=True)


def part_sign(part: sympy.Expr | rational_eval.Terms, sizes: Sequence[sympy.Symbol]
              ) -> int | None:
    """The sign of a numerator or denominator by its shifted coefficients: 1 (or -1) when
    they are all >= 0 (<= 0) and the constant term is positive (negative), 0 for the zero
    polynomial, None otherwise or past MOST_SHIFTED_TERMS. Given expanded, or expanded here
    in integers, or by sympy's Poly for a form rational_eval does not expand."""
    expanded = (part if isinstance(part, tuple)
                else rational_eval.shifted_integers(part, sizes))
    if expanded is None:
        polynomial = sympy.Poly(part, *sizes, domain=sympy.QQ)
        return 0 if polynomial.is_zero else _shifted_coefficient_sign(polynomial)
    terms = expanded[0]
    if not terms:
        return 0
    if _closure_exceeds(terms, MOST_SHIFTED_TERMS):
        return None
    return one_sign(terms.get((0,) * len(sizes), 0), terms.values())


def _closure_exceeds(terms: dict[tuple[int, ...], int], most: int) -> bool:
    """Whether more than `most` exponents lie at or below those of the terms: the count the
    expansion of the unshifted polynomial reaches term by term (each n^e gives every m^k
    with k <= e), which is the same, as the terms of highest exponents keep their
    coefficients when shifted."""
    if sum(math.prod(exponent + 1 for exponent in exponents) for exponents in terms) <= most:
        return False
    below: set[tuple[int, ...]] = set()
    for exponents in terms:
        below.update(itertools.product(*(range(exponent + 1) for exponent in exponents)))
        if len(below) > most:
            return True
    return False


def _shifted_coefficient_sign(polynomial: sympy.Poly) -> int | None:
    """1 (or -1) when the polynomial at sizes 1 + m has only coefficients >= 0 (<= 0) and a
    positive (negative) constant term; None otherwise."""
    shifted: dict[tuple[int, ...], object] = {}
    for exponents, coefficient in polynomial.terms():
        # n^e = (1 + m)^e = sum over k <= e of C(e, k) m^k, size by size
        for powers in itertools.product(*(range(exponent + 1) for exponent in exponents)):
            binomials = math.prod(math.comb(e, k) for e, k in zip(exponents, powers))
            shifted[powers] = shifted.get(powers, 0) + coefficient * binomials
        if len(shifted) > MOST_SHIFTED_TERMS:
            return None
    return one_sign(shifted.get((0,) * len(polynomial.gens), 0), shifted.values())


def one_sign(constant, coefficients) -> int | None:
    """1 (or -1) for a positive (negative) constant and no coefficient of the other sign."""
    if constant > 0 and all(value >= 0 for value in coefficients):
        return 1
    if constant < 0 and all(value <= 0 for value in coefficients):
        return -1
    return None


def rational_sizes(expr: sympy.Expr) -> tuple[sympy.Symbol, ...] | None:
    """The sizes of an expression built of rationals and sizes (positive integer symbols) by
    sums, products and integer powers, in a fixed order; None for any other expression or
    one without a size."""
    sizes = sizes_of(expr)
    return sizes if sizes is not None and _rational_in(expr) else None


def _rational_in(expr: sympy.Expr) -> bool:
    """Whether expr is built of rationals and symbols by sums, products and integer powers."""
    if expr.is_Rational or expr.is_Symbol:
        return True
    if expr.is_Add or expr.is_Mul:
        return all(_rational_in(arg) for arg in expr.args)
    if expr.is_Pow:
        return expr.exp.is_Integer and _rational_in(expr.base)
    return False
