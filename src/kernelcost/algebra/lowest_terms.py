"""A numerator and a denominator over the integers in lowest terms: the pair PolyElement.cancel
reaches, without its gcd where a cheaper proof gives the same pair.

The ring's cancel divides both by their gcd from heugcd, which evaluates the generators one
after another at integers that grow with each, so its integers have a number of digits
exponential in the generators: a closed form with a score of roundings, Min and Max as
generators (a clipped tile around a range from min(T, j)) sends it past minutes, even where
the gcd is the whole denominator (work and traffic proportional: W/Q a number). The pair in
lowest terms is unique (coprime over the integers, the denominator's leading coefficient
positive), so any proof that reaches one gives cancel's: here that one primitive part divides
the other, or that the primitive parts are coprime, shown one generator at a time in
univariate images. Only a proper common factor goes to the ring's gcd."""

from __future__ import annotations

from sympy.polys.domains import ZZ
from sympy.polys.euclidtools import dup_gcd
from sympy.polys.rings import PolyElement

# the other generators' values in the univariate images: distinct for each generator and
# far from the small integers where a rounding's or a size's factor (N - 1, T + 2) vanishes;
# a second point is tried where the first is unlucky
_POINTS = ((1009, 10), (2003, 14))


def lowest_terms(numerator: PolyElement, denominator: PolyElement
                 ) -> tuple[PolyElement, PolyElement]:
    """numerator.cancel(denominator) over the integers, the same pair."""
    if len(numerator) <= 1 or len(denominator) <= 1 or numerator.ring.domain != ZZ:
        return numerator.cancel(denominator)  # its own monomial gcd: already cheap
    top_content, top = numerator.primitive()
    bottom_content, bottom = denominator.primitive()
    common = ZZ.gcd(top_content, bottom_content)
    top_content, bottom_content = top_content // common, bottom_content // common
    # a primitive quotient of primitive parts keeps the coprime contents coprime to it (Gauss)
    if (quotient := _exact_quotient(top, bottom)) is not None:
        return _signed(quotient.mul_ground(top_content), bottom.ring(bottom_content))
    if (quotient := _exact_quotient(bottom, top)) is not None:
        return _signed(top.ring(top_content), quotient.mul_ground(bottom_content))
    if _coprime(top, bottom):
        return _signed(top.mul_ground(top_content), bottom.mul_ground(bottom_content))
    return numerator.cancel(denominator)


def _signed(numerator: PolyElement, denominator: PolyElement
            ) -> tuple[PolyElement, PolyElement]:
    return (-numerator, -denominator) if denominator.LC < 0 else (numerator, denominator)


def _exact_quotient(dividend: PolyElement, divisor: PolyElement) -> PolyElement | None:
    """dividend / divisor where it divides exactly (up to the sign), else None."""
    if any(low < high for low, high in zip(dividend.degrees(), divisor.degrees())):
        return None
    if dividend == divisor:
        return dividend.ring.one
    if dividend == -divisor:
        return -dividend.ring.one
    quotient, remainder = dividend.div(divisor)
    return quotient if not remainder and quotient else None


def _coprime(first: PolyElement, second: PolyElement) -> bool:
    """True where two primitive polynomials are proven to share no factor of positive degree:
    for each generator in both, their images with the others set to integers have a gcd of
    degree 0 in it. A common factor G divides both images, and keeps its degree in the
    generator where its leading coefficient does not vanish, which holds where the first's
    leading coefficient in that generator does not (G's divides it); so no generator is left
    for G to hold. False only where no proof was reached (a common factor, or unlucky points)."""
    ring = first.ring
    for index in range(ring.ngens):
        if not first.degree(index) or not second.degree(index):
            continue  # a common factor is free of a generator one of them is free of
        if not any(_image_gcd_degree(first, second, index, point) == 0 for point in _POINTS):
            return False
    return True


def _image_gcd_degree(first: PolyElement, second: PolyElement, index: int,
                      point: tuple[int, int]) -> int | None:
    """The degree of the gcd of both images univariate in generator `index` (the others set
    to point's integers), or None where the first's leading coefficient in it vanishes
    there."""
    images = [_image(polynomial, index, point) for polynomial in (first, second)]
    if images[0][0] == 0:
        return None
    return len(dup_gcd(_stripped(images[0]), _stripped(images[1]), ZZ)) - 1


def _image(polynomial: PolyElement, index: int, point: tuple[int, int]) -> list[int]:
    """The dense coefficients (highest first) of the polynomial in generator `index`, to its
    full degree in it, generator j of the others set to start + step * j."""
    start, step = point
    coefficients = [0] * (polynomial.degree(index) + 1)
    for monomial, coefficient in polynomial.iterterms():
        value = int(coefficient)
        for other, exponent in enumerate(monomial):
            if other != index and exponent:
                value *= (start + step * other) ** exponent
        coefficients[monomial[index]] += value
    return coefficients[::-1]


def _stripped(coefficients: list[int]) -> list:
    while coefficients and coefficients[0] == 0:
        coefficients = coefficients[1:]
    return [ZZ(value) for value in coefficients]
