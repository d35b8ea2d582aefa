"""Stage: TOML -> Machine. One file a machine, shipped in kernelcost/machines/ or given by path.

A machine file is small and strict. Keys carry their unit in their name (`peak_FLOPps`,
`bandwidth_Bps`, `capacity_B`, `launch_overhead_s`), values are plain numbers in SI base units,
and every number has a source string beside it. An unknown key is an error naming the file
and the key, so a typo never silently drops a figure.

    id = "h100"                          # lower case, what --machine takes
    name = "NVIDIA H100 SXM5 80 GB"
    vendor = "NVIDIA"

    [device]
    sm_count = 132                       # SMs (NVIDIA) or CUs (AMD)
    source = "..."
    max_clock_Hz = 1.98e9                # the highest SM clock (optional; module clocks)
    max_clock_source = "..."
    architecture = "sm_90a"              # sm_80, sm_90a, sm_100a, gfx942 (optional)
    architecture_source = "..."

    [launch]
    launch_overhead_s = 4e-6
    cold_start_s = 4.7e-6                # optional: a kernel timed alone after an L2 flush
    cold_start_source = "..."            # takes this beyond its work (validate --published)
    mode = "eager"                       # eager | graph: how the figure was measured
    source = "..."

    [sfu]                                # special-function unit: exp, log, rsqrt, ...
    peak_OPps = 3.9e12
    source = "..."

    [[compute]]                          # one table per precision and unit
    precision = "bf16"                   # fp64 fp32 tf32 fp16 bf16 fp8 fp6 fp4 i8
    unit = "tensor"                      # vector | tensor
    peak_FLOPps = 990e12                 # the data sheet's (the chapter's where it has one)
    sparse = false                       # optional; a sparse peak is never used by default
    source = "..."
    FLOP_per_clock_per_sm = 4096         # optional: x SMs x max_clock_Hz, the bound's peak
    per_clock_source = "..."

    [[memory]]                           # in order: global, l2, shared, registers
    level = "global"
    technology = "HBM3"                  # optional
    bandwidth_Bps = 3.35e12              # or "unknown", its source saying what was sought
    bandwidth_source = "..."
    capacity_B = 80e9
    capacity_per = "device"              # device | sm | partition
    capacity_source = "..."

    [features]                           # hardware features, each true or false, sourced
    thread_block_clusters = true         # every key optional: one not stated is unknown
    thread_block_clusters_source = "..."

    [execution]                          # per SM (per CU on AMD); every key optional
    max_blocks_per_sm = 32               # a figure ...
    max_blocks_per_sm_source = "..."     # ... and its source: the key, less `_B`, + `_source`
    shared_per_block_max_B = 232448
    shared_per_block_max_source = "..."
    usable_l2_fraction = 0.7             # a fraction in (0, 1]; every other figure a count

    [[latency]]                          # measured load-to-use latency, one table a level
    level = "l2"                         # shared l1 l2 l2_far global dsmem
    cycles = 265.5
    clock_Hz = 1.755e9                   # the clock it was measured at
    measured_on = "H100 PCIe"            # the part measured (a stand-in is named so)
    source = "..."

    [[achievable]]                       # what a tuned kernel sustains of a roof (t_model only)
    roof = "tensor"                      # a work class (tensor fma vector sfu) or a level
    path = "mma.sync"                    # tensor, optional: mma.sync | wgmma | tcgen05
    fraction = 0.803                     # of the figure as given above, in (0, 1]
    source = "..."

Per-clock rates, each with its `per_clock_source`: `FLOP_per_clock_per_sm` in [[compute]],
`OP_per_clock_per_sm` in [sfu], `B_per_clock_per_sm` in an on-chip [[memory]] level; times the
SMs and `max_clock_Hz` they give the figures a bound uses (module clocks), while the figures as
given stay those of the ridges. The figures of [execution] are listed in
`resources.EXECUTION_FIGURES`, the features in `machine.FEATURES`. A source string names a
public document (title, author or publisher, year, section or table, URL); a figure that is
derived, assumed or in conflict says UNCERTAIN in its source.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..base.architectures import ARCHITECTURE_FORMS, Architecture, Feature, parse_architecture
from ..base.errors import Code, Diagnostic, MachineFileError, did_you_mean
from ..base.inputs import normalise
from ..base.kinds import Per
from ..base.levels import Level
from ..base.symbols import LEVELS
from ..base.tomlplaces import refuse_control_characters, shipped_ids, shipped_or_file, toml_data
from .achievable_rates import read_achievable
from .clocks import derive
from .machine import (
    CAPACITY_SCOPES,
    FEATURES,
    LATENCY_LEVELS,
    LAUNCH_MODES,
    PRECISIONS,
    UNITS,
    UNKNOWN_BANDWIDTH,
    ComputePeak,
    Dropped,
    Features,
    Latency,
    Machine,
    MemoryLevel,
)
from .machinefields import MachineFields
from .resources import EXECUTION_FIGURES, Execution, execution_source_key

MAX_MACHINE_BYTES = 1_000_000


# ---------------------------------------------------------------------------------- loading

def builtin_machine_ids() -> list[str]:
    """Ids of the machines shipped with kernelcost, sorted."""
    return shipped_ids("kernelcost.machines")


def builtin_machines_with(precisions: Sequence[str]) -> tuple[list[str], tuple[Dropped, ...]]:
    """The built-in machines with a dense peak for every precision asked for, and those left
    out with what they lack (a verdict names them: `--machine all --precision fp8`)."""
    kept, dropped = [], []
    for machine_id in builtin_machine_ids():
        machine = load_machine(machine_id)
        missing = tuple(p for p in precisions if p not in machine.precisions)
        if missing:
            dropped.append(Dropped(machine_id, machine.name, missing))
        else:
            kept.append(machine_id)
    return kept, tuple(dropped)


def load_machine(name_or_path: str | Path) -> Machine:
    """A built-in machine by id (`h100`), or a machine file by path (`path/to/mine.toml`)."""
    found = shipped_or_file(name_or_path, "kernelcost.machines", MAX_MACHINE_BYTES,
                            "machine file")
    if found is None:
        name = str(name_or_path)
        # a list, or `all` (analyze's every machine), where the command takes one machine
        # (tune, sweep, model, ...): `all` was an `unknown machine`, a list placed nowhere
        if name == "all":
            raise MachineFileError(Code.UNKNOWN_MACHINE, Diagnostic(
                None, "`all` names every built-in machine, and this command takes one",
                f"give one of {', '.join(builtin_machine_ids())} or a .toml path, and run "
                "it again for another"))
        raise MachineFileError(Code.UNKNOWN_MACHINE, Diagnostic(
            None, f"unknown machine `{name}`",
            "this command takes one machine: give one id or path, and run it again for "
            "another" if "," in name else did_you_mean(name.lower(), builtin_machine_ids())
            or f"built-in machines: {', '.join(builtin_machine_ids())}; or give a .toml path"))
    machine = _READ.get(found)
    if machine is None:
        machine = parse_machine(*found)
        if len(_READ) < _MOST_READ:
            _READ[found] = machine
    return machine


# Each file's text read into its Machine once (a Machine is frozen): `--machine all` reads
# every built-in machine to check its precisions, then again for the verdicts.
_READ: dict[tuple[str, str], Machine] = {}
_MOST_READ = 64


def parse_machine(text: str, path: str) -> Machine:
    """Build a Machine from the text of a machine file; `path` names it in errors."""
    text = normalise(text)
    data = toml_data(text, path, "machine file", Code.MACHINE_NOT_TOML)
    refuse_control_characters(data, text, path, "machine file", Code.MACHINE_BAD_VALUE)
    return _Reader(path, text).machine(data)


# Allowed keys of each table; a key outside its table's list is an error.
_TOP_KEYS = ("id", "name", "vendor", "notes", "device", "launch", "sfu", "compute", "memory",
             "execution", "features", "latency", "achievable")
_DEVICE_KEYS = ("sm_count", "source", "max_clock_Hz", "max_clock_source", "architecture",
                "architecture_source")
_LAUNCH_KEYS = ("launch_overhead_s", "mode", "source", "cold_start_s", "cold_start_source")
_SFU_KEYS = ("peak_OPps", "source", "OP_per_clock_per_sm", "per_clock_source")
_COMPUTE_KEYS = ("precision", "unit", "peak_FLOPps", "sparse", "source",
                 "FLOP_per_clock_per_sm", "per_clock_source")
_MEMORY_KEYS = ("level", "technology", "bandwidth_Bps", "bandwidth_source", "capacity_B",
                "capacity_per", "capacity_source", "B_per_clock_per_sm", "per_clock_source")
_EXECUTION_KEYS = tuple(name for key in EXECUTION_FIGURES
                        for name in (key, execution_source_key(key)))
_FEATURE_KEYS = tuple(name for key in FEATURES for name in (key, f"{key}_source"))
_LATENCY_KEYS = ("level", "cycles", "clock_Hz", "measured_on", "source")


class _Reader(MachineFields):
    """Reads one parsed TOML document into a Machine."""

    def machine(self, data: dict) -> Machine:
        self.known_keys(data, _TOP_KEYS, "")
        device = self.table(data, "device", required=True)
        self.known_keys(device, _DEVICE_KEYS, "device")
        launch = self.table(data, "launch")
        self.known_keys(launch, _LAUNCH_KEYS, "launch")
        sfu = self.table(data, "sfu")
        self.known_keys(sfu, _SFU_KEYS, "sfu")
        machine_id = self.identifier(data)
        compute = self.compute(data.get("compute", []))
        memory = self.memory(data.get("memory", []))
        return derive(Machine(
            id=machine_id,
            name=self.name(data),
            vendor=self.string(data, "vendor", "", required=True),
            sm_count=self.count(device, "sm_count", "device"),
            sm_count_source=self.string(device, "source", "device", required=True),
            compute=compute,
            sfu_OPps=self.number(sfu, "peak_OPps", "sfu"),
            sfu_source=self.source_for(sfu, "peak_OPps", "source", "sfu"),
            memory=memory,
            launch_overhead_s=self.number(launch, "launch_overhead_s", "launch"),
            launch_mode=self.choice(launch, "mode", LAUNCH_MODES, "launch", default=None),
            launch_source=self.source_for(launch, "launch_overhead_s", "source", "launch"),
            path=self.path,
            execution=self.execution(self.table(data, "execution"), memory),
            latencies=self.latencies(data.get("latency", [])),
            max_clock_Hz=self.number(device, "max_clock_Hz", "device"),
            max_clock_source=self.source_for(device, "max_clock_Hz", "max_clock_source", "device"),
            **{f"sfu_{key}": value
               for key, value in self.per_clock(sfu, "OP_per_clock_per_sm", "sfu").items()},
            features=self.features(self.table(data, "features"), memory),
            architecture=self.architecture(device),
            architecture_source=self.source_for(device, "architecture", "architecture_source",
                                                "device"),
            cold_start_s=self.number(launch, "cold_start_s", "launch"),
            cold_start_source=self.source_for(launch, "cold_start_s", "cold_start_source",
                                              "launch"),
            achievable=read_achievable(self, data.get("achievable", []),
                                       tuple(level.level for level in memory)),
        ), lambda where, message: self.error(Code.MACHINE_INCONSISTENT, where, message))

    def compute(self, tables) -> tuple[ComputePeak, ...]:
        if not isinstance(tables, list) or not tables:
            raise self.error(Code.MACHINE_MISSING_KEY, "compute",
                             "a machine needs at least one [[compute]] table")
        peaks = []
        seen = set()
        for position, table in enumerate(self.entries(tables, "compute")):
            where = f"compute[{position}]"
            self.known_keys(table, _COMPUTE_KEYS, where)
            peak = ComputePeak(
                precision=self.choice(table, "precision", PRECISIONS, where),
                unit=self.choice(table, "unit", UNITS, where),
                peak_FLOPps=self.number(table, "peak_FLOPps", where, required=True),
                sparse=self.boolean(table, "sparse", where),
                source=self.string(table, "source", where, required=True),
                **self.per_clock(table, "FLOP_per_clock_per_sm", where),
            )
            identity = (peak.precision, peak.unit, peak.sparse)
            if identity in seen:
                raise self.error(Code.MACHINE_INCONSISTENT, where,
                                 f"a second {'sparse' if peak.sparse else 'dense'} "
                                 f"{peak.precision} {peak.unit} peak")
            seen.add(identity)
            peaks.append(peak)
        return tuple(peaks)

    def memory(self, tables) -> tuple[MemoryLevel, ...]:
        if not isinstance(tables, list) or not tables:
            raise self.error(Code.MACHINE_MISSING_KEY, "memory",
                             "a machine needs at least the [[memory]] level `global`")
        levels = []
        for position, table in enumerate(self.entries(tables, "memory")):
            where = f"memory[{position}]"
            self.known_keys(table, _MEMORY_KEYS, where)
            unknown = table.get("bandwidth_Bps") == UNKNOWN_BANDWIDTH  # its source is required
            levels.append(MemoryLevel(
                level=self.choice(table, "level", LEVELS, where),
                technology=self.string(table, "technology", where),
                bandwidth_Bps=None if unknown else self.number(table, "bandwidth_Bps", where),
                bandwidth_source=self.source_for(table, "bandwidth_Bps", "bandwidth_source",
                                                 where),
                capacity_B=self.number(table, "capacity_B", where),
                capacity_per=self.capacity_scope(table, CAPACITY_SCOPES, where),
                capacity_source=self.source_for(table, "capacity_B", "capacity_source", where),
                bandwidth_unknown=unknown,
                **self.per_clock(table, "B_per_clock_per_sm", where),
            ))
        order = "levels appear once each, slowest first: " + ", ".join(LEVELS)
        for position in range(1, len(levels)):  # placed at the table that breaks the order
            level = levels[position].level
            before = [memory.level for memory in levels[:position]]
            if level in before:
                raise self.error(Code.MACHINE_INCONSISTENT, f"memory[{position}].level",
                                 f"a second `{level}` level", order)
            if LEVELS.index(level) < LEVELS.index(before[-1]):
                raise self.error(Code.MACHINE_INCONSISTENT, f"memory[{position}].level",
                                 f"`{level}` after `{before[-1]}`", order)
        if levels[0].level != Level.GLOBAL:
            raise self.error(Code.MACHINE_INCONSISTENT, "memory[0].level",
                             "the first level must be `global`", order)
        self.refuse_capacity_scopes(levels)
        return tuple(levels)

    def execution(self, table: dict, memory: tuple[MemoryLevel, ...]) -> Execution:
        self.known_keys(table, _EXECUTION_KEYS, "execution")
        values: dict[str, int | float] = {}
        sources: list[tuple[str, str]] = []
        for key, kind in EXECUTION_FIGURES.items():
            source_key = execution_source_key(key)
            source = self.source_for(table, key, source_key, "execution")
            if key not in table:
                continue
            assert source is not None  # required where the figure is there
            if kind is int:
                values[key] = self.count(table, key, "execution")
            else:
                values[key] = self.fraction(table, key, "execution")
            sources.append((key, source))
        # each figure of its kind (EXECUTION_FIGURES): a count or a fraction
        execution = Execution(**values, sources=tuple(sources))  # type: ignore[arg-type]
        self.threads_consistent(execution)
        portable, nonportable = execution.cluster_max_portable, execution.cluster_max_nonportable
        if portable and nonportable and portable > nonportable:
            raise self.error(Code.MACHINE_INCONSISTENT, "execution.cluster_max_nonportable",
                             f"smaller than cluster_max_portable ({portable})")
        shared = next((m for m in memory if m.level == Level.SHARED), None)
        per_block = execution.shared_per_block_max_B
        if per_block and shared and shared.capacity_B and shared.capacity_per == Per.SM \
                and per_block > shared.capacity_B:
            raise self.error(Code.MACHINE_INCONSISTENT, "execution.shared_per_block_max_B",
                             f"more than the shared capacity per SM ({shared.capacity_B:.0f} B)")
        reserved = execution.shared_reserved_per_block_B
        if reserved and shared and shared.capacity_B and shared.capacity_per == Per.SM \
                and reserved + (per_block or 1) > shared.capacity_B:
            # a block of the largest shared memory allowed would leave no block resident
            # (occupancy's floor(capacity / (need + reserved)) = 0: no wave, a time of zoo)
            raise self.error(Code.MACHINE_INCONSISTENT, "execution.shared_reserved_per_block_B",
                             f"{reserved} B reserved a block, with "
                             f"{f'{per_block} B' if per_block else '1 B'} of shared memory a "
                             f"block, is more than the shared capacity per SM "
                             f"({shared.capacity_B:.0f} B)",
                             "CUDA's figures add up: shared_per_block_max_B + "
                             "shared_reserved_per_block_B <= the SM's shared capacity")
        for position, level in enumerate(memory):
            if level.capacity_per == Per.PARTITION and (level.level != Level.L2
                                                      or not execution.l2_partitions):
                raise self.error(Code.MACHINE_INCONSISTENT, f"memory[{position}].capacity_per",
                                 "a capacity per partition is an L2's, with "
                                 "execution.l2_partitions")
        return execution

    def threads_consistent(self, execution: Execution) -> None:
        """A warp of a power of two threads (32 on NVIDIA, 64 on CDNA), and no block of more
        threads than its SM holds: occupancy divides by both."""
        warp = execution.warp_size
        if warp and warp & (warp - 1):
            raise self.error(Code.MACHINE_INCONSISTENT, "execution.warp_size",
                             f"{warp} threads a warp, not a power of two",
                             "32 on NVIDIA GPUs, 64 on AMD CDNA (a wavefront)")
        per_block, per_sm = execution.max_threads_per_block, execution.max_threads_per_sm
        if per_block and per_sm and per_block > per_sm:
            raise self.error(Code.MACHINE_INCONSISTENT, "execution.max_threads_per_block",
                             f"more than max_threads_per_sm ({per_sm})")

    def architecture(self, device: dict) -> Architecture | None:
        text = self.string(device, "architecture", "device")
        if text is None:
            return None
        architecture = parse_architecture(text)
        if architecture is None:
            raise self.error(Code.MACHINE_BAD_VALUE, "device.architecture",
                             f"not an architecture: {text!r}", f"write {ARCHITECTURE_FORMS}")
        return architecture

    def features(self, table: dict, memory: tuple[MemoryLevel, ...]) -> Features:
        self.known_keys(table, _FEATURE_KEYS, "features")
        stated = []
        for key in FEATURES:
            source = self.source_for(table, key, f"{key}_source", "features")
            if key in table:
                assert source is not None  # source_for requires it beside the flag
                stated.append((key, self.boolean(table, key, "features"), source))
        features = Features(tuple(stated))
        if features.has(Feature.TENSOR_MEMORY) is False and any(
                level.level == Level.TMEM for level in memory):
            raise self.error(Code.MACHINE_INCONSISTENT, "features.tensor_memory",
                             "false, but a [[memory]] level is `tmem`")
        return features

    def latencies(self, tables) -> tuple[Latency, ...]:
        if not isinstance(tables, list):
            raise self.error(Code.MACHINE_BAD_VALUE, "latency", "expected [[latency]] tables")
        found: list[Latency] = []
        for position, table in enumerate(self.entries(tables, "latency")):
            where = f"latency[{position}]"
            self.known_keys(table, _LATENCY_KEYS, where)
            latency = Latency(
                level=self.choice(table, "level", LATENCY_LEVELS, where),
                cycles=self.number(table, "cycles", where, required=True),
                clock_Hz=self.number(table, "clock_Hz", where, required=True),
                measured_on=self.string(table, "measured_on", where, required=True),
                source=self.string(table, "source", where, required=True),
            )
            if any(other.level == latency.level for other in found):
                raise self.error(Code.MACHINE_INCONSISTENT, f"{where}.level",
                                 f"a second latency for `{latency.level}`")
            found.append(latency)
        return tuple(found)

    def per_clock(self, table: dict, key: str, where: str) -> dict:
        """A per-clock rate and its source, as the record's fields (module clocks)."""
        return {"per_clock": self.number(table, key, where),
                "per_clock_source": self.source_for(table, key, "per_clock_source", where)}
