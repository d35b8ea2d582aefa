"""sympy's sign deductions, less the one that proves false orders.

sympy 1.14's `exprtools._monotonic_sign`, which Add's is_positive, is_nonnegative,
is_negative and is_nonpositive ask, and through them every relation, Min, Max, floor and
ceiling, bounds c + A/F(x, y, ...) (A a number, F a polynomial in several symbols) by the
value of A/F at the symbols' least values. For positive symbols that is the largest value
A/F takes, not the one closest to 0, so it proves orders that fail at larger sizes:
`(1/(a*b) - 1/2).is_positive` is True and `Min(200/(b*c**2), 2)` is 2, both false at
b = 1, c = 17. Left alone, occupancy took `Min(16, floor(167936/(8*TK*(TN + Min(Mt, TM)) +
1024)))` for 16 blocks per SM, where the default tiles allow 2.

The wrapper keeps every answer of a univariate expression or of one whose denominator is a
number, and declines (None: no bound known) the rest, the branch that errs: sympy then
answers from the signs of the terms alone, or leaves the question undecided. It only ever
turns a claimed bound into none, so no answer it leaves becomes wrong."""

from __future__ import annotations

from sympy.core import exprtools


def _sound_monotonic_sign(expr):
    bound = _SYMPY_MONOTONIC_SIGN(expr)
    if (bound is not None and len(expr.free_symbols) > 1
            and not expr.as_numer_denom()[1].is_number):
        return None
    return bound


# sympy's own, which the wrapper calls (its recursive calls go through the module's name, so
# through the wrapper too); a second copy of this module finds the first one's wrapper there
_SYMPY_MONOTONIC_SIGN = getattr(exprtools._monotonic_sign, "wraps", exprtools._monotonic_sign)
_sound_monotonic_sign.wraps = _SYMPY_MONOTONIC_SIGN


def install() -> None:
    """Put the wrapper in sympy's place, for the whole process: the package does on import."""
    exprtools._monotonic_sign = _sound_monotonic_sign
