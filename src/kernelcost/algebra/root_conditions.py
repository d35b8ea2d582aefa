"""Where a closed-form root is a positive real number, as a condition on the sizes and the
target: the signs of its factors decided where they can be (by the witnesses, by a sign for
every positive value), the rest a relation with one symbol alone on its left (T > 2*R), the
sizes isolated before the target. sympy is not asked to decide what takes both signs."""

from __future__ import annotations

import functools

import sympy

from ..base.symbols import CAPACITY, RIDGE
from .axis_signs import changes_sign, sign_for_every_positive
from .together_once import together
from .witnesses import signs_at_witnesses


def positive_real_condition(root: sympy.Expr) -> sympy.Basic:
    """Where `root` is a positive real number, as simply as the signs of its factors allow:
    R*T/(T - 2*R) with R, T > 0 gives T > 2*R; a root in one ridge positive at every ridge,
    true."""
    sign = sign_for_every_positive(root)
    if sign is not None:
        return sympy.true if sign > 0 else sympy.false
    conditions = [base >= 0 for base in _even_root_radicands(root)]
    # where sympy, asked first, proves no sign, the witnesses would change nothing here
    if not (_asked_first(root) and root.is_positive is None) and not _both_signs(root):
        if root.is_positive:
            return sympy.And(*conditions) if conditions else sympy.true
        if root.is_positive is False and root.is_real:
            return sympy.false
    numerator, denominator = sympy.fraction(together(root))
    sign = 1
    undecided = []
    for part in (numerator, denominator):
        coefficient, factors = _factors(part)
        if coefficient.is_negative:
            sign = -sign
        for factor, multiplicity in factors:
            undecided_sign = _sign_unknown(factor) or _both_signs(factor)
            if not undecided_sign and factor.is_positive:
                continue
            if not undecided_sign and factor.is_negative:
                sign *= (-1) ** multiplicity
            elif multiplicity % 2 == 1:
                undecided.append(factor)
            else:
                conditions.append(sympy.Ne(factor, 0))
    if not undecided:
        positive = sympy.true if sign > 0 else sympy.false
        return sympy.And(positive, *conditions)
    product = sympy.Mul(*undecided)
    relation = _relation(sympy.StrictGreaterThan if sign > 0 else sympy.StrictLessThan,
                         product, sympy.Integer(0))
    # sympy may decide the relation outright (3 - 3*K*M < 0 is never true for positive
    # integer sizes, though K*M - 1 may be 0): a decided one is a truth value, nothing to
    # isolate, and And takes it as the condition it is
    if len(undecided) == 1 and isinstance(relation, sympy.Rel):
        relation = isolate(relation)
    return sympy.And(relation, *conditions)


# kept: the roots of a quadratic share their denominator, whose factors each root's
# condition asks
@functools.lru_cache(maxsize=256)
def _factors(expr: sympy.Expr) -> tuple[sympy.Expr, list[tuple[sympy.Expr, int]]]:
    """factor_list, or the expression as one factor where sympy cannot make it a polynomial
    (a bare number, radicals of symbols)."""
    if expr.is_number:
        return expr, []
    if beyond_square_roots(expr):
        return sympy.Integer(1), [(expr, 1)]
    try:
        return sympy.factor_list(expr)
    except sympy.PolificationFailed:
        return sympy.Integer(1), [(expr, 1)]


def beyond_square_roots(expr: sympy.Expr) -> bool:
    """Whether expr holds a cube root or beyond, or the imaginary unit (the cubic's formula in
    symbolic sizes): factoring takes each radical for a generator and outgrows any budget,
    where a square root factors as a quadratic's root does."""
    return expr.has(sympy.I) or any(
        not (exponent.is_integer or (exponent.is_Rational and exponent.q <= 2))
        for exponent in (power.exp for power in expr.atoms(sympy.Pow)))


def isolate(relation: sympy.Rel) -> sympy.Basic:
    """Write a linear relation with one symbol alone on the left: T - 2*R > 0 -> T > 2*R.
    Size parameters are isolated before the ridge or capacity symbols."""
    expression = relation.lhs - relation.rhs
    symbols = sorted(expression.free_symbols, key=lambda s: (s in (RIDGE, CAPACITY), str(s)))
    for symbol in symbols:
        if not expression.is_polynomial(symbol) or sympy.degree(expression, symbol) != 1:
            continue
        coefficient = expression.coeff(symbol)
        if not coefficient.is_number:
            continue
        rest = sympy.expand(-(expression - coefficient * symbol) / coefficient)
        # dividing by a negative coefficient turns the relation round
        relation_type = _flip(relation) if coefficient < 0 else type(relation)
        return _relation(relation_type, symbol, rest)
    return relation


def _both_signs(expr: sympy.Expr) -> bool:
    """Whether expr is negative at some witness sizes and positive at others, or changes
    sign exactly: then sympy can prove neither sign, and is not asked."""
    return len(signs_at_witnesses(expr)) == 2 or changes_sign(expr)


def _relation(kind: type[sympy.Rel], left: sympy.Expr, right: sympy.Expr) -> sympy.Basic:
    """kind(left, right) as sympy builds it, without its attempt to decide it where the
    difference takes both signs (it would stay a relation, the same one). Where sympy
    decides it, true or false, not a relation."""
    if _asked_first(left - right):
        try:
            relation = kind(left, right)
        except TypeError:  # sympy proves a side not real: left to the witnesses as before
            relation = None
        # undecided, it is the very relation that evaluate=False builds
        if isinstance(relation, sympy.Rel) or (relation is not None
                                               and not _both_signs(left - right)):
            return relation
        if relation is not None:
            return kind(left, right, evaluate=False)
    if _both_signs(left - right):
        return kind(left, right, evaluate=False)
    return kind(left, right)


def _asked_first(expr: sympy.Expr) -> bool:
    """Whether sympy's sign questions are asked of expr before the witnesses: for a formula in
    cube roots (the cubic's), whose witnesses cost sympy's evaluation of the formula at nine
    points and its expansion for a Poly, some 20 ms each, where its questions, asked anyway
    where the witnesses show no two signs, take a few. Where sympy answers neither sign, the
    witnesses change nothing, and they are not taken."""
    return beyond_square_roots(expr)


def _sign_unknown(expr: sympy.Expr) -> bool:
    """True where expr is a formula asked first (`_asked_first`) and sympy proves it neither
    positive nor negative: what `_both_signs` being true would lead to, so that it need not
    be taken. False otherwise, and then `_both_signs` decides as before."""
    return _asked_first(expr) and expr.is_positive is None and expr.is_negative is None


def _flip(relation: sympy.Rel) -> type[sympy.Rel]:
    return {sympy.StrictGreaterThan: sympy.StrictLessThan,
            sympy.StrictLessThan: sympy.StrictGreaterThan,
            sympy.GreaterThan: sympy.LessThan,
            sympy.LessThan: sympy.GreaterThan}[type(relation)]


def _even_root_radicands(expr: sympy.Expr) -> list[sympy.Expr]:
    radicands = []
    for power in expr.atoms(sympy.Pow):
        exponent = power.exp
        even_root = exponent.is_Rational and not exponent.is_integer and exponent.q % 2 == 0
        if even_root and power.base.is_nonnegative is not True:
            radicands.append(power.base)
    return radicands
