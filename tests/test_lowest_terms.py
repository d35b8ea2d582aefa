"""lowest_terms is the ring's cancel, pair for pair: on products of random polynomials that
share nothing, share a factor, divide one another or are proportional, with contents and
signs of every kind; and where the ring's gcd takes minutes (a proportional or coprime pair
in a score of generators), the pair it gives is in lowest terms by construction and equal in
value."""

import random

import pytest
from conftest import time_budget
from sympy.polys.domains import ZZ
from sympy.polys.rings import ring

from kernelcost.algebra.lowest_terms import _coprime, lowest_terms

SEEDS = range(60)


def random_polynomial(rng: random.Random, generators, terms: int, degree: int):
    """A sum of `terms` monomials of degree up to `degree` in each generator, coefficients
    in -9..9 (zero dropped), never the zero polynomial."""
    polynomial = generators[0].ring.zero
    while not polynomial:
        for _ in range(terms):
            monomial = generators[0].ring(rng.choice([c for c in range(-9, 10) if c]))
            for generator in generators:
                monomial *= generator ** rng.randint(0, degree)
            polynomial += monomial
    return polynomial


def pairs(rng: random.Random, generators):
    """(numerator, denominator) of each kind: coprime, a common factor, one dividing the
    other either way, proportional with contents, and a monomial against a sum."""
    a, b, c = (random_polynomial(rng, generators, rng.randint(2, 4), 2) for _ in range(3))
    k, m = rng.choice([1, -1, 2, -6, 15]), rng.choice([1, -1, 3, -4, 20])
    monomial = generators[0].ring(k) * generators[rng.randrange(len(generators))]
    return [(a, b), (a * c, b * c), (k * a * b, m * b), (m * b, k * a * b), (k * a, m * a),
            (a * b * b, -a * b), (monomial, a), (a, monomial)]


@pytest.mark.parametrize("seed", SEEDS)
def test_lowest_terms_is_the_rings_cancel(seed):
    rng = random.Random(seed)
    _, *generators = ring(",".join(f"x{i}" for i in range(rng.randint(1, 4))), ZZ)
    for numerator, denominator in pairs(rng, generators):
        assert lowest_terms(numerator, denominator) == numerator.cancel(denominator), (
            f"{numerator} / {denominator}")


def test_a_common_factor_is_never_proven_coprime():
    rng = random.Random(7)
    _, *generators = ring("x, y, z", ZZ)
    for _ in range(40):
        a, b, c = (random_polynomial(rng, generators, 3, 2) for _ in range(3))
        if not c.is_ground:
            assert not _coprime((a * c).primitive()[1], (b * c).primitive()[1])


def test_a_common_factor_in_every_generator_is_found_and_a_coprime_pair_proven():
    """x - y shared: in x its images keep a common root (y's value), in y too (x's), so no
    generator gives a proof; x - y against x + y + 1 is proven in x alone."""
    _, x, y = ring("x, y", ZZ)
    common = x - y
    assert not _coprime(common * (x + 2), common * (x - 3))
    assert _coprime(x - y, x + y + 1)


def wide_pair(proportional: bool):
    """Work and traffic of a tiled nest's shape in 20 generators: a sum of 90-odd products
    of up to three generators each, and the traffic either 20/3 of it or another such sum."""
    rng = random.Random(20)
    _, *generators = ring(",".join(f"g{i}" for i in range(20)), ZZ)
    work = generators[0].ring.zero
    for _ in range(93):
        term = generators[0].ring(rng.choice([-6, -3, 3, 6, 9]))
        for generator in rng.sample(generators, rng.randint(1, 3)):
            term *= generator ** rng.randint(1, 2)
        work += term
    traffic = work * 20 if proportional else work * 2 + generators[3] * generators[7] + 5
    return 3 * work, traffic


@pytest.mark.parametrize("proportional", [True, False])
def test_a_wide_pair_reduces_in_a_fraction_of_a_second(proportional):
    """The ring's heugcd on such a pair (the intensity of a min(T, j) range in a clipped
    tile) ran past minutes."""
    numerator, denominator = wide_pair(proportional)
    with time_budget(2, cpu=True):
        top, bottom = lowest_terms(numerator, denominator)
    assert top * denominator == bottom * numerator and bottom.LC > 0
    if proportional:
        assert (top.as_expr(), bottom.as_expr()) == (3, 20)
    else:
        assert (top, bottom) == (numerator, denominator)
