"""sympy's text of an expression, in lex order or in str's own, the same characters, faster
where a sum's terms are ordered by their monomials alone.

sympy orders a sum's terms by a key of three parts: the monomial over the bases of all
terms, then the non-commuting factors, then the coefficient as a complex number; and it
turns every coefficient into a complex number first, through evalf, a third of the time a
closed form of sizes takes to print. Where no two terms share a monomial the first part
decides alone, so the terms are sorted by it here; anything else (a repeated monomial, a
numeric or non-commuting factor) is left to sympy. str's own order is lex order but for a
number beside a number times a form, which it writes number first (1 - 2*x). While
kernelcost computes (sympy_scope) this order is on Add: the printers ask it of every sum, and a
product's factors are ordered by sort keys that ask it of every sum among them.

Every printer asks the precedence of each product it meets (whether to bracket it), and
sympy answers by building the product's negation to compare it with the product (the test
is for zoo*x, its own negation), then its assumptions: two fifths of printing a closed form.
While kernelcost computes, sympy's table holds an answer read off the coefficient for a product of
rationals and forms, which cannot be its own negation; the same answer, as sympy's for any
other product."""

from __future__ import annotations

import sympy
from sympy.core.expr import Expr
from sympy.core.exprtools import decompose_power
from sympy.core.mul import _keep_coeff
from sympy.core.sorting import default_sort_key
from sympy.printing import precedence as _precedence_module
from sympy.printing.precedence import PRECEDENCE, precedence
from sympy.printing.str import StrPrinter

from .sympy_patch import Patch, Slot


def lex_text(expr: sympy.Basic) -> str:
    """sympy.sstr(expr, order="lex"), the same text."""
    return _MonomialPrinter({"order": "lex"}).doprint(expr)


def text(expr: sympy.Basic) -> str:
    """str(expr), the same text."""
    return _MonomialPrinter().doprint(expr)


# The text of each form printed, by order: one command prints many forms that share their
# factors (each machine's rates times the same sums and roundings). The text of a form is
# the same wherever it stands (a float's digits depend on its depth, but inside a form a
# float is never at the top).
_PRINTED: dict[tuple, str] = {}
_MOST_PRINTED = 8192


class _MonomialPrinter(StrPrinter):
    def _print(self, expr, **kwargs) -> str:
        if kwargs or not isinstance(expr, sympy.Basic) or expr.is_Atom:
            return super()._print(expr, **kwargs)
        key = (self.order, expr)
        printed = _PRINTED.get(key)
        if printed is None:
            printed = super()._print(expr)
            if len(_PRINTED) < _MOST_PRINTED:
                _PRINTED[key] = printed
        return printed

    def _print_Mul(self, expr) -> str:
        """StrPrinter._print_Mul(expr), the same text: where the product is evaluated, commutes
        and its coefficient is rational, its factors are sorted (by sympy's sort key) only
        within the numerator and within the denominator, the two lists the text writes; the
        rational, first in sympy's order, is first in each. Anything else is sympy's."""
        parts = _numerator_and_denominator(expr) if self.order not in ("old", "none") else None
        if parts is None:
            return super()._print_Mul(expr)
        sign, a, b, pow_paren = parts
        prec = precedence(expr)
        a_str = [self.parenthesize(x, prec, strict=False) for x in a]
        b_str = [self.parenthesize(x, prec, strict=False) for x in b]
        for item in pow_paren:  # a power -1 of a product or power: bracketed (sympy's #14160)
            if item.base in b:
                b_str[b.index(item.base)] = f"({b_str[b.index(item.base)]})"
        if not b:
            return sign + "*".join(a_str)
        if len(b) == 1:
            return sign + "*".join(a_str) + "/" + b_str[0]
        return sign + "*".join(a_str) + "/(" + "*".join(b_str) + ")"


