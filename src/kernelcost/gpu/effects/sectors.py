"""The sectors effect: whole 32-byte sectors on the L1<->L2 link and through to HBM.

- sectors: the L1<->L2 link moves whole 32-byte sectors, so L2 serves the sector bytes of
  every warp instruction where the spec counts useful bytes; factor = L2 bytes as counted /
  (those bytes + the sectors' waste), on the L2 bandwidth.
- dram_sectors: HBM sees the union of the sectors through L2. A sector half used by one warp
  reaches DRAM once when neighbouring warps use the rest of it while it is in L2 (a transposed
  write, completed by the warps of the next rows); when nobody does (a strided read of a
  larger array), its waste reaches DRAM too. Per tensor, HBM sees at most the smaller of its
  sector bytes and its declared size, and at least its distinct elements: kernelcost takes
  the upper figure and derates the global bandwidth when it exceeds what t_model counts.
"""

from __future__ import annotations

import sympy

from ...base.kinds import EffectCause
from ...base.levels import Level
from ...base.records import record
from ...count.cost import Cost
from ..derates import At, Derate
from ..transfer import Transfer
from .context import ROOFS, EffectContext

SECTORS = EffectCause("sectors")
DRAM_SECTORS = EffectCause("dram_sectors")

NEGLIGIBLE = sympy.Rational(1, 100)  # below it, HBM's sectors and the wave boxes agree


@record
class TensorSeen:
    """What HBM sees of one tensor read or written in `lanes` loops with sectors to spare."""

    tensor: str
    seen_B: sympy.Expr  # the bytes of its sectors HBM sees
    distinct_B: sympy.Expr  # the bytes of its distinct elements
    shared: bool  # each byte once: neighbouring warps use the rest of each sector while it
    # is in L2 (seen = distinct); else nobody uses the rest


@record
class SectorFinding:
    """The L1<->L2 link in whole 32-byte sectors."""

    served_B: sympy.Expr  # the bytes L2 serves: counted + the sectors' waste
    counted_B: sympy.Expr  # the L2 bytes the spec counts
    worst: Transfer  # the access with the most sector bytes per useful byte
    hbm: tuple[TensorSeen, ...] = ()  # what HBM sees, where it costs no dram_sectors derate


@record
class DramSectorFinding:
    """HBM seeing whole sectors through L2, more than t_model counts."""

    seen_B: sympy.Expr
    counted_B: sympy.Expr  # the bytes t_model puts on the global bandwidth
    tensors: tuple[TensorSeen, ...]


class Sectors:
    """L2 (and HBM where it sees more than t_model counts) at the sectors' useful share."""

    name = SECTORS
    stage = ROOFS
    findings = (SectorFinding, DramSectorFinding)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        return tuple(sector_derates(context.transfers, context.cost, context.at,
                                    context.global_B))


def sector_derates(found: tuple[Transfer, ...], cost: Cost, at: At,
                   global_B: sympy.Expr | None) -> list[Derate]:
    """The derates of the L1<->L2 link (level l2) and of HBM (global); none where every warp
    is coalesced.
    `global_B`: the bytes t_model already puts on the global bandwidth."""
    at_global = [t for t in found if t.access.level == Level.GLOBAL]
    waste = sum((t.waste_B for t in at_global), sympy.Integer(0))
    if waste == 0:
        return []
    counted = at(cost.traffic.get(Level.L2, 0))
    if not counted.is_number or counted <= 0:
        return []
    factor = counted / (counted + waste)
    worst = max(at_global, key=lambda t: t.ratio)
    seen, tensors = _dram_seen(at_global, cost, at)
    if global_B is not None and seen.is_number and seen - global_B > global_B * NEGLIGIBLE:
        return [Derate(SECTORS, factor,
                       SectorFinding(counted + waste, counted, worst), Level.L2),
                Derate(DRAM_SECTORS, global_B / seen,
                       DramSectorFinding(seen, global_B, tensors), Level.GLOBAL)]
    return [Derate(SECTORS, factor,
                   SectorFinding(counted + waste, counted, worst, tensors), Level.L2)]


def _dram_seen(at_global: list[Transfer], cost: Cost,
               at: At) -> tuple[sympy.Expr, tuple[TensorSeen, ...]]:
    """The bytes of sectors HBM sees, and why, tensor by tensor: a tensor read or written in
    `lanes` loops at most its sector bytes and at most its declared size (whichever is
    smaller), never less than its distinct elements; any other tensor, its distinct elements.
    The tensors listed: those whose sectors have bytes to spare."""
    seen = sympy.Integer(0)
    tensors: list[TensorSeen] = []
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
        shared = tensor_seen == distinct
        if not shared or any(t.waste_B > 0 for t in mine):
            tensors.append(TensorSeen(tensor, tensor_seen, distinct, shared))
    return seen, tuple(tensors)
