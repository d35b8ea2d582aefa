"""Rational functions of sizes factored, as sympy.factor writes them, from the pairs
quotients writes out and reduces (quotients: sympy.cancel without its passes).

sympy.factor first brings the expression over a common denominator (`together`, gcd_terms
again); the irreducible factors of the numerator and of the denominator are unique, each with
a positive leading coefficient, so factoring the two polynomials directly gives its
product, read off by Gauss's lemma where a factor is of degree 1 in some generator. A form
is factored for the reader only: past MAX_FACTOR_GENERATORS generators it keeps its terms,
common factors pulled out (`readable`)."""

from __future__ import annotations

import functools

import sympy
from sympy.core.mul import _keep_coeff
from sympy.polys.domains import ZZ
from sympy.polys.polyerrors import GeneratorsNeeded, PolynomialError
from sympy.polys.rings import PolyElement

from .common_factors import factor_terms_of
from .quotients import _CALLS, _SYMPYS_OWN, _reduced, _written_out, cancel, expanded


def factor(expr) -> sympy.Expr:
    """sympy.factor(expr), the same expression, where expr is a rational function of sizes
    with exact coefficients; anything else goes to sympy.factor itself (floats factor
    differently over RR). Roundings, Min and Max go there too: as generators of the product
    multiplied out they can send the multivariate factoring (Wang's Hensel lifting, with
    random evaluation points) into minutes, where sympy's together first splits the product
    into its factors (a generated nest with five min/max bounds: over 60 s). An expanded
    form (a total's factor, a cancelled pair) is one polynomial either way: readable_expanded
    and factored take its calls."""
    expr = sympy.sympify(expr)
    if (not isinstance(expr, sympy.Expr) or expr.is_number or not expr.is_commutative
            or expr.has(*_SYMPYS_OWN)):
        return sympy.factor(expr)
    written = None if expr.atoms(*_CALLS) else _written_out(expr)
    if written is not None:
        return _product_of_factors(written)
    coefficient, factors = sympy.Integer(1), []
    for part, sign in zip(expr.as_numer_denom(), (1, -1)):
        if part.is_number:
            coefficient *= part**sign
            continue
        if any(argument.is_Add and sympy.expand(argument).is_number
               for argument in sympy.Mul.make_args(part)):
            # sympy factors each product's factors apart, and one that is a number in
            # disguise leaves its coefficient as the ring's integer, which distributes over
            # the rest: (M + N)*(N*(M + N) - M*N - N**2 + 2) factors as 2*M + 2*N
            return sympy.factor(expr)
        try:
            polynomial = sympy.Poly(part)
            if not all(generator.is_Symbol for generator in polynomial.gens):
                return sympy.factor(expr)
            part_coefficient, part_factors = polynomial.factor_list()
        except (PolynomialError, GeneratorsNeeded):
            # GeneratorsNeeded: a part that is a constant once expanded ((N + 1)**2 - N**2 -
            # 2*N), which sympy's together reaches as a number
            return sympy.factor(expr)
        coefficient *= part_coefficient**sign
        factors += [irreducible.as_expr() ** (sign * power)
                    for irreducible, power in part_factors]
    # _keep_coeff joins them as factor does: 2*(M + N), not 2*M + 2*N
    return _keep_coeff(coefficient, sympy.Mul(*factors))


def factored(expr) -> sympy.Expr:
    """factor(cancel(expr)), the same expression, from the pair cancel reduces: each part is
    factored as the polynomial it already is, not written out as an expression for factor
    to read back. Where its coefficients are not integers, factor(cancel(expr)) itself."""
    expr = sympy.sympify(expr)
    reduced = _reduced(expr)
    if reduced is None or reduced[0].ring.domain != ZZ:
        return factor(cancel(expr))
    return _product_of_factors(reduced)


@functools.lru_cache(maxsize=1024)
def _product_of_factors(pair: tuple[PolyElement, PolyElement]) -> sympy.Expr:
    """A numerator and a denominator over the integers as factor writes their quotient."""
    coefficient, factors = sympy.Integer(1), []
    for part, sign in zip(pair, (1, -1)):
        if part.is_ground:
            coefficient *= ZZ.to_sympy(part.LC) ** sign
            continue
        part_coefficient, part_factors = _factor_list(part)
        coefficient *= ZZ.to_sympy(part_coefficient) ** sign
        factors += [irreducible.as_expr() ** (sign * power)
                    for irreducible, power in part_factors]
    return _keep_coeff(coefficient, sympy.Mul(*factors))



def _factor_list(polynomial: PolyElement) -> tuple[int, list[tuple[PolyElement, int]]]:
    """polynomial.factor_list() over the integers, the same content and factors (each with a
    positive leading coefficient), read off by Gauss's lemma where a factor is of degree 1 in
    some generator, as sums of sizes mostly are: Wang's multivariate factoring, which tries
    evaluation points and lifts them, is left the factors of higher degree in every
    generator."""
    content, primitive = polynomial.primitive()
    factors: list[tuple[PolyElement, int]] = []
    return content * _split_primitive(primitive, factors), factors