def _numerator_and_denominator(expr: sympy.Mul) -> tuple | None:
    """(sign, numerator items, denominator items, powers -1 to bracket) as StrPrinter's
    _print_Mul gathers them from the ordered factors, or None where it would not (a product
    left unevaluated, a factor that does not commute, a coefficient that is not rational)."""
    args = expr.args
    if args[0] is sympy.S.One or any(
            isinstance(a, sympy.Number) or (a.is_Pow and all(ai.is_Integer for ai in a.args))
            for a in args[1:]):
        return None  # sympy's unevaluated product
    if not all(a.is_commutative for a in args):
        return None
    c, e = expr.as_coeff_Mul()
    if not c.is_Rational:
        return None
    sign = ""
    if c.p < 0:
        expr, sign = _keep_coeff(-c, e), "-"
    rational, numerator, denominator = [], [], []
    for item in sympy.Mul.make_args(expr):
        if isinstance(item, sympy.Pow) and bool(item.exp.as_coeff_Mul()[0] < 0):
            denominator.append(item)
        elif isinstance(item, sympy.Number):
            rational.append(item)
        else:
            numerator.append(item)
    if len(rational) > 1 or not all(item.is_Rational for item in rational):
        return None  # numbers sympy orders among themselves
    if len(numerator) > 1:
        numerator.sort(key=lambda item: item.sort_key(order=None))
    if len(denominator) > 1:
        denominator.sort(key=lambda item: item.sort_key(order=None))
    a: list[sympy.Expr] = []
    b: list[sympy.Expr] = []
    for number in rational:  # a number sorts first: numerator p, denominator q
        if number.p != 1:
            a.append(sympy.Rational(number.p))
        if number.q != 1:
            b.append(sympy.Rational(number.q))
    a.extend(numerator)
    pow_paren = []
    for item in denominator:
        if item.exp is not sympy.S.NegativeOne:
            b.append(_inverted(item))
        else:
            if len(item.args[0].args) != 1 and isinstance(item.base, (sympy.Mul, sympy.Pow)):
                pow_paren.append(item)
            b.append(item.base)
    return sign, a or [sympy.S.One], b, pow_paren


def _inverted(item: sympy.Pow) -> sympy.Expr:
    """StrPrinter._print_Mul's apow: the power with its exponent negated, unevaluated."""
    base, exponent = item.as_base_exp()
    eargs = list(sympy.Mul.make_args(exponent))
    if eargs[0] is sympy.S.NegativeOne:
        eargs = eargs[1:]
    else:
        eargs[0] = -eargs[0]
    return item.func(base, sympy.Mul._from_args(eargs), evaluate=False)


def _ordered_terms(expr: sympy.Add, order=None, data=False) -> list[sympy.Expr]:
    """Expr.as_ordered_terms(expr, order, data), the same list: str's number first beside a
    negative term as sympy spots it, else by the monomials alone in lex order where they
    decide it, else sympy's own."""
    if data or order not in (None, "lex"):
        return _SYMPY_ORDERED_TERMS(expr, order=order, data=data)
    ordered = _number_first(expr) if order is None else None
    if ordered is None:
        ordered = _by_monomials(expr)
    if ordered is None:
        return _SYMPY_ORDERED_TERMS(expr, order=order, data=data)
    return ordered


def _number_first(expr: sympy.Expr) -> list[sympy.Expr] | None:
    """Expr.as_ordered_terms' own case of str's order: a positive number beside a number
    times a form, the number negative (1 - 2*x), as it tests it: the two terms, the number
    first; None for any other sum (lex order then, as in sympy's next step)."""
    terms = sympy.Add.make_args(expr)
    if len(terms) != 2:
        return None
    first, second = sorted(terms, key=_not_a_number)
    if not (isinstance(first, _NUMBERS) and isinstance(second, sympy.Mul)):
        return None
    factors = sorted(sympy.Mul.make_args(second), key=_not_a_number)
    if (len(factors) == 2 and isinstance(factors[0], sympy.Number) and first.is_positive
            and factors[0].is_negative):
        return [first, second]
    return None


_NUMBERS = (sympy.Number, sympy.NumberSymbol)


