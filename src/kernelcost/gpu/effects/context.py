"""What an effect reads: the verdict's spec, machine and sizes, and what the execution model
found there.

An effect acts at one of two stages. ROOFS: it lowers a level's bandwidth, so t_model takes
its derates; it reads the grid (occupancy, transfers) and runs only where the block fits.
CALL: it prices the call around the kernel's time, so it reads t_model (`t_kernel`) and
t_model stays the kernel's time."""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

import sympy

from ...base.kinds import EffectCause
from ...base.records import record
from ...count.cost import Cost
from ...hardware.machine import Machine
from ..derates import At, Derate, Term
from ..occupancy import Occupancy
from ..transfer import Transfer


class EffectStage(StrEnum):
    """Where an effect acts (the module docstring): on the roofs, or on the call."""

    ROOFS = "roofs"
    CALL = "call"


ROOFS, CALL = EffectStage.ROOFS, EffectStage.CALL


@record
class EffectContext:
    cost: Cost
    machine: Machine
    at: At  # an expression at the verdict's sizes
    occupancy: Occupancy | None = None  # a grid's, where its block fits (stage ROOFS)
    transfers: tuple[Transfer, ...] = ()  # the lanes accesses in sectors and wavefronts
    global_B: sympy.Expr | None = None  # the bytes t_model puts on the global bandwidth
    t_kernel: sympy.Expr | None = None  # t_model, once known (stage CALL); None: no time
    terms: tuple[Term, ...] = ()  # t_model's terms before any derate (stage ROOFS)
    earlier: tuple[Derate, ...] = ()  # what the effects before this one in the registry found
    values: dict[sympy.Symbol, sympy.Expr] | None = None  # the verdict's sizes, where a grid's
    # blocks are taken one by one (stage ROOFS)


class Effect(Protocol):
    """An effect on t_model: the derates it finds at a verdict's sizes (none where it does
    not bind). A derate lowers one level's bandwidth, or (stage CALL) says what the call
    adds to the kernel's time; effects never enter t_bound. Each derate carries one of the
    effect's `findings`, a record of figures that presentation puts into words (by the
    sentence the record declares, or a function of present.derate_text), and a cause the
    effect's module declares, `name` among them."""

    name: EffectCause
    stage: EffectStage

    @property
    def findings(self) -> tuple[type, ...]:
        """The record types its derates carry (Derate.finding)."""

    def derates(self, context: EffectContext) -> tuple[Derate, ...]: ...
