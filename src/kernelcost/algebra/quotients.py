"""Rational functions of sizes in lowest terms, as sympy.cancel writes them, without the
passes sympy makes first (factored_forms factors the pairs written out here).

sympy.cancel runs `signsimp` and `factor_terms` over the expression before it reduces the
numerator and the denominator; on a closed form of a few hundred terms that preparation is
most of its time (factor_terms builds a `Factors` of every term, each comparing a dict with
S.One through sympify). The reduced pair is canonical: coprime over the integers, the
content divided out, the sign on the numerator, so the pair reached from the raw numerator
and denominator is the one sympy reaches, and the expression built from it is the same.
The pair is written out by the ring's own arithmetic where the expression is sums, products
and integer powers of sizes, rationals and calls: sympy's sring expands them as expressions
first, which is most of its time. The pair is reduced by lowest_terms, which proves it
reduced without a multivariate gcd where it can (heugcd's integers grow exponentially with
the generators: a closed form with a score of roundings, Min and Max).

Two kinds of expression keep sympy's own path, where its preparation changes the result: a
sum left open (factor_terms takes the factors free of the counter out of the summand, N*k + N
-> N*(k + 1), which the canonical numerator does not: it expands the Sum over the summand's
terms as they stand) and floats (factor_terms rescales the coefficients over RR)."""

from __future__ import annotations

import functools

import sympy
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.core.exprtools import factor_terms
from sympy.functions.elementary.miscellaneous import MinMaxBase
from sympy.polys.domains import ZZ
from sympy.polys.orderings import lex
from sympy.polys.polyerrors import PolynomialError
from sympy.polys.rings import PolyElement, PolyRing, sring
from sympy.simplify.simplify import signsimp

from .lowest_terms import lowest_terms
from .ring_order import sorted_generators

# what sympy's preparation passes rewrite beyond the numerator's canonical form (Sum,
# Product, Integral: factor_terms reaches into the limits' expression), and what they must
# not see rewritten (Piecewise)
_SYMPYS_OWN = (sympy.Float, sympy.Piecewise, ExprWithLimits)
# a rounding, Min, Max or any other call: a generator of the polynomials, its arguments kept
_CALLS = (sympy.Function, MinMaxBase)


def cancel(expr) -> sympy.Expr:
    """sympy.cancel(expr), the same expression, in a fraction of the time where expr is a
    rational function of commuting atoms (sizes, roundings, Min and Max); anything else goes
    to sympy.cancel itself."""
    expr = sympy.sympify(expr)
    reduced = _reduced(expr)
    if reduced is None:
        return sympy.cancel(expr)
    numerator, denominator = reduced
    return numerator.as_expr() / denominator.as_expr()


def scaled(expr: sympy.Expr, factor: sympy.Rational) -> sympy.Expr:
    """cancel(factor * expr) for a rational factor, from expr's own pair in lowest terms (kept:
    an intensity over each machine's ridge): the pair times the factor's numerator and
    denominator, less the integer content they then share, is again coprime with a positive
    leading denominator, the one pair cancel reaches."""
    expr, factor = sympy.sympify(expr), sympy.sympify(factor)
    sides = _sides(expr)
    if sides is None or not factor.is_Rational or not factor:
        return cancel(factor * expr)
    numerator, denominator, numerator_content, denominator_content = sides
    common = ZZ.gcd(numerator_content * abs(int(factor.p)),
                    denominator_content * int(factor.q))
    # (pair * p / common).as_expr() is the expression of the pair's side times the rational
    # p / common, which sympy writes by multiplying it into each term of the side's sum (a
    # sum of distinct monomials has one canonical form): as_expr's building of every term
    # anew, most of a ratio a level prints on each machine, is done once a side
    return (sympy.Rational(int(factor.p), common) * numerator
            / (sympy.Rational(int(factor.q), common) * denominator))


@functools.lru_cache(maxsize=1024)
def _sides(expr: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr, int, int] | None:
    """The expressions and integer contents of expr's pair in lowest terms over the integers;
    None where scaled asks cancel instead. Kept: each machine scales the same pair."""
    reduced = _reduced(expr)
    if reduced is None or reduced[0].ring.domain != ZZ:
        return None
    numerator, denominator = reduced
    return (numerator.as_expr(), denominator.as_expr(), int(numerator.content()),
            int(denominator.content()))


