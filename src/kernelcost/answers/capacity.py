"""Stage: Cost x Machine -> capacity crossings. At what size do a kernel's staged tiles, the
tensors a level holds or its working set stop fitting their level? The same equation as a
ridge crossing's, with bytes: held_B(p) = capacity (a keep scope against its level, per SM
for shared and registers), working set(p) = L2 capacity."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

import sympy

from ..algebra.equations import solve_equal
from ..algebra.numeric_roots import Root as _Root
from ..base.errors import KcostError
from ..base.kinds import Per, Side
from ..base.levels import Level
from ..base.records import record
from ..base.symbols import CAPACITY
from ..count.cost import Cost
from ..count.values import evaluate, exact
from ..hardware.machine import Machine
from .unknowns import Values, integer_bound, other_values, parameter_symbol, real_variable


class Held(StrEnum):
    """What holds the bytes a capacity crossing weighs: a keep scope, the tensors one block
    holds at an on-chip level, or the kernel's whole working set."""

    KEEP_SCOPE = "keep scope"
    TENSORS = "tensors"
    WORKING_SET = "working set"


@record
class Holder:
    held: Held
    scope: int | None = None  # a keep scope's index
    tensors: tuple[str, ...] = ()  # the tensors a keep scope holds


@record
class CapacityCrossing:
    """Where the bytes a keep scope holds (or the whole working set) reach a capacity."""

    machine: str
    held_by: Holder  # a keep scope, the tensors a level holds, or the working set
    level: str
    parameter: str
    held_B: sympy.Expr  # bytes held, as a function of the parameter
    capacity_B: sympy.Rational
    capacity_per: Per  # what one capacity_B covers
    value: sympy.Expr | None  # the size where held_B = capacity; None: never
    expr: sympy.Expr | None  # the root in closed form, in capacity_B and the unset parameters
    condition: sympy.Basic  # where `expr` holds; the unsolved equation when none was found
    exceeds_side: Side | None  # where held_B > capacity
    fits_everywhere: bool | None  # for never: True if it always fits, False if never does
    edge: int | None = None  # a root searched numerically: the size nearest it that does not
    # fit (numeric_roots.Root.edge)

    @property
    def integer_bound(self) -> tuple[str, int] | None:
        """The integer sizes that fit: ("<=", 241) for a tile whose bytes reach the capacity
        at T = 241.6; None when never or symbolic."""
        inside = None if self.exceeds_side is None else self.exceeds_side.opposite
        return integer_bound(self.value, inside, self.edge, self.exceeds_side)


def capacity_crossings(cost: Cost, parameter: sympy.Symbol | str, machine: Machine,
                       values: Values | None = None,
                       *, element_bytes: Mapping[str, sympy.Expr] | None = None,
                       apply_defaults: bool = False) -> list[CapacityCrossing]:
    """Sizes where each keep scope's held bytes reach its level's capacity (per SM for shared
    and registers), and, given `element_bytes` (tensor -> bytes), where the working set
    reaches the L2 capacity: below that size the L2 slope binds (the chapter's cache caveat)."""
    symbol = parameter_symbol(cost, parameter)
    substitutions = other_values(cost, symbol, values, apply_defaults)
    variable = real_variable(symbol)
    results: list[CapacityCrossing] = []
    for scope in cost.scopes:
        capacity = machine.capacity(scope.level)
        if capacity is None:
            continue
        held = evaluate(scope.held_bytes * scope.stages, substitutions).subs(symbol, variable)
        holder = Holder(Held.KEEP_SCOPE, scope.index, tuple(scope.tensors))
        results += _capacity_results(machine, holder, scope.level, symbol, variable, held)
    for level, homed in _on_chip_needs(cost).items():
        capacity = machine.capacity(level)
        if capacity is None:
            continue
        held = evaluate(homed, substitutions).subs(symbol, variable)
        results += _capacity_results(machine, Holder(Held.TENSORS), level, symbol, variable,
                                     held)
    working_set = evaluate(cost.working_set_bytes(element_bytes), substitutions)
    l2_capacity = machine.capacity(Level.L2)
    if l2_capacity is not None:
        results += _capacity_results(machine, Holder(Held.WORKING_SET), Level.L2, symbol,
                                     variable,
                                     working_set.subs(symbol, variable))
    return results


def _on_chip_needs(cost: Cost) -> dict[str, sympy.Expr]:
    """What one block holds on chip besides its keep scopes: the grid's per-block bytes
    (local arrays, stages included) for a parallel spec, the tensors homed there otherwise."""
    if cost.grid is not None:
        on_chip = cost.grid.on_chip
        return {Level.SHARED: on_chip[Level.SHARED]} if Level.SHARED in on_chip else {}
    return {level: held for level, held in cost.homed.items() if level in (Level.SHARED,
                                                                           Level.REGISTERS)}


def _capacity_results(machine: Machine, held_by: Holder, level: str, symbol: sympy.Symbol,
                      variable: sympy.Symbol, held: sympy.Expr) -> list[CapacityCrossing]:
    """Where `held` (in `variable`, standing for `symbol`) reaches the capacity of `level`,
    which the callers asked of the machine before working out `held`."""
    capacity_figure, capacity_per = machine.capacity(level), machine.capacity_per(level)
    assert capacity_figure is not None  # the callers pass levels with a capacity only
    assert capacity_per is not None  # a level with a capacity says what one covers
    capacity = exact(capacity_figure)
    try:
        # bytes that equal the capacity fit, as the verdicts say
        roots = solve_equal(held, variable, CAPACITY, capacity, ties_exceed=False)
    except KcostError:
        # no closed form (min/max in the bytes) with other parameters unset: say so, with the
        # equation left unsolved as the condition, rather than drop the check
        return [CapacityCrossing(
            machine=machine.id, held_by=held_by, level=level, parameter=str(symbol),
            held_B=held.subs(variable, symbol), capacity_B=capacity, capacity_per=capacity_per,
            value=None, expr=None, condition=sympy.Eq(held.subs(variable, symbol), capacity),
            exceeds_side=None, fits_everywhere=None)]

    def result(root: _Root | None) -> CapacityCrossing:
        fits_everywhere = None
        if root is None:
            fits_everywhere = _decide_everywhere(held, variable, capacity)
        return CapacityCrossing(
            machine=machine.id, held_by=held_by, level=level, parameter=str(symbol),
            held_B=held.subs(variable, symbol), capacity_B=capacity, capacity_per=capacity_per,
            value=None if root is None else root.value,
            expr=None if root is None or root.expr is None else root.expr.subs(variable, symbol),
            condition=sympy.false if root is None else root.condition,
            exceeds_side=None if root is None else root.side,
            fits_everywhere=fits_everywhere, edge=None if root is None else root.edge)

    return [result(root) for root in roots] or [result(None)]


def _decide_everywhere(held: sympy.Expr, variable: sympy.Symbol,
                       capacity: sympy.Rational) -> bool | None:
    """With no crossing, the side is the same for every size: probe one."""
    probe = held.subs(variable, 1)
    if not probe.is_number:
        return None
    return bool(probe <= capacity)
