"""The terms of a grid's times, and the largest of them: one term of t_bound or t_model (a
roof, its amount and rate), the largest term (the max where symbolic terms cannot be ordered)
and the part of t_bound that quantisation adds (the tail share), found against the flat
roofline's terms."""

from __future__ import annotations

import functools

import sympy

from ..algebra.decide import largest
from ..algebra.held_quotients import cancelled
from ..algebra.numeric_sums import has_sum, sum_values
from ..algebra.rational_eval import compare, compiled
from ..algebra.witnesses import witness_values
from ..base.kinds import TermKey, TermKind
from ..base.records import record
from ..base.symbols import text_key
from ..hardware.machine import Roof


@record
class GridTerm:
    """One term of t_bound or t_model."""

    roof: Roof  # a work class's ceiling or a level's bandwidth, derated or not
    key: TermKey  # work class or level
    amount: sympy.Expr  # FLOP or B: on the busiest SM for a per-SM roof, else in all
    rate: sympy.Expr  # FLOP/s or B/s: per SM for a per-SM roof
    seconds: sympy.Expr
    per_sm: bool  # quantised: the busiest SM's share on one SM's rate

    @property
    def kind(self) -> TermKind:
        return self.roof.kind


def worked_tail_share(t_bound: sympy.Expr, flat_terms: tuple[GridTerm, ...]) -> sympy.Expr | None:
    """1 - (the largest flat term) / t_bound, cancelled."""
    flat = largest_term(list(flat_terms))[0]
    return None if flat is None else cancelled(1 - flat / t_bound)


def share_varies(t_bound: sympy.Expr, flat_terms: tuple[GridTerm, ...]) -> bool:
    """Whether (flat roofline time) / t_bound takes two values at the witness sizes (False
    where a value cannot be taken: the form is then worked out)."""
    seconds = [sympy.sympify(term.seconds) for term in flat_terms]
    symbols = tuple(sorted(t_bound.free_symbols.union(*(term.free_symbols for term in seconds)),
                           key=text_key))
    found = [compiled(expr, symbols) for expr in (t_bound, *seconds)]
    plans = [plan for plan in found if plan is not None]
    if not symbols or not seconds or len(plans) != len(found):
        return False
    first = None
    for point in witness_values(len(symbols)):
        try:
            bound, *flats = (plan(point) for plan in plans)
        except ZeroDivisionError:
            return False
        if bound[0] <= 0:
            return False
        flat = functools.reduce(lambda kept, other: other if compare(other, kept) > 0 else kept,
                                flats)
        share = (flat[0] * bound[1], flat[1] * bound[0])  # flat / bound
        if first is None:
            first = share
        elif compare(share, first):
            return True
    return False


def summed(expr: sympy.Expr) -> sympy.Expr:
    """A number, its Sums with numeric bounds added up (numeric_sums), to compare."""
    return sum_values(expr) if expr.is_number and has_sum(expr) else expr


def largest_term(terms: list[GridTerm]) -> tuple[sympy.Expr | None, GridTerm | None]:
    """The largest time and its term; the max while symbolic terms cannot be ordered."""
    if not terms:
        return None, None
    seconds = [summed(sympy.sympify(term.seconds)) for term in terms]
    if all(value.is_number for value in seconds):
        index = max(range(len(terms)), key=lambda k: seconds[k])  # first wins a tie
        return seconds[index], terms[index]
    return largest(*seconds), None


def largest_time(terms: list[GridTerm]) -> sympy.Expr:
    time, _ = largest_term(terms)
    assert time is not None  # wave_terms has the terms t_model is the largest of
    return time
