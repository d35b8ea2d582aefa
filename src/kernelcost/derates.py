"""Stage: what lowers the roof. The chapter ends its roofline with what the model does not
capture; each such caveat kernelcost can put a number on becomes a Derate: a cause, a factor
(the fraction of the roof's rate the kernel keeps, 0 < factor <= 1) and the reasoning.

Derates are estimates. They enter t_model (the estimate), never t_bound (the lower bound no run
can beat): a derate may be wrong, a bound may not.

- launch: the launch overhead on the kernel's time. factor = t / (t + launch): the share of
  the call the kernel computes in. t_model stays the kernel's time; the launch is added in
  t_min_with_launch, and this entry says what it costs.
- latency (Little's law, per level; global memory here): bytes in flight needed = bandwidth x
  latency (the machine file's load latency, in cycles at its clock: an unloaded latency, a
  chain of dependent loads, so loaded latencies are longer and the need larger); bytes in
  flight available = the blocks resident at once (min(B, resident x SMs)) x what one block
  keeps in flight: its shared tiles, stages x tile bytes (asynchronous copies, or a fill of
  independent loads), else threads x one load per thread of each global tensor it reads
  (independent loads: an element, or a vector of up to 16 B when the block reads several
  elements per thread). Below the need, the attainable bandwidth is scaled by available /
  needed."""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from .units import si
from .values import exact

LAUNCH = "launch"
LATENCY = "latency"
VECTOR_BYTES = 16  # the widest load one thread issues (ld.global.v4.b32, LDG.128)


@dataclass(frozen=True)
class Derate:
    cause: str  # launch | latency
    factor: sympy.Expr  # the fraction of the roof's rate kept, in (0, 1]
    detail: str  # the reasoning, with its figures


def launch_derate(t_kernel, overhead) -> Derate | None:
    """The launch overhead against the kernel's time: the chapter's 5 us on a 20 us kernel is
    25 % of the kernel's time and 20 % of the total (factor 0.8)."""
    if overhead is None or t_kernel is None:
        return None
    t_kernel, overhead = sympy.sympify(t_kernel), exact(overhead)
    if not t_kernel.is_number or t_kernel <= 0:
        return None
    of_kernel = overhead / t_kernel
    of_total = overhead / (t_kernel + overhead)
    detail = (f"launch overhead {si(float(overhead), 's')} on a {si(float(t_kernel), 's')} "
              f"kernel: {_percent(of_kernel)} of the kernel's time, {_percent(of_total)} of the "
              "total (t_min_with_launch; t_model is the kernel's time alone)")
    return Derate(LAUNCH, sympy.cancel(1 - of_total), detail)


@dataclass(frozen=True)
class InFlight:
    """Little's law at one level."""

    level: str
    needed_B: sympy.Expr  # bandwidth x latency
    available_B: sympy.Expr  # blocks at once x bytes in flight per block
    per_block_B: sympy.Expr
    how: str  # how a block keeps bytes in flight, in words
    latency_s: sympy.Expr
    blocks_at_once: sympy.Expr

    @property
    def factor(self) -> sympy.Expr:
        return sympy.Min(1, self.available_B / self.needed_B)


def in_flight(cost, machine, values: dict, occ, at) -> InFlight | None:
    """Little's law for global memory of a parallel spec at numeric sizes, or None where a
    figure is missing (no latency in the machine file, no bandwidth, symbolic sizes)."""
    grid = cost.grid
    bandwidth, latency = machine.bandwidth("global"), machine.latency("global")
    if grid is None or bandwidth is None or latency is None or occ.resident is None:
        return None
    latency_s = exact(latency.cycles) / exact(latency.clock_Hz)
    needed = exact(bandwidth) * latency_s
    tiles = [scope for scope in cost.scopes if scope.level == "shared"
             and at(scope.stages).is_number and at(scope.held_bytes).is_number]
    if tiles:
        per_block = sum(at(scope.stages) * at(scope.held_bytes) for scope in tiles)
        how = "its shared tiles (stages x tile bytes), filled by independent copies"
    else:
        threads = at(grid.threads)
        read = [tile for tile in grid.tiles
                if sympy.sympify(cost.footprints[tile.tensor].read_elements) != 0]
        loads = [_one_load(tile, threads, at) for tile in read]
        per_thread = sum(loads, sympy.Integer(0))
        per_block = threads * per_thread
        how = (f"{threads} threads x one load each of " + ", ".join(
            f"{tile.tensor} {size} B" for tile, size in zip(read, loads)))
    blocks = at(grid.blocks)
    if not (sympy.sympify(per_block).is_number and blocks.is_number and per_block > 0):
        return None
    at_once = sympy.Min(blocks, occ.resident * machine.sm_count)
    return InFlight("global", needed, at_once * per_block, per_block, how, latency_s, at_once)


def _one_load(tile, threads, at) -> sympy.Expr:
    """The bytes of one load of a tensor by one thread: its element, or a vector of up to
    VECTOR_BYTES when the block reads several elements per thread of it."""
    element = at(tile.element_bytes)
    elements = at(sympy.Mul(*(last - first + 1 for first, last in tile.whole)))
    if not (elements.is_number and element.is_number and threads.is_number):
        return element
    per_thread = max(1, int(elements // threads))
    return element * max(1, min(per_thread, VECTOR_BYTES // int(element)))


def latency_derate(flight: InFlight, machine, resident=None) -> Derate | None:
    """`latency-bound` with the attainable bandwidth and the occupancy that lifts it; None when
    enough is in flight. `resident`: the blocks per SM the block's resources allow."""
    if flight is None or flight.available_B >= flight.needed_B:
        return None
    bandwidth = exact(machine.bandwidth("global"))
    factor = flight.available_B / flight.needed_B
    lift = sympy.ceiling(flight.needed_B / (machine.sm_count * flight.per_block_B))
    detail = (f"latency-bound at global: {si(float(flight.available_B), 'B')} in flight "
              f"({flight.blocks_at_once} blocks at once x {flight.how}) against "
              f"{si(float(flight.needed_B), 'B')} needed ({si(float(bandwidth), 'B/s')} x "
              f"{si(float(flight.latency_s), 's')}, the machine file's unloaded DRAM latency; "
              f"loaded latencies are longer): attainable bandwidth "
              f"{si(float(bandwidth * factor), 'B/s')}; {lift} resident blocks per SM "
              "(and blocks enough to fill them) would lift it")
    if resident is not None and resident.is_number and lift > resident:
        detail += (f", more than the {resident} this block allows: larger blocks, more loads "
                   "in flight per thread or asynchronous copies")
    return Derate(LATENCY, factor, detail)


def _percent(value) -> str:
    return f"{float(value) * 100:.3g} %"
