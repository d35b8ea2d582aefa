"""The cleared equation P(x, t) = N(x) - t D(x) of degree 1 or 2 in the size x with rational
coefficients, as a table of Python fractions: what `equations` asks of it at each target t
(a machine's ridge or capacity) is then integer arithmetic, where sympy substitutes the
target into a Poly, and counts real roots by Sturm sequences, machine after machine.
`terms_in` reads P's coefficients, of any degree, from the ring."""

from __future__ import annotations

from fractions import Fraction

import sympy

from .quotients import polynomial_terms
from .surds import polynomial_sign_at

Coefficients = list[Fraction]  # lowest power first


class ClearedQuadratic:
    """P's coefficients in x, each a polynomial in t: `table[k][j]` is the coefficient of
    x^k t^j."""

    def __init__(self, terms: dict[tuple[int, int], Fraction]):
        """`terms`: P's nonzero coefficients by their powers of (x, t), of degree 1 or 2
        in x."""
        self.table: list[dict[int, Fraction]] = [
            {} for _ in range(max(power for power, _ in terms) + 1)]
        for (power, target_power), coefficient in terms.items():
            self.table[power][target_power] = coefficient
        # D = -dP/dt, highest power first
        self.denominator = [-row.get(1, Fraction(0)) for row in reversed(self.table)]

    def at(self, target: Fraction) -> Coefficients:
        """P(x, target)'s coefficients in x."""
        return [sum((value * target**power for power, value in row.items()), Fraction(0))
                for row in self.table]

    def root_from_one(self, target: sympy.Rational) -> bool | None:
        """Whether P(x, target) has a real root x >= 1; None where it is 0 for every x."""
        coefficients = self.at(_exact(target))
        return None if not any(coefficients) else has_root_from_one(coefficients)

    def slope_sign(self, root: sympy.Expr, target: sympy.Rational) -> int | None:
        """The sign of d(N/D)/dx at a root of P(x, target) (a rational or a quadratic's
        surd): where N = t D, (N' D - N D') / D^2 is D dP/dx / D^2, so its sign is that of D
        times dP/dx, each at the root, in exact arithmetic. None for another root. N/D in
        lowest terms (`equations.equation` cancels it first): D is not 0 at a root, where
        a factor shared with N would make this 0 whatever the slope of the quotient."""
        rate = [power * value for power, value in enumerate(self.at(_exact(target)))][:0:-1]
        first, second = [polynomial_sign_at(part, root) for part in (self.denominator, rate)]
        return None if first is None or second is None else first * second


def has_root_from_one(coefficients: Coefficients) -> bool:
    """Whether the polynomial c0 + c1 x + c2 x^2 (not all zero) has a real root x >= 1, as
    sympy's count_roots(1) > 0 finds it: for a quadratic with real roots r1 <= r2 and c2 > 0,
    r2 >= 1 exactly where P(1) <= 0 (1 lies between the roots) or the roots' midpoint
    -c1 / 2 c2 exceeds 1 (both lie beyond it)."""
    c0, c1, c2 = (*coefficients, Fraction(0), Fraction(0))[:3]
    if not c2:
        return bool(c1) and -c0 / c1 >= 1
    if c2 < 0:
        c0, c1, c2 = -c0, -c1, -c2
    if c1 * c1 - 4 * c2 * c0 < 0:
        return False
    return c0 + c1 + c2 <= 0 or -c1 > 2 * c2


def _exact(number: sympy.Rational) -> Fraction:
    return Fraction(int(number.p), int(number.q))


def terms_in(expr: sympy.Expr, variable: sympy.Symbol, target: sympy.Symbol
             ) -> dict[tuple[int, int], Fraction] | None:
    """expr's nonzero coefficients by their powers of (variable, target), as sympy's Poly in
    the two over ZZ or QQ has them, read from the ring (Poly reads the expression again,
    most of a crossing's first question); None where its coefficients are not rational."""
    written = polynomial_terms(expr)
    if written is None:
        if expr.is_Rational:
            return {(0, 0): Fraction(int(expr.p), int(expr.q))} if expr else {}
        polynomial = sympy.Poly(expr, variable, target)
        if polynomial.domain not in (sympy.ZZ, sympy.QQ):
            return None
        return {powers: Fraction(int(value.p), int(value.q))
                for powers, value in polynomial.terms() if value}
    symbols, found = written
    if not set(symbols) <= {variable, target}:
        return None
    place = [0 if symbol == variable else 1 for symbol in symbols]
    terms = {}
    for exponents, value in found:
        powers = [0, 0]
        for position, exponent in zip(place, exponents):
            powers[position] = exponent
        terms[powers[0], powers[1]] = Fraction(int(value.p), int(value.q))
    return terms
