"""Exact values: machine figures and user numbers as sympy rationals, so that ridges such as
990e12 / 3.35e12 = 19800/67 stay exact and a report rounds only when it prints."""

from __future__ import annotations

import numbers
from fractions import Fraction

import sympy


def exact(value) -> sympy.Rational:
    """A machine figure or a user value as an exact number: 3.35e12 -> 3350000000000."""
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, numbers.Integral):
        return sympy.Integer(int(value))
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, float):
        # repr gives the shortest decimal that round-trips: 3.35e12, not its binary expansion
        return sympy.Rational(repr(value))
    raise TypeError(f"not a number: {value!r}")
