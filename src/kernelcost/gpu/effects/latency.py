"""The latency effect: Little's law at each level with traffic (global, l2, shared).

Bytes in flight needed = the level's bandwidth x its load latency (the machine file's figure,
in cycles at its clock: an unloaded latency, a chain of dependent loads, so loaded latencies
are longer and the need larger); bytes in flight available = the blocks resident at once x what
one block keeps in flight. Global and L2 are device-wide: min(B, resident x SMs) blocks against
the device's bandwidth, each keeping in flight its shared tiles, stages x tile bytes
(asynchronous copies, or a fill of independent loads; without a keep, the arrays it declares
in shared memory), else threads x one load per thread of
each global tensor it reads (the same requests for both: a load is in flight to L2 whether it
hits there or goes on to DRAM). Shared memory is per SM, as its roof is the busiest SM's:
min(that SM's blocks, resident) blocks against one SM's share of the bandwidth, each keeping
threads x one load per thread of each tensor its shared scopes hold. A load is an element, or
a vector of up to 16 B when the block reads several elements per thread of the tensor; a
global tensor the spec gives a `width` (lang.parallel) is that many bytes a thread, one
load at a time; where the spec states widths and a block reads in passes one after another
(loops right inside the grid), each pass keeps one load of each tensor it reads in flight,
and the block its passes' bytes over their time, sum(bytes) / sum(bytes / in flight). Below
the need, the attainable bandwidth of the level is scaled by available / needed. A level
without a cited latency in the machine file gets no derate: the verdict says its latency is
unknown."""

from __future__ import annotations

import sympy

from ...base.kinds import EffectCause, Per, term_key
from ...base.levels import Level
from ...base.records import record
from ...count.cost import Cost
from ...count.values import exact
from ...hardware.machine import PER_SM_LEVELS, Machine
from ..derates import At, Derate
from ..occupancy import Occupancy
from .context import ROOFS, EffectContext

LATENCY = EffectCause("latency")

VECTOR_BYTES = 16  # the widest load one thread issues (ld.global.v4.b32, LDG.128)
# where Little's law is checked, slowest first
LITTLE_LEVELS = (Level.GLOBAL, Level.L2, Level.SHARED)


@record
class BlockLoads:
    """How one block keeps bytes in flight: its shared tiles (stages x tile bytes, filled by
    independent copies), else its threads x one load each of some tensors."""

    tiles: bool
    threads: sympy.Expr = sympy.Integer(0)  # without tiles: the block's threads
    loads: tuple[tuple[str, sympy.Expr], ...] = ()  # without tiles: (tensor, bytes of one load)
    declared: bool = False  # the tiles are arrays declared in shared memory, not keeps
    # with stated widths, in passes (GridCost.passes): (tensors, bytes a thread keeps in
    # flight in the pass, bytes of the block's boxes of those tensors), in source order
    passes: tuple[tuple[tuple[str, ...], sympy.Expr, sympy.Expr], ...] = ()


@record
class InFlight:
    """Little's law at one level, over the device or one SM (`per`)."""

    level: str
    per: Per  # the device or one SM: the scope of the bandwidth, the blocks and the bytes below
    bandwidth_Bps: sympy.Expr
    needed_B: sympy.Expr  # bandwidth x latency
    available_B: sympy.Expr  # blocks at once x bytes in flight per block
    per_block_B: sympy.Expr
    how: BlockLoads  # how a block keeps bytes in flight
    latency_s: sympy.Expr
    blocks_at_once: sympy.Expr

    @property
    def factor(self) -> sympy.Expr:
        return sympy.Min(1, self.available_B / self.needed_B)

    @property
    def per_sm(self) -> bool:
        return self.per == Per.SM


@record
class LatencyFinding:
    """A level latency-bound: Little's law there, the bandwidth it leaves and the occupancy
    that would lift it."""

    flight: InFlight
    attainable_Bps: sympy.Expr  # the level's bandwidth x available / needed
    lift: sympy.Expr  # the resident blocks per SM that would keep enough in flight
    allowed: sympy.Expr | None = None  # the resident blocks per SM the block's resources
    # allow, where fewer than `lift`; None otherwise


