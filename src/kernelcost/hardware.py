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

    [launch]
    launch_overhead_s = 4e-6
    mode = "eager"                       # eager | graph: how the figure was measured
    source = "..."

    [sfu]                                # special-function unit: exp, log, rsqrt, ...
    peak_OPps = 3.9e12
    source = "..."

    [[compute]]                          # one table per precision and unit
    precision = "bf16"                   # fp64 fp32 tf32 fp16 bf16 fp8 fp6 fp4 i8
    unit = "tensor"                      # vector | tensor
    peak_FLOPps = 990e12
    sparse = false                       # optional; a sparse peak is never used by default
    source = "..."

    [[memory]]                           # in order: global, l2, shared, registers
    level = "global"
    technology = "HBM3"                  # optional
    bandwidth_Bps = 3.35e12              # optional when no figure is known
    bandwidth_source = "..."
    capacity_B = 80e9
    capacity_per = "device"              # device | sm
    capacity_source = "..."
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .errors import Diagnostic, KcostError, did_you_mean
from .symbols import LEVELS

PRECISIONS: tuple[str, ...] = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp6", "fp4", "i8")
UNITS: tuple[str, ...] = ("vector", "tensor")
CAPACITY_SCOPES: tuple[str, ...] = ("device", "sm")
LAUNCH_MODES: tuple[str, ...] = ("eager", "graph")
WORK_CLASSES: tuple[str, ...] = ("fma", "vector", "sfu")

# The precision whose vector peak stands in when a machine lists none for the precision asked:
# 16- and 8-bit element-wise arithmetic runs on the fp32 pipes unless packed.
FALLBACK_VECTOR_PRECISION = "fp32"


@dataclass(frozen=True)
class ComputePeak:
    """One compute ceiling: a precision on a unit, dense unless marked sparse."""

    precision: str
    unit: str  # vector | tensor
    peak_FLOPps: float
    sparse: bool  # 2:4 structured sparsity; never chosen by Machine.ceiling
    source: str


@dataclass(frozen=True)
class MemoryLevel:
    level: str  # global | l2 | shared | registers
    technology: str | None  # HBM3, GDDR6X, ... (informative)
    bandwidth_Bps: float | None  # None: no sourced figure, the level sets no ceiling
    bandwidth_source: str | None
    capacity_B: float | None
    capacity_per: str  # device | sm: what one capacity_B covers
    capacity_source: str | None


@dataclass(frozen=True)
class Ceiling:
    """The compute ceiling chosen for a work class at a precision, with its name and source."""

    name: str  # "bf16 tensor peak", "fp32 vector peak", "sfu"
    peak_FLOPps: float
    source: str


@dataclass(frozen=True)
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
    launch_mode: str | None  # eager | graph
    launch_source: str | None
    path: str  # the file it was read from

    def dense_peak(self, precision: str, unit: str) -> ComputePeak | None:
        for peak in self.compute:
            if peak.precision == precision and peak.unit == unit and not peak.sparse:
                return peak
        return None

    def ceiling(self, precision: str, work_class: str) -> Ceiling:
        """The dense ceiling a work class meets at a precision.

        fma: the tensor peak of the precision if the machine has one, else its vector peak,
        else the fp32 vector peak. vector: the vector peak of the precision, else fp32's.
        sfu: the special-function rate, else (no figure for the machine) the fp32 vector peak,
        named so that a report shows the stand-in."""
        _check_name(precision, _lookup_precisions(), "precision")
        _check_name(work_class, WORK_CLASSES, "work class")
        if work_class == "sfu":
            if self.sfu_OPps is not None:
                return Ceiling("sfu", self.sfu_OPps, self.sfu_source or "")
            fallback = self._vector_ceiling(FALLBACK_VECTOR_PRECISION)
            return Ceiling(f"{fallback.name} (no sfu figure)", fallback.peak_FLOPps,
                           fallback.source)
        if work_class == "fma":
            tensor = self.dense_peak(precision, "tensor")
            if tensor is not None:
                return _ceiling_of(tensor)
        return self._vector_ceiling(precision)

    def _vector_ceiling(self, precision: str) -> Ceiling:
        peak = self.dense_peak(precision, "vector")
        if peak is None:
            peak = self.dense_peak(FALLBACK_VECTOR_PRECISION, "vector")
        if peak is None:
            raise KcostError(Diagnostic(
                None, f"{self.path}: machine `{self.id}` has no vector peak for "
                      f"{precision} or {FALLBACK_VECTOR_PRECISION}",
                "add a [[compute]] table with unit = \"vector\""))
        return _ceiling_of(peak)

    def peak(self, precision: str, work_class: str = "fma") -> float:
        """FLOP/s of the ceiling a work class meets (see `ceiling`)."""
        return self.ceiling(precision, work_class).peak_FLOPps

    def memory_level(self, level: str) -> MemoryLevel | None:
        _check_name(level, LEVELS, "memory level")
        for memory in self.memory:
            if memory.level == level:
                return memory
        return None

    def bandwidth(self, level: str) -> float | None:
        """B/s at a level, or None when the machine has no sourced figure for it."""
        memory = self.memory_level(level)
        return None if memory is None else memory.bandwidth_Bps

    def capacity(self, level: str) -> float | None:
        """Bytes a level holds, per device or per SM as `capacity_per(level)` says."""
        memory = self.memory_level(level)
        return None if memory is None else memory.capacity_B

    def capacity_per(self, level: str) -> str | None:
        memory = self.memory_level(level)
        return None if memory is None else memory.capacity_per

    @property
    def precisions(self) -> tuple[str, ...]:
        """Precisions with a dense peak, in the canonical order."""
        listed = {peak.precision for peak in self.compute if not peak.sparse}
        return tuple(p for p in PRECISIONS if p in listed)


