"""floor and ceiling of size expressions, as sympy builds them, without the questions sympy
asks first.

sympy 1.14's floor and ceiling ask of a positive argument whether it lies in (0, 1] or
(1, 2], where the rounding would be a constant: two to four relations through the
assumption system, some 4 ms each, before anything else (`ceiling(n/2162688)`, a grid's
busiest SM). Where the rounding takes two values at the witness sizes it is no constant, so
those questions have no answer to give, and the rest of sympy's evaluation is done here: an
integer argument is its own rounding, integer terms of a sum come out, and what is left
stays inside, unevaluated. Arguments the witness plans do not evaluate, and constants, go to
sympy as they are."""

from __future__ import annotations

import sympy

from . import rational_eval
from .witnesses import planned_value, witness_values


def ceiling(value) -> sympy.Expr:
    return _rounded(sympy.ceiling, sympy.sympify(value))


def floor(value) -> sympy.Expr:
    return _rounded(sympy.floor, sympy.sympify(value))


def _rounded(kind, argument: sympy.Expr) -> sympy.Expr:
    if not _takes_two_values(kind, argument):
        return kind(argument)
    if argument.is_integer:
        return argument
    whole, number, rest = sympy.S.Zero, sympy.S.Zero, sympy.S.Zero
    for term in sympy.Add.make_args(argument):
        if term.is_integer:
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


def _takes_two_values(kind, argument: sympy.Expr) -> bool:
    """Whether the rounding of the argument differs between two witness sizes: then it is
    no constant. False for a constant or an argument no plan evaluates."""
    symbols = argument.free_symbols
    if not symbols or not all(symbol.is_integer and symbol.is_positive for symbol in symbols):
        return False
    ordered = tuple(sorted(symbols, key=str))
    plan = rational_eval.compiled(kind(argument, evaluate=False), ordered)
    seen = set()
    for point in witness_values(len(ordered)):
        value = planned_value(plan, point)
        if value is None:
            return False
        seen.add(value)
        if len(seen) > 1:
            return True
    return False