def _not_a_number(term: sympy.Expr) -> bool:
    return not isinstance(term, _NUMBERS)


def _by_monomials(expr: sympy.Expr) -> list[sympy.Expr] | None:
    """The terms of expr in as_ordered_terms("lex") order, from the exponents of each term
    over the bases of them all (as Expr.as_terms decomposes them, a number that has a complex
    value part of the coefficient: sqrt(3), I, -1 + sqrt(3)*I); None where another number
    is a factor or a factor does not commute, or two terms share a monomial: sympy's own
    order then, which reads the coefficients."""
    terms = []
    bases: set[sympy.Expr] = set()
    for term in sympy.Add.make_args(expr):
        powers = {}
        rest = term.as_coeff_Mul()[1]
        if rest is not sympy.S.One:
            for factor in sympy.Mul.make_args(rest):
                if factor.is_number and _has_complex_value(factor):
                    continue  # as_terms multiplies it into the coefficient
                if factor.is_number or not factor.is_commutative:
                    return None
                base, exponent = decompose_power(factor)
                powers[base] = exponent
        bases.update(powers)
        terms.append((term, powers))
    generators = sorted(bases, key=default_sort_key)
    keys = [tuple(-powers.get(base, 0) for base in generators) for _, powers in terms]
    if len(set(keys)) < len(keys):
        return None
    return [term for _, (term, _) in sorted(zip(keys, terms), key=lambda pair: pair[0])]


def _has_complex_value(number: sympy.Expr) -> bool:
    """Whether complex(number) surely gives a value (as_terms then takes the number into the
    coefficient): rationals, I, pi and the like, positive rationals to rational powers, sums
    and products of them, and their integer powers (negative ones of a nonzero number)."""
    if number.is_Rational or number is sympy.I or isinstance(number, sympy.NumberSymbol):
        return True
    if number.is_Pow:
        base, exponent = number.args
        if base.is_Rational:
            return bool(base > 0 and exponent.is_Rational)
        return bool(exponent.is_Integer and _has_complex_value(base)
                    and (exponent > 0 or base.is_zero is False))
    if number.is_Add or number.is_Mul:
        return all(_has_complex_value(argument) for argument in number.args)
    return False


def _precedence_of_product(product: sympy.Expr) -> int:
    """sympy's precedence_Mul(product): a function argument of lower precedence makes it a
    product's, else a coefficient that is a negative number makes it a sum's."""
    arguments = product.args
    if any(hasattr(argument, "precedence") and isinstance(argument, sympy.Function)
           and argument.precedence < PRECEDENCE["Mul"] for argument in arguments):
        return PRECEDENCE["Mul"]
    if any(argument is sympy.zoo or (argument.is_Number and not argument.is_Rational)
           for argument in arguments):
        return _SYMPY_PRECEDENCE_MUL(product)  # a float, an infinity, zoo: sympy's own test
    first = arguments[0]
    return PRECEDENCE["Add"] if first.is_Rational and first.p < 0 else PRECEDENCE["Mul"]


# sympy's own, which the replacement calls; a second copy of this module finds it there
_SYMPY_PRECEDENCE_MUL = getattr(_precedence_module.PRECEDENCE_FUNCTIONS["Mul"], "wraps",
                                _precedence_module.PRECEDENCE_FUNCTIONS["Mul"])
_precedence_of_product.wraps = _SYMPY_PRECEDENCE_MUL


# sympy's own order of a sum's terms, which the replacement falls back on
_SYMPY_ORDERED_TERMS = Expr.as_ordered_terms


# in sympy's place while kernelcost computes (sympy_scope): the product's precedence in
# sympy's table, the order of a sum's terms on Add for every printer (and for sort_key, which
# orders a product's factors by their terms)
PATCHES = (Patch(_precedence_module.PRECEDENCE_FUNCTIONS, "Mul", _precedence_of_product,
                 Slot.ITEM),
           Patch(sympy.Add, "as_ordered_terms", _ordered_terms))
