"""Nsight Compute input: `ncu --csv --page raw` exports against a spec's Q per level and W.

The raw page is one header row of column names (the launch's ID, process, kernel name,
device and compute capability, then one column per metric), one row of units, and one row
per profiled kernel launch. The metric names differ between architectures; `METRICS` lists
the ones read for each, with where each name is documented. The counts of every launch in
the file are summed (a library call may launch several kernels) and compared with the spec:
DRAM bytes with the `global` traffic, L2 bytes with `l2`, shared-memory bytes with `shared`,
and the tensor-pipe utilisation, times the machine's tensor peak and the kernels' duration,
with W (tensor work)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import NoReturn

from ..base.csvcells import cell_column, line_fields
from ..base.errors import Code, Diagnostic, InputOutputError, MeasurementError, SizeError
from ..base.inputs import read_text
from ..base.kinds import WorkClass
from ..base.levels import Level as MemoryLevel
from ..base.records import record
from ..base.tree import Span
from .validate import MAX_TIME_S, MIN_TIME_S

MAX_BYTES = 20_000_000


class Architecture(Enum):
    AMPERE = "ampere"        # compute capability 8.x
    HOPPER = "hopper"        # 9.x
    BLACKWELL = "blackwell"  # 10.x (data-centre Blackwell; 12.x is GeForce and not read)


MAJOR = {8: Architecture.AMPERE, 9: Architecture.HOPPER, 10: Architecture.BLACKWELL}

# quantity -> metric names to add up, per architecture, and where each name comes from:
# - dram__bytes.sum, lts__t_bytes.sum: read by validate/run_h200.py with Nsight Compute
#   2025.3.1 on this project's H200 (validate/results/h200-2026-12-04.csv has the counts);
#   the same dram__ / lts__ units name HBM and L2 traffic on Ampere and Blackwell in the
#   Nsight Compute Profiling Guide's metric naming (unit__counter.rollup);
# - sm__sass_data_bytes_mem_shared.sum: the bytes SASS load/store instructions move to and
#   from shared memory; it does not see wgmma's or tcgen05's operand reads (on Hopper and
#   Blackwell the MMA reads its operands from shared memory without an LSU instruction);
# - tensor pipe, Ampere: sm__pipe_tensor_op_hmma_cycles_active (mma.sync, the HMMA pipe);
#   Hopper adds sm__pipe_tensor_op_gmma_cycles_active (wgmma), the two shares add up;
# - Blackwell (tcgen05, the "UTC" tensor core): no pipe-utilisation name was found in the
#   sources read; NVIDIA/DCGM issue 251 (a comment of 2026-07-06, Nsight Compute 2025.4 on a
#   B300) names the math-op counters sm__ops_path_tensor_op_utcqmma_src_fp8_dst_fp32 and
#   ..._dst_fp16 (FP8) and sm__ops_path_tensor_op_utcomma_src_fp4_dst_fp32 (FP4), and shows
#   the FP8 one equal to 2 M N K for a 4096^3 GEMM: they count W directly. No bf16 name was
#   found, so a bf16 spec on Blackwell gets no tensor comparison.
DURATION = "gpu__time_duration.sum"
_COMMON = {"dram_bytes": ("dram__bytes.sum",), "l2_bytes": ("lts__t_bytes.sum",),
           "shared_bytes": ("sm__sass_data_bytes_mem_shared.sum",)}
HMMA = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
GMMA = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"
METRICS: dict[Architecture, dict[str, tuple[str, ...]]] = {
    Architecture.AMPERE: {**_COMMON, "tensor_pct": (HMMA,)},
    Architecture.HOPPER: {**_COMMON, "tensor_pct": (HMMA, GMMA)},
    Architecture.BLACKWELL: {**_COMMON,
                             "tensor_ops_fp8": (
                                 "sm__ops_path_tensor_op_utcqmma_src_fp8_dst_fp32.sum",
                                 "sm__ops_path_tensor_op_utcqmma_src_fp8_dst_fp16.sum"),
                             "tensor_ops_fp4": (
                                 "sm__ops_path_tensor_op_utcomma_src_fp4_dst_fp32.sum",)},
}
LEVEL_OF = {"dram_bytes": MemoryLevel.GLOBAL, "l2_bytes": MemoryLevel.L2,
            "shared_bytes": MemoryLevel.SHARED}
FIXED = ("ID", "Kernel Name")


@record
class Launch:
    line: int
    kernel: str
    metrics: dict[str, float]  # name -> value, in the units row's units (bytes, %, ns)


@record
class Profile:
    path: Path
    architecture: Architecture
    launches: tuple[Launch, ...]

    def total(self, quantity: str) -> float | None:
        """The quantity summed over launches (a mean weighted by duration for a %)."""
        names = METRICS[self.architecture].get(quantity)
        if not names:
            return None
        present = [n for n in names if any(n in launch.metrics for launch in self.launches)]
        if not present:
            return None
        if quantity.endswith("_pct"):
            weights = [launch.metrics.get(DURATION, 1.0) for launch in self.launches]
            share = sum(w * sum(launch.metrics.get(n, 0.0) for n in present)
                        for w, launch in zip(weights, self.launches))
            return share / sum(weights) if sum(weights) else None
        return sum(launch.metrics.get(n, 0.0) for launch in self.launches for n in present)

    @property
    def duration_s(self) -> float | None:
        if not all(DURATION in launch.metrics for launch in self.launches):
            return None
        return sum(launch.metrics[DURATION] for launch in self.launches) * 1e-9


def read_ncu(path: str | Path) -> Profile:
    """An `ncu --csv --page raw` export; a MeasurementError at file:line:column if malformed."""
    path = Path(path)
    text = _export_text(path)
    lines = text.splitlines()
    first, header = _header(path, text, lines)
    _check_units(path, text, lines, first, header)
    architecture: Architecture | None = None
    launches = []
    for number in range(first + 3, len(lines) + 1):  # after the header and the units row
        line = lines[number - 1]
        if not line.strip() or line.startswith("=="):  # ncu's own messages
            continue
        fields, arch = _launch_fields(path, text, number, line, header)
        if architecture not in (None, arch):
            _fail(path, text, number, 1, "launches from two architectures in one file",
                  "profile one GPU per file")
        architecture = arch
        metrics = _metrics(path, text, number, line, fields, header)
        launches.append(Launch(number, dict(zip(header, fields))["Kernel Name"], metrics))
    if architecture is None:
        raise MeasurementError(Code.RESULTS_EMPTY, Diagnostic(
            Span(str(path), first + 1, 1, first + 1, 2), "the export holds no launch",
            "profile at least one kernel"), text)
    return Profile(path, architecture, tuple(launches))


def _export_text(path: Path) -> str:
    """The export's text, refused where there is no such file, it is no regular file (a
    device, a directory), it is too large or not UTF-8 (read_text, at the byte: it was
    an internal error, UnicodeDecodeError)."""
    if not path.exists():
        raise InputOutputError(Code.NO_SUCH_FILE, Diagnostic(
            None, f"cannot read `{path}`: no such file",
            "give the output of `ncu --csv --page raw ...` (or `ncu --import R --csv --page raw`)"))
    return read_text(str(path), MAX_BYTES, "Nsight Compute export")


def _header(path: Path, text: str, lines: list[str]) -> tuple[int, list[str]]:
    """The header row's index and its column names, which must hold the fixed columns."""
    first = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if first is None:
        raise MeasurementError(Code.RESULTS_BAD_HEADER, Diagnostic(
            Span(str(path), 1, 1, 1, 2), "no header row starting with \"ID\"",
            "the raw page's first row names the columns: \"ID\",...,\"Kernel Name\",..."), text)
    header = line_fields(lines[first])
    twice = next((index for index, name in enumerate(header) if name in header[:index]), None)
    if twice is not None:  # a launch's dict would keep the second column's value
        column = cell_column(lines[first], header, twice)
        raise MeasurementError(Code.RESULTS_BAD_HEADER, Diagnostic(
            Span(str(path), first + 1, column, first + 1, column + 1),
            f"the header names `{header[twice]}` twice", "export the raw page as ncu writes "
            "it: each metric a column"), text)
    missing = [name for name in FIXED + ("CC",) if name not in header]
    if missing:
        _fail(path, text, first + 1, 1, f"the header lacks {', '.join(missing)}",
              "export with `--page raw` (the details page has another layout)")
    return first, header


