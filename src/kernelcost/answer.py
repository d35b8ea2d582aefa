"""The answers users come for, per machine and precision: the verdict at the given sizes,
where the kernel crosses the ridge in its one free size, and how a measurement compares.
Builds on analysis (closed forms), model (verdicts) and solve (crossings)."""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from .analysis import Analysis
from .cost import Cost
from .efficiency import Efficiency, measured_efficiency
from .errors import Diagnostic, KcostError
from .hardware import Machine, load_machine
from .model import UNBOUNDING_LEVELS, Verdict, verdict
from .polyexp import ExpOnFma
from .polyexp import exp_on_fma as move_exponentials
from .rates import ItemRate, item_rate
from .solve import Crossing, RidgeEquation, capacity_crossings, parameter_symbol, ridge_equation


@dataclass(frozen=True)
class Answer:
    verdict: Verdict
    free_parameter: sympy.Symbol | None  # the one size left symbolic, if exactly one
    crossings: tuple[Crossing, ...]  # of the global ridge in that size
    efficiency: Efficiency | None  # against a measurement, when one was given
    exp_on_fma: ExpOnFma | None = None  # exponentials moved to the FP32 vector units
    rate: ItemRate | None = None  # items per second, when the spec says what an item is


def answers(analysis: Analysis, machines: list[str | Machine], precisions: list[str] | None,
            measurement: dict[str, float] | None = None,
            exp_on_fma: ExpOnFma | None = None, warm_l2: tuple[str, ...] = ()) -> list[Answer]:
    """One Answer per machine x precision (the spec's own precision when none is given).
    `exp_on_fma`: a fraction of the exponentials on the FP32 vector units (polyexp);
    `warm_l2`: tensors a previous kernel left in L2 (warm)."""
    cost = move_exponentials(analysis.cost, exp_on_fma)
    loaded = [m if isinstance(m, Machine) else load_machine(m) for m in machines]
    free = free_parameters(analysis)
    equations = RidgeEquations(cost, free[0], analysis.settings) if len(free) == 1 else None
    results = []
    for machine in loaded:
        for precision in precisions or []:
            machine.require_precision(precision)
        for precision in precisions or [cost.precision]:
            result = verdict(cost, machine, precision, analysis.settings, apply_defaults=True,
                             warm=warm_l2)
            crossings = ()
            if equations is not None:
                crossings = tuple(
                    crossing for level in roof_levels(cost, machine)
                    for crossing in equations.at(level).crossings(machine, precision))
            efficiency = None
            if measurement and result.binding_term() is not None:
                efficiency = measured_efficiency(result, **measurement)
            results.append(Answer(result, free[0] if len(free) == 1 else None, crossings,
                                  efficiency, exp_on_fma,
                                  item_rate(analysis.spec.checked, result)))
    return results


@dataclass
class RidgeEquations:
    """The ridge equation of each level in one size, solved on first use and then shared by
    every machine and precision."""

    cost: Cost
    parameter: sympy.Symbol
    settings: dict
    apply_defaults: bool = True
    solved: dict[str, RidgeEquation] = field(default_factory=dict)

    def at(self, level: str) -> RidgeEquation:
        if level not in self.solved:
            self.solved[level] = ridge_equation(self.cost, self.parameter, level, self.settings,
                                                apply_defaults=self.apply_defaults)
        return self.solved[level]


def roof_levels(cost, machine: Machine) -> list[str]:
    """The levels whose bandwidth is a roof on this machine, slowest first."""
    return [level for level in cost.levels
            if level not in UNBOUNDING_LEVELS and machine.bandwidth(level)]


def free_parameters(analysis: Analysis) -> list[sympy.Symbol]:
    """Sizes still symbolic once settings and defaults are applied (M=N leaves N)."""
    values = analysis.values
    remaining = []
    for parameter in analysis.cost.parameters:
        if parameter in values:
            continue
        setting = analysis.settings.get(parameter)
        if setting is not None:
            continue
        remaining.append(parameter)
    return remaining


@dataclass(frozen=True)
class Solution:
    """`kernelcost solve` on one machine: ridge crossings per precision and level, and the
    sizes where keep scopes or the working set outgrow their level."""

    machine: Machine
    crossings: tuple[Crossing, ...]
    capacity: tuple  # CapacityCrossing


def solve_spec(analysis: Analysis, parameter: str, machines: list[str | Machine],
               precisions: list[str] | None, levels: list[str] | None) -> list[Solution]:
    cost = analysis.cost
    symbol = parameter_symbol(cost, parameter)
    if symbol in analysis.settings:
        raise KcostError(Diagnostic(None, f"`{parameter}` is both set and solved for",
                                    f"drop --set {parameter}=..."))
    settings = analysis.settings
    equations = RidgeEquations(cost, symbol, settings, apply_defaults=False)
    solutions = []
    for machine in (m if isinstance(m, Machine) else load_machine(m) for m in machines):
        found = []
        for precision in precisions or []:
            machine.require_precision(precision)
        for precision in precisions or [cost.precision]:
            for level in levels or roof_levels(cost, machine):
                if machine.bandwidth(level) is None:
                    continue
                found += equations.at(level).crossings(machine, precision)
        capacity = capacity_crossings(cost, symbol, machine, settings)
        solutions.append(Solution(machine, tuple(found), tuple(capacity)))
    return solutions
