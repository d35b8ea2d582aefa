"""A sweep's result, and the roofline a machine adds to it: t_min and its binding term at
every size, from the totals or a parallel spec's quantised per-SM roofs, NaN where a block
does not fit or the machine does not run the spec."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy

from ..base.levels import Level
from ..base.records import record
from ..count.cost import main_work_class
from ..count.values import exact
from ..hardware.machine import UNBOUNDING_LEVELS, Machine, Roof, level_roof
from .roofs import roof_name, short_roof_name

if TYPE_CHECKING:
    from .grid_sweep import GridRoofs

DOES_NOT_FIT = "does not fit"  # the binding `term` of a size whose block does not fit
NOT_RUN = "not run"  # every size's, where the machine does not run the spec (gpu.support)


@record
class SweepResult:
    """Closed forms evaluated at each size; arrays in SI base units, one entry per size.

    The roofline fields are None when no machine was given."""

    kernel: str
    parameter: str
    sizes: numpy.ndarray
    work: numpy.ndarray  # W, FLOP
    work_by_class: dict[str, numpy.ndarray]  # tensor | fma | vector | sfu -> FLOP
    traffic: dict[str, numpy.ndarray]  # level -> B
    intensity: dict[str, numpy.ndarray]  # level -> FLOP/B
    machine: str | None = None
    precision: str | None = None
    peak_FLOPps: float | None = None  # P, the kernel's main ceiling (cost.main_class)
    ridges: dict[str, float] | None = None  # level -> I_crit = P / B_l, FLOP/B
    term_names: tuple[str, ...] = ()  # "bf16 tensor peak", "global bandwidth", ...
    term_roofs: tuple[Roof | None, ...] = ()  # each term's roof (None: does not fit)
    term_seconds: numpy.ndarray | None = None  # (terms, sizes): W_c / P_c and Q_l / B_l
    t_min: numpy.ndarray | None = None  # s, without launch overhead
    binding_index: numpy.ndarray | None = None  # index into term_names, per size
    performance: numpy.ndarray | None = None  # attainable FLOP/s: W / t_min
    peak_fraction: numpy.ndarray | None = None  # performance / P
    t_min_with_launch: numpy.ndarray | None = None  # s: t_min + the machine's launch overhead
    item: str | None = None  # `per token = b`: what one item is
    items: numpy.ndarray | None = None  # items one run handles
    item_rate: numpy.ndarray | None = None  # items/s: items / t_min
    item_rate_with_launch: numpy.ndarray | None = None  # items / t_min_with_launch

    @property
    def binding(self) -> list[str]:
        """The binding term's name at each size."""
        if self.binding_index is None:
            return []
        return [self.term_names[index] for index in self.binding_index]

    @property
    def short_binding(self) -> list[str]:
        """The binding term's short name at each size (`bf16 tensor`, `shared`)."""
        if self.binding_index is None:
            return []
        shorts = [name if roof is None else short_roof_name(roof)
                  for name, roof in zip(self.term_names, self.term_roofs, strict=True)]
        return [shorts[index] for index in self.binding_index]


def with_roofline(result: SweepResult, machine: Machine, precision: str,
                   roofs: GridRoofs | None = None, runs: bool = True) -> SweepResult:
    """t_min and its binding term at every size: the roofline of the totals, or for a
    parallel spec (`roofs`) the model's t_bound, its per-SM roofs quantised and its terms in
    the model's order (work, shared, L2, global); NaN and `does not fit` where the block
    does not fit, and at every size where the machine does not run the spec."""
    terms, seconds = _work_terms(result, machine, precision, roofs)
    # the peak of the units the kernel runs on at large sizes (a contraction that the swept
    # size puts on the vector units at small sizes is timed there, its ridge stays the tensor one)
    peak = float(exact(machine.peak(precision, _main_class(result.work_by_class))))
    ridges, level_terms, level_seconds = _level_terms(result, machine, peak, roofs)
    terms += level_terms
    seconds += level_seconds
    term_seconds = numpy.vstack(seconds)
    t_min, binding_index = _running_max(seconds)
    t_min, binding_index = _unfit_and_not_run(terms, t_min, binding_index, roofs, runs)
    # as the model adds it: t_min + the overhead, t_min itself where the machine gives none
    t_min_with_launch = t_min + float(exact(machine.launch_overhead_s or 0))
    with numpy.errstate(divide="ignore", invalid="ignore"):
        performance = result.work / t_min
        rates = {} if result.items is None else {
            "item_rate": result.items / t_min,
            "item_rate_with_launch": result.items / t_min_with_launch}
    names = [DOES_NOT_FIT if roof is None else roof_name(roof) for roof in terms]
    if not runs:
        names[-1] = NOT_RUN
    return SweepResult(
        **{**result.__dict__, "machine": machine.id, "precision": precision,
           "peak_FLOPps": peak, "ridges": ridges, "term_names": tuple(names),
           "term_roofs": tuple(terms),
           "term_seconds": term_seconds, "t_min": t_min, "binding_index": binding_index,
           "performance": performance, "peak_fraction": performance / peak,
           "t_min_with_launch": t_min_with_launch, **rates})


