"""sympy's deductions about sizes, less the two that prove false facts.

- Orders. sympy 1.14's `exprtools._monotonic_sign`, which Add's is_positive, is_nonnegative,
  is_negative and is_nonpositive ask, and through them every relation, Min, Max, floor and
  ceiling, bounds c + A/F(x, y, ...) (A a number, F a polynomial in several symbols) by the
  value of A/F at the symbols' least values. For positive symbols that is the largest value
  A/F takes, not the one closest to 0, so it proves orders that fail at larger sizes:
  `(1/(a*b) - 1/2).is_positive` is True and `Min(200/(b*c**2), 2)` is 2, both false at
  b = 1, c = 17. Left alone, occupancy took `Min(16, floor(167936/(8*TK*(TN + Min(Mt, TM))
  + 1024)))` for 16 blocks per SM, where the default tiles allow 2. The wrapper keeps every
  answer of a univariate expression or of one whose denominator is a number, and declines
  (None: no bound known) the rest, the branch that errs.
- Integers. `Mul._eval_is_integer` holds even numerators over odd denominators greater than
  1 never an integer, which 6/3 is: `(6/(2*y + 1)).is_integer` is False, and with it
  `floor(e) < e` is True and `Eq(e, 2)` False, all wrong at y = 1. The wrapper declines
  that rule's False (when every numerator factor is even and every denominator factor odd,
  no other rule of sympy's answers False).

Each wrapper only ever turns an answer into none, so no answer it leaves becomes wrong.

- Min and Max. Building one, sympy asks of each pair of arguments whether one is at least
  the other, four ways, then of their difference factored: milliseconds a pair where no
  order holds. Where the difference takes both signs at witness sizes, no true order exists
  and sympy, less the false proofs above, finds none: the pair is left unordered at once,
  as sympy leaves it; so is a pair whose differences sympy surely cannot sign
  (`unsure_orders`), and one it surely orders is ordered (`sure_orders`). And each Min or
  Max is built once for its arguments (as Add and Mul are, in sympy's cache, emptied with
  it): an xreplace or subs rebuilds every Min and Max it passes through, and a count asks
  the same ones again (a clipped warpgroup's bound, built in every sum over its loop, ten
  times in flash_attention_hopper's count), each time ordering its arguments anew.
- Turning points. `_monotonic_sign` of a polynomial in one positive symbol is None where its
  derivative has a real root above the symbol's least value, or has none and the polynomial
  runs from its value there away from 0. sympy finds that by differentiating the sum as
  written and isolating the roots; Sturm's count in fractions finds it at once (`no_bound`),
  and sympy's own answers the rest."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import sympy
from sympy.core import exprtools
from sympy.core.cache import cacheit
from sympy.core.parameters import global_parameters
from sympy.functions.elementary.miscellaneous import MinMaxBase

from .sure_orders import sure_order
from .sympy_patch import Patch, Slot
from .unsure_orders import unordered
from .witnesses import both_signs


# kept: Add's sign questions (is_positive, is_nonnegative, is_extended_negative, ...) each
# ask it again of the same sum, and for a sum of one positive symbol it isolates the real
# roots of the derivative every time: 17 calls of a millisecond over a ridge's quadratic
# crossing. Its answer depends on the expression alone (and its symbols' assumptions).
@functools.lru_cache(maxsize=4096)
def _sound_monotonic_sign(expr):
    if no_bound(expr):
        return None  # sympy's own answer there, found without its derivative
    bound = _SYMPY_MONOTONIC_SIGN(expr)
    if (bound is not None and len(expr.free_symbols) > 1
            and not expr.as_numer_denom()[1].is_number):
        return None
    return bound


def no_bound(expr) -> bool:
    """True where sympy's `_monotonic_sign` answers None of expr for certain: a sum that is a
    polynomial of degree 2 or more with rational coefficients in one positive symbol x, with
    x0 the least value sympy gives x (0, or 1 for an integer). sympy bounds it only where
    every real root of its derivative is at most x0 and it then moves away from 0 no faster
    than its value at x0 allows: rising from P(x0) >= 0, or falling from P(x0) <= 0, each
    where sympy proves the derivative's sign. So a derivative with a real root above x0, or
    none and P rising from below 0 (falling from above), gives None. sympy finds that out by
    differentiating the sum as written and isolating the derivative's roots (CRootOf): some
    10 ms for the discriminant of a ridge's cubic, asked as each radical of its roots is
    built. Here the roots above x0 are counted exactly (Sturm, in fractions) on the expanded
    coefficients. False wherever anything else holds, and sympy then answers; a property
    test holds this to sympy's answer."""
    if not expr.is_Add:
        return False
    symbols = expr.free_symbols
    if len(symbols) != 1:
        return False
    [symbol] = symbols
    # sympy's own first question, so that what follows is asked only where it asks it too
    if symbol.is_positive is not True or not expr.is_extended_real:
        return False
    coefficients = _coefficients(expr, symbol)
    if coefficients is None or not expr.is_polynomial():
        return False
    least = exprtools._monotonic_sign(symbol)  # sympy's x0, as its own call finds it
    if least is exprtools._eps:
        least = sympy.Integer(0)
    if least is None or not least.is_Rational:
        return False
    while coefficients and not coefficients[-1]:
        coefficients.pop()
    slope = [power * value for power, value in enumerate(coefficients)][1:][::-1]
    if len(slope) < 2:
        return False  # a constant derivative: no root, and sympy bounds it or not
    start = Fraction(int(least.p), int(least.q))
    above = roots_above(slope, start)
    if above != 0:
        return above > 0  # -1: the derivative is 0 at x0, left to sympy
    # the derivative keeps the sign of its leading coefficient above x0
    at_start = _value(coefficients[::-1], start)
    return (slope[0] > 0 and at_start < 0) or (slope[0] < 0 and at_start > 0)


