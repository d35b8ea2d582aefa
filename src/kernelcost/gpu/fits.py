"""Stage: capacity fits. Whether what a keep scope holds fits its level, and which on-chip
levels a nest without a grid outgrows (a parallel spec's are its occupancy's misfits)."""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from ..algebra.decide import at_most as proven_at_most
from ..base.kinds import Per, Quantity
from ..base.levels import Level
from ..base.records import record
from ..base.symbols import ON_CHIP_LEVELS
from ..count.cost import Cost
from ..count.values import evaluate, exact
from ..hardware.machine import Machine
from .occupancy import Misfit

Values = Mapping[sympy.Symbol, sympy.Expr]  # sizes by symbol


@record
class Fit:
    """Does what a keep scope holds fit the capacity of its level?"""

    scope_index: int  # position among the kernel's keep scopes
    level: str
    tensors: tuple[str, ...]
    held_B: sympy.Expr
    capacity_B: sympy.Rational | None  # None: the machine gives no capacity for the level
    capacity_per: Per | None  # None: the machine gives no capacity for the level
    fits: bool | None  # None while symbolic or without a capacity


def scope_fits(cost: Cost, machine: Machine, substitutions: Values) -> tuple[Fit, ...]:
    """For each keep scope: the bytes it holds against its level's capacity (per SM for shared
    and registers: one scope runs on one SM)."""
    fits = []
    for scope in cost.scopes:
        held = evaluate(scope.held_bytes, substitutions)
        capacity = optional_exact(machine.capacity(scope.level))
        fits.append(Fit(scope.index, scope.level, scope.tensors, held, capacity,
                        machine.capacity_per(scope.level), fits_within(held, capacity)))
    return tuple(fits)


def nest_misfits(cost: Cost, machine: Machine, substitutions: Values) -> tuple[Misfit, ...]:
    """A nest without a grid runs its keeps and on-chip tensors in one SM: a keep scope
    (times its stages) or a tensor homed in shared memory or registers that outgrows an SM's
    capacity does not fit. The count keeps a scope's level as the spec writes it; a misfit
    holds the member."""
    misfits = []
    for scope in cost.scopes:
        if scope.level in ON_CHIP_LEVELS:
            held = evaluate(scope.held_bytes * scope.stages, substitutions)
            misfits += _over_capacity(Level(scope.level), held, machine)
    for level, held in cost.homed.items():
        if level in ON_CHIP_LEVELS:
            misfits += _over_capacity(Level(level), evaluate(held, substitutions), machine)
    return tuple(misfits)


def _over_capacity(level: Level, held: sympy.Expr, machine: Machine) -> list[Misfit]:
    capacity = optional_exact(machine.capacity(level))
    if fits_within(held, capacity) is False:
        return [Misfit(level, held, capacity, machine.capacity_per(level) or Per.SM,
                       Quantity.BYTES)]
    return []


def fits_within(amount: sympy.Expr | None, capacity: sympy.Expr | None) -> bool | None:
    """amount <= capacity where proven either way; None while undecided or unknown."""
    if amount is None or capacity is None:
        return None
    return proven_at_most(amount, capacity)


def optional_exact(value: float | None) -> sympy.Rational | None:
    return None if value is None else exact(value)
