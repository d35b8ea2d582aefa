"""An evaluation over the candidates read back at some of them: a candidate's values, the
Pareto set of t_bound against bytes on chip, and the figures of why a candidate was left out."""

from __future__ import annotations

import math

import numpy

from ..base.levels import Level
from ..base.records import record
from .rejections import (
    REJECTED,
    BrokenBound,
    BrokenFact,
    EmptyGrid,
    Figures,
    HeaderCount,
    RegistersOver,
    Rejected,
    SharedHeld,
    SharedOver,
)
from .search import HOLDS, Evaluation, Evaluator


@record
class Pareto:
    """A candidate no other beats on both t_bound and bytes on chip."""

    values: tuple[int, ...]
    t_bound: float  # s
    on_chip_B: float


def point_at(axes, shape, index: int) -> tuple[int, ...]:
    """The values of flat candidate `index` of the open mesh of `axes`."""
    coordinates = numpy.unravel_index(index, shape)
    return tuple(int(axis[c]) for axis, c in zip(axes, coordinates))


def pareto(result: Evaluation, axes) -> tuple[Pareto, ...]:
    """The fitting candidates no other beats on both t_bound and bytes on chip (a smaller
    t_bound with at most as many bytes), fewest bytes first."""
    fits = numpy.flatnonzero(result.reject.ravel() == 0)
    t = result.full(result.t_bound, fits)
    held = result.full(result.on_chip, fits)
    return tuple(Pareto(point_at(axes, result.t_bound.shape, int(fits[i])), float(t[i]),
                        float(held[i])) for i in front(fits, t, held))


def front(index: numpy.ndarray, t: numpy.ndarray, held: numpy.ndarray) -> numpy.ndarray:
    """The positions of the candidates at flat `index` no other beats on both t_bound `t`
    and bytes `held` (of equal ones, the first), fewest bytes first."""
    if index.size == 0:
        return index
    order = numpy.lexsort((index, t, held))
    best = numpy.minimum.accumulate(t[order])
    better = numpy.concatenate(([True], t[order][1:] < best[:-1]))
    return order[better]


def rejection_figures(evaluator: Evaluator, result: Evaluation, index: int,
                      axes) -> Figures | None:
    """The figures of candidate `index`'s rejection, where there are some to give."""
    reason = REJECTED[result.reject.ravel()[index] - 1]
    machine = evaluator.machine
    ex = machine.execution
    point = point_at(axes, result.t_bound.shape, index)
    one = [numpy.array([float(v)]) for v in point]
    picked = numpy.array([index])
    if reason == Rejected.ASSUMPTION:
        for divisor, dividend in evaluator.spec.checked.divisibility:
            d = float(evaluator.compiled(divisor)(one).ravel()[0])
            n = float(evaluator.compiled(dividend)(one).ravel()[0])
            if n % d or n < d:
                return BrokenFact(divisor, dividend, d, n)
        for relation in evaluator.spec.checked.bounds:
            left = float(evaluator.compiled(relation.lhs)(one).ravel()[0])
            right = float(evaluator.compiled(relation.rhs)(one).ravel()[0])
            if not HOLDS[type(relation)](left, right):
                return BrokenBound(relation, left, right)
    if reason == Rejected.HEADER:
        for what, count in evaluator.header_counts():
            value = float(evaluator.compiled(count)(one).ravel()[0])
            if not (value > 0 and value == math.floor(value)):
                return HeaderCount(what, value)
    if reason == Rejected.GRID and evaluator.cost.grid is not None:
        return EmptyGrid(float(evaluator.compiled(evaluator.cost.grid.blocks)(one).ravel()[0]))
    if reason == Rejected.SHARED and result.shared is not None:
        limit = ex.shared_per_block_max_B or (machine.capacity(Level.SHARED)
                                              - (ex.shared_reserved_per_block_B or 0))
        return SharedOver(float(result.full(result.shared, picked)[0]), float(limit))
    if reason == Rejected.SHARED:
        return SharedHeld(float(result.full(result.on_chip, picked)[0]))
    if reason == Rejected.REGISTERS and result.registers is not None:
        allowed = min(v for v in (ex.max_registers_per_block, ex.registers_per_sm) if v)
        needed = float(result.full(result.registers, picked)[0])
        return RegistersOver(needed, float(allowed)) if needed > allowed else None
    return None
