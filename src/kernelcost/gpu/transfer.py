"""Transfer efficiency at numeric sizes: each `lanes` access in sectors or bank wavefronts
(lanes.py gives one warp instruction in closed form). The sectors and bank-conflict effects
(package effects) make their derates of them."""

from __future__ import annotations

import sympy

from ..base.levels import Level
from ..base.records import record
from ..count.cost import Cost, LaneAccess
from ..count.lanes import SECTOR_B, WARP, bank_wavefronts, sectors_per_warp
from .derates import At


@record
class Transfer:
    """One `lanes` access at numeric sizes."""

    access: LaneAccess
    instructions: sympy.Integer  # warp instructions over the kernel
    useful_B: sympy.Integer  # bytes the lanes ask for (element bytes x thread accesses)
    cost_B: sympy.Integer  # global: sector bytes on L1<->L2; shared: useful bytes x degree
    per_warp: int  # sectors (global) or wavefronts (shared) of a full warp instruction

    @property
    def ratio(self) -> sympy.Rational:
        """Sector bytes over useful bytes (global), or the bank-conflict degree (shared)."""
        return sympy.Rational(self.cost_B, self.useful_B)

    @property
    def waste_B(self) -> sympy.Integer:
        return max(sympy.Integer(0), self.cost_B - self.useful_B)


def transfers(cost: Cost, at: At) -> tuple[Transfer, ...]:
    """Every lanes access whose figures are numbers once `at` sets the sizes."""
    found: list[Transfer] = []
    for access in cost.grid.lane_accesses if cost.grid is not None else ():
        row = access.swizzled_row_bytes
        figures = [at(expr) for expr in (access.stride_bytes, access.element_bytes,
                                         access.lanes, access.executions, row or 0)]
        if not all(value.is_Integer for value in figures) or figures[2] < 1:
            continue
        stride, element, lanes, executions, row_B = (int(value) for value in figures)
        found.append(_transfer(access, stride, element, lanes, executions, row_B or None))
    return tuple(found)


def _transfer(access: LaneAccess, stride: int, element: int, lanes: int, executions: int,
              row_B: int | None) -> Transfer:
    runs = sympy.Rational(executions, lanes)  # the lanes loop's runs (inner loops included)
    full, rest = divmod(lanes, WARP)
    per_run = full + (rest > 0)
    useful = sympy.Integer(executions * element)
    if access.level == Level.GLOBAL:
        sectors = full * sectors_per_warp(stride, element) + sectors_per_warp(stride, element,
                                                                              rest)
        cost = runs * sectors * SECTOR_B
        per_warp = sectors_per_warp(stride, element, min(lanes, WARP))
    else:
        wavefronts = (full * bank_wavefronts(stride, element, WARP, row_B)
                      + bank_wavefronts(stride, element, rest, row_B))
        ideal = full * bank_wavefronts(0, element) + bank_wavefronts(0, element, rest)
        cost = useful * sympy.Rational(wavefronts, ideal)
        per_warp = bank_wavefronts(stride, element, min(lanes, WARP), row_B)
    return Transfer(access, sympy.Integer(runs * per_run), useful, sympy.Integer(cost),
                    per_warp)
