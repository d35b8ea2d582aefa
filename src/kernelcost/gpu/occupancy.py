"""Stage: GridCost x Machine -> Occupancy. How many blocks of a parallel spec an SM holds at
once, which resource limits it, and how the grid divides into waves.

    resident r = min over resources of the blocks per SM it allows:
        shared     floor(shared per SM / (shared per block + the per-block reservation))
        registers  floor(registers per SM / (warps x registers per warp, rounded up to the
                   allocation unit)), or the bytes of register arrays where the spec gives no
                   registers per thread
        threads    floor(threads per SM / threads per block)
        warps      floor(warps per SM / warps per block)
        blocks     the machine's block limit per SM
    busiest SM = ceil(B / SMs) blocks;  waves = ceil(B / (SMs x r));
    wave efficiency = B / (waves x SMs x r)

A block that needs more of a level than one SM (or one block) may have does not fit: r = 0,
and the misfit says which level and by how much. Figures the machine file lacks limit
nothing, and the Occupancy says which were missing."""

from __future__ import annotations

import dataclasses
import functools

import sympy

from ..algebra.decide import largest, proven_less_than, smallest
from ..algebra.numeric_sums import has_sum, sum_values
from ..base.architectures import Feature
from ..base.kinds import MissingFigure, Per, Quantity, Resource
from ..base.levels import Level
from ..base.records import record
from ..count.cost import GridCost
from ..count.values import exact
from ..hardware.machine import Execution, Machine

REGISTER_BYTES = 4  # one 32-bit register


@record
class Limit:
    resource: Level | Resource  # shared, registers or tmem; threads, warps or blocks
    blocks_per_sm: sympy.Expr  # how many blocks this resource lets an SM hold


@record
class Misfit:
    """A level one block needs more of than the hardware gives it."""

    level: Level | Resource  # shared, registers or tmem; threads, warps or a cluster
    needed: sympy.Expr  # per block, in `unit`
    capacity: sympy.Expr  # the most one block (per: block) or one SM (per: sm) has
    per: Per  # a thread, a block, a cluster or an SM (a nest's keep: its level's capacity_per)
    unit: Quantity


@record
class Occupancy:
    blocks: sympy.Expr  # B
    sm_count: int
    limits: tuple[Limit, ...]
    resident: sympy.Expr | None  # r: blocks per SM at once; None without any limit
    limited_by: Level | Resource | None  # what sets r (None while undecided)
    misfits: tuple[Misfit, ...]
    busiest_sm_blocks: sympy.Expr  # ceil(B / SMs): what the most loaded SM runs at least
    waves: sympy.Expr | None  # ceil(B / (SMs r))
    wave_efficiency: sympy.Expr | None  # B / (waves SMs r)
    missing: tuple[MissingFigure, ...]  # figures that would have limited r, not in the file

    @property
    def fits(self) -> bool:
        return not self.misfits


def occupancy(grid: GridCost, machine: Machine,
              values: dict[sympy.Symbol, sympy.Expr]) -> Occupancy:
    """The occupancy of `grid` on `machine` with the sizes in `values` (symbols -> values)."""
    execution = machine.execution
    on_chip = {level: _at(amount, values) for level, amount in grid.on_chip.items()}
    threads = _at(grid.threads, values)
    blocks = _at(grid.blocks, values)
    found = _Found()
    _shared(on_chip.get(Level.SHARED, 0), machine, execution, found)
    _registers(grid, on_chip.get(Level.REGISTERS, 0), threads, values, execution, found)
    _threads(threads, execution, found)
    _tensor_memory(on_chip.get(Level.TMEM, 0), machine, found)
    limits, misfits, missing = found.limits, found.misfits, found.missing
    _cluster(_at(grid.cluster_size, values), machine, misfits)
    resident, limited_by = _tightest(limits)
    if misfits:
        resident, limited_by = sympy.Integer(0), misfits[0].level
    sms = machine.sm_count
    busiest = sympy.ceiling(blocks / sms)
    waves = efficiency = None
    if resident is not None and resident != 0:
        waves = sympy.ceiling(blocks / (sms * resident))
        efficiency = blocks / (waves * sms * resident)
    return Occupancy(blocks, sms, tuple(limits), resident, limited_by, tuple(misfits), busiest,
                     waves, efficiency, tuple(missing))


