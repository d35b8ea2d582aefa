"""Stage: what lowers the roof. The chapter ends its roofline with what the model does not
capture; each such caveat kernelcost can put a number on becomes a Derate: a cause, a factor
(the fraction of the roof's rate the kernel keeps, 0 < factor <= 1), the term it scales (a
level's bandwidth or a work class's peak) and the effect's finding: a record of the figures
behind it, which presentation puts into words (present.derate_text); no sentence is built
here.

Derates are estimates. They enter t_model (the estimate), never t_bound (the lower bound no run
can beat): a derate may be wrong, a bound may not. Each comes from an effect, one module each
(package effects), the launch overhead among them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

import sympy

from ..base.kinds import EffectCause, TermKey
from ..base.records import record
from ..hardware.machine import Roof

At = Callable[[sympy.Expr], sympy.Expr]  # an expression at the sizes of a verdict
# of a term's time: an effect that would change it by less gives no derate, whose cause
# would name nothing (a copy's few FLOP beside its loads, a tail of a few blocks)
NEGLIGIBLE = sympy.Rational(1, 1000)


def outlasts(time: sympy.Expr, term_s: sympy.Expr) -> bool:
    """Whether `time` exceeds a term's time that is a positive number: what a derate of
    factor term_s / time may then stretch the term to. A term of no time (no bytes at these
    sizes) has no rate a factor in (0, 1] can scale: its factor 0 would make it 0 / 0 s."""
    return bool(term_s.is_number and term_s > 0 and time.is_number and time > term_s)


@record
class Derate:
    cause: EffectCause
    factor: sympy.Expr  # the fraction of the roof's rate kept, in (0, 1]
    finding: object  # the effect's record of what it found, with the figures its sentence
    # needs (AchievableFinding, LatencyFinding, ...: each effect's `findings`)
    key: TermKey | None = None  # the term it scales: a memory level's bandwidth or a work
    # class's peak (None: the call around the kernel, stage CALL)
    whole: bool = False  # its factor holds the earlier derates of its term: it alone applies


class Term(Protocol):
    """A time term as t_min and the grid's terms both write it."""

    @property
    def roof(self) -> Roof: ...
    @property
    def key(self) -> TermKey: ...
    @property
    def amount(self) -> sympy.Expr: ...
    @property
    def rate(self) -> sympy.Expr: ...
    @property
    def seconds(self) -> sympy.Expr: ...


TermT = TypeVar("TermT", bound=Term)


def derated(term: TermT, derates: Sequence[Derate]) -> TermT:
    """A term at the attainable fraction of its rate, its roof with what lowered it (shown
    `l2 bandwidth (latency-bound, sectors)`). Several derates of one term take the smallest
    factor, not the product: each caps the useful bytes or FLOP a second on its own (Little's
    law counts the loads in flight whatever sectors they move, sectors cap the link whatever
    is in flight), so the tighter cap binds."""
    mine = [derate for derate in derates if derate.key == term.key]
    if not mine:
        return term
    whole = [derate.factor for derate in mine if derate.whole]
    rate = term.rate * (whole[-1] if whole else sympy.Min(*(derate.factor for derate in mine)))
    roof = dataclasses.replace(term.roof, derated_by=tuple(derate.cause for derate in mine))
    changed: Any = dataclasses.replace(term, roof=roof, rate=rate,  # type: ignore[type-var]
                                       seconds=term.amount / rate)
    return changed


def derate_steps(terms: Sequence[TermT], derates: Sequence[Derate],
                 largest: Callable[[list[TermT]], sympy.Expr]
                 ) -> tuple[tuple[EffectCause | None, sympy.Expr], ...]:
    """The largest term as the derates are applied one cause at a time, in their order:
    first (None, the time before any), then (the cause, the time with it and every cause
    before it). The last time is what all the derates give at once (`derated`)."""
    steps: list[tuple[EffectCause | None, sympy.Expr]] = [(None, largest(list(terms)))]
    applied: list[Derate] = []
    for cause in dict.fromkeys(derate.cause for derate in derates):
        applied += [derate for derate in derates if derate.cause == cause]
        steps.append((cause, largest([derated(term, applied) for term in terms])))
    return tuple(steps)