MOST_DEGREE = 32  # beyond, sympy answers (a size's polynomials are of a few degrees)


def _coefficients(expr, symbol) -> list[Fraction] | None:
    """expr expanded as a polynomial in symbol with rational coefficients, lowest power
    first; None for any other form or past MOST_DEGREE."""
    if expr == symbol:
        return [Fraction(0), Fraction(1)]
    if expr.is_Rational:
        return [Fraction(int(expr.p), int(expr.q))]
    if expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
        base = _coefficients(expr.base, symbol)
        exponent = int(expr.exp)
        if base is None or (len(base) - 1) * exponent > MOST_DEGREE:
            return None
        raised = [Fraction(1)]
        for _ in range(exponent):
            raised = _product(raised, base)
        return raised
    if not (expr.is_Add or expr.is_Mul):
        return None
    parts = []
    for argument in expr.args:
        part = _coefficients(argument, symbol)
        if part is None:
            return None
        parts.append(part)
    if expr.is_Add:
        total = [Fraction(0)] * max(map(len, parts))
        for part in parts:
            for index, value in enumerate(part):
                total[index] += value
        return total
    product = [Fraction(1)]
    for part in parts:
        product = _product(product, part)
        if len(product) - 1 > MOST_DEGREE:
            return None
    return product


def _product(first: list[Fraction], second: list[Fraction]) -> list[Fraction]:
    result = [Fraction(0)] * (len(first) + len(second) - 1)
    for power, value in enumerate(first):
        for other, coefficient in enumerate(second):
            result[power + other] += value * coefficient
    return result


def roots_above(polynomial: list[Fraction], point: Fraction) -> int:
    """The distinct real roots above `point` of a polynomial (coefficients highest power
    first, degree 1 or more), by Sturm's theorem; -1 where `point` is itself a root (the
    theorem counts from a point that is not)."""
    if _value(polynomial, point) == 0:
        return -1
    chain = [polynomial, [value * (len(polynomial) - 1 - power)
                          for power, value in enumerate(polynomial[:-1])]]
    while remainder := _remainder(chain[-2], chain[-1]):
        chain.append([-value for value in remainder])
    at_point = [_value(member, point) for member in chain]
    at_infinity = [member[0] for member in chain]
    return _changes(at_point) - _changes(at_infinity)


def _value(polynomial: list[Fraction], point: Fraction) -> Fraction:
    total = Fraction(0)
    for coefficient in polynomial:
        total = total * point + coefficient
    return total