def _launch_fields(path: Path, text: str, number: int, line: str, header: list[str]
                   ) -> tuple[list[str], Architecture]:
    """A launch's fields, one a column, and the architecture its compute capability names."""
    fields = line_fields(line)
    if len(fields) != len(header):
        _fail(path, text, number, 1, f"{len(fields)} fields where the header has "
              f"{len(header)}", "one value per column")
    values = dict(zip(header, fields))
    arch = _architecture(values["CC"])
    if arch is None:
        _fail(path, text, number, cell_column(line, fields, header.index("CC")),
              f"compute capability `{values['CC']}` is not Ampere, Hopper or Blackwell",
              "8.x, 9.x or 10.x")
    return fields, arch


def _metrics(path: Path, text: str, number: int, line: str, fields: list[str],
             header: list[str]) -> dict[str, float]:
    """A launch's metrics (the columns named `unit__metric`), each a count: 0 or more."""
    values = dict(zip(header, fields))
    metrics = {}
    for index, name in enumerate(header):
        if "__" not in name or values[name] in ("", "n/a"):
            continue
        try:  # float() also reads `1_000` and other scripts' digits (`٥` as 5)
            if not values[name].isascii() or "_" in values[name]:
                raise ValueError(values[name])
            metrics[name] = float(values[name].replace(",", ""))
        except ValueError:
            _fail(path, text, number, cell_column(line, fields, index),
                  f"{name} `{values[name]}` is not a number", "export with --csv")
        if not (math.isfinite(metrics[name]) and metrics[name] >= 0):
            # bytes, cycles' percentages and a duration: -1 B read a ratio of -0.00x
            why = "it is negative" if metrics[name] < 0 else "not a finite number"
            _fail(path, text, number, cell_column(line, fields, index),
                  f"{name} `{values[name]}` is not a count: {why}",
                  "export the raw page as ncu wrote it (every metric is 0 or more)")
        _in_range(path, text, (number, cell_column(line, fields, index)), name,
                  values[name], metrics[name])
    return metrics


