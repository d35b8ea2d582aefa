"""What a kernel on a roofline figure runs at, beside the machine's roofs: the ceiling of
each work class in the kernel's own FLOP (W over that class's time: the SFU at 1/12 of an
attention's FLOP caps it at 12x the SFU's rate), the compute roof that binds, and t_model's
rate with the derates that lower it most. Numbers only; `plot` draws them."""

from __future__ import annotations

import math

from ..answers.model import Verdict
from ..base.kinds import TermKind, Unit, WorkClass
from ..base.records import record
from ..gpu.effects.launch_overhead import LAUNCH
from .roofs import short_roof_name

CEILING_NEAR = 4  # a kernel's class ceilings drawn up to this factor above its rate
MODEL_CAUSES = 2  # the model point's label names its strongest derates


@record
class Ceiling:
    """A compute ceiling in the kernel's own FLOP: a class that does a share of the work
    caps the whole at W over its time (the SFU at 1/12 of an attention's FLOP caps it at
    12x the SFU's rate), drawn near the kernel's points, not across the figure."""

    name: str  # "sfu", "fp32 vector"
    unit: Unit  # the line's style
    performance: float  # W / t_c (FLOP/s): P_c W / W_c, on the busiest SM for a grid


def bound_by(result: Verdict) -> str | None:
    term = result.binding
    if result.unsupported or term is None or term.kind != TermKind.WORK:
        return None
    return short_roof_name(term.roof)


def ceilings(result: Verdict) -> tuple[Ceiling, ...]:
    """Where several classes share the work: each one's ceiling in the kernel's FLOP, those
    within CEILING_NEAR of the kernel's rate (one far above bounds nothing a reader sees)."""
    work, rate = result.work_FLOP, result.performance
    terms = [term for term in result.terms if term.kind == TermKind.WORK
             and term.seconds.is_number and term.seconds > 0]
    if len(terms) < 2 or not (work.is_number and rate.is_number and rate > 0):
        return ()  # one class does all the work: its ceiling is the machine's roof
    units: dict[object, Unit] = {WorkClass.TENSOR: Unit.TENSOR, WorkClass.SFU: Unit.SFU}
    return tuple(Ceiling(short_roof_name(term.roof), units.get(term.key, Unit.VECTOR),
                         float(work / term.seconds)) for term in terms
                 if work / term.seconds <= CEILING_NEAR * rate)


def model_rate(result: Verdict) -> float | None:
    """W / t_model, with the launch the call adds (t_model is the kernel's time alone)."""
    t_model = result.t_model
    if t_model is None or not t_model.is_number or t_model <= 0:
        return None
    call = math.prod(float(d.factor) for d in result.derates if d.cause == LAUNCH)
    return float(result.work_FLOP / t_model) * call


def strongest_derates(result: Verdict) -> str:
    """The derates that lower the roof most, each cause once at its strongest: a label
    that lists them all runs off the figure."""
    strongest: dict[str, float] = {}
    for derate in result.derates:
        strongest[derate.cause] = min(strongest.get(derate.cause, 1.0), float(derate.factor))
    ranked = sorted(strongest.items(), key=lambda pair: pair[1])[:MODEL_CAUSES]
    return ", ".join(f"{cause} ×{factor:.2g}" for cause, factor in ranked)
