"""The real roots of an irreducible cubic over the rationals as sympy's Poly.real_roots() gives
them (the same c * CRootOf objects), without sympy isolating them, and each root's double as
sympy's float gives it, from an exact bracket.

A crossing of a ridge equation in cubic form (flash_attention_causal_split's) is a real root
of the cleared cubic at each machine's ridge. Poly.real_roots() factors the cubic over the
integers (Zassenhaus) and isolates its real roots by continued fractions, some 2.5 ms a
machine, and the first float of each root refines its interval by bisection, 0.4 ms more;
formula_roots then places the cubic's formulas among the roots in mpmath anyway. Here:

- `real_roots` replaces Poly.real_roots for a cubic with rational coefficients: sympy's
  preprocessing (CRootOf._preprocess_roots: denominators cleared, content and an integer
  basis taken out) in Python's integers, then, in place of the factoring and the isolation,
  the cubic proven
  irreducible by a prime modulo which it has no root (a rational root would give one), and
  its real roots counted by the discriminant's sign (3 where positive, 1 where negative; an
  irreducible cubic has no double root). The k-th smallest real root is CRootOf(f, k) for the
  cubic's primitive form f with a positive leading coefficient, as sympy's factor_list gives
  it and its real roots are numbered. Anything else (another degree, a binomial that sympy
  writes in radicals, a cubic no small prime proves irreducible) is None: sympy's path. The
  objects are sympy's; sympy isolates their intervals on first need, as it would have.
- `bracket` keeps an exact interval around a root that `formula_roots.place` has placed
  (its 50-digit value, checked by the polynomial's exact signs at both ends).
- `known_float` replaces float(c * CRootOf) where such a bracket is kept. sympy's float
  evaluates at 57 bits (Expr.evalf's 4 guard bits): a bare root to 10**-18 of its size (a
  rational from its refined interval, rounded to 57 bits), a product with a rational at 64
  bits, then rounded to 57; that value is rounded to a double, ties to even. Where the whole
  bracket, widened by 2**-57 + 10**-18 of its size (more than those errors together), rounds
  to one double, the true value is that far from every midpoint of doubles, and sympy's
  double is that one. Else where the bracket widened by 10**-18 of its size rounds to one
  57-bit number, that is sympy's 57-bit value, and its double (ties to even) sympy's.
  Where neither holds (a few in a hundred), None, and sympy evaluates the root.
- `known_real`: whether a root made here is real (all are), without sympy's isolation.

A property test holds `real_roots` and `known_float` equal to sympy's on random cubics."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import sympy

# small primes tried as witnesses of irreducibility: a cubic with no root modulo one of them
# (not dividing its leading coefficient) has no rational root, so no factor over Q
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71)
# sympy's error in the double of a root, relative: its rational approximation (10**-18 of
# the size at most) is rounded to 57 bits (half an ulp, 2**-57 at most), then to 53 bits;
# the first rounding can land on a midpoint of doubles, which the second breaks to even
_APPROXIMATION = Fraction(1, 10**18)
_MARGIN = Fraction(1, 2**57) + _APPROXIMATION
_X = sympy.Symbol("x")  # the generator sympy's real_roots gives the polynomials of its roots

# each root made by `real_roots` that `bracket` placed: the root's exact interval
_BRACKETS: dict[sympy.CRootOf, tuple[Fraction, Fraction]] = {}
_MADE: set[sympy.CRootOf] = set()
_MOST = 4096


def real_roots(polynomial: Sequence[Fraction]) -> list[sympy.Expr] | None:
    """sympy.Poly(polynomial).real_roots() for a cubic with rational coefficients (lowest
    power first), built without sympy's factoring and isolation where it is irreducible;
    None where sympy's path must answer."""
    if len(polynomial) != 4 or not polynomial[3]:
        return None
    basis, reduced = _preprocessed(polynomial)
    if sum(1 for value in reduced if value) < 3:
        return None  # a binomial, in radicals, or a root 0
    content = math.gcd(*reduced)
    primitive = [value // content for value in reduced]
    if primitive[0] < 0:
        primitive = [-value for value in primitive]
    if not _irreducible(primitive):
        return None
    a, b, c, d = primitive
    discriminant = 18 * a * b * c * d - 4 * b**3 * d + b**2 * c**2 - 4 * a * c**3 - 27 * a**2 * d**2
    count = 3 if discriminant > 0 else 1
    factor = sympy.PurePoly(primitive, _X, domain=sympy.ZZ)
    roots = [sympy.CRootOf._new(factor, index) for index in range(count)]
    if len(_MADE) < _MOST:
        _MADE.update(roots)
    return [sympy.Integer(basis) * root for root in roots]


def _preprocessed(polynomial: Sequence[Fraction]) -> tuple[int, list[int]]:
    """sympy's preprocess_roots of a cubic over QQ (CRootOf._preprocess_roots), in Python's
    integers: the denominators cleared, the content taken out, and polyroots._integer_basis,
    the largest divisor d of the other coefficients' gcd with x = d y giving integer
    coefficients again; (d, the coefficients highest power first), d = 1 where there is
    none."""
    common = math.lcm(*(value.denominator for value in polynomial))
    integers = [int(value * common) for value in reversed(polynomial)]
    content = math.gcd(*integers)
    integers = [value // content for value in integers]
    terms = [(3 - place, value) for place, value in enumerate(integers) if value]
    basis = _integer_basis(terms)
    if basis is None:
        return 1, integers
    return basis, [value // basis ** place for place, value in enumerate(integers)]


def _integer_basis(terms: list[tuple[int, int]]) -> int | None:
    """polyroots._integer_basis over the nonzero terms (power, coefficient), highest power
    first, with sympy's own divisors (in descending order, the first that divides each
    coefficient the power of its place below the top: the largest)."""
    sizes = [abs(value) for _, value in terms]
    if not sizes[0] < sizes[-1]:
        return None
    top = terms[0][0]
    places = [top - power for power, _ in reversed(terms)][:-1]
    sizes = list(reversed(sizes))[:-1]
    if len(places) == 1:
        root = sympy.Pow(sizes[0], sympy.Rational(1, places[0]))
        return int(root) if root.is_Integer else None
    for divisor in reversed(sympy.divisors(math.gcd(*sizes))[1:]):
        if all(size % divisor**place == 0 for place, size in zip(places, sizes)):
            return int(divisor)
    return None


def _irreducible(coefficients: Sequence[int]) -> bool:
    """Whether a primitive integer cubic (highest power first) surely has no rational root:
    modulo some small prime not dividing its leading coefficient it has no root."""
    for prime in _PRIMES:
        if coefficients[0] % prime == 0:
            continue
        if all(_value_mod(coefficients, point, prime) for point in range(prime)):
            return True
    return False


def _value_mod(coefficients: Sequence[int], point: int, prime: int) -> int:
    total = 0
    for coefficient in coefficients:
        total = (total * point + coefficient) % prime
    return total


def bracket(value: sympy.Expr, low: Fraction, high: Fraction) -> None:
    """Keep [low, high], an exact interval known to hold `value` (a rational times a root made
    by `real_roots`), for `known_float`."""
    scale, atom = value.as_coeff_Mul()
    if atom not in _MADE or not scale.is_Rational or not scale or len(_BRACKETS) >= _MOST:
        return
    factor = Fraction(int(scale.p), int(scale.q))
    ends = sorted((low / factor, high / factor))
    _BRACKETS[atom] = (ends[0], ends[1])


def known_float(value: sympy.Expr) -> float | None:
    """float(value) for a rational times a bracketed root, as sympy gives it, where the
    bracket decides it; None otherwise."""
    scale, atom = value.as_coeff_Mul()
    if not isinstance(atom, sympy.CRootOf):
        return None
    ends = _BRACKETS.get(atom)
    if ends is None or not scale.is_Rational or not scale:
        return None
    factor = Fraction(int(scale.p), int(scale.q))
    low, high = sorted((ends[0] * factor, ends[1] * factor))
    # far from every midpoint of doubles: sympy's 57-bit value rounds to the true one's
    first, last = float(low - abs(low) * _MARGIN), float(high + abs(high) * _MARGIN)
    if first == last:  # Fraction's float is correctly rounded, ties to even
        return first
    # else far from every midpoint of 57-bit numbers: sympy's 57-bit value is known exactly
    first_57 = _rounded(low - abs(low) * _APPROXIMATION, 57)
    if first_57 == _rounded(high + abs(high) * _APPROXIMATION, 57):
        return float(first_57)
    return None


def _rounded(value: Fraction, bits: int) -> Fraction:
    """value rounded to `bits` significant bits, ties to even (mpmath's round_nearest)."""
    if not value:
        return value
    size = abs(value)
    exponent = size.numerator.bit_length() - size.denominator.bit_length()
    if Fraction(2) ** exponent > size:
        exponent -= 1  # 2**exponent <= size < 2**(exponent + 1)
    scaled = size * Fraction(2) ** (bits - 1 - exponent)
    whole = math.floor(scaled)
    rest = scaled - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2):
        whole += 1
    rounded = whole * Fraction(2) ** (exponent - bits + 1)
    return rounded if value > 0 else -rounded


def known_real(atom: sympy.Expr) -> bool:
    """Whether the atom is a root `real_roots` made, each of them real."""
    return atom in _MADE