def _in_range(path: Path, text: str, place: tuple[int, int], name: str, written: str,
              value: float) -> None:
    """A percentage of peak is at most 100 (1e300 % read a tensor work of infinite FLOP), and
    a launch's duration lies where a results CSV's time does: 0 ns timed no launch, and 1e300
    ns printed `1e273 Es`."""
    if name.endswith("pct_of_peak_sustained_active") and value > 100:
        _fail(path, text, *place, f"{name} `{written}` is more than 100 %",
              "a share of the peak: from 0 to 100")
    low, high = MIN_TIME_S * 1e9, MAX_TIME_S * 1e9
    if name == DURATION and not low <= value <= high:
        _fail(path, text, *place, f"{name} `{written}` is not a launch's duration "
              f"(from {low:g} to {high:g} ns)", "export the raw page as ncu wrote it, in ns")


def _check_units(path: Path, text: str, lines: list[str], first: int,
                 header: list[str]) -> None:
    """The units row under the header: the values are read in bytes, % and ns, so a metric
    in another unit is refused at its unit (ncu scales them by default: 16.83 `Mbyte` was
    read as 16.83 B, 27.97 `usecond` as 28 ns), and so is a first launch where the units
    row should stand (it would be skipped as one)."""
    line = lines[first + 1] if first + 1 < len(lines) else ""
    units = line_fields(line) if line.strip() else []
    if not units or units[0] != "":
        _fail(path, text, first + 2, 1, "the row after the header is not ncu's units row, "
              "whose ID cell is empty", "export the raw page as ncu writes it: the header, "
              "the units, then a row a launch")
    for index, name in enumerate(header[:len(units)]):
        expected = _UNITS.get(name) or (("%",) if name.endswith("pct_of_peak_sustained_active")
                                        else None)
        if expected is not None and units[index] not in expected:
            _fail(path, text, first + 2, cell_column(line, units, index),
                  f"{name} is in `{units[index]}`, not {' or '.join(expected)}",
                  "export with `ncu --csv --page raw --print-units base`: the values are "
                  "read in bytes, % and ns")


