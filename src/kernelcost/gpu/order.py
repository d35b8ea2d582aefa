"""Stage: the order of a verdict's three times, checked. DESIGN.md ("Three times") makes
t_floor <= t_bound <= t_model a contract: the floor's terms are each at most one of the
bound's, the bound's at most the model's (the same work and on-chip terms, global bytes
never below the compulsory ones, derates that only lower a rate). A verdict with numbers
that breaks it is a defect of kernelcost, not of the spec: an internal error (exit 3) that
names the machine, the precision and the sizes, so that it can be reproduced."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import sympy

from ..base.errors import Code, Diagnostic, InternalError

Values = Mapping[sympy.Symbol, sympy.Expr]  # sizes by symbol


def divisibility_met(divisibility: tuple[tuple[sympy.Expr, sympy.Expr], ...],
                     values: Values) -> bool:
    """Whether no `assume d | n` fact of the spec ((divisor, dividend) pairs) is broken at
    these sizes: where one is, the closed forms (which dropped their ceilings on it) are not
    the loops' counts, and the times are not held to their order."""
    for divisor, dividend in divisibility:
        quotient = sympy.sympify(dividend / divisor).xreplace(dict(values))
        if quotient.is_number and not quotient.is_Integer:
            return False
    return True


def check_order(machine: str, precision: str, values: Values, t_floor: sympy.Expr | None,
                t_bound: sympy.Expr | None, t_model: sympy.Expr | None) -> None:
    """Raise InternalError where two of the times are numbers out of order; times that are
    None (no term, or a block that does not fit) or symbolic are left to the construction.
    The caller leaves out sizes that break the spec's facts (divisibility_met)."""
    times = [("t_floor", t_floor), ("t_bound", t_bound), ("t_model", t_model)]
    known = [(name, sympy.sympify(value)) for name, value in times
             if value is not None and sympy.sympify(value).is_number]
    for (lower_name, lower), (upper_name, upper) in itertools.pairwise(known):
        if bool(lower > upper):
            sizes = ", ".join(f"{symbol} = {value}" for symbol, value in
                              sorted(values.items(), key=lambda item: str(item[0])))
            figures = ", ".join(f"{name} = {float(value):.6g} s" for name, value in known)
            raise InternalError(Code.TIMES_OUT_OF_ORDER, Diagnostic(
                None,
                f"{lower_name} > {upper_name} on {machine} {precision} at "
                f"{sizes or 'the spec defaults'}: {figures}",
                "t_floor <= t_bound <= t_model must hold: please report the spec, these "
                "sizes and the command"))
