"""Exact signs and floors of the numbers a crossing gives: a rational, or a + b sqrt(q) with
rationals a, b and q (a ridge put in a quadratic's root), in Python's fractions and integers
where sympy would ask the assumptions of the radical (milliseconds a root). A form's value at
rational sizes is taken to Q(sqrt(q)) as sympy reduces it (`surd_value`), so that the
witnesses (witnesses.py) read its sign without sympy's substitution."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import sympy

from .formula_roots import root_floor

_ZERO, _ONE = Fraction(0), Fraction(1)


class NotASurd(Exception):
    """A form whose value sympy may not reduce to a + b sqrt(q): sympy is asked."""


def surd_value(expr: sympy.Expr, values: dict) -> tuple[Fraction, Fraction, Fraction]:
    """(a, b, q) with expr = a + b sqrt(q) where the symbols take the values, for the forms
    sympy reduces to that: sums, products with at most one factor holding a square root,
    integer powers of rationals, square roots of rationals, one radicand up to a square
    factor. NotASurd for any other form (q is 1 where b is 0)."""
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q)), _ZERO, _ONE
    if expr.is_Symbol:
        return Fraction(values[expr]), _ZERO, _ONE
    if expr.is_Add:
        whole, root, radicand = _ZERO, _ZERO, _ONE
        for term in expr.args:
            term_whole, term_root, term_radicand = surd_value(term, values)
            whole += term_whole
            if term_root:
                root, radicand = _added_roots(root, radicand, term_root, term_radicand)
        return whole, root, radicand if root else _ONE
    if expr.is_Mul:
        factor, surd = _ONE, None
        for argument in expr.args:
            value = surd_value(argument, values)
            if not value[1]:
                factor *= value[0]
            elif surd is None:
                surd = value
            elif not surd[0] and not value[0]:  # sqrt(q) sqrt(r) = sqrt(q r), q, r > 0
                surd = _root_product(surd, value)
            else:
                raise NotASurd(expr)  # sympy keeps a product of two such sums unexpanded
        if surd is None:
            return factor, _ZERO, _ONE
        return factor * surd[0], factor * surd[1], surd[2]
    if expr.is_Pow and (expr.exp.is_Integer or expr.exp == sympy.S.Half):
        base, root, _ = surd_value(expr.base, values)
        if root:
            raise NotASurd(expr)
        if expr.exp.is_Integer:
            return base ** int(expr.exp), _ZERO, _ONE
        return _square_root(base)
    raise NotASurd(expr)


def _root_product(first: tuple[Fraction, Fraction, Fraction],
                  second: tuple[Fraction, Fraction, Fraction]
                  ) -> tuple[Fraction, Fraction, Fraction]:
    """b sqrt(q) times c sqrt(r), positive radicands, as sympy's product reduces it: b c
    sqrt(q r), a rational where q r is a rational's square. Computed here, not asked of
    sympy: sympy 1.14's factorint caches a partial factorisation as prime and raises on the
    first such product of two large radicands (sympy/sympy#28621), answering the second."""
    _, root, radicand = first
    _, other_root, other_radicand = second
    whole, new_root, new_radicand = _square_root(radicand * other_radicand)
    return whole * root * other_root, new_root * root * other_root, new_radicand


def _added_roots(root: Fraction, radicand: Fraction, other_root: Fraction,
                 other_radicand: Fraction) -> tuple[Fraction, Fraction]:
    """b sqrt(q) + c sqrt(r) as one multiple of sqrt(q), where r / q is a rational's square."""
    if not root:
        return other_root, other_radicand
    ratio = _rational_root(other_radicand / radicand)
    if ratio is None:
        raise NotASurd(other_radicand)  # two radicals that do not combine
    return root + other_root * ratio, radicand


def _square_root(value: Fraction) -> tuple[Fraction, Fraction, Fraction]:
    if value < 0:
        raise NotASurd(value)  # an imaginary number: sympy says what it is
    exact = _rational_root(value)
    return (exact, _ZERO, _ONE) if exact is not None else (_ZERO, _ONE, value)


def _rational_root(value: Fraction) -> Fraction | None:
    """sqrt(value) where it is rational; None otherwise."""
    numerator, denominator = math.isqrt(value.numerator), math.isqrt(value.denominator)
    if numerator**2 == value.numerator and denominator**2 == value.denominator:
        return Fraction(numerator, denominator)
    return None


def exact_number_sign(value: sympy.Expr) -> int | None:
    """The sign of a rational, or of a + b sqrt(q) with rationals a, b and q (a ridge put in
    a quadratic's root), in exact arithmetic; None for any other number."""
    parts = _surd(value)
    return None if parts is None else surd_sign(*parts)


def polynomial_sign_at(coefficients: Sequence[Fraction], value: sympy.Expr) -> int | None:
    """The sign of a polynomial in one variable, its rational coefficients highest power
    first, at a rational or at a + b sqrt(q) (a root of a quadratic), in exact arithmetic:
    Horner's rule in Q(sqrt(q)). None for any other number."""
    parts = _surd(value)
    if parts is None:
        return None
    rational, coefficient, radicand = (Fraction(int(part.p), int(part.q)) for part in parts)
    whole, root = Fraction(0), Fraction(0)  # the value so far: whole + root sqrt(radicand)
    for term in coefficients:
        whole, root = (whole * rational + root * coefficient * radicand + term,
                       whole * coefficient + root * rational)
    return surd_sign(whole, root, radicand)


def exact_floor(value: sympy.Expr) -> int | None:
    """floor(value) for a rational or a + b sqrt(q), in exact arithmetic from a double's
    guess (sympy's floor asks the assumptions of the radical first: milliseconds a root), or
    for a rational times a real CRootOf (formula_roots.root_floor); None for any other
    number, and past 2**52, where the guess can be far off."""
    parts = _surd(value)
    if parts is None:
        return root_floor(value)
    rational, coefficient, radicand = parts
    guess = float(rational) + float(coefficient) * math.sqrt(float(radicand))
    if not abs(guess) < 2**52:
        return None
    whole = math.floor(guess)
    while surd_sign(rational - whole, coefficient, radicand) < 0:
        whole -= 1
    while surd_sign(rational - whole - 1, coefficient, radicand) >= 0:
        whole += 1
    return whole


def _surd(value: sympy.Expr) -> tuple[sympy.Rational, sympy.Rational, sympy.Rational] | None:
    """(a, b, q) with value = a + b sqrt(q), q > 0, all rational; None for another form."""
    if value.is_Rational:
        return value, sympy.Integer(0), sympy.Integer(1)
    rational, rest = value.as_coeff_Add()
    coefficient, root = rest.as_coeff_Mul()
    if not (coefficient.is_Rational and root.is_Pow and root.exp == sympy.S.Half
            and root.base.is_Rational and root.base > 0):
        return None
    return rational, coefficient, root.base


def surd_sign(rational: sympy.Rational, coefficient: sympy.Rational,
               radicand: sympy.Rational) -> int:
    rational_sign, root_sign = _sign(rational), _sign(coefficient)
    if rational_sign == root_sign or not rational_sign or not root_sign:
        return rational_sign or root_sign
    # opposite signs: the larger magnitude wins, compared squared
    square, root_square = rational**2, coefficient**2 * radicand
    return rational_sign if square > root_square else root_sign if square < root_square else 0


def _sign(rational: sympy.Rational | Fraction) -> int:
    return (rational.numerator > 0) - (rational.numerator < 0)
