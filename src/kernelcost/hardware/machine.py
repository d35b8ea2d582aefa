"""The machine model. A Machine holds the sourced peaks, bandwidths and capacities of
one GPU, its execution resources (the per-SM limits that set occupancy and waves) and measured
load latencies, and chooses the ceiling a work class meets; machinefile reads one from TOML."""

from __future__ import annotations

import dataclasses
import functools

from ..base.architectures import Architecture, Feature
from ..base.errors import Code, Diagnostic, MachineFileError, did_you_mean
from ..base.kinds import (
    EffectCause,
    Inputs,
    LaunchMode,
    Per,
    Precision,
    TermKind,
    Unit,
    WorkClass,
)
from ..base.levels import Level
from ..base.records import record
from ..base.symbols import LEVELS
from .achievable_rates import Achievable
from .resources import Execution

# the precisions a machine file may give peaks for: every one but the kernels' i32 and i4
PRECISIONS: tuple[Precision, ...] = tuple(p for p in Precision
                                          if p not in (Precision.I32, Precision.I4))
UNITS: tuple[Unit, ...] = (Unit.VECTOR, Unit.TENSOR)  # of a [[compute]] table
# what one capacity_B covers: the device, one SM, or one of execution.l2_partitions
# partitions that each serve their own SMs only (MI300X: an L2 per XCD)
CAPACITY_SCOPES: tuple[Per, ...] = (Per.DEVICE, Per.SM, Per.PARTITION)
LAUNCH_MODES: tuple[LaunchMode, ...] = tuple(LaunchMode)
# Where a measured load latency was taken: a hit in shared memory, L1, the near (or only) L2
# partition, the far L2 partition, a miss to DRAM, or distributed shared memory of a cluster.
LATENCY_LEVELS: tuple[str, ...] = (Level.SHARED, Level.L1, Level.L2, Level.L2_FAR, Level.GLOBAL,
                                  Level.DSMEM)


# Hardware features a spec may need, each stated in a machine file's [features] table as
# true or false with its source (`thread_block_clusters_source`); a feature a file does not
# state is unknown, never assumed. Key -> what a spec uses it for.
FEATURES: dict[Feature, str] = {
    Feature.THREAD_BLOCK_CLUSTERS: "`cluster AXIS = c`: blocks co-scheduled in clusters, and "
                                   "the multicast of the tiles they share",
    Feature.TMA: "the tensor memory accelerator: bulk tensor copies between global and shared "
                 "memory (`needs tma`)",
    Feature.WGMMA: "warpgroup MMA reading its operands from shared memory (`needs wgmma`)",
    Feature.SETMAXNREG: "warpgroups giving registers to one another (`needs setmaxnreg`)",
    Feature.TCGEN05: "the fifth-generation tensor core MMA, its accumulators in tensor memory, "
                     "two-block MMA (`needs tcgen05`)",
    Feature.TENSOR_MEMORY: "tensor memory, a per-SM memory the tensor cores read and write "
                           "(`needs tensor_memory`)",
}


# The precision whose vector peak stands in when a machine lists none for the precision asked:
# 16- and 8-bit element-wise arithmetic runs on the fp32 pipes unless packed.
FALLBACK_VECTOR_PRECISION = Precision.FP32

# bandwidth_Bps in a machine file where no public figure was found (its source says what was
# sought): the level then sets no roof, and the answers say its bandwidth is unknown.
UNKNOWN_BANDWIDTH = "unknown"

# The precision of the accumulators of multiply-adds on the vector FMA units: fp64 for fp64
# inputs, fp32 for every narrower type (bf16, fp8, ... products are summed in fp32).
ACCUMULATOR_PRECISION = {Precision.FP64: Precision.FP64}

# Memory levels whose traffic is reported but whose bandwidth is never a roof of t_min.
UNBOUNDING_LEVELS = (Level.REGISTERS,)
PER_SM_LEVELS = (Level.SHARED,)  # on-chip levels whose bandwidth is an aggregate of the SMs'


