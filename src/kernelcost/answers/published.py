"""The corpus of published GPU measurements (validate/published/*.csv) and its split.

Each CSV holds rows of one source family; every row cites its source exactly, names the GPU
part and the machine file that models it, maps the measured shape onto a shipped spec and its
sizes, and converts the published figure (TFLOP/s, GB/s, TB/s, ms, us) to seconds with the
formula and the count (FLOP or bytes) the source uses. See validate/published/README.md for
the columns and SPLIT.md for the split.

The split is fixed by a rule (SPLIT.md) before anything is fitted: by source, never by row;
`split_of(source)` is a hash of the source id, then the documented moves in `MOVES`. Code
that fits or calibrates anything reads `calibration_rows()` only; `validation_rows()` is for
the reporting path (`kernelcost validate --published`), and tests/test_published.py checks by
grep that nothing else calls it."""

from __future__ import annotations

import hashlib
import re
from enum import Enum
from pathlib import Path
from typing import NoReturn

from ..base.csvcells import cell_column, cell_number, line_fields
from ..base.errors import Code, Diagnostic, ErrorCode, InputOutputError, MeasurementError
from ..base.kinds import Inputs
from ..base.records import record
from ..base.tree import Span


def _corpus_folder() -> Path:
    """validate/published in a source tree; the package data kernelcost.corpus once installed
    (its CSVs beside kernelcost/specs, where a row's spec path is found)."""
    source = Path(__file__).resolve().parents[3] / "validate" / "published"
    if source.is_dir():
        return source
    from importlib import resources

    return Path(str(resources.files("kernelcost.corpus")))


FOLDER = _corpus_folder()
COLUMNS = ("source", "citation", "part", "machine", "clocks_power", "family", "implementation",
           "dtype", "spec", "sizes", "shape", "value", "unit", "conversion", "time_s", "timed",
           "timed_kind", "inputs", "l2_flush")
MAX_BYTES = 5_000_000
# time_s against the value and the conversion's count: transcription slips, not rounding
CONVERSION_TOLERANCE = 1e-5


class Family(Enum):
    GEMM = "gemm"
    GEMV = "gemv"
    MOE_GEMM = "moe_gemm"
    COPY = "copy"
    NORM = "norm"
    SOFTMAX = "softmax"
    ATTENTION = "attention"
    ATTENTION_CAUSAL = "attention_causal"
    DECODE_ATTENTION = "decode_attention"


class Machine(Enum):
    """The machine files the corpus covers (src/kernelcost/machines/<value>.toml)."""
    A100 = "a100"
    H100 = "h100"
    H200 = "h200"
    B200 = "b200"
    MI300X = "mi300x"


class Timed(Enum):
    KERNEL = "kernel"      # the kernel alone (nvbench GPU time, do_bench of one kernel)
    CALL = "call"          # a library call between events: its kernels and the gaps between
    GRAPH = "graph"        # a CUDA graph replay of the call (launch overhead out)
    UNSTATED = "unstated"  # the source does not say


class Unit(Enum):
    SECONDS = "s"
    MILLISECONDS = "ms"
    MICROSECONDS = "us"
    TFLOPS = "TFLOP/s"
    GBPS = "GB/s"
    TBPS = "TB/s"


class Split(Enum):
    CALIBRATION = "calibration"
    VALIDATION = "validation"


SCALE = {Unit.SECONDS: 1.0, Unit.MILLISECONDS: 1e-3, Unit.MICROSECONDS: 1e-6}
# a rate: the count the conversion must name (the source's FLOP or byte count) and its scale
RATE = {Unit.TFLOPS: ("FLOP", 1e12), Unit.GBPS: ("B", 1e9), Unit.TBPS: ("B", 1e12)}

