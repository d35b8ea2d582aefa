"""Rational functions of sizes in lowest terms and factored, as sympy.cancel and sympy.factor
write them, without the passes sympy makes first.

sympy.cancel runs `signsimp` and `factor_terms` over the expression before it reduces the
numerator and the denominator; on a closed form of a few hundred terms that preparation is
most of its time (factor_terms builds a `Factors` of every term, each comparing a dict with
S.One through sympify). The reduced pair is canonical: coprime over the integers, the
content divided out, the sign on the numerator, so the pair reached from the raw numerator
and denominator is the one sympy reaches, and the expression built from it is the same.
sympy.factor first brings the expression over a common denominator (`together`, gcd_terms
again); the irreducible factors of the numerator and of the denominator are unique, each with
a positive leading coefficient, so factoring the two polynomials directly gives its
product.

Two kinds of expression keep sympy's own path, where its preparation changes the result: a
sum left open (factor_terms takes the factors free of the counter out of the summand, N*k + N
-> N*(k + 1), which the canonical numerator does not: it expands the Sum over the summand's
terms as they stand) and floats (factor_terms rescales the coefficients over RR)."""

from __future__ import annotations

import functools

import sympy
from sympy.concrete.expr_with_limits import ExprWithLimits
from sympy.core.exprtools import factor_terms
from sympy.core.mul import _keep_coeff
from sympy.polys.domains import ZZ
from sympy.polys.polyerrors import GeneratorsNeeded, PolynomialError
from sympy.polys.rings import PolyElement, sring
from sympy.simplify.simplify import signsimp

# what sympy's preparation passes rewrite beyond the numerator's canonical form (Sum,
# Product, Integral: factor_terms reaches into the limits' expression), and what they must
# not see rewritten (Piecewise)
_SYMPYS_OWN = (sympy.Float, sympy.Piecewise, ExprWithLimits)


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
    reduced = _reduced(expr)
    if reduced is None or not factor.is_Rational or not factor or reduced[0].ring.domain != ZZ:
        return cancel(factor * expr)
    numerator, denominator = reduced[0] * int(factor.p), reduced[1] * int(factor.q)
    common = ZZ.gcd(numerator.content(), denominator.content())
    return (numerator.quo_ground(common).as_expr()
            / denominator.quo_ground(common).as_expr())


@functools.lru_cache(maxsize=1024)
def _reduced(expr: sympy.Expr) -> tuple[PolyElement, PolyElement] | None:
    """expr's numerator and denominator in lowest terms over its atoms, or None where sympy's
    own cancel is asked instead."""
    if (not isinstance(expr, sympy.Expr) or expr.is_Number or not expr.is_commutative
            or expr.has(*_SYMPYS_OWN)):
        return None
    try:
        ring, (numerator, denominator) = sring(_prepared_calls(expr).as_numer_denom())
    except PolynomialError:
        return None
    if not ring.ngens:
        return None  # a constant: sympy expands its prepared form
    return numerator.cancel(denominator)


def _prepared_calls(expr: sympy.Expr) -> sympy.Expr:
    """expr with each outermost call (a rounding, Min, Max) as sympy's passes leave it:
    they reach into the arguments (ceiling(N/(N - M)) becomes ceiling(-N/(M - N))), and the
    call is a generator of the polynomials, so its form is part of the result."""
    calls = {}
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, sympy.Function):
            calls[node] = factor_terms(signsimp(node), radical=True)
        else:
            stack.extend(node.args)
    return expr.xreplace(calls) if calls else expr


def factor(expr) -> sympy.Expr:
    """sympy.factor(expr), the same expression, where expr is a rational function of sizes
    with exact coefficients; anything else goes to sympy.factor itself (floats factor
    differently over RR). Roundings, Min and Max go there too: as generators of one
    polynomial they can send the multivariate factoring (Wang's Hensel lifting, with random
    evaluation points) into minutes, where sympy's together first splits the polynomial into
    smaller factors (a generated nest with five min/max bounds: over 60 s)."""
    expr = sympy.sympify(expr)
    if (not isinstance(expr, sympy.Expr) or expr.is_number or not expr.is_commutative
            or expr.has(*_SYMPYS_OWN)):
        return sympy.factor(expr)
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
    to read back. Where a part's atoms are not all sizes, or its coefficients not integers,
    factor(cancel(expr)) itself."""
    expr = sympy.sympify(expr)
    reduced = _reduced(expr)
    if (reduced is None or reduced[0].ring.domain != ZZ
            or not all(generator.is_Symbol for generator in reduced[0].ring.symbols)):
        return factor(cancel(expr))
    coefficient, factors = sympy.Integer(1), []
    for part, sign in zip(reduced, (1, -1)):
        if part.is_ground:
            coefficient *= ZZ.to_sympy(part.LC) ** sign
            continue
        part_coefficient, part_factors = part.factor_list()
        coefficient *= ZZ.to_sympy(part_coefficient) ** sign
        factors += [irreducible.as_expr() ** (sign * power)
                    for irreducible, power in part_factors]
    return _keep_coeff(coefficient, sympy.Mul(*factors))


# Factoring is for the reader only, and multivariate factoring (Wang's Hensel lifting, from
# random evaluation points) can grow exponentially with the generators: a generated nest with
# 4 sizes and 5 min/max terms took 244 s in `factor`, and its traffic past 60 s under some
# random states. Beyond this many generators (the shipped specs have at most 6) a form keeps
# its terms as they are, common factors pulled out.
MAX_FACTOR_GENERATORS = 6


def readable(expr: sympy.Expr) -> sympy.Expr:
    """factor(expr), or past MAX_FACTOR_GENERATORS generators (sizes, roundings, Min and Max)
    the expression with the common factors of its terms pulled out."""
    return factor_terms(expr) if _generators(expr) > MAX_FACTOR_GENERATORS else factor(expr)


def readable_cancelled(expr: sympy.Expr) -> sympy.Expr:
    """readable(cancel(expr)), factored from the pair cancel reduces within the generators
    readable factors (cancelling leaves no generator it did not have)."""
    if _generators(expr) > MAX_FACTOR_GENERATORS:
        return readable(cancel(expr))
    return factored(expr)


def _generators(expr: sympy.Expr) -> int:
    return len(expr.free_symbols) + len(expr.atoms(sympy.Min, sympy.Max, sympy.floor,
                                                   sympy.ceiling))