_UNITS = {**{name: ("byte",) for names in _COMMON.values() for name in names},
          DURATION: ("ns", "nsecond")}


def _architecture(cc: str) -> Architecture | None:
    try:
        return MAJOR.get(int(cc.split(".")[0]))
    except ValueError:
        return None


def _fail(path: Path, text: str, line: int, column: int, message: str, hint: str) -> NoReturn:
    raise MeasurementError(Code.RESULTS_BAD_ROW, Diagnostic(
        Span(str(path), line, column, line, column + 1), message, hint), text)


# -- against a spec ---------------------------------------------------------------------------

@record
class Level:
    name: str              # global, l2, shared, tensor work
    unit: str              # B or FLOP
    predicted: float | None
    measured: float | None
    metrics: tuple[str, ...]  # the metrics summed (for W on Blackwell: none where no
    # documented counter names the precision)
    peak_FLOPps: float | None = None  # W before Blackwell: the summed pipe utilisation (%)
    # / 100 x this tensor peak x the kernels' duration
    precision: str = ""  # the spec's, whose tensor peak or op counter W reads
    machine_id: str = ""  # whose tensor peak

    @property
    def ratio(self) -> float | None:
        if self.predicted and self.measured is not None:
            return self.measured / self.predicted
        return None


def compare_ncu(profile: Profile, spec_path: str | Path, sizes: Mapping[str, str],
                machine_id: str) -> list[Level]:
    """The profile's bytes per level and tensor work against the spec's Q and W."""
    from ..analysis.api import _numeric_values, load
    from ..hardware.machinefile import load_machine
    from ..lang.settings import resolve_settings
    from .answer import refuse_verdict_sizes

    spec = load(Path(spec_path))
    values = _numeric_values(spec, resolve_settings(sizes, spec.parameters))
    cost = spec.cost()
    unset = [str(p) for p in cost.parameters if p not in values]
    if unset:  # the closed forms would stay symbolic: no number to put beside the profile's
        raise SizeError(Code.SIZES_UNSET, Diagnostic(
            None, f"the profile's kernels ran at sizes; give each: {', '.join(unset)}",
            "add --set " + ",".join(f"{name}=4096" for name in unset)))
    refuse_verdict_sizes(spec, values, sizes)  # as `analyze` refuses them on a machine
    names = METRICS[profile.architecture]
    out = []
    for quantity, level in LEVEL_OF.items():
        predicted = (float(cost.traffic[level].subs(values)) if level in cost.traffic
                     else None)
        out.append(Level(level, "B", predicted, profile.total(quantity), names[quantity]))
    work = float(cost.total_work.subs(values))
    if profile.architecture is Architecture.BLACKWELL:
        key = f"tensor_ops_{cost.precision}"
        counted = key in names
        out.append(Level("tensor work", "FLOP", work, profile.total(key) if counted else None,
                         names[key] if counted else (), precision=cost.precision))
        return out
    pct, seconds = profile.total("tensor_pct"), profile.duration_s
    peak = load_machine(machine_id).peak(cost.precision, WorkClass.TENSOR)
    measured = None if pct is None or seconds is None else pct / 100 * peak * seconds
    out.append(Level("tensor work", "FLOP", work, measured, names["tensor_pct"], peak,
                     cost.precision, machine_id))
    return out

