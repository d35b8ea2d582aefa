"""How far a measured run is from its roof, in the metric of its regime: achieved B/s against
the binding bandwidth when memory-bound, achieved FLOP/s against the peak when compute-bound
(the chapter: "3.1 TB/s of 3.35, 93 %", never "0.3 TFLOPS")."""

from __future__ import annotations

import math
from enum import StrEnum

import sympy

from ..base.errors import Code, Diagnostic, MeasurementError, SizeError
from ..base.kinds import TermKind
from ..base.levels import Level
from ..base.records import record
from .model import Verdict
from .regimes import Regime


class Metric(StrEnum):
    """The rate a regime is measured in: bytes a second at a memory level's roof, FLOP a
    second at a compute roof (the value is the unit a report prints)."""

    BYTES = "B/s"
    FLOP = "FLOP/s"


@record
class Efficiency:
    """How far a measured run is from its roof, in the metric of its regime."""

    regime: Regime
    metric: Metric  # bytes when memory-bound, FLOP when compute-bound
    level: str | None  # the level whose bandwidth is the roof, when memory-bound
    achieved: float  # in `metric`
    roof: float  # in `metric`
    fraction: float  # achieved / roof = t_min / measured time
    measured_s: float  # the kernel time implied by the measurement


def measured_efficiency(result: Verdict, *, seconds: float | None = None,
                        FLOPps: float | None = None, Bps: float | None = None) -> Efficiency:
    """The fraction of the roof a measurement attains, in the metric of the kernel's regime:
    achieved B/s against the binding level's bandwidth when memory-bound, achieved FLOP/s
    against W / t_min (the peak, for a kernel of one work class) when compute-bound.

    Give exactly one of a kernel time (s), a FLOP rate or a byte rate (at the binding level
    when memory-bound, at global otherwise). The roof is t_min without launch overhead: a
    profiler's kernel time does not include the launch."""
    given = [name for name, value in (("seconds", seconds), ("FLOPps", FLOPps), ("Bps", Bps))
             if value is not None]
    if len(given) != 1:
        raise MeasurementError(Code.MEASUREMENT_AMBIGUOUS, Diagnostic(
            None, "give one measurement: a time, a FLOP/s or a B/s",
            f"got {', '.join(given) or 'none'}"))
    binding = result.binding
    if binding is None:
        raise SizeError(Code.SIZES_UNSET, Diagnostic(
            None,
            "the verdict is symbolic: set every parameter before comparing with a measurement"))
    level = binding.key if binding.kind == TermKind.TRAFFIC else Level.GLOBAL
    work = _number(result.work_FLOP, "W")
    traffic = _number(result.level(level).traffic_B, "Q") if level in _levels(result) else None
    t_min = _number(result.t_min, "t_min")
    if seconds is not None:
        measured = float(seconds)
    elif FLOPps is not None:
        measured = work / float(FLOPps)
    else:
        if traffic is None:
            raise MeasurementError(Code.MEASUREMENT_NOT_COMPARABLE, Diagnostic(
                None, f"no {level} traffic to convert B/s into a time"))
        assert Bps is not None  # the one measurement given
        measured = traffic / float(Bps)
    if not 0 < measured < math.inf:
        moved = f"W = {work:g} FLOP" if FLOPps is not None else f"Q_{level} = {traffic:g} B"
        raise MeasurementError(Code.MEASUREMENT_NOT_COMPARABLE, Diagnostic(
            None, f"a rate gives no time here: the kernel's {moved}, so the rate says "
                  f"nothing of how long it ran",
            "give the measured time instead, e.g. --measured 412us"))
    fraction = t_min / measured
    if binding.kind == TermKind.TRAFFIC:
        assert traffic is not None  # a binding traffic term is one of the verdict's levels
        return Efficiency(Regime.MEMORY_BOUND, Metric.BYTES, level, traffic / measured,
                          float(binding.rate), fraction, measured)
    return Efficiency(Regime.COMPUTE_BOUND, Metric.FLOP, None, work / measured, work / t_min,
                      fraction, measured)


def _levels(result: Verdict) -> tuple[str, ...]:
    return tuple(level.level for level in result.levels)


def _number(expr: sympy.Expr, what: str) -> float:
    if not sympy.sympify(expr).is_number:
        raise SizeError(Code.SIZES_UNSET, Diagnostic(
            None,
            f"{what} is symbolic ({expr}): set every parameter "
            "before comparing with a measurement"))
    return float(expr)
