"""The sides of the ridge and the chapter's zones, as data: which side of its ridge a
kernel's intensity stands (the regime), how far (the zone, on ratio = I / I_crit), and the
lever the compute-bound zone urges on a machine. present.advice_text writes the advice."""

from __future__ import annotations

from enum import StrEnum

import sympy

from ..algebra.decide import less_than
from ..base.kinds import Precision, TermKind, Unit
from ..base.records import record
from ..hardware.machine import Machine, Roof


class Regime(StrEnum):
    """Memory-bound below the ridge (a bandwidth binds), compute-bound at or above it (a peak
    binds); under-filled: a grid of fewer blocks than SMs meets a per-SM roof (module fill)."""

    MEMORY_BOUND = "memory-bound"
    COMPUTE_BOUND = "compute-bound"
    UNDERFILLED = "under-filled"


class Zone(StrEnum):
    """The chapter's zones, on ratio = I / I_crit: each gives its own advice."""

    CLEARLY_MEMORY_BOUND = "clearly memory-bound"
    MIXED = "mixed"
    CLEARLY_COMPUTE_BOUND = "clearly compute-bound"


# The chapter's zones, on ratio = I / I_crit.
CLEARLY_MEMORY_BOUND_BELOW = sympy.Rational(1, 10)
CLEARLY_COMPUTE_BOUND_ABOVE = sympy.Integer(10)


class Lever(StrEnum):
    """What the compute-bound zone urges: a faster unit (no machine said more), a narrower
    precision (the work is on the tensor units already), fewer operations (element-wise
    work, which the tensor units cannot run), the machine's tensor units, or a narrower
    precision on a machine without them."""

    FASTER_UNIT = "faster unit"
    NARROWER_ON_TENSOR = "narrower on tensor"
    FEWER_OPERATIONS = "fewer operations"
    TO_TENSOR_UNITS = "to tensor units"
    NO_TENSOR_UNITS = "no tensor units"


@record
class ComputeAdvice:
    """The compute-bound zone's lever on one machine, and the precisions of its tensor
    units (in the order of their names) where the lever moves work to them."""

    lever: Lever = Lever.FASTER_UNIT
    tensor_precisions: tuple[Precision, ...] = ()


def compute_advice(machine: Machine, peak: Roof, contractions: bool = True) -> ComputeAdvice:
    """The compute-bound zone's lever in the machine's own terms: tensor units are named
    only where its file lists them, and not urged on work already on them (`peak`, the
    kernel's main ceiling, theirs), nor on work that holds no matrix contraction
    (`contractions` False: element-wise arithmetic)."""
    tensor = tuple(sorted({p.precision for p in machine.compute
                           if p.unit == Unit.TENSOR and not p.sparse}))
    if peak.unit == Unit.TENSOR:
        return ComputeAdvice(Lever.NARROWER_ON_TENSOR)
    if not contractions:
        return ComputeAdvice(Lever.FEWER_OPERATIONS)
    if tensor:
        return ComputeAdvice(Lever.TO_TENSOR_UNITS, tensor)
    return ComputeAdvice(Lever.NO_TENSOR_UNITS)


def zone_of(intensity: sympy.Expr, ridge: sympy.Rational = sympy.Integer(1)) -> Zone | None:
    """The chapter's zone of intensity / ridge: < 0.1 clearly memory-bound, 0.1..10 mixed,
    > 10 compute-bound."""
    below = less_than(intensity, CLEARLY_MEMORY_BOUND_BELOW * ridge)
    above = less_than(CLEARLY_COMPUTE_BOUND_ABOVE * ridge, intensity)
    if below is None or above is None:
        return None
    if below:
        return Zone.CLEARLY_MEMORY_BOUND
    if above:
        return Zone.CLEARLY_COMPUTE_BOUND
    return Zone.MIXED


def regime_of(intensity: sympy.Expr, ridge: sympy.Rational) -> Regime | None:
    """Memory-bound below the ridge, compute-bound at or above it."""
    below_ridge = less_than(intensity, ridge)
    if below_ridge is None:
        return None
    return Regime.MEMORY_BOUND if below_ridge else Regime.COMPUTE_BOUND


def regime_of_kind(kind: TermKind) -> Regime:
    """The regime of a kernel whose binding term is of this kind."""
    return Regime.MEMORY_BOUND if kind == TermKind.TRAFFIC else Regime.COMPUTE_BOUND