@record(frozen=False)
class _Found:
    """What the checks of one block's resources add up, each check appending its own."""

    limits: list[Limit] = dataclasses.field(default_factory=list)
    misfits: list[Misfit] = dataclasses.field(default_factory=list)
    missing: list[MissingFigure] = dataclasses.field(default_factory=list)  # the file lacks


def _shared(needed: sympy.Expr, machine: Machine, execution: Execution, found: _Found) -> None:
    limits, misfits, missing = found.limits, found.misfits, found.missing
    if needed == 0:
        return
    per_sm = machine.capacity(Level.SHARED)
    per_block = execution.shared_per_block_max_B
    reserved = execution.shared_reserved_per_block_B or 0
    if per_block is not None and _exceeds(needed, per_block):
        misfits.append(Misfit(Level.SHARED, needed, exact(per_block), Per.BLOCK,
                              Quantity.BYTES))
    if per_sm is None:
        missing.append(MissingFigure.SHARED_PER_SM)
        return
    allowed = sympy.floor(exact(per_sm) / (needed + exact(reserved)))
    limits.append(Limit(Level.SHARED, allowed))
    # a block fits beside the system's reservation, or no block resides (a limit of 0)
    if per_block is None and _exceeds(needed + exact(reserved), per_sm):
        misfits.append(Misfit(Level.SHARED, needed, exact(per_sm) - exact(reserved), Per.SM,
                              Quantity.BYTES))


def _tensor_memory(needed: sympy.Expr, machine: Machine, found: _Found) -> None:
    """Tensor memory a block allocates: the SM's capacity shared by its resident blocks. A
    machine without the level does not run the spec at all (gpu.support)."""
    per_sm = machine.capacity(Level.TMEM)
    if needed == 0 or per_sm is None:
        return
    found.limits.append(Limit(Level.TMEM, sympy.floor(exact(per_sm) / needed)))
    if _exceeds(needed, per_sm):
        found.misfits.append(Misfit(Level.TMEM, needed, exact(per_sm), Per.SM,
                                    Quantity.BYTES))


def _registers(grid: GridCost, held_bytes: sympy.Expr, threads: sympy.Expr,
               values: dict[sympy.Symbol, sympy.Expr], execution: Execution,
               found: _Found) -> None:
    """Registers a block takes: the larger of the spec's registers per thread (rounded per
    warp) and what it holds in registers (its register arrays and keeps, 4 bytes a register,
    shared out over its threads). Each is checked against the registers a thread may have
    (255 on NVIDIA), then the block against the register file (a block's share, then an
    SM's)."""
    limits, misfits, missing = found.limits, found.misfits, found.missing
    per_sm = execution.registers_per_sm
    if per_sm is None:
        missing.append(MissingFigure.REGISTERS_PER_SM)
        return
    most_per_thread = execution.max_registers_per_thread
    held = sympy.ceiling(held_bytes / REGISTER_BYTES)  # the arrays' registers, whole block
    declared = None if grid.registers is None else _at(grid.registers, values)
    per_thread = [] if declared is None else [declared]
    if held != 0:
        per_thread.append(sympy.ceiling(held / threads))
    for amount in per_thread:
        if most_per_thread is not None and _exceeds(amount, most_per_thread):
            misfits.append(Misfit(Level.REGISTERS, amount, exact(most_per_thread), Per.THREAD,
                                  Quantity.REGISTERS))
            return
    needed = held
    if declared is not None:
        spec_registers = _warps(threads, execution) * _per_warp(declared, execution)
        needed = spec_registers if held == 0 else largest(spec_registers, held)
    if needed == 0:
        return
    per_block = execution.max_registers_per_block
    if per_block is not None and per_block < per_sm and _exceeds(needed, per_block):
        misfits.append(Misfit(Level.REGISTERS, needed, exact(per_block), Per.BLOCK,
                              Quantity.REGISTERS))
        return
    if _exceeds(needed, per_sm):
        misfits.append(Misfit(Level.REGISTERS, needed, exact(per_sm), Per.SM,
                              Quantity.REGISTERS))
        return
    limits.append(Limit(Level.REGISTERS, sympy.floor(exact(per_sm) / needed)))