def _split_primitive(polynomial: PolyElement, factors: list) -> int:
    """Append the irreducible factors of a primitive polynomial, each with a positive leading
    coefficient, and return the sign left over. A primitive a*x + b (a and b free of x) is
    c = gcd(a, b) times an irreducible polynomial: a factor free of x divides both a and b."""
    ring = polynomial.ring
    lowest = [min(exponents) for exponents in zip(*polynomial.itermonoms())]
    if any(lowest):
        factors += [(ring.gens[index], power) for index, power in enumerate(lowest) if power]
        polynomial = ring({tuple(map(int.__sub__, monomial, lowest)): coefficient
                           for monomial, coefficient in polynomial.iterterms()})
    if polynomial.is_ground:
        return 1 if polynomial.LC > 0 else -1
    highest = [max(exponents) for exponents in zip(*polynomial.itermonoms())]
    if 1 not in highest:
        sign, rest = polynomial.factor_list()
        factors += rest
        return sign
    index = highest.index(1)
    slope = ring({monomial[:index] + (0,) + monomial[index + 1:]: coefficient
                  for monomial, coefficient in polynomial.iterterms() if monomial[index]})
    free = ring({monomial: coefficient
                 for monomial, coefficient in polynomial.iterterms() if not monomial[index]})
    common = slope.gcd(free)
    irreducible = polynomial.exquo(common)
    if irreducible.LC < 0:
        irreducible, common = -irreducible, -common
    factors.append((irreducible, 1))
    return _split_primitive(common, factors)


# Factoring is for the reader only, and multivariate factoring (Wang's Hensel lifting, from
# random evaluation points) can grow exponentially with the generators: a generated nest with
# 4 sizes and 5 min/max terms took 244 s in `factor`, and its traffic past 60 s under some
# random states. Beyond this many generators (the shipped specs have at most 6) a form keeps
# its terms as they are, common factors pulled out.
MAX_FACTOR_GENERATORS = 6


def readable(expr: sympy.Expr) -> sympy.Expr:
    """factor(expr), or past MAX_FACTOR_GENERATORS generators (sizes, roundings, Min and Max)
    the expression with the common factors of its terms pulled out."""
    return (factor_terms_of(expr) if _generators(expr) > MAX_FACTOR_GENERATORS
            else factor(expr))


def readable_expanded(expr: sympy.Expr) -> sympy.Expr:
    """readable(sympy.expand(expr)), the same expression, read from the ring where expr is
    a rational function of at most MAX_FACTOR_GENERATORS generators (expanding keeps or
    drops them, and factor then factors what it keeps, calls included): the expansion is
    not written out as an expression for factor to read back."""
    if _generators(expr) <= MAX_FACTOR_GENERATORS:
        written = _written_out(expr)
        if written is not None:
            return _product_of_factors(written)
    return readable(expanded(expr))


def readable_cancelled(expr: sympy.Expr) -> sympy.Expr:
    """readable(cancel(expr)), factored from the pair cancel reduces within the generators
    readable factors (cancelling leaves no generator it did not have). A quotient past them
    that cancels to within them (a size that is a factor of both work and traffic, as the
    heads are in attention) is factored from its pair too, where readable would give it to
    sympy's factor, which splits a product of roundings apart by `together` first
    (flash_attention_hopper's intensities: 20-60 ms each, against 6-10)."""
    if _generators(expr) > MAX_FACTOR_GENERATORS:
        reduced = _reduced(sympy.sympify(expr))
        # the pair factored(cancel(expr)) would reduce again: cancel's quotient (milliseconds
        # to build on an intensity) is not written out only to be read back
        if (reduced is not None and reduced[0].ring.domain == ZZ
                and _pair_generators(reduced) <= MAX_FACTOR_GENERATORS):
            return _product_of_factors(reduced)
        expr = cancel(expr)
        if _generators(expr) > MAX_FACTOR_GENERATORS:
            return readable(expr)
    return factored(expr)


_COUNTED_CALLS = (sympy.Min, sympy.Max, sympy.floor, sympy.ceiling)


def _generators(expr: sympy.Expr) -> int:
    """len(expr.free_symbols) + len(expr.atoms(Min, Max, floor, ceiling)), found in one walk
    that visits each distinct node once where expr is sums, products and powers of numbers,
    symbols and such calls: sympy's free_symbols builds a set at every node and atoms walks
    the tree again, for every total finished and every part of it. Anything else (a Sum,
    whose bound variable is not free) is asked of sympy."""
    symbols, calls, seen = set(), set(), set()
    pending = [expr]
    while pending:
        node = pending.pop()
        if node.is_Symbol:
            symbols.add(node)
        elif node.is_Atom:
            if not (node.is_Number or node.is_NumberSymbol):
                return _sympys_generators(expr)
        elif node not in seen:
            seen.add(node)
            if isinstance(node, _COUNTED_CALLS):
                calls.add(node)
            elif not (node.is_Add or node.is_Mul or node.is_Pow):
                return _sympys_generators(expr)
            pending.extend(node.args)
    return len(symbols) + len(calls)


def _sympys_generators(expr: sympy.Expr) -> int:
    return len(expr.free_symbols) + len(expr.atoms(*_COUNTED_CALLS))


def _pair_generators(pair: tuple[PolyElement, PolyElement]) -> int:
    """_generators of the quotient of the pair, from the ring's generators it uses."""
    numerator, denominator = pair
    used = [generator for generator, *exponents
            in zip(numerator.ring.symbols, *numerator.monoms(), *denominator.monoms())
            if any(exponents)]
    return _sympys_generators(sympy.Tuple(*used))
