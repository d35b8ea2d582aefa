"""Quotients cancelled with each Min and Max held as a symbol meanwhile: sympy's cancel takes
them as generators, but its passes rewrite their arguments and re-evaluate them, asking every
pair of arguments again (the rate count / (Max(...) + launch) spent a third of its machine's
cost there)."""

from __future__ import annotations

import sympy
from sympy.core.basic import _args_sortkey

from .quotients import cancel


def cancelled(expr: sympy.Expr) -> sympy.Expr:
    """sympy.cancel(expr) with each Min and Max held as a symbol meanwhile, so kept as it is:
    to cancel they are generators, but cancel's passes (factor_terms, expand) rewrite their
    arguments and re-evaluate them, asking every pair of arguments again. A number times
    powers of sizes and lattices is in lowest terms already (items per second: b/Max(...))."""
    return cancelled_quotient(expr, sympy.S.One)


def cancelled_quotient(numerator: sympy.Expr, denominator: sympy.Expr) -> sympy.Expr:
    """cancelled(numerator / denominator), the quotient built only once its Min and Max are
    held as symbols: dividing by a sum that holds one asks each of the sum's terms whether
    it is infinite, questions that run through every argument of the Min or Max (a rate
    count / (Max(...) + launch))."""
    parts = (numerator, denominator)
    if all(_power_of_atom(factor) for part in parts for factor in sympy.Mul.make_args(part)):
        return numerator / denominator
    lattices = sorted(set().union(*(part.atoms(sympy.Min, sympy.Max) for part in parts)),
                      key=sympy.default_sort_key)
    if not lattices:
        return cancel(numerator / denominator)
    held = dict(zip(lattices, _holders(len(lattices), parts)))
    result = cancel(numerator.xreplace(held) / denominator.xreplace(held))
    back = {symbol: lattice for lattice, symbol in held.items()}
    if not result.is_Mul or any(lattice.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan)
                                for lattice in lattices):
        return result.xreplace(back)
    return _product_put_back(result, back)


# The symbols that hold the Min and Max, the same ones for every quotient: cancel's answer for
# work / Max(...) is then found again for each machine (held work / h0), whose Max differs.
_HOLDERS: list[sympy.Dummy] = []


def _holders(count: int, parts: tuple[sympy.Expr, ...]) -> list[sympy.Dummy]:
    """A symbol for each of `count` lattices, in the order their creation gives them, as
    fresh ones would be: the shared ones where the parts hold no other Dummy (which fresh
    ones would follow in that order), else fresh ones."""
    if any(symbol.is_Dummy for part in parts for symbol in part.free_symbols):
        return [sympy.Dummy() for _ in range(count)]
    while len(_HOLDERS) < count:
        _HOLDERS.append(sympy.Dummy())
    return _HOLDERS[:count]


def _product_put_back(product: sympy.Mul, back: dict[sympy.Dummy, sympy.Expr]) -> sympy.Expr:
    """product.xreplace(back) for a product in lowest terms whose symbols stand for finite
    Min and Max: each factor put back, and the factors, which no longer share a base,
    ordered as sympy orders them. Rebuilding the product through sympy would build each sum
    to a negative power anew, which asks each term of a two-term sum whether it is
    infinite, questions that run through every argument of the Min or Max (the rate
    count / (Max(...) + launch): a third of its machine's cost)."""
    coefficient, factors = product.as_coeff_mul()
    restored = [sympy.Pow(factor.base.xreplace(back), factor.exp, evaluate=False)
                if factor.is_Pow and factor.base.is_Add else factor.xreplace(back)
                for factor in factors]
    if any(factor.is_Number or factor.is_Mul for factor in restored):
        return product.xreplace(back)  # a factor that sympy would merge
    restored.sort(key=_args_sortkey)
    return sympy.Mul._from_args([coefficient, *restored] if coefficient != 1 else restored)


def _power_of_atom(factor: sympy.Expr) -> bool:
    """A rational, or a size, Min or Max to an integer power."""
    if factor.is_Pow and factor.exp.is_Integer:
        factor = factor.base
    return factor.is_Rational or factor.is_Symbol or isinstance(factor, (sympy.Min, sympy.Max))
