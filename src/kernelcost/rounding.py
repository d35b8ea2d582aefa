"""floor and ceiling of size expressions, as sympy builds them, without the questions sympy
asks first.

sympy 1.14's floor and ceiling ask of a positive argument whether it lies in (0, 1] or
(1, 2], where the rounding would be a constant: two to four relations through the
assumption system, some 4 ms each, before anything else (`ceiling(n/2162688)`, a grid's
busiest SM). Where the rounding takes two values at the witness sizes it is no constant, so
those questions have no answer to give, and the rest of sympy's evaluation is done here: an
integer argument is its own rounding, integer terms of a sum come out, and what is left
stays inside, unevaluated. Whether a term is an integer is asked of sympy only where it is
one at every witness. Arguments the witness plans do not evaluate, and constants, go to
sympy as they are."""

from __future__ import annotations

import sympy

from . import rational_eval
from .witnesses import planned_value, sizes_of, witness_values


def ceiling(value) -> sympy.Expr:
    return _rounded(sympy.ceiling, sympy.sympify(value))


def floor(value) -> sympy.Expr:
    return _rounded(sympy.floor, sympy.sympify(value))


def _rounded(kind, argument: sympy.Expr) -> sympy.Expr:
    sizes = sizes_of(argument)
    values = None if sizes is None else _witness_values(argument, sizes)
    if values is None or len({_round(kind, value) for value in values}) < 2:
        return kind(argument)
    if _integer(argument, sizes, values):
        return argument
    whole, number, rest = sympy.S.Zero, sympy.S.Zero, sympy.S.Zero
    for term in sympy.Add.make_args(argument):
        if _integer(term, sizes):
            whole += term
        elif term.is_number:
            number += term
        else:
            rest += term
    if not rest:
        return whole + kind(number)
    rest += number
    if isinstance(rest, (sympy.floor, sympy.ceiling)):
        return whole + rest
    return whole + kind(rest, evaluate=False)


def _witness_values(expr: sympy.Expr, sizes) -> list[rational_eval.Value] | None:
    """expr at every witness point of the sizes; None where a plan does not evaluate it."""
    plan = rational_eval.compiled(expr, sizes)
    values = [planned_value(plan, point) for point in witness_values(len(sizes))]
    return None if any(value is None for value in values) else values


def _round(kind, value: rational_eval.Value) -> int:
    numerator, denominator = value
    return -(-numerator // denominator) if kind is sympy.ceiling else numerator // denominator


def _integer(expr: sympy.Expr, sizes, values=None) -> bool:
    """sympy's is_integer, asked only where the witnesses found no fraction."""
    if expr.is_number:
        return bool(expr.is_integer)
    values = values if values is not None else _witness_values(expr, sizes)
    if values is not None and any(numerator % denominator for numerator, denominator in values):
        return False
    return bool(expr.is_integer)
