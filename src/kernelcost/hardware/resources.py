"""The execution resources of one SM that a machine file's [execution] table gives (the
per-SM, per-block and per-warp limits that set occupancy and waves), each figure with its
source: the record a Machine holds, and the table's keys in file order."""

from __future__ import annotations

from ..base.records import record

# The figures of an [execution] table, in file order, with their type. Counts are per SM (per
# CU on AMD), per block or per warp as the name says; `_B` keys are bytes.
EXECUTION_FIGURES: dict[str, type] = {
    "warp_size": int,                       # threads of a warp (AMD: a wavefront)
    "max_threads_per_block": int,
    "max_threads_per_sm": int,
    "max_warps_per_sm": int,
    "max_blocks_per_sm": int,               # resident blocks (AMD: workgroups) per SM
    "registers_per_sm": int,                # 32-bit registers
    "max_registers_per_block": int,
    "max_registers_per_thread": int,
    "register_granularity_per_warp": int,   # registers are allocated per warp in these units
    "shared_per_block_max_B": int,          # the most one block may allocate
    "shared_reserved_per_block_B": int,     # taken by the system from the SM for each block
    "shared_banks": int,
    "sector_B": int,                        # the unit of global memory traffic
    "cache_line_B": int,                    # L1 line (a tag lookup)
    "l2_partitions": int,
    "usable_l2_fraction": float,            # of L2 capacity, for data shared by all SMs
    "cluster_max_portable": int,            # blocks per cluster; 1 where there are no clusters
    "cluster_max_nonportable": int,
    "multicast_max_blocks": int,            # blocks one multicast load reaches
    "issue_per_clock_per_sm": int,          # warp instructions an SM issues a clock
}


def execution_source_key(key: str) -> str:
    """The key of a figure's source: the figure's key without its unit suffix, then `_source`
    (`shared_per_block_max_B` -> `shared_per_block_max_source`), as `bandwidth_Bps` has
    `bandwidth_source`."""
    return f"{key.removesuffix('_B')}_source"


@record
class Execution:
    """Execution resources of one SM (CU on AMD), each with its source; None where the machine
    file gives no figure. Shared memory per SM and L2 size are the capacities of the memory
    levels (`Machine.capacity`)."""

    warp_size: int | None = None
    max_threads_per_block: int | None = None
    max_threads_per_sm: int | None = None
    max_warps_per_sm: int | None = None
    max_blocks_per_sm: int | None = None
    registers_per_sm: int | None = None
    max_registers_per_block: int | None = None
    max_registers_per_thread: int | None = None
    register_granularity_per_warp: int | None = None
    shared_per_block_max_B: int | None = None
    shared_reserved_per_block_B: int | None = None
    shared_banks: int | None = None
    sector_B: int | None = None
    cache_line_B: int | None = None
    l2_partitions: int | None = None
    usable_l2_fraction: float | None = None
    cluster_max_portable: int | None = None
    cluster_max_nonportable: int | None = None
    multicast_max_blocks: int | None = None
    issue_per_clock_per_sm: int | None = None
    sources: tuple[tuple[str, str], ...] = ()  # (figure key, source), one per figure given

    def source(self, key: str) -> str | None:
        """The source of a figure, by its key (`max_blocks_per_sm`)."""
        return dict(self.sources).get(key)

    def figures(self) -> tuple[tuple[str, int | float, str], ...]:
        """(key, value, source) of every figure given, in file order."""
        sources = dict(self.sources)
        return tuple((key, getattr(self, key), sources[key]) for key in EXECUTION_FIGURES
                     if getattr(self, key) is not None)
