"""Whether a block of each candidate fits an SM, and how many reside at once, over the
candidates' arrays (answers.search): gpu.occupancy's limits and misfits, vectorised."""

from __future__ import annotations

from collections.abc import Callable

import numpy

from ..base.architectures import Feature
from ..base.levels import Level
from ..base.records import record
from ..hardware.machine import Machine
from .rejections import Rejected


@record
class Need:
    """What one block of each candidate needs: shared bytes, registers (the block's, its
    arrays', a thread's where the spec gives them) and threads and warps."""

    shared: numpy.ndarray
    regs: numpy.ndarray
    array_regs: numpy.ndarray
    per_thread: numpy.ndarray | None
    threads: numpy.ndarray
    warps: numpy.ndarray


def residency(m: Machine, grid, f: Callable, arrays: list[numpy.ndarray],
              need: Need) -> tuple[list[numpy.ndarray], list[tuple[Rejected, numpy.ndarray]]]:
    """The limits on blocks an SM (their minimum: the blocks resident) and the misfits, each
    a reason and where it holds."""
    limits = [numpy.asarray(float(m.execution.max_blocks_per_sm or numpy.inf))]
    misfits = (_shared_fits(m, need.shared, limits) + _register_fits(m, need, limits)
               + _thread_fits(m, need.threads, need.warps, limits)
               + _other_fits(m, grid, f, arrays, limits))
    return limits, misfits


def _shared_fits(m: Machine, shared, limits: list) -> list:
    ex = m.execution
    per_sm, per_block = m.capacity(Level.SHARED), ex.shared_per_block_max_B
    reserved = ex.shared_reserved_per_block_B or 0
    found = []
    if per_block is not None:
        found.append((Rejected.SHARED, shared > per_block))
    if per_sm is not None:
        limits.append(numpy.where(shared > 0, numpy.floor(per_sm / (shared + reserved)),
                                  numpy.inf))
        if per_block is None:  # beside the reservation, as occupancy's check
            found.append((Rejected.SHARED, shared + reserved > per_sm))
    return found


def _register_fits(m: Machine, need: Need, limits: list) -> list:
    ex = m.execution
    regs, array_regs, per_thread, threads = (need.regs, need.array_regs, need.per_thread,
                                             need.threads)
    if not ex.registers_per_sm:
        return []
    most = ex.max_registers_per_thread or numpy.inf
    over = numpy.ceil(array_regs / threads) > most
    if per_thread is not None:
        over = over | (per_thread > most)
    per_block = ex.max_registers_per_block
    if per_block is not None and per_block < ex.registers_per_sm:
        over = over | (regs > per_block)
    limits.append(numpy.where(regs > 0, numpy.floor(ex.registers_per_sm / regs),
                              numpy.inf))
    return [(Rejected.REGISTERS, over | (regs > ex.registers_per_sm))]


def _thread_fits(m: Machine, threads, warps, limits: list) -> list:
    ex = m.execution
    over = threads > (ex.max_threads_per_block or numpy.inf)
    if ex.max_threads_per_sm:
        over = over | (threads > ex.max_threads_per_sm)
        limits.append(numpy.floor(ex.max_threads_per_sm / threads))
    if ex.max_warps_per_sm:
        over = over | (warps > ex.max_warps_per_sm)
        limits.append(numpy.floor(ex.max_warps_per_sm / warps))
    return [(Rejected.THREADS, over)]


def _other_fits(m: Machine, grid, f, arrays, limits: list) -> list:
    """Tensor memory, and a cluster the machine forms and the grid divides into."""
    found = []
    tmem, per_sm = grid.on_chip.get(Level.TMEM, 0), m.capacity(Level.TMEM)
    if tmem != 0 and per_sm is not None:
        needed = f(tmem)(arrays)
        limits.append(numpy.where(needed > 0, numpy.floor(per_sm / needed), numpy.inf))
        found.append((Rejected.OCCUPANCY, needed > per_sm))
    if grid.cluster_axis is None:
        return found
    size = f(grid.cluster_size)(arrays)
    ex = m.execution
    most = ex.cluster_max_nonportable or ex.cluster_max_portable or numpy.inf
    if m.features.has(Feature.THREAD_BLOCK_CLUSTERS) is False:
        most = 1
    trips = f(grid.trips[grid.iterators.index(grid.cluster_axis)])(arrays)
    found.append((Rejected.CLUSTER, ((size > most) & (size != 1))
                  | (numpy.mod(trips, size) != 0)))
    return found
