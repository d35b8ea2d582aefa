"""What an effect reads: the verdict's spec, machine and sizes, and what the execution model
found there."""

from __future__ import annotations

from typing import Protocol

import sympy

from ...base.records import record
from ...count.cost import Cost
from ...hardware.machine import Machine
from ..derates import At, Derate
from ..occupancy import Occupancy
from ..transfer import Transfer


@record
class EffectContext:
    cost: Cost
    machine: Machine
    occupancy: Occupancy  # fits: an effect runs only where the block does
    at: At  # an expression at the verdict's sizes
    transfers: tuple[Transfer, ...]  # the lanes accesses in sectors and wavefronts
    global_B: sympy.Expr | None  # the bytes t_model puts on the global bandwidth


class Effect(Protocol):
    """An effect on t_model: the derates it finds at a verdict's sizes (none where it does
    not bind). A derate lowers one level's bandwidth; effects never enter t_bound."""

    name: str

    def derates(self, context: EffectContext) -> tuple[Derate, ...]: ...