def _threads(threads: sympy.Expr, execution: Execution, found: _Found) -> None:
    limits, misfits, missing = found.limits, found.misfits, found.missing
    most = execution.max_threads_per_block
    if most is not None and _exceeds(threads, most):
        misfits.append(Misfit(Resource.THREADS, threads, exact(most), Per.BLOCK,
                              Quantity.THREADS))
    per_sm = execution.max_threads_per_sm
    # a block of more threads or warps than an SM holds never runs (a machine file's
    # max_warps_per_sm = 3 under 8-warp blocks made a residency of 0, and t = 1/0)
    if per_sm is None:
        missing.append(MissingFigure.THREADS_PER_SM)
    elif _exceeds(threads, per_sm):
        misfits.append(Misfit(Resource.THREADS, threads, exact(per_sm), Per.SM,
                              Quantity.THREADS))
    else:
        limits.append(Limit(Resource.THREADS, sympy.floor(exact(per_sm) / threads)))
    warps_per_sm = execution.max_warps_per_sm
    warps = _warps(threads, execution)
    if warps_per_sm is not None and _exceeds(warps, warps_per_sm):
        misfits.append(Misfit(Resource.WARPS, warps, exact(warps_per_sm), Per.SM,
                              Quantity.WARPS))
    elif warps_per_sm is not None:
        limits.append(Limit(Resource.WARPS, sympy.floor(exact(warps_per_sm) / warps)))
    blocks_per_sm = execution.max_blocks_per_sm
    if blocks_per_sm is None:
        missing.append(MissingFigure.BLOCKS_PER_SM)
    else:
        limits.append(Limit(Resource.BLOCKS, exact(blocks_per_sm)))


def _cluster(size: sympy.Expr, machine: Machine, misfits: list[Misfit]) -> None:
    """A cluster the machine cannot form: on a machine without thread-block clusters (its file
    says so: before Hopper, AMD) every block is its own cluster, so the limit is 1; else the
    largest cluster it forms (the portable limit only needs an opt-in, so the non-portable
    one counts)."""
    if size == 1:
        return
    execution = machine.execution
    most = execution.cluster_max_nonportable or execution.cluster_max_portable
    if machine.features.has(Feature.THREAD_BLOCK_CLUSTERS) is False:
        most = 1
    if most is not None and _exceeds(size, most):
        misfits.append(Misfit(Resource.CLUSTER, size, exact(most), Per.CLUSTER,
                              Quantity.BLOCKS))


def _warps(threads: sympy.Expr, execution: Execution) -> sympy.Expr:
    warp = execution.warp_size or 32
    return sympy.ceiling(threads / warp)


def _per_warp(per_thread: sympy.Expr, execution: Execution) -> sympy.Expr:
    """Registers one warp takes: per thread x warp size, rounded up to the allocation unit."""
    warp = execution.warp_size or 32
    unit = execution.register_granularity_per_warp or 1
    return sympy.ceiling(per_thread * warp / unit) * unit


def _tightest(limits: list[Limit]) -> tuple[sympy.Expr | None, Level | Resource | None]:
    """The smallest limit and its resource (the first of a tie); no resource while the
    limits that remain cannot be ordered."""
    if not limits:
        return None, None
    allowed = [limit.blocks_per_sm for limit in limits]
    # numbers (every size set): the least, which smallest's orderings would also keep
    resident = (min(allowed) if all(each.is_Rational for each in allowed)
                else smallest(*allowed))
    return resident, next((limit.resource for limit in limits
                           if limit.blocks_per_sm == resident), None)


def _exceeds(amount: sympy.Expr, capacity: float) -> bool:
    return proven_less_than(exact(capacity), amount)


def _at(expr: sympy.Expr | int, values: dict[sympy.Symbol, sympy.Expr]) -> sympy.Expr:
    expr = sympy.sympify(expr)
    return _replaced(expr, tuple(values.items())) if values else expr


# kept: every machine of a command asks the same amounts at the same sizes, and replacing
# sizes inside a Min has sympy compare its arguments again
@functools.lru_cache(maxsize=256)
def _replaced(expr: sympy.Expr,
              values: tuple[tuple[sympy.Symbol, sympy.Expr], ...]) -> sympy.Expr:
    replaced = expr.xreplace(dict(values))
    # a grid whose blocks have no closed form (a triangle of ragged rows) keeps its Sum:
    # at numbers it is added up here, or ceiling(blocks / SMs) asks sympy's evalf of it
    return sum_values(replaced) if has_sum(replaced) else replaced