# The rule's moves after the hash (SPLIT.md gives each one's reason); fixed before fitting.
MOVES: dict[str, Split] = {
    "project-h200-2026-12-04": Split.VALIDATION,   # the project's own runs: validation
    "project-h200-2026-12-04b": Split.VALIDATION,
    "cccl-pr2086": Split.CALIBRATION,              # copy and H200 on the calibration side
    "ort-pr21414": Split.CALIBRATION,              # decode attention on the calibration side
    "vllm-pr49363": Split.CALIBRATION,             # the only published decode-GEMV source
    "quack-blog-2025-07-10": Split.CALIBRATION,    # the only published softmax source
}


def hash_split(source: str) -> Split:
    """The rule's first step: the parity of the first byte of sha256(source id)."""
    first = hashlib.sha256(source.encode("utf-8")).digest()[0]
    return Split.CALIBRATION if first % 2 == 0 else Split.VALIDATION


def split_of(source: str) -> Split:
    return MOVES.get(source, hash_split(source))


@record
class PublishedRow:
    file: Path
    line: int
    source: str
    citation: str
    part: str
    machine: Machine
    family: Family
    implementation: str
    dtype: str
    spec: str
    sizes: dict[str, str]
    shape: str  # the source's shape and its mapping (the project's runs: the harness's name)
    value: float
    unit: Unit
    conversion: str
    time_s: float
    timed: Timed
    inputs: str
    l2_flush: str

    @property
    def cold(self) -> bool:
        """Timed alone after an L2 flush (nvbench's cold measurement, do_bench's cleared
        buffer, this project's 256 MB write): the machine's cold start lies in the time."""
        return self.l2_flush.startswith(("yes", "do_bench default"))

    @property
    def operands(self) -> Inputs:
        """What the operands held, as the machine files' achievable figures tell them apart:
        zeros where the row says so, random values otherwise (randn, uniform, not stated)."""
        return Inputs.ZEROS if self.inputs == Inputs.ZEROS else Inputs.RANDOM

    @property
    def split(self) -> Split:
        return split_of(self.source)


# -- reading --------------------------------------------------------------------------------

def read_file(path: str | Path) -> list[PublishedRow]:
    """The rows of one corpus CSV; a MeasurementError at file:line:column on a bad row."""
    path = Path(path)
    if not path.is_file():
        raise InputOutputError(Code.NO_SUCH_FILE, Diagnostic(
            None, f"cannot read `{path}`: no such file", "a CSV of validate/published/"))
    if path.stat().st_size > MAX_BYTES:
        raise InputOutputError(Code.FILE_TOO_LARGE, Diagnostic(
            None, f"`{path}` is larger than {MAX_BYTES:,} bytes", "one row per measurement"))
    text = path.read_text(encoding="utf-8")
    records = [(number, line) for number, line in enumerate(text.splitlines(), 1)
               if line.strip() and not line.startswith("#")]
    if not records:
        raise MeasurementError(Code.RESULTS_EMPTY, Diagnostic(
            None, f"`{path}` has no header and no rows", "the header: " + ",".join(COLUMNS)))
    header_line, header_text = records[0]
    header = line_fields(header_text)
    if tuple(header) != COLUMNS:
        missing = [c for c in COLUMNS if c not in header]
        raise _error(Code.RESULTS_BAD_HEADER, _cell(path, header_line, 1), text,
                     "the header lacks " + ", ".join(missing) if missing
                     else "the header's columns are not in the corpus's order",
                     "the columns are " + ",".join(COLUMNS))
    return [_row(path, text, number, line) for number, line in records[1:]]


# CSVs of the folder that are not kernel rows: collectives across GPUs have their own columns
# (a topology and a GPU count, no spec), read by tests/collectives_measured.py; whole-model
# serving latencies (a model, a batch, lengths), read by tests/serving_measured.py
NOT_KERNELS = frozenset({"collectives.csv", "serving.csv"})


def read_corpus(folder: str | Path = FOLDER) -> list[PublishedRow]:
    """Every row of every kernel CSV in the folder, the files in name order."""
    return [row for path in sorted(Path(folder).glob("*.csv")) if path.name not in NOT_KERNELS
            for row in read_file(path)]


