"""The gap ledger: from t_bound to t_model, one signed step a cause, in a fixed order, the
steps summing exactly to t_model.

t_bound is this schedule's bound, its compute and on-chip roofs at the maximum clock. Then:
the clock (the figures as the data sheets give them, which t_min and t_model take); the
global traffic t_model counts (the waves' L2 reuse for a grid, a warm L2's reads, the
compulsory bytes raised where the estimate fell under them); then each effect of the
registry that derates a roof (gpu.effects), in the registry's order. The launch overhead is
not a step: it is kept apart from the kernel's time (t_min_with_launch)."""

from __future__ import annotations

from enum import Enum

import sympy

from ..algebra.decide import largest
from ..base.kinds import EffectCause
from ..base.records import record
from ..gpu.derates import derate_steps
from .model import Verdict


class Cause(Enum):
    CLOCK = "clock"  # the figures as given, not at the maximum clock
    GLOBAL_TRAFFIC = "global traffic"  # what t_model counts from global memory
    EFFECT = "effect"  # a derate of the effects registry, named by `effect`


@record
class Step:
    cause: Cause
    delta_s: sympy.Expr  # signed: what the cause adds to the time before it
    effect: EffectCause | None = None  # the effect's cause for Cause.EFFECT


@record
class Ledger:
    t_bound: sympy.Expr
    steps: tuple[Step, ...]
    t_model: sympy.Expr  # t_bound + the steps' deltas, exactly

    @property
    def total(self) -> sympy.Expr:
        return self.t_bound + sympy.Add(*(step.delta_s for step in self.steps))


def ledger(verdict: Verdict) -> Ledger | None:
    """The verdict's ledger; None where it has no t_bound or no t_model (the spec does not
    fit or does not run there)."""
    t_bound, t_model = verdict.t_bound, verdict.t_model
    if t_bound is None or t_model is None:
        return None
    times: list[tuple[Cause, EffectCause | None, sympy.Expr]] = [(Cause.CLOCK, None,
                                                                  verdict.t_min)]
    grid = verdict.grid
    applied = grid.model_steps() if grid is not None else derate_steps(
        verdict.nest_terms, verdict.derates, lambda terms: largest(*[t.seconds for t in terms]))
    times += [(Cause.GLOBAL_TRAFFIC if cause is None else Cause.EFFECT, cause, time)
              for cause, time in applied]
    steps, previous = [], t_bound
    for cause, effect, time in times:
        if time != previous:
            steps.append(Step(cause, time - previous, effect))
        previous = time
    return Ledger(t_bound, tuple(steps), t_model)

