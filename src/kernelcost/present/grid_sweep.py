"""The per-SM roofs of a parallel spec's t_bound over a sweep, quantised as `analyze` takes
them (module execution), so that a sweep's t_min is the verdict's t_bound at every size.

Each per-SM roof (a work class on its ceiling, shared memory on its bandwidth) is the
busiest SM's share on one SM's rate. With equal blocks that share is ceil(B / SMs) blocks,
and the term, ceil(B(n) / SMs) x (per-block amount)(n) x SMs / rate, is evaluated for every
size at once, as the sweep's other closed forms are. Where that cannot hold, the terms are
the model's own, asked size by size (execution.per_sm_terms): unequal blocks (their busiest
SM is found by enumerating the blocks), or an occupancy that moves with the swept size (a
swept tile whose block may stop fitting). A size whose block does not fit has no time (NaN),
as the verdict has none."""

from __future__ import annotations

from collections.abc import Mapping

import numpy
import sympy

from ..base.levels import Level
from ..base.records import record
from ..count.cost import Cost
from ..count.values import evaluate, exact
from ..gpu.execution import per_sm_terms
from ..gpu.occupancy import occupancy
from ..hardware.machine import PER_SM_LEVELS, Machine, Roof, level_roof
from .vectorize import vectorized


@record
class GridRoofs:
    """The quantised per-SM terms over an array of sizes: their roofs, in the model's order
    (work classes, then shared memory), their seconds (terms x sizes), and where the block
    fits."""

    roofs: tuple[Roof, ...]
    seconds: numpy.ndarray  # (terms, sizes)
    fits: numpy.ndarray  # bool per size


class GridSweep:
    """The per-SM roofs of `cost.grid` on `machine` at `precision`, the sizes other than
    `symbol` fixed by `substitutions` (parameter -> value)."""

    def __init__(self, cost: Cost, machine: Machine, precision: str, symbol: sympy.Symbol,
                 substitutions: Mapping):
        grid = cost.grid
        assert grid is not None  # a parallel spec
        self.cost, self.grid_cost, self.machine, self.precision = cost, grid, machine, precision
        self.symbol, self.substitutions = symbol, dict(substitutions)
        self.sms = machine.sm_count
        work = {cls: amount for cls, amount in cost.work.items() if amount != 0}
        self.work_classes = tuple(work)
        self.levels = tuple(level for level in PER_SM_LEVELS
                            if machine.bandwidth(level) is not None and level in cost.traffic)
        self.rates = [exact(machine.ceiling(precision, cls).peak_FLOPps) for cls in work]
        self.rates += [exact(machine.bandwidth(level)) for level in self.levels]
        self.roofs = tuple([machine.ceiling(precision, cls).roof for cls in work]
                           + [level_roof(level) for level in self.levels])
        sized = [grid.on_chip.get(level, 0) for level in (Level.SHARED, Level.REGISTERS)]
        sized += [grid.threads, grid.registers or 0, grid.cluster_size]
        moves = any(symbol in evaluate(sympy.sympify(expr), self.substitutions).free_symbols
                    for expr in sized)
        self.at_once = grid.equal_blocks and not moves
        self.fits_everywhere = (occupancy(grid, machine, self.substitutions).fits
                                if not moves else None)
        if self.at_once:
            per_block = [grid.work[cls] for cls in work]
            per_block += [grid.traffic.get(level, 0) for level in self.levels]
            self.blocks = vectorized(evaluate(grid.blocks, self.substitutions), symbol)
            self.per_block = [vectorized(evaluate(sympy.sympify(amount), self.substitutions),
                                         symbol) for amount in per_block]

    def __call__(self, sizes: numpy.ndarray) -> GridRoofs:
        if self.at_once:
            return self._at_once(sizes)
        return self._size_by_size(sizes)

    def _at_once(self, sizes: numpy.ndarray) -> GridRoofs:
        with numpy.errstate(all="ignore"):
            busiest = numpy.ceil(numpy.asarray(self.blocks(sizes), dtype=float) / self.sms)
            rows = [busiest * numpy.asarray(amount(sizes), dtype=float) * self.sms / float(rate)
                    for amount, rate in zip(self.per_block, self.rates, strict=True)]
        seconds = numpy.vstack(rows) if rows else numpy.zeros((0, len(sizes)))
        fits = numpy.full(numpy.shape(sizes), bool(self.fits_everywhere))
        return GridRoofs(self.roofs, seconds, fits)

    def _size_by_size(self, sizes: numpy.ndarray) -> GridRoofs:
        seconds = numpy.full((len(self.roofs), len(sizes)), numpy.nan)
        fits = numpy.zeros(len(sizes), dtype=bool)
        work = {cls: self.cost.work[cls] for cls in self.work_classes}
        for column, size in enumerate(sizes):
            values = {**self.substitutions, self.symbol: sympy.Integer(int(size))}
            occ = occupancy(self.grid_cost, self.machine, values)
            fits[column] = occ.fits
            terms = per_sm_terms(self.cost, self.machine, self.precision, values,
                                 {cls: evaluate(amount, values) for cls, amount in work.items()},
                                 occ)
            for row, term in enumerate(terms):
                seconds[row, column] = float(sympy.sympify(term.seconds))
        return GridRoofs(self.roofs, seconds, fits)
