"""The sides of the ridge and the chapter's zones, as data: which side of its ridge a
kernel's intensity stands (the regime), how far (the zone, on ratio = I / I_crit), and the
advice each zone gives."""

from __future__ import annotations

from enum import StrEnum

import sympy

from ..algebra.decide import less_than
from ..base.kinds import TermKind, Unit
from ..base.records import record
from ..hardware.machine import Machine, Roof


class Regime(StrEnum):
    """Memory-bound below the ridge (a bandwidth binds), compute-bound at or above it (a peak
    binds); under-filled: a grid of fewer blocks than SMs meets a per-SM roof (module fill)."""

    MEMORY_BOUND = "memory-bound"
    COMPUTE_BOUND = "compute-bound"
    UNDERFILLED = "under-filled"


class ZoneName(StrEnum):
    CLEARLY_MEMORY_BOUND = "clearly memory-bound"
    MIXED = "mixed"
    CLEARLY_COMPUTE_BOUND = "clearly compute-bound"


# The chapter's zones, on ratio = I / I_crit.
CLEARLY_MEMORY_BOUND_BELOW = sympy.Rational(1, 10)
CLEARLY_COMPUTE_BOUND_ABOVE = sympy.Integer(10)


@record
class Zone:
    name: ZoneName
    advice: str


ZONE_MEMORY = Zone(
    ZoneName.CLEARLY_MEMORY_BOUND,
    "bytes are the limit: cut traffic (fuse, tile for reuse, narrower types); "
    "do not touch compute")
ZONE_MIXED = Zone(
    ZoneName.MIXED,
    "both levers count: fewer bytes and faster arithmetic")
ZONE_COMPUTE = Zone(
    ZoneName.CLEARLY_COMPUTE_BOUND,
    "arithmetic is the limit: fewer operations or a faster unit; bytes no longer matter")


def compute_advice(machine: Machine, peak: Roof, contractions: bool = True) -> str:
    """The compute-bound zone's advice in the machine's own words: tensor units are named
    only where its file lists them, and not urged on work already on them (`peak`, the
    kernel's main ceiling, theirs), nor on work that holds no matrix contraction
    (`contractions` False: element-wise arithmetic)."""
    tensor = sorted({p.precision for p in machine.compute
                     if p.unit == Unit.TENSOR and not p.sparse})
    if peak.unit == Unit.TENSOR:
        lever = "a narrower precision on the tensor units, or fewer operations"
    elif not contractions:
        lever = "fewer operations (element-wise work: the tensor units cannot run it)"
    elif tensor:
        lever = f"move the work to the tensor units ({', '.join(tensor)}) or cut operations"
    else:
        lever = "fewer operations or a narrower precision (no tensor units on this machine)"
    return f"arithmetic is the limit: {lever}; bytes no longer matter"


def zone_of(intensity: sympy.Expr, ridge: sympy.Rational = sympy.Integer(1)) -> Zone | None:
    """The chapter's zone of intensity / ridge: < 0.1 clearly memory-bound, 0.1..10 mixed,
    > 10 compute-bound."""
    below = less_than(intensity, CLEARLY_MEMORY_BOUND_BELOW * ridge)
    above = less_than(CLEARLY_COMPUTE_BOUND_ABOVE * ridge, intensity)
    if below is None or above is None:
        return None
    if below:
        return ZONE_MEMORY
    if above:
        return ZONE_COMPUTE
    return ZONE_MIXED


def regime_of(intensity: sympy.Expr, ridge: sympy.Rational) -> Regime | None:
    """Memory-bound below the ridge, compute-bound at or above it."""
    below_ridge = less_than(intensity, ridge)
    if below_ridge is None:
        return None
    return Regime.MEMORY_BOUND if below_ridge else Regime.COMPUTE_BOUND


def regime_of_kind(kind: TermKind) -> Regime:
    """The regime of a kernel whose binding term is of this kind."""
    return Regime.MEMORY_BOUND if kind == TermKind.TRAFFIC else Regime.COMPUTE_BOUND