@functools.lru_cache(maxsize=1024)
def _reduced(expr: sympy.Expr) -> tuple[PolyElement, PolyElement] | None:
    """expr's numerator and denominator in lowest terms over its atoms, or None where sympy's
    own cancel is asked instead."""
    if (not isinstance(expr, sympy.Expr) or expr.is_Number or not expr.is_commutative
            or expr.has(*_SYMPYS_OWN)):
        return None
    prepared = _prepared_calls(expr)
    written = _written_out(prepared)
    if written is not None:
        return written
    try:
        ring, (numerator, denominator) = sring(prepared.as_numer_denom())
    except PolynomialError:
        return None
    if not ring.ngens:
        return None  # a constant: sympy expands its prepared form
    return lowest_terms(numerator, denominator)


@functools.lru_cache(maxsize=1024)
def _written_out(expr: sympy.Expr) -> tuple[PolyElement, PolyElement] | None:
    """expr's numerator and denominator in lowest terms, written out by the ring's own
    arithmetic from expr as it stands, where expr is sums, products and integer powers of
    rationals, sizes and calls (each call a generator as sring and Poly expand it); None for
    anything else, and for a sum that is a number in disguise, where sympy's factor keeps a
    form of its own."""
    generators = _ring_generators(expr)
    if not generators:
        return None
    ring = _ring(frozenset(generators.values()))
    by_expr = dict(zip(ring.symbols, ring.gens))
    atoms = {node: by_expr[generator] for node, generator in generators.items()}
    try:
        numerator, denominator = _in_ring(expr, atoms, ring)
    except _NotWrittenOut:
        return None
    numerator, denominator = numerator or ring.zero, denominator or ring.one
    used = [any(exponents) for exponents in zip(*numerator.monoms(), *denominator.monoms())]
    if not all(used) or len(used) < ring.ngens:
        return None  # a generator cancelled out: sring's ring would not have it
    return lowest_terms(numerator, denominator)


def polynomial_terms(expr: sympy.Expr) -> tuple[tuple, list[tuple[tuple, sympy.Rational]]] | None:
    """expr as a polynomial in its sizes with rational coefficients: the sizes (in the
    ring's order) and its terms as (exponents, coefficient); None where it is not one, or
    holds anything but sums, products and powers of sizes and rationals."""
    written = _written_out(expr)
    if written is None:
        return None
    numerator, denominator = written
    symbols = numerator.ring.symbols
    if not denominator.is_ground or not all(symbol.is_Symbol for symbol in symbols):
        return None
    divisor = ZZ.to_sympy(denominator.LC)
    return symbols, [(exponents, ZZ.to_sympy(coefficient) / divisor)
                     for exponents, coefficient in numerator.terms()]


@functools.lru_cache(maxsize=256)
def _ring(generators: frozenset[sympy.Expr]) -> PolyRing:
    """The ring over the integers sring would build on these generators, in its order: kept,
    as the forms of one spec share their sizes, and sympy orders generators by their text."""
    return PolyRing(sorted_generators(generators), ZZ, lex)


class _NotWrittenOut(Exception):
    pass


def _ring_generators(expr: sympy.Expr) -> dict[sympy.Expr, sympy.Expr] | None:
    """Each size and call in expr, with the generator sring makes of it (a call with its
    arguments expanded); None where expr holds anything but sums, products, integer powers,
    rationals, sizes and calls."""
    generators = {}
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.is_Symbol:
            generators[node] = node
        elif node.is_Add or node.is_Mul:
            stack.extend(node.args)
        elif node.is_Pow and node.exp.is_Integer:
            stack.append(node.base)
        elif isinstance(node, _CALLS) and node.free_symbols:
            expanded = node.expand()
            if not isinstance(expanded, _CALLS):
                return None
            generators[node] = expanded
        elif not node.is_Rational:
            return None
    return generators