def _remainder(dividend: list[Fraction], divisor: list[Fraction]) -> list[Fraction]:
    """The remainder of polynomial division, its leading zeros dropped ([] for none)."""
    rest = list(dividend)
    while len(rest) >= len(divisor):
        factor = rest[0] / divisor[0]
        rest = [value - factor * other for value, other in
                zip(rest, divisor + [Fraction(0)] * (len(rest) - len(divisor)))][1:]
    while rest and rest[0] == 0:
        rest = rest[1:]
    return rest


def _changes(signs: list[Fraction]) -> int:
    nonzero = [value for value in signs if value]
    return sum((first > 0) != (second > 0) for first, second in itertools.pairwise(nonzero))


def _sound_mul_is_integer(product):
    integer = _SYMPY_MUL_IS_INTEGER(product)
    if integer is False and _even_over_odd(product):
        return None
    return integer


def _witnessed_is_connected(cls, x, y):
    if x != y:
        if both_signs(x - y, zero_counts_as=0):
            return False
        order = sure_order(x, y)
        if order is not None:
            return order
        if unordered(x, y):
            return False
    return _SYMPY_IS_CONNECTED(cls, x, y)


def _built_once(cls, *args, **assumptions):
    """MinMaxBase.__new__, the Min or Max of these arguments kept: the same object for the
    same arguments, evaluation flag and assumptions (sympy's own construction is a function
    of them, with _is_connected as it stands while kernelcost computes)."""
    evaluate = assumptions.pop("evaluate", global_parameters.evaluate)
    return _built(cls, args, evaluate, tuple(sorted(assumptions.items())))


@cacheit  # sympy's cache (unhashable arguments are built each time), emptied with it
def _built(cls, args, evaluate, assumptions):
    try:
        return _SYMPY_MIN_MAX_NEW(cls, *args, evaluate=evaluate, **dict(assumptions))
    except TypeError as error:  # sympy's cache reads the message as a str (unhashable
        # type:...), which a relation's lazy message is not: it would raise AttributeError
        raise TypeError(str(error)) from error


def _even_over_odd(product) -> bool:
    """Whether every numerator factor of the product other than 1 is even, every
    denominator factor odd, and there are some of each."""
    numerators, denominators = [], []
    for factor in product.args:
        if factor.is_integer:
            if abs(factor) is not sympy.S.One:
                numerators.append(factor)
        elif factor.is_Rational:
            if abs(factor.p) != 1:
                numerators.append(sympy.Integer(factor.p))
            denominators.append(sympy.Integer(factor.q))
        elif factor.is_Pow and factor.exp.is_negative:
            denominators.append(1 / factor)
        else:
            return False
    return (bool(numerators) and bool(denominators)
            and all(numerator.is_even for numerator in numerators)
            and all(denominator.is_odd for denominator in denominators))


# sympy's own, which the wrappers call (_monotonic_sign's recursive calls go through the
# module's name, so through the wrapper too); a second copy of this module finds the first
# one's wrappers there
_SYMPY_MONOTONIC_SIGN = getattr(exprtools._monotonic_sign, "wraps", exprtools._monotonic_sign)
_sound_monotonic_sign.wraps = _SYMPY_MONOTONIC_SIGN
_SYMPY_MUL_IS_INTEGER = getattr(sympy.Mul._eval_is_integer, "wraps",
                                sympy.Mul._eval_is_integer)
_sound_mul_is_integer.wraps = _SYMPY_MUL_IS_INTEGER


_SYMPY_IS_CONNECTED = getattr(MinMaxBase._is_connected.__func__, "wraps",
                              MinMaxBase._is_connected.__func__)
_witnessed_is_connected.wraps = _SYMPY_IS_CONNECTED
_SYMPY_MIN_MAX_NEW = getattr(MinMaxBase.__new__, "wraps", MinMaxBase.__new__)
_built_once.wraps = _SYMPY_MIN_MAX_NEW


# in sympy's place while kernelcost computes (sympy_scope); Mul's handler table is built with
# the class, so the handler is replaced there too
PATCHES = (Patch(exprtools, "_monotonic_sign", _sound_monotonic_sign),
           Patch(sympy.Mul, "_eval_is_integer", _sound_mul_is_integer),
           Patch(sympy.Mul._prop_handler, "integer", _sound_mul_is_integer, Slot.ITEM),
           Patch(MinMaxBase, "_is_connected", _witnessed_is_connected, Slot.CLASSMETHOD),
           Patch(MinMaxBase, "__new__", _built_once))