@record
class ComputePeak:
    """One compute ceiling: a precision on a unit, dense unless marked sparse."""

    precision: Precision
    unit: Unit  # vector | tensor
    peak_FLOPps: float
    sparse: bool  # 2:4 structured sparsity; never chosen by Machine.ceiling
    source: str
    per_clock: float | None = None  # FLOP per clock per SM, where the file gives it
    per_clock_source: str | None = None
    max_clock_FLOPps: float | None = None  # at the maximum clock (module clocks); None: as peak


@record
class MemoryLevel:
    level: Level
    technology: str | None  # HBM3, GDDR6X, ... (informative)
    bandwidth_Bps: float | None  # None: no sourced figure, the level sets no ceiling
    bandwidth_source: str | None
    capacity_B: float | None
    capacity_per: Per  # what one capacity_B covers: the device, an SM or a partition
    capacity_source: str | None
    per_clock: float | None = None  # B per clock per SM, where the file gives it
    per_clock_source: str | None = None
    max_clock_Bps: float | None = None  # at the maximum clock (module clocks); None: as given
    bandwidth_unknown: bool = False  # the file says no public figure was found ("unknown")


@record
class Features:
    """Which hardware features (FEATURES) a machine has, as its file states them."""

    stated: tuple[tuple[Feature, bool, str], ...] = ()  # (feature, has it, source)

    def has(self, key: Feature) -> bool | None:
        """True or False as the machine file states it; None where it is silent."""
        return next((present for name, present, _ in self.stated if name == key), None)

    def source(self, key: Feature) -> str | None:
        return next((source for name, _, source in self.stated if name == key), None)


@record
class Latency:
    """A measured load-to-use latency: one chain of dependent loads, unloaded, in core cycles
    at the clock of the measurement (Little's law needs the time: `seconds`)."""

    level: str  # one of LATENCY_LEVELS
    cycles: float
    clock_Hz: float
    measured_on: str  # the part measured, which may be a stand-in for the machine
    source: str

    @property
    def seconds(self) -> float:
        return self.cycles / self.clock_Hz


@record
class Roof:
    """What a time term runs against, as data: a level's bandwidth (kind traffic), or a
    compute ceiling (kind work), the peak of the vector or tensor units at a precision or the
    special-function rate. What a report calls it ("bf16 tensor peak", "global bandwidth")
    the printers build from these fields (present/roofs.py)."""

    kind: TermKind
    level: str | None = None  # traffic: the level
    unit: Unit | None = None  # work: the units whose rate the ceiling is
    precision: str | None = None  # work: the peak's precision; None for the sfu rate
    fma: bool = False  # the vector peak of multiply-adds on the FMA units (accumulator's
    # precision)
    sfu_stand_in: bool = False  # the vector peak standing in for a missing sfu figure
    derated_by: tuple[EffectCause, ...] = ()  # t_model's traffic: the causes of the derates that
    # lower its rate (Derate.cause), in the order they were found


def level_roof(level: str) -> Roof:
    """The roof of a level's traffic: its bandwidth."""
    return Roof(TermKind.TRAFFIC, level=level)


@record
class Ceiling:
    """The compute ceiling chosen for a work class at a precision: what it is, its rate, and
    the rate's source."""

    roof: Roof
    peak_FLOPps: float
    source: str


@record
class Dropped:
    """A built-in machine `--machine all` leaves out: it has no dense peak for a precision
    asked for."""

    machine: str  # its id
    name: str
    missing: tuple[str, ...]  # the precisions asked for that it lacks


