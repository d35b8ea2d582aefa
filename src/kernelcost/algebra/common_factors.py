"""sympy's factor_terms of an expanded sum, read off its terms where they are integers times
powers of sizes and calls.

`readable` gives factor_terms a total multiplied out past six generators (flash_attention_hopper:
nine totals); sympy then rebuilds every term through `as_content_primitive`, descends into every
call of every term (the same calls recur in most terms) and gives the terms to gcd_terms, which
builds a `Term` and its `Factors` for each to find their common factor: 1 to 3 ms a total. For
such terms that is read off them here: the content (the integer dividing every coefficient) and
the sizes and calls in the numerator, or the denominator, of every term at their powers nearest
0, each call written once as factor_terms writes it (it reaches into the arguments, as in
ceiling(-i0/W + Max(...)/W) -> ceiling((-i0 + Max(...))/W)); the result is built as gcd_terms
and factor_terms build it (2*N*(3*M + 2*T), the content unevaluated in front). A fractional
content, a sum of negative terms (factor_terms takes -1 out), a rational coefficient, a power
that is not an integer, a power of a sum or a call written as no call go to sympy's own
factor_terms. The result is sympy's own (a property test compares the two)."""

from __future__ import annotations

import functools

import sympy
from sympy.core.exprtools import factor_terms
from sympy.core.mul import _keep_coeff
from sympy.functions.elementary.miscellaneous import MinMaxBase

_CALLS = (sympy.Function, MinMaxBase)


def factor_terms_of(expr: sympy.Expr) -> sympy.Expr:
    """sympy.factor_terms(expr), the same expression. A product or power is walked as
    factor_terms walks it, each sum in it read off its terms (an intensity past six
    generators: the work's sum over the traffic's, 2 ms each in sympy's gcd_terms)."""
    if expr.is_Atom:
        return expr
    if isinstance(expr, _CALLS):
        return _rewritten(expr)
    if expr.is_Pow:
        arguments = tuple(factor_terms_of(argument) for argument in expr.args)
        return expr if arguments == expr.args else expr.func(*arguments)
    if expr.is_Mul:
        return _product(expr)
    if not expr.is_Add:
        return factor_terms(expr)
    content, primitive = expr.primitive()
    if not content.is_Integer:  # factor_terms keeps a fraction's denominator its own way
        return factor_terms(expr)
    found = [_read(term) for term in primitive.args]
    read = [term for term in found if term is not None]
    if len(read) < len(found) or not any(term[1] > 0 for term in read):
        return factor_terms(expr)  # factor_terms takes -1 out of a sum of negative terms
    # each term as factor_terms rebuilds it: itself, unless a call in it is written anew
    terms = [term if not rewritten else _term(coefficient, powers)
             for term, (rewritten, coefficient, powers) in zip(primitive.args, read)]
    common = _common_factor([powers for _, _, powers in read])
    if common is sympy.S.One:  # gcd_terms gives the sum of the terms back
        product = sympy.Add(*terms) if any(term[0] for term in read) else primitive
    else:  # gcd_terms: the common factor times the sum of each term over it
        product = common * sympy.Add(*[term / common for term in terms])
    if content == 1:
        return product
    if product.is_Add:
        return sympy.Mul(content, product, evaluate=False)
    return sympy.Mul._from_args((content, *product.args))


def _product(expr: sympy.Expr) -> sympy.Expr:
    """factor_terms of a product: its content kept in front (_keep_coeff) of the product of
    each factor's factor_terms; sympy's own where the primitive part is a sum."""
    content, primitive = expr.as_content_primitive(radical=False, clear=False)
    if primitive.is_Add:
        return factor_terms(expr)
    if primitive.args:
        primitive = primitive.func(*[factor_terms_of(factor) for factor in primitive.args])
    return _keep_coeff(content, primitive, clear=False, sign=True)


def _read(term: sympy.Expr) -> tuple[bool, int, dict[sympy.Expr, int]] | None:
    """Whether factor_terms writes a call of the term anew, the term's integer coefficient
    and each size and call with its integer power (each call as factor_terms writes it);
    None for anything else."""
    coefficient, rest = term.as_coeff_Mul()
    if not coefficient.is_Integer:
        return None
    rewritten = False
    powers: dict[sympy.Expr, int] = {}
    for factor in sympy.Mul.make_args(rest):
        if factor is sympy.S.One:
            continue
        base, exponent = (factor.base, factor.exp) if factor.is_Pow else (factor, sympy.S.One)
        if not exponent.is_Integer:
            return None
        if isinstance(base, _CALLS):
            written = _rewritten(base)
            if not isinstance(written, _CALLS):
                return None
            rewritten, base = rewritten or written != base, written
        elif not base.is_Symbol:
            return None
        powers[base] = powers.get(base, 0) + int(exponent)
    return rewritten, int(coefficient), powers


def _term(coefficient: int, powers: dict[sympy.Expr, int]) -> sympy.Expr:
    return coefficient * sympy.Mul(*[base**power for base, power in powers.items()])


def _common_factor(terms: list[dict[sympy.Expr, int]]) -> sympy.Expr:
    """The product of the sizes and calls in the numerator of every term, or in the
    denominator of every term, each at its power nearest 0 (1 where there is none), as
    gcd_terms finds it."""
    least = terms[0]
    for powers in terms[1:]:
        least = {base: _nearer_zero(power, powers[base]) for base, power in least.items()
                 if power * powers.get(base, 0) > 0}  # in the numerators of all, or denominators
    return sympy.Mul(*[base**power for base, power in least.items()])


def _nearer_zero(power: int, other: int) -> int:
    return power if abs(power) <= abs(other) else other


# kept: a call recurs in most terms of a total and in several totals
@functools.lru_cache(maxsize=1024)
def _rewritten(call: sympy.Expr) -> sympy.Expr:
    """The call as factor_terms writes it (it reaches into the arguments)."""
    return factor_terms(call)
