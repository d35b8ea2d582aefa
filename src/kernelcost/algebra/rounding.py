"""floor and ceiling of integer expressions (sizes, iterators, loop counters), evaluated as
sympy evaluates them, without the questions sympy asks first.

sympy 1.14's floor and ceiling ask of a positive argument whether it lies in (0, 1] or
(1, 2], where the rounding would be a constant: two to four relations through the
assumption system, some 4 ms each, then whether the argument is an integer, another few
milliseconds for a quotient of sizes and iterators, and they ask it again each time an
expression holding the rounding is rebuilt (substituted, expanded). Where the rounding takes
two values at the witness sizes it is no constant, so those questions have no answer to
give, and the rest of sympy's evaluation is done here: an integer argument is its own
rounding, integer terms of a sum come out, and what is left stays inside, unevaluated.
Whether a term is an integer is asked of sympy only where it is one at every witness.
Arguments the witness plans do not evaluate, and constants, go to sympy's own evaluation.

While kernelcost computes (sympy_scope) this evaluation is in sympy's place: every rounding
kernelcost builds or rebuilds goes through it."""

from __future__ import annotations

import sympy

from . import rational_eval
from .sympy_patch import Patch, Slot
from .witnesses import integers_of, planned_value, witness_values

ASK_SYMPY = object()  # the rounding may be a constant: sympy's own evaluation answers


def evaluated(kind, argument: sympy.Expr):
    """What sympy's `kind.eval(argument)` gives (None: kind(argument) stays as it is), or
    ASK_SYMPY where the witnesses do not show the rounding take two values."""
    sizes = integers_of(argument)
    values = None if sizes is None else _witness_values(argument, sizes)
    if values is None or len({_round(kind, value) for value in values}) < 2:
        return ASK_SYMPY
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
    if not whole:
        return None  # rest and number sum to the argument again
    rest += number
    if isinstance(rest, (sympy.floor, sympy.ceiling)):
        return whole + rest
    return whole + kind(rest, evaluate=False)


def _witness_values(expr: sympy.Expr, sizes) -> list[rational_eval.Value] | None:
    """expr at every witness point of the sizes; None where a plan does not evaluate it."""
    plan = rational_eval.compiled(expr, sizes)
    values = [planned_value(plan, point) for point in witness_values(len(sizes))]
    found = [value for value in values if value is not None]
    return None if len(found) != len(values) else found


def _round(kind, value: rational_eval.Value) -> int:
    numerator, denominator = value
    return -(-numerator // denominator) if issubclass(kind, sympy.ceiling) else (
        numerator // denominator)


def _integer(expr: sympy.Expr, sizes, values=None) -> bool:
    """sympy's is_integer, asked only where the witnesses found no fraction and sympy's
    rules can answer True (may_be_proven_integer): a warpgroup's clipped bound over its
    width, an integer at every size, took sympy 5 ms to leave unanswered."""
    if expr.is_number:
        return bool(expr.is_integer)
    if not may_be_proven_integer(expr):
        return False
    values = values if values is not None else _witness_values(expr, sizes)
    if values is not None and any(numerator % denominator for numerator, denominator in values):
        return False
    return bool(expr.is_integer)


def may_be_proven_integer(value: sympy.Expr) -> bool:
    """False where sympy's is_integer cannot be True: a term divides by a power of something
    that is not a number. Mul's rule answers True only where the denominator is a number,
    and a sum is an integer only where each term is; the question, milliseconds on a
    quotient of sums (every other rule tried first), is then not asked."""
    return not any(factor.is_Pow and factor.exp.is_negative and not factor.base.is_number
                   for term in sympy.Add.make_args(value) for factor in sympy.Mul.make_args(term))


def _witnessed_eval(sympy_eval):
    def rule(cls, argument):
        found = evaluated(cls, argument)
        return sympy_eval(cls, argument) if found is ASK_SYMPY else found
    rule.wraps = sympy_eval
    return rule


# sympy's own, which the wrapper calls; a second copy of this module finds the first one's
# wrappers there
SYMPY_EVAL = {kind: getattr(kind.eval.__func__, "wraps", kind.eval.__func__)
              for kind in (sympy.floor, sympy.ceiling)}


# in sympy's place while kernelcost computes (sympy_scope)
PATCHES = tuple(Patch(kind, "eval", _witnessed_eval(sympy_eval), Slot.CLASSMETHOD)
                for kind, sympy_eval in SYMPY_EVAL.items())