@record
class Machine:
    id: str
    name: str
    vendor: str
    sm_count: int
    sm_count_source: str
    compute: tuple[ComputePeak, ...]
    sfu_OPps: float | None  # special-function operations per second
    sfu_source: str | None
    memory: tuple[MemoryLevel, ...]  # slowest first
    launch_overhead_s: float | None
    launch_mode: LaunchMode | None  # what launch_overhead_s was measured for
    launch_source: str | None
    path: str  # the file it was read from
    execution: Execution = Execution()
    latencies: tuple[Latency, ...] = ()
    max_clock_Hz: float | None = None  # the highest SM clock the part runs
    max_clock_source: str | None = None
    sfu_per_clock: float | None = None  # special-function operations per clock per SM
    sfu_per_clock_source: str | None = None
    sfu_max_clock_OPps: float | None = None  # at the maximum clock; None: as sfu_OPps
    features: Features = Features()
    architecture: Architecture | None = None  # what code it runs: sm_90a, gfx942
    architecture_source: str | None = None
    achievable: tuple[Achievable, ...] = ()  # attainable fractions of its roofs (t_model)
    inputs: Inputs = Inputs.RANDOM  # the operands its achievable figures are taken for
    cold_start_s: float | None = None  # what a kernel timed alone after an L2 flush takes
    # beyond its work (the event-timed launch and first touches): a harness's, not t_model's
    cold_start_source: str | None = None

    @functools.cached_property
    def at_max_clock(self) -> Machine:
        """This machine with every compute peak, the SFU rate and the per-SM bandwidths at the
        maximum SM clock (module clocks): the figures of a time that promises a bound. HBM and
        the other device-wide levels keep their figures (they do not scale with the SM
        clock). The data-sheet figures stay those of the ridges, regimes and crossings."""
        from .clocks import max_clock_view

        return max_clock_view(self)

    def dense_peak(self, precision: str, unit: str) -> ComputePeak | None:
        for peak in self.compute:
            if peak.precision == precision and peak.unit == unit and not peak.sparse:
                return peak
        return None

    def ceiling(self, precision: str, work_class: str) -> Ceiling:
        """The dense ceiling a work class meets at a precision (`_ceiling`), found once."""
        key = (precision, work_class)
        found = self._ceilings.get(key)
        if found is None:
            found = self._ceilings[key] = self._ceiling(precision, work_class)
        return found

    # kept: a verdict asks each class's ceiling for its grid's terms, its flat roofline's,
    # its levels' and its floor's (decode_attention: 26 times a machine)
    @functools.cached_property
    def _ceilings(self) -> dict[tuple[str, str], Ceiling]:
        return {}

    def _ceiling(self, precision: str, work_class: str) -> Ceiling:
        """The dense ceiling a work class meets at a precision.

        tensor (contractions on the tensor units): the tensor peak of the precision if the
        machine has one, else its vector peak, else the fp32 vector peak. fma (multiply-adds
        on the vector FMA units): the vector peak at the accumulator's precision (fp32 for
        bf16 inputs), named `... vector FMA peak`. vector: the vector peak of the precision,
        else fp32's. sfu: the special-function rate, else (no figure for the machine) the
        fp32 vector peak, named so that a report shows the stand-in."""
        _check_name(precision, _lookup_precisions(), "precision")
        _check_name(work_class, tuple(WorkClass), "work class")
        if work_class == WorkClass.SFU:
            if self.sfu_OPps is not None:
                return Ceiling(Roof(TermKind.WORK, unit=Unit.SFU), self.sfu_OPps,
                               self.sfu_source or "")
            return _with_roof(self._vector_ceiling(FALLBACK_VECTOR_PRECISION),
                              sfu_stand_in=True)
        if work_class == WorkClass.TENSOR:
            tensor = self.dense_peak(precision, Unit.TENSOR)
            if tensor is not None:
                return _ceiling_of(tensor)
        if work_class == WorkClass.FMA:
            accumulator = ACCUMULATOR_PRECISION.get(Precision(precision), Precision.FP32)
            return _with_roof(self._vector_ceiling(accumulator), fma=True)
        return self._vector_ceiling(precision)

    def _vector_ceiling(self, precision: str) -> Ceiling:
        peak = self.dense_peak(precision, Unit.VECTOR)
        if peak is None:
            peak = self.dense_peak(FALLBACK_VECTOR_PRECISION, Unit.VECTOR)
        if peak is None:
            raise MachineFileError(Code.MACHINE_LACKS_FIGURE, Diagnostic(
                None,
                f"{self.path}: machine `{self.id}` has no vector peak for "
                f"{precision} or {FALLBACK_VECTOR_PRECISION}",
                "add a [[compute]] table with unit = \"vector\""))
        return _ceiling_of(peak)

    def peak(self, precision: str, work_class: str = WorkClass.TENSOR) -> float:
        """FLOP/s of the ceiling a work class meets (see `ceiling`)."""
        return self.ceiling(precision, work_class).peak_FLOPps

    def memory_level(self, level: str) -> MemoryLevel | None:
        _check_name(level, LEVELS, "memory level")
        return next((memory for memory in self.memory if memory.level == level), None)

    def bandwidth(self, level: str) -> float | None:
        """B/s at a level, or None when the machine has no sourced figure for it."""
        memory = self.memory_level(level)
        return None if memory is None else memory.bandwidth_Bps

    def capacity(self, level: str) -> float | None:
        """Bytes a level holds, per device or per SM as `capacity_per(level)` says."""
        memory = self.memory_level(level)
        return None if memory is None else memory.capacity_B

    def capacity_per(self, level: str) -> Per | None:
        memory = self.memory_level(level)
        return None if memory is None else memory.capacity_per

    def latency(self, level: str) -> Latency | None:
        """The measured latency at a level (see LATENCY_LEVELS), or None."""
        _check_name(level, LATENCY_LEVELS, "latency level")
        return next((latency for latency in self.latencies if latency.level == level), None)

    @property
    def precisions(self) -> tuple[Precision, ...]:
        """Precisions with a dense peak, in the canonical order."""
        listed = {peak.precision for peak in self.compute if not peak.sparse}
        return tuple(p for p in PRECISIONS if p in listed)

    def require_precision(self, precision: str) -> None:
        """Refuse a precision a user asks for that this machine has no dense peak for (the
        fp32 stand-in of `ceiling` is for a spec's own element type, not for a request)."""
        check_precision_name(precision)
        if precision not in self.precisions:
            raise MachineFileError(Code.NO_PRECISION_PEAK, Diagnostic(
                None, f"machine `{self.id}` ({self.name}) has no `{precision}` peak",
                f"precisions on {self.id}: {', '.join(self.precisions)}"))


def _ceiling_of(peak: ComputePeak) -> Ceiling:
    return Ceiling(Roof(TermKind.WORK, unit=peak.unit, precision=peak.precision),
                   peak.peak_FLOPps, peak.source)


def _with_roof(ceiling: Ceiling, *, fma: bool = False, sfu_stand_in: bool = False) -> Ceiling:
    """`ceiling` met by multiply-adds on the FMA units, or standing in for the sfu rate."""
    roof = dataclasses.replace(ceiling.roof, fma=fma, sfu_stand_in=sfu_stand_in)
    return dataclasses.replace(ceiling, roof=roof)


def _lookup_precisions() -> tuple[Precision, ...]:
    # kernels may compute in i32 or i4 (index or packed types): they fall back to fp32 vector
    return tuple(Precision)


def check_precision_name(precision: str) -> None:
    """Refuse a precision name kernelcost does not know (`bf61`)."""
    _check_name(precision, PRECISIONS, "precision")


def _check_name(name: str, allowed, what: str) -> None:
    if name not in allowed:
        raise MachineFileError(Code.UNKNOWN_NAME, Diagnostic(None, f"unknown {what} `{name}`",
                                                             did_you_mean(name, allowed) or
                                                             f"one of: {', '.join(allowed)}"))


