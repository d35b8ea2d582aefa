"""The answers users come for, per machine and precision: the verdict at the given sizes,
where the kernel crosses the ridge in its one free size, and how a measurement compares.
Builds on analysis (closed forms), model (verdicts) and solve (crossings); `kernelcost solve`
itself needs no verdict and runs from solve alone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import sympy

from ..analysis.api import Analysis, Spec
from ..base.kinds import Reuse
from ..base.records import record
from ..count.cost import Cost
from ..count.values import evaluate
from ..gpu.polyexp import ExpOnFma
from ..gpu.polyexp import exp_on_fma as move_exponentials
from ..hardware.machine import Machine
from ..hardware.machinefile import load_machine
from ..lang.idle import refuse_idle_kernel, runs_nothing
from ..lang.precisions import PrecisionMap
from ..lang.settings import GRID_SIZES, MAX_FLOAT_SIZE, refuse_beyond
from ..lang.sizes import (
    refuse_broken_bounds,
    refuse_broken_divisibility,
    refuse_empty_grid,
    refuse_header_counts,
    refuse_large_numbers,
    refuse_zero_divisors,
)
from .model import Verdict, verdict
from .rates import ItemRate, item_rate

if TYPE_CHECKING:  # crossings load only where one size is left free, and the
    from .efficiency import Efficiency  # efficiency only with a measurement
    from .solve import Crossing, RidgeEquations


@record
class Answer:
    verdict: Verdict
    free_parameter: sympy.Symbol | None  # the one size left symbolic, if exactly one
    crossings: tuple[Crossing, ...]  # of the global ridge in that size
    efficiency: Efficiency | None  # against a measurement, when one was given
    exp_on_fma: ExpOnFma | None = None  # exponentials moved to the FP32 vector units
    rate: ItemRate | None = None  # items per second, when the spec says what an item is
    mapping: PrecisionMap | None = None  # the element types at this precision (--precision)


def answers(analysis: Analysis, machines: Sequence[str | Machine], precisions: Sequence[str] | None,
            measurement: dict[str, float] | None = None, *,
            exp_on_fma: ExpOnFma | None = None, warm_l2: tuple[str, ...] = (),
            raw: Mapping[str, object] | None = None) -> list[Answer]:
    """One Answer per machine x precision (the spec's own precision when none is given), each
    precision with the spec's element types mapped to it (Spec.at_precision: its bytes).
    `exp_on_fma`: a fraction of the exponentials on the FP32 vector units (polyexp);
    `warm_l2`: tensors a previous kernel left in L2 (warm); `raw`: the sizes as the user
    wrote them, to place an error on the one a verdict cannot take."""
    loaded = [m if isinstance(m, Machine) else load_machine(m) for m in machines]
    refuse_verdict_sizes(analysis.spec, analysis.values, raw or {})
    free = free_parameters(analysis)
    costs: dict[str, Cost] = {}
    equations: dict[str, RidgeEquations] = {}

    def at(precision: str) -> Cost:
        if precision not in costs:
            spec = analysis.spec.at_precision(precision)
            counted = (analysis.cost if spec is analysis.spec
                       else spec.cost(analysis.reuse))
            costs[precision] = move_exponentials(counted, exp_on_fma)
            if len(free) == 1:
                from .solve import RidgeEquations

                equations[precision] = RidgeEquations(costs[precision], free[0],
                                                      analysis.settings)
        return costs[precision]

    results = []
    for machine in loaded:
        for precision in precisions or []:
            machine.require_precision(precision)
        for precision in precisions or [analysis.cost.precision]:
            cost = at(precision)
            result = verdict(cost, machine, precision, analysis.settings, apply_defaults=True,
                             warm=warm_l2)
            crossings: tuple[Crossing, ...] = ()
            if precision in equations:
                from .solve import roof_levels

                crossings = tuple(
                    crossing for level in roof_levels(cost, machine)
                    for crossing in equations[precision].at(level).crossings(machine, precision))
            efficiency = None
            if measurement and result.binding is not None:
                from .efficiency import measured_efficiency

                efficiency = measured_efficiency(result, **measurement)
            results.append(Answer(result, free[0] if len(free) == 1 else None, crossings,
                                  efficiency, exp_on_fma,
                                  item_rate(analysis.spec.checked, result),
                                  analysis.spec.at_precision(precision).mapping))
    return results


def refuse_verdict_sizes(spec: Spec, values: Mapping[sympy.Symbol, sympy.Expr],
                         raw: Mapping[str, object]) -> None:
    """The sizes the verdict of a grid of blocks cannot take, refused where they were
    written: sizes where a division of the spec is by zero; sizes that break an `assume`
    bound where the counts then come out negative; sizes where the kernel runs nothing (no
    work, no byte: no roof bounds a time of 0 s); for a grid, sizes where a count its
    header states is not positive, sizes that break an `assume d | n` (its machine model
    counts whole tiles and blocks from the fact) and sizes beyond 2^53 (it counts in 64-bit
    integers). A spec without a grid otherwise takes its closed forms as they are, with a
    warning where the sizes break a fact (a model's approximate figures: llm_decode's
    Theta = 70e9)."""
    refuse_zero_divisors(spec.checked, values)
    cost = spec.cost(Reuse.SPEC)
    amounts = [evaluate(amount, values) for amount in (*cost.work.values(),
                                                       *cost.traffic.values())]
    if any(amount.is_number and amount < 0 for amount in amounts):
        refuse_broken_bounds(spec.checked, values)
    if cost.grid is not None:  # a grid of no block first: the launch itself is refused
        refuse_header_counts(spec.checked, values)  # its divisions refused at the top
        refuse_empty_grid(spec.checked, cost.grid.blocks, values)
    if all(amount.is_number and amount == 0 for amount in amounts) or runs_nothing(
            spec.checked, values):
        refuse_idle_kernel(spec.checked, values)
    if cost.grid is None:
        return
    refuse_broken_divisibility(spec.checked, values)
    refuse_beyond(dict(values), raw, spec.kernel, MAX_FLOAT_SIZE, GRID_SIZES,
                  "give it at most 2^53 (9.0e15), or analyze it without --machine")
    refuse_large_numbers(spec.kernel, MAX_FLOAT_SIZE, GRID_SIZES)


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