def _ceiling_of(peak: ComputePeak) -> Ceiling:
    return Ceiling(f"{peak.precision} {peak.unit} peak", peak.peak_FLOPps, peak.source)


def _lookup_precisions() -> tuple[str, ...]:
    # kernels may compute in i32 or i4 (index or packed types): they fall back to fp32 vector
    return PRECISIONS + ("i32", "i4")


def _check_name(name: str, allowed, what: str) -> None:
    if name not in allowed:
        raise KcostError(Diagnostic(None, f"unknown {what} `{name}`",
                                    did_you_mean(name, allowed) or
                                    f"one of: {', '.join(allowed)}"))


# ---------------------------------------------------------------------------------- loading

def builtin_machine_ids() -> list[str]:
    """Ids of the machines shipped with kernelcost, sorted."""
    files = resources.files("kernelcost.machines").iterdir()
    return sorted(f.name.removesuffix(".toml") for f in files if f.name.endswith(".toml"))


def load_machine(name_or_path: str | Path) -> Machine:
    """A built-in machine by id (`h100`), or a machine file by path (`path/to/mine.toml`)."""
    text_name = str(name_or_path)
    if text_name.lower() in builtin_machine_ids():
        resource = resources.files("kernelcost.machines") / f"{text_name.lower()}.toml"
        return parse_machine(resource.read_text(encoding="utf-8"),
                             f"kernelcost/machines/{text_name.lower()}.toml")
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise KcostError(Diagnostic(None, f"cannot read machine file {path}: "
                                              f"{error.strerror}")) from None
        return parse_machine(text, str(path))
    raise KcostError(Diagnostic(
        None, f"unknown machine `{text_name}`",
        did_you_mean(text_name.lower(), builtin_machine_ids())
        or f"built-in machines: {', '.join(builtin_machine_ids())}; or give a .toml path"))