class Latency:
    """Little's law at each level: the levels latency-bound at the verdict's sizes."""

    name = LATENCY
    stage = ROOFS
    findings = (LatencyFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        occ = context.occupancy
        if occ is None:
            return ()
        found = (latency_derate(in_flight(context.cost, context.machine, level, occ,
                                          context.at, level in PER_SM_LEVELS),
                                context.machine, occ.resident)
                 for level in LITTLE_LEVELS)
        return tuple(derate for derate in found if derate is not None)


def latency_unknown(cost: Cost, machine: Machine) -> tuple[str, ...]:
    """The levels Little's law would check (traffic and a bandwidth) whose load latency the
    machine file does not cite: no derate there, and the verdict says so."""
    return tuple(level for level in LITTLE_LEVELS
                 if level in cost.traffic and machine.bandwidth(level) is not None
                 and machine.latency(level) is None)


def in_flight(cost: Cost, machine: Machine, level: str, occ: Occupancy, at: At,
              per_sm: bool) -> InFlight | None:
    """Little's law at `level` for a parallel spec at numeric sizes, or None where a figure
    is missing (no latency in the machine file, no bandwidth, no traffic, symbolic sizes).
    `per_sm`: the level's roof is the busiest SM's (shared memory), not the device's."""
    grid = cost.grid
    bandwidth, latency = machine.bandwidth(level), machine.latency(level)
    if (grid is None or bandwidth is None or latency is None or occ.resident is None
            or level not in cost.traffic):
        return None
    blocks = at(grid.blocks)
    if not blocks.is_number:  # an unset size: no law to check, whatever a block loads
        return None
    latency_s = exact(latency.cycles) / exact(latency.clock_Hz)
    threads = at(grid.threads)
    if level == Level.SHARED:
        per_block, how = _shared_loads(cost, threads, at)
    else:
        per_block, how = _global_loads(cost, threads, at)
    if not (sympy.sympify(per_block).is_number and per_block > 0):
        return None
    rate = exact(bandwidth)
    if per_sm:
        per, rate = Per.SM, rate / machine.sm_count
        at_once = sympy.Min(occ.busiest_sm_blocks, occ.resident)
    else:
        per, at_once = Per.DEVICE, sympy.Min(blocks, occ.resident * machine.sm_count)
    if not (at_once * per_block).is_number:  # residency left symbolic by an unset size
        return None
    return InFlight(level, per, rate, rate * latency_s, at_once * per_block, per_block, how,
                    latency_s, at_once)


def _global_loads(cost: Cost, threads: sympy.Expr, at: At) -> tuple[sympy.Expr, BlockLoads]:
    """What one block keeps in flight toward L2 and DRAM: its shared tiles, else one load per
    thread of each global tensor it reads."""
    tiles = [scope for scope in cost.scopes if scope.level == Level.SHARED
             and at(scope.stages).is_number and at(scope.held_bytes).is_number]
    if tiles:
        per_block = sum(at(scope.stages) * at(scope.held_bytes) for scope in tiles)
        return per_block, BlockLoads(tiles=True)
    assert cost.grid is not None  # in_flight asks only of a parallel spec
    # Without a keep, arrays a block declares in shared memory are its staging tiles: a
    # fill of one from global memory is independent loads (cp.async, or an unrolled copy)
    # that a thread issues all before it waits, so the whole array is in flight at once.
    staged = at(cost.grid.on_chip.get(Level.SHARED, sympy.Integer(0)))
    if staged.is_number and staged > 0:
        return staged, BlockLoads(tiles=True, declared=True)
    read = [tile for tile in cost.grid.tiles
            if sympy.sympify(cost.footprints[tile.tensor].read_elements) != 0]
    elements = [at(sympy.Mul(*(last - first + 1 for first, last in tile.whole)))
                for tile in read]
    stated = dict(cost.grid.widths)
    loads = [stated[tile.tensor] if tile.tensor in stated
             else one_load(at(tile.element_bytes), count, threads)
             for tile, count in zip(read, elements)]
    named = tuple(zip([tile.tensor for tile in read], loads, strict=True))
    boxes = {tile.tensor: count * at(tile.element_bytes) for tile, count in zip(read, elements)}
    passes = [names for names in cost.grid.passes if all(name in boxes for name in names)]
    if stated and len(passes) > 1:
        return _by_pass(passes, dict(named), boxes, threads, named)
    return threads * sum(loads, sympy.Integer(0)), BlockLoads(False, threads, named)


def _by_pass(passes: list[tuple[str, ...]], load: dict[str, sympy.Expr],
             boxes: dict[str, sympy.Expr], threads: sympy.Expr,
             named: tuple[tuple[str, sympy.Expr], ...]) -> tuple[sympy.Expr, BlockLoads]:
    """With stated widths a thread's loads go one at a time, so a pass keeps in flight one
    load of each tensor it reads, and the passes run one after another: each pass's bytes at
    its own bytes in flight, which is a block keeping sum(bytes) / sum(bytes / in flight)."""
    found = tuple((names, sum((load[name] for name in names), sympy.Integer(0)),
                   sum((boxes[name] for name in names), sympy.Integer(0))) for names in passes)
    moved = sum((box for _, _, box in found), sympy.Integer(0))
    waits = sum((box / (threads * flight) for _, flight, box in found), sympy.Integer(0))
    return moved / waits, BlockLoads(False, threads, named, passes=found)


def _shared_loads(cost: Cost, threads: sympy.Expr, at: At) -> tuple[sympy.Expr, BlockLoads]:
    """What one block keeps in flight from shared memory: one load per thread of each tensor
    its shared scopes hold (the tile one entry fills sets the vector width)."""
    tensors: list[str] = []
    loads: list[sympy.Expr] = []
    for scope in cost.scopes:
        if scope.level != Level.SHARED:
            continue
        for tensor in scope.tensors:
            element = at(cost.footprints[tensor].element_bytes)
            filled = scope.read_elements.get(tensor, 0)
            elements = at(filled if filled != 0 else scope.write_elements.get(tensor, 0))
            tensors.append(tensor)
            loads.append(one_load(element, elements, threads))
    return threads * sum(loads, sympy.Integer(0)), BlockLoads(
        False, threads, tuple(zip(tensors, loads, strict=True)))


def one_load(element: sympy.Expr, elements: sympy.Expr, threads: sympy.Expr) -> sympy.Expr:
    """The bytes of one load of a tensor by one thread: its element, or a vector of up to
    VECTOR_BYTES when the block reads several elements per thread of it."""
    if not (elements.is_number and element.is_number and threads.is_number):
        return element
    per_thread = max(1, int(elements // threads))
    # elements of under a byte (fp6, fp4) pack several to a byte: a vector holds more of them
    return element * max(1, min(per_thread, int(VECTOR_BYTES / element)))


def latency_derate(flight: InFlight | None, machine: Machine,
                   resident: sympy.Expr | None = None) -> Derate | None:
    """`latency-bound` at the flight's level with the attainable bandwidth and the occupancy
    that lifts it; None when enough is in flight. `resident`: the blocks per SM the block's
    resources allow."""
    if flight is None or flight.available_B >= flight.needed_B:
        return None
    factor = flight.available_B / flight.needed_B
    sms = machine.sm_count if flight.per == Per.DEVICE else 1
    lift = sympy.ceiling(flight.needed_B / (sms * flight.per_block_B))
    allowed = resident if resident is not None and resident.is_number and lift > resident \
        else None
    return Derate(LATENCY, factor,
                  LatencyFinding(flight, flight.bandwidth_Bps * factor, lift, allowed),
                  term_key(flight.level))