def _work_terms(result: SweepResult, machine: Machine, precision: str,
                roofs: GridRoofs | None) -> tuple[list[Roof | None], list]:
    """Each work class's term: its work over its ceiling, or the per-SM roofs of a grid."""
    if roofs is not None:
        return list(roofs.roofs), list(roofs.seconds)
    terms: list[Roof | None] = []
    seconds = []
    for work_class, amount in result.work_by_class.items():
        ceiling = machine.ceiling(precision, work_class)
        terms.append(ceiling.roof)
        seconds.append(amount / float(exact(ceiling.peak_FLOPps)))
    return terms, seconds


def _level_terms(result: SweepResult, machine: Machine, peak: float, roofs: GridRoofs | None
                 ) -> tuple[dict, list[Roof | None], list]:
    """Each level's ridge, in the order of its traffic, and the terms of the levels whose
    bandwidth is a roof not already quantised per SM (the grid's levels in the model's
    order)."""
    ridges = {}
    terms: list[Roof | None] = []
    seconds = []
    levels = list(result.traffic.items())
    if roofs is not None:  # as execution.grid_verdict orders them
        order = (Level.SHARED, Level.L2, Level.GLOBAL)
        levels = sorted(levels, key=lambda item: order.index(item[0])
                        if item[0] in order else 3)
    for level, amount in levels:
        bandwidth = machine.bandwidth(level)
        if bandwidth is None:  # the model leaves such a level out of t_min too
            continue
        ridges[level] = peak / float(exact(bandwidth))
        quantised = roofs is not None and level_roof(level) in roofs.roofs
        if level not in UNBOUNDING_LEVELS and not quantised:  # registers: never a roof
            terms.append(level_roof(level))
            seconds.append(amount / float(exact(bandwidth)))
    ridges = {level: ridges[level] for level in result.traffic if level in ridges}
    return ridges, terms, seconds


def _unfit_and_not_run(terms: list[Roof | None], t_min, binding_index,
                       roofs: GridRoofs | None, runs: bool):
    """t_min NaN where the block does not fit and everywhere the machine does not run the
    spec, each bound by a term of its own (None, appended to `terms`)."""
    if roofs is not None and not roofs.fits.all():
        terms.append(None)
        t_min = numpy.where(roofs.fits, t_min, numpy.nan)
        binding_index = numpy.where(roofs.fits, binding_index, len(terms) - 1)
    if not runs:
        terms.append(None)
        t_min = numpy.full_like(t_min, numpy.nan)
        binding_index = numpy.full_like(binding_index, len(terms) - 1)
    return t_min, binding_index


def _main_class(work_by_class: Mapping[str, numpy.ndarray]) -> str:
    return main_work_class({name: bool(numpy.any(amount)) for name, amount
                            in work_by_class.items()})


def _running_max(rows: list[numpy.ndarray]) -> tuple[numpy.ndarray, numpy.ndarray]:
    """Elementwise max over a few rows and the index of the first row reaching it (ties go
    to the earlier term, as in model.binding_term). A pass per row is faster than argmax
    along the short axis of a (terms, sizes) array."""
    largest = rows[0]
    index = numpy.zeros(largest.shape, dtype=numpy.intp)
    for position, row in enumerate(rows[1:], start=1):
        index = numpy.where(row > largest, position, index)
        largest = numpy.maximum(largest, row)
    return largest, index