def parse_machine(text: str, path: str) -> Machine:
    """Build a Machine from the text of a machine file; `path` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise KcostError(Diagnostic(None, f"{path}: not valid TOML: {error}")) from None
    return _Reader(path).machine(data)


# Allowed keys of each table; a key outside its table's list is an error.
_TOP_KEYS = ("id", "name", "vendor", "notes", "device", "launch", "sfu", "compute", "memory")
_DEVICE_KEYS = ("sm_count", "source")
_LAUNCH_KEYS = ("launch_overhead_s", "mode", "source")
_SFU_KEYS = ("peak_OPps", "source")
_COMPUTE_KEYS = ("precision", "unit", "peak_FLOPps", "sparse", "source")
_MEMORY_KEYS = ("level", "technology", "bandwidth_Bps", "bandwidth_source", "capacity_B",
                "capacity_per", "capacity_source")


class _Reader:
    """Reads one parsed TOML document, naming the file and key in every error."""

    def __init__(self, path: str):
        self.path = path

    def error(self, where: str, message: str, hint: str | None = None) -> KcostError:
        return KcostError(Diagnostic(None, f"{self.path}: `{where}`: {message}", hint))

    def machine(self, data: dict) -> Machine:
        self.known_keys(data, _TOP_KEYS, "")
        device = self.table(data, "device", required=True)
        self.known_keys(device, _DEVICE_KEYS, "device")
        launch = self.table(data, "launch")
        self.known_keys(launch, _LAUNCH_KEYS, "launch")
        sfu = self.table(data, "sfu")
        self.known_keys(sfu, _SFU_KEYS, "sfu")
        machine_id = self.string(data, "id", "", required=True)
        if machine_id != machine_id.lower():
            raise self.error("id", f"machine ids are lower case: `{machine_id.lower()}`")
        return Machine(
            id=machine_id,
            name=self.string(data, "name", "", required=True),
            vendor=self.string(data, "vendor", "", required=True),
            sm_count=self.count(device, "sm_count", "device"),
            sm_count_source=self.string(device, "source", "device", required=True),
            compute=self.compute(data.get("compute", [])),
            sfu_OPps=self.number(sfu, "peak_OPps", "sfu"),
            sfu_source=self.source_for(sfu, "peak_OPps", "source", "sfu"),
            memory=self.memory(data.get("memory", [])),
            launch_overhead_s=self.number(launch, "launch_overhead_s", "launch"),
            launch_mode=self.choice(launch, "mode", LAUNCH_MODES, "launch", default=None),
            launch_source=self.source_for(launch, "launch_overhead_s", "source", "launch"),
            path=self.path,
        )

    def compute(self, tables) -> tuple[ComputePeak, ...]:
        if not isinstance(tables, list) or not tables:
            raise self.error("compute", "a machine needs at least one [[compute]] table")
        peaks = []
        seen = set()
        for position, table in enumerate(tables):
            where = f"compute[{position}]"
            self.known_keys(table, _COMPUTE_KEYS, where)
            peak = ComputePeak(
                precision=self.choice(table, "precision", PRECISIONS, where),
                unit=self.choice(table, "unit", UNITS, where),
                peak_FLOPps=self.number(table, "peak_FLOPps", where, required=True),
                sparse=self.boolean(table, "sparse", where),
                source=self.string(table, "source", where, required=True),
            )
            identity = (peak.precision, peak.unit, peak.sparse)
            if identity in seen:
                raise self.error(where, f"a second {'sparse' if peak.sparse else 'dense'} "
                                        f"{peak.precision} {peak.unit} peak")
            seen.add(identity)
            peaks.append(peak)
        return tuple(peaks)

    def memory(self, tables) -> tuple[MemoryLevel, ...]:
        if not isinstance(tables, list) or not tables:
            raise self.error("memory", "a machine needs at least the [[memory]] level `global`")
        levels = []
        for position, table in enumerate(tables):
            where = f"memory[{position}]"
            self.known_keys(table, _MEMORY_KEYS, where)
            levels.append(MemoryLevel(
                level=self.choice(table, "level", LEVELS, where),
                technology=self.string(table, "technology", where),
                bandwidth_Bps=self.number(table, "bandwidth_Bps", where),
                bandwidth_source=self.source_for(table, "bandwidth_Bps", "bandwidth_source",
                                                 where),
                capacity_B=self.number(table, "capacity_B", where),
                capacity_per=self.choice(table, "capacity_per", CAPACITY_SCOPES, where,
                                         default="device"),
                capacity_source=self.source_for(table, "capacity_B", "capacity_source", where),
            ))
        order = [LEVELS.index(memory.level) for memory in levels]
        if order != sorted(set(order)):
            raise self.error("memory", "levels must appear once each, in the order "
                                       + ", ".join(LEVELS))
        if levels[0].level != "global":
            raise self.error("memory", "the first level must be `global`")
        return tuple(levels)

    # -- typed accessors ----------------------------------------------------------------

    def known_keys(self, table: dict, allowed: tuple[str, ...], where: str) -> None:
        for key in table:
            if key not in allowed:
                name = f"{where}.{key}" if where else key
                raise self.error(name, "unknown key",
                                 did_you_mean(key, allowed) or f"known keys: {', '.join(allowed)}")

    def table(self, data: dict, key: str, required: bool = False) -> dict:
        value = data.get(key)
        if value is None:
            if required:
                raise self.error(key, "missing table")
            return {}
        if not isinstance(value, dict):
            raise self.error(key, "expected a table")
        return value

    def number(self, table: dict, key: str, where: str, required: bool = False) -> float | None:
        value = table.get(key)
        if value is None:
            if required:
                raise self.error(f"{where}.{key}", "missing number")
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise self.error(f"{where}.{key}", f"expected a positive number, got {value!r}")
        return float(value)

    def count(self, table: dict, key: str, where: str) -> int:
        value = table.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise self.error(f"{where}.{key}", f"expected a positive integer, got {value!r}")
        return value

    def string(self, table: dict, key: str, where: str, required: bool = False) -> str | None:
        value = table.get(key)
        name = f"{where}.{key}" if where else key
        if value is None:
            if required:
                raise self.error(name, "missing")
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.error(name, f"expected a non-empty string, got {value!r}")
        return value

    def boolean(self, table: dict, key: str, where: str) -> bool:
        value = table.get(key, False)
        if not isinstance(value, bool):
            raise self.error(f"{where}.{key}", f"expected true or false, got {value!r}")
        return value

    def choice(self, table: dict, key: str, allowed, where: str, default: object = ...):
        value = table.get(key)
        if value is None and default is not ...:
            return default
        if value not in allowed:
            raise self.error(f"{where}.{key}", f"expected one of {', '.join(allowed)}, "
                                               f"got {value!r}",
                             did_you_mean(str(value), allowed))
        return value

    def source_for(self, table: dict, number_key: str, source_key: str, where: str) -> str | None:
        """Every number needs its source: required when the number is there."""
        required = number_key in table
        source = self.string(table, source_key, where, required=required)
        if source is not None and not required:
            raise self.error(f"{where}.{source_key}", f"a source without `{number_key}`")
        return source
