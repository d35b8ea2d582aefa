"""Transfer efficiency at numeric sizes: each `lanes` access in sectors or bank wavefronts
(lanes.py gives one warp instruction in closed form), and the derates they make.

- sectors: the L1<->L2 link moves whole 32-byte sectors, so L2 serves the sector bytes of
  every warp instruction where the spec counts useful bytes; factor = L2 bytes as counted /
  (those bytes + the sectors' waste), on the L2 bandwidth.
- dram_sectors: HBM sees the union of the sectors through L2. A sector half used by one warp
  reaches DRAM once when neighbouring warps use the rest of it while it is in L2 (a transposed
  write, completed by the warps of the next rows); when nobody does (a strided read of a
  larger array), its waste reaches DRAM too. Per tensor, HBM sees at most the smaller of its
  sector bytes and its declared size, and at least its distinct elements: kernelcost takes
  the upper figure and derates the global bandwidth when it exceeds what t_model counts.
- bank_conflicts: a shared access of conflict degree d takes d times the wavefronts of a
  conflict-free one; factor = shared bytes / (those bytes + each access's bytes x (d - 1)).

Estimates, like every derate: they enter t_model, never t_bound."""

from __future__ import annotations

import sympy

from ..base.records import record
from ..base.units import si
from ..count.cost import Cost, LaneAccess
from ..count.lanes import SECTOR_B, WARP, bank_wavefronts, sectors_per_warp
from .derates import At, Derate

SECTORS = "sectors"
DRAM_SECTORS = "dram_sectors"
BANK_CONFLICTS = "bank_conflicts"
NEGLIGIBLE = sympy.Rational(1, 100)  # below it, HBM's sectors and the wave boxes agree


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
    if access.level == "global":
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


def sector_derates(found: tuple[Transfer, ...], cost: Cost, at: At,
                   global_B: sympy.Expr | None) -> list[Derate]:
    """The derates of the L1<->L2 link (level l2) and of HBM (global); none where every warp
    is coalesced.
    `global_B`: the bytes t_model already puts on the global bandwidth."""
    at_global = [t for t in found if t.access.level == "global"]
    waste = sum((t.waste_B for t in at_global), sympy.Integer(0))
    if waste == 0:
        return []
    counted = at(cost.traffic.get("l2", 0))
    if not counted.is_number or counted <= 0:
        return []
    factor = counted / (counted + waste)
    worst = max(at_global, key=lambda t: t.ratio)
    moved = (f"L1<->L2 moves whole 32-byte sectors: L2 serves {si(float(counted + waste), 'B')} "
             f"where the spec counts {si(float(counted), 'B')} (worst: {worst.access.text}, "
             f"{_times(worst.ratio)} its useful bytes)")
    seen, reasons = _dram_seen(at_global, cost, at)
    if global_B is not None and seen.is_number and seen - global_B > global_B * NEGLIGIBLE:
        return [Derate(SECTORS, factor, moved, "l2"),
                Derate(DRAM_SECTORS, global_B / seen, (
                    f"HBM sees whole sectors through L2: {reasons}: {si(float(seen), 'B')} "
                    f"where t_model counted {si(float(global_B), 'B')}"), "global")]
    hbm = f"; HBM: {reasons}" if reasons else ""
    return [Derate(SECTORS, factor, moved + hbm, "l2")]


def _dram_seen(at_global: list[Transfer], cost: Cost, at: At) -> tuple[sympy.Expr, str]:
    """The bytes of sectors HBM sees, and why, tensor by tensor: a tensor read or written in
    `lanes` loops at most its sector bytes and at most its declared size (whichever is
    smaller), never less than its distinct elements; any other tensor, its distinct elements."""
    seen = sympy.Integer(0)
    reasons: list[str] = []
    for tensor, footprint in cost.footprints.items():
        distinct = at((footprint.read_elements + footprint.write_elements)
                      * footprint.element_bytes)
        mine = [t for t in at_global if t.access.tensor == tensor]
        if not mine or not distinct.is_number:
            seen += distinct
            continue
        declared = at(mine[0].access.tensor_elements * footprint.element_bytes)
        sectors = sum(t.cost_B for t in mine)
        tensor_seen = max(distinct, min(sectors, declared) if declared.is_number else sectors)
        seen += tensor_seen
        if tensor_seen == distinct:
            if any(t.waste_B > 0 for t in mine):
                reasons.append(f"{tensor} each byte once ({si(float(distinct), 'B')}): the "
                               "rest of each sector is used by neighbouring warps while the "
                               "sector is in L2")
        else:
            reasons.append(f"{tensor} {si(float(tensor_seen), 'B')} of sectors for "
                           f"{si(float(distinct), 'B')} used: nobody uses the rest")
    return seen, ", ".join(reasons)


def bank_derate(found: tuple[Transfer, ...], cost: Cost, at: At) -> Derate | None:
    """The shared bandwidth kept under the bank conflicts of the lanes accesses."""
    at_shared = [t for t in found if t.access.level == "shared"]
    waste = sum((t.waste_B for t in at_shared), sympy.Integer(0))
    if waste == 0:
        return None
    counted = at(cost.traffic.get("shared", 0))
    if not counted.is_number or counted <= 0:
        return None
    worst = max(at_shared, key=lambda t: t.ratio)
    return Derate(BANK_CONFLICTS, counted / (counted + waste), (
        f"shared-memory bank conflicts (32 banks of 4 B): the shared bandwidth serves "
        f"{si(float(counted + waste), 'B')} of wavefronts for {si(float(counted), 'B')} "
        f"(worst: {worst.access.text}, {way(worst.ratio)})"), "shared")


def _times(ratio: sympy.Expr) -> str:
    return f"{float(ratio):.3g}x"


def way(degree: sympy.Expr) -> str:
    """`32-way` or `conflict-free`."""
    return "conflict-free" if degree == 1 else f"{float(degree):.3g}-way"