def _in_ring(node: sympy.Expr, atoms, ring) -> tuple[PolyElement | None, PolyElement | None]:
    """node as a numerator and a denominator in ring (not in lowest terms), a denominator of
    1 as None: most factors and terms have one, and a product or sum with it is a new
    polynomial each time."""
    if node in atoms:
        return atoms[node], None
    if node.is_Rational:
        return ring(int(node.p)), None if node.q == 1 else ring(int(node.q))
    if node.is_Mul:
        numerator: PolyElement | None = None
        denominator: PolyElement | None = None
        for argument in node.args:
            top, bottom = _in_ring(argument, atoms, ring)
            numerator = top if numerator is None else numerator * top
            if bottom is not None:
                denominator = bottom if denominator is None else denominator * bottom
        return numerator, denominator
    if node.is_Pow:
        top, bottom = _in_ring(node.base, atoms, ring)
        power = int(node.exp)
        if power < 0:
            top, bottom, power = bottom, top, -power
        return (ring.one if top is None else top**power,
                None if bottom is None else bottom**power)
    numerator, denominator = None, None
    for argument in node.args:
        top, bottom = _in_ring(argument, atoms, ring)
        numerator, denominator = _added(numerator, denominator, top, bottom)
    assert numerator is not None  # a sum has terms
    if numerator.is_ground and (denominator is None or denominator.is_ground):
        raise _NotWrittenOut  # a number in disguise
    return numerator, denominator


def _added(numerator, denominator, top, bottom):
    """numerator/denominator + top/bottom over one denominator (None: 1, and no sum yet for
    the numerator): the least common multiple where both are terms (the usual 1/(2*T)
    beside 1/T), else their product."""
    if numerator is None:
        return top, bottom
    if denominator == bottom:  # both 1, or equal
        return numerator + top, denominator
    if denominator is None:
        return numerator * bottom + top, bottom
    if bottom is None:
        return numerator + top * denominator, denominator
    if len(denominator) == 1 and len(bottom) == 1:
        common = denominator.lcm(bottom)
        return (numerator * common.exquo(denominator) + top * common.exquo(bottom), common)
    return numerator * bottom + top * denominator, denominator * bottom


def _prepared_calls(expr: sympy.Expr) -> sympy.Expr:
    """expr as sympy.cancel's passes leave it where it holds a call (a rounding, Min, Max):
    they reach into the arguments, as the sums around the call allow (ceiling(N/(N - M))
    alone becomes ceiling(-N/(M - N)), but not inside a sum they turned over first), and
    the call is a generator of the polynomials, so its form is part of the result. A call
    the passes leave as it is alone they leave as it is anywhere (a sum turned over around
    it only keeps them out), so the passes over the whole, most of sympy.cancel's time,
    run only where a call alone changes; without one they change nothing the pair in
    lowest terms keeps."""
    if all(_prepared(call) == call for call in expr.atoms(*_CALLS)):
        return expr
    return _prepared(expr)


# kept: a call recurs in most forms of a spec (ceiling(S/Bc) in each count, traffic and
# intensity), and each cancel of one asks whether the passes change it
@functools.lru_cache(maxsize=1024)
def _prepared(expr: sympy.Expr) -> sympy.Expr:
    return factor_terms(signsimp(expr), radical=True)


def expanded(expr: sympy.Expr) -> sympy.Expr:
    """sympy.expand(expr), the same expression, multiplied out in the ring where expr is sums,
    products and integer powers of rationals, sizes and calls over a denominator of one term
    (expand distributes such a denominator over the terms, as the term-by-term quotients
    here do; a denominator of several terms it keeps whole, and that goes to sympy)."""
    generators = _ring_generators(expr) if expr.is_commutative else None
    if not generators:
        return sympy.expand(expr)
    ring = _ring(frozenset(generators.values()))
    by_expr = dict(zip(ring.symbols, ring.gens))
    try:
        numerator, denominator = _in_ring(
            expr, {node: by_expr[generator] for node, generator in generators.items()}, ring)
    except _NotWrittenOut:
        return sympy.expand(expr)
    assert numerator is not None  # a product or a sum has a numerator
    if denominator is not None and len(denominator) != 1:
        return sympy.expand(expr)
    (lowest, divisor), = (denominator or ring.one).terms()
    return sympy.Add(*[
        sympy.Rational(int(coefficient), int(divisor)) * sympy.Mul(*[
            symbol**(power - below) for symbol, power, below
            in zip(ring.symbols, exponents, lowest, strict=True) if power != below])
        for exponents, coefficient in numerator.terms()])