def calibration_rows(folder: str | Path = FOLDER) -> list[PublishedRow]:
    """The only rows fitting code may read."""
    return [row for row in read_corpus(folder) if row.split is Split.CALIBRATION]


def validation_rows(folder: str | Path = FOLDER) -> list[PublishedRow]:
    """For the report only (kernelcost validate --published); never for fitting."""
    return [row for row in read_corpus(folder) if row.split is Split.VALIDATION]


def _row(path: Path, text: str, number: int, line: str) -> PublishedRow:
    fields = line_fields(line)
    if len(fields) != len(COLUMNS):
        raise _error(Code.RESULTS_BAD_ROW, _cell(path, number, 1), text,
                     f"{len(fields)} fields where the header has {len(COLUMNS)}",
                     "quote a value that holds a comma")
    values = dict(zip(COLUMNS, fields))

    def fail(column: str, message: str, hint: str) -> NoReturn:
        at = _cell(path, number, cell_column(line, fields, COLUMNS.index(column)))
        raise _error(Code.RESULTS_BAD_ROW, at, text, message, hint)

    def choice(column: str, enum):
        try:
            return enum(values[column])
        except ValueError:
            fail(column, f"{column} `{values[column]}` is not one of the corpus's",
                 "one of " + ", ".join(e.value for e in enum))

    for name in ("source", "citation", "part", "implementation", "spec", "sizes", "conversion"):
        if not values[name].strip():
            fail(name, f"`{name}` is empty", "every row cites its source and maps its shape")
    sizes: dict[str, str] = {}
    for item in values["sizes"].split(";"):
        name, equals, size = item.partition("=")
        if not equals or not name.strip() or not size.strip():
            fail("sizes", f"cannot read the size `{item.strip()}`",
                 "sizes are NAME=VALUE separated by `;`, as --set takes them")
        sizes[name.strip()] = size.strip()
    value = cell_number(values["value"])
    time_s = cell_number(values["time_s"])
    if value is None or value <= 0:
        fail("value", f"value `{values['value']}` is not a positive number",
             "the figure as the source prints it")
    if time_s is None or time_s <= 0:
        fail("time_s", f"time_s `{values['time_s']}` is not a positive number of seconds",
             "the published figure converted to seconds")
    unit = choice("unit", Unit)
    expected = _expected_time(unit, value, values["conversion"])
    if expected is None:
        noun, scale = RATE[unit]
        fail("conversion", f"the conversion names no {noun} count to divide by the rate",
             f"write `time_s = N / (value * {scale:.0e}), N = ... = <count> {noun}`")
    if abs(time_s - expected) > CONVERSION_TOLERANCE * expected:
        fail("time_s", f"time_s {time_s:g} s is not the conversion's {expected:g} s",
             "time_s is the published value converted with the row's formula")
    return PublishedRow(path, number, values["source"], values["citation"], values["part"],
                        choice("machine", Machine), choice("family", Family),
                        values["implementation"], values["dtype"], values["spec"], sizes,
                        values["shape"], value, unit, values["conversion"], time_s,
                        choice("timed_kind", Timed), values["inputs"], values["l2_flush"])


def _expected_time(unit: Unit, value: float, conversion: str) -> float | None:
    if unit in SCALE:
        return value * SCALE[unit]
    noun, scale = RATE[unit]
    counts = re.findall(rf"(\d+) {noun}\b", conversion)
    return int(counts[-1]) / (value * scale) if counts else None


def _cell(path: str | Path, line: int, column: int) -> Span:
    """The character of the CSV an error points at."""
    return Span(str(path), line, column, line, column + 1)


def _error(code: ErrorCode, span: Span, text: str, message: str, hint: str) -> MeasurementError:
    return MeasurementError(code, Diagnostic(span, message, hint), text)
