"""`kernelcost validate RESULTS.csv --machine h200`: predictions against measured runs.

The CSV is what validate/run_h200.py writes, one measured run a row:

    kernel, spec, sizes, dtype, time_s, dram_bytes, l2_bytes, flop

- `spec`: the .kcost file, absolute or relative to the working directory or to a folder
  above the CSV (the harness writes `specs/copy.kcost`, relative to the repository);
- `sizes`: `NAME=VALUE;NAME=VALUE` (values as `--set` takes them); a schedule setting the
  spec writes as a number may be named as `tune` opens it (`SPLIT_K=4` for the run of a
  spec that writes `split_k k0 = 1`: lang.schedule), where the run's records show it;
- `time_s`: the measured time of one run, in seconds (a positive number);
- `dram_bytes`, `l2_bytes`, `flop`: counters (Nsight Compute), empty when not measured.
Lines that start with `#` are comments (the harness records the GPU there); blank lines
are skipped; other columns are ignored.

Per row: t_bound (a lower bound no run may beat) and t_model (the estimate) on the
machine, the fraction of the roof attained (t_bound / measured) and the error of t_model
((t_model - measured) / measured); where counters exist, the predicted bytes per level and
FLOP against the measured ones. A row measured faster than t_bound falsifies the bound:
the spec or a machine figure is wrong. Such rows are flagged, and the command exits 1."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from ..base.csvcells import cell_column, cell_number, line_fields
from ..base.errors import (
    Code,
    Diagnostic,
    ErrorCode,
    KcostError,
    MeasurementError,
    did_you_mean,
)
from ..base.kinds import Precision, TermKind
from ..base.levels import Level
from ..base.records import record
from ..base.tree import Span
from ..hardware.machine import Roof

if TYPE_CHECKING:
    from ..base.architectures import Architecture, Feature
    from ..gpu.occupancy import Misfit
    from .ledger import Ledger

COLUMNS = ("kernel", "spec", "sizes", "dtype", "time_s", "dram_bytes", "l2_bytes", "flop")
# counter -> the prediction it is compared with
COUNTERS = {"dram_bytes": Level.GLOBAL, "l2_bytes": Level.L2, "flop": TermKind.WORK}
MAX_BYTES = 10_000_000  # a results file is a few kB; refuse anything absurd before reading
# what a measurement can be: a run of a picosecond to 11 days, a counter up to 1e30 (bytes or
# FLOP: as machine figures are bounded); past them the ratios the report prints overflow
MIN_TIME_S, MAX_TIME_S, MAX_COUNTER = 1e-12, 1e6, 1e30
PRECISIONS = tuple(precision.value for precision in Precision)
# measured below t_bound by more than rounding: t_bound is exact, the time a float
FALSIFIED_BELOW = 1 - 1e-9


@record
class Row:
    """One measured run, as read from the CSV."""

    line: int
    kernel: str
    spec: str
    sizes: dict[str, str]
    dtype: str
    time_s: float
    counters: dict[str, float]  # only the counters that were measured
    columns: dict[str, int] = field(default_factory=dict)  # column name -> where it starts


@record
class Counter:
    name: str  # dram_bytes, l2_bytes, flop
    predicted: float | None  # the spec's figure (compulsory bytes for DRAM), None if none
    model: float | None  # t_model's figure where it differs (the wave estimate of DRAM)
    measured: float

    @property
    def ratio(self) -> float | None:
        """measured / predicted."""
        return self.measured / self.predicted if self.predicted else None


@record
class NotRun:
    """The machine does not run the spec: what the spec needs that it lacks."""

    needed: tuple[Architecture | Feature | Level, ...]


@record
class NoFit:
    """The spec does not fit the machine: no time."""

    misfits: tuple[Misfit, ...]


@record
class OtherPrecision:
    """The row was measured in one element type, the spec counts another precision."""

    measured: str  # the row's dtype
    counted: Precision  # the spec's


Note = NotRun | NoFit | OtherPrecision


@record
class Comparison:
    row: Row
    t_bound: float | None  # None: the spec does not fit the machine (no time)
    t_model: float | None
    bound: Roof | None  # the roof that sets t_bound
    counters: tuple[Counter, ...]
    warnings: tuple[str, ...]  # the sizes' (assumptions they break, sizes not proved positive)
    notes: tuple[Note, ...]  # then the verdict's, as data
    t_floor: float | None = None  # what no implementation of the computation beats
    ledger: Ledger | None = None  # t_bound to t_model, step by step

    @property
    def roof_fraction(self) -> float | None:
        return None if self.t_bound is None else self.t_bound / self.row.time_s

    @property
    def model_error(self) -> float | None:
        if self.t_model is None:
            return None
        return (self.t_model - self.row.time_s) / self.row.time_s

    @property
    def falsified(self) -> bool:
        """The run beat the bound, or ran although the spec says it cannot fit."""
        return self.t_bound is None or self.row.time_s < self.t_bound * FALSIFIED_BELOW


# -- reading --------------------------------------------------------------------------------

def read_results(path: str | Path) -> list[Row]:
    """The rows of a results CSV; a KcostError at file:line:column with a hint on bad input."""
    return _read(Path(path))[1]


def _read(path: Path) -> tuple[str, list[Row]]:
    """The CSV's text (for excerpts) and its rows. Read as every input is (inputs.read_text):
    a regular file of at most MAX_BYTES, UTF-8, a byte that is not placed at its line and
    column."""
    from ..base.inputs import read_text

    text = read_text(str(path), MAX_BYTES, "results CSV")
    lines = text.split("\n")
    records = [(number, line) for number, line in enumerate(lines, 1)
               if line.strip() and not line.lstrip().startswith("#")]
    if not records:
        raise MeasurementError(Code.RESULTS_EMPTY, Diagnostic(
            None, f"`{path}` has no header and no rows",
            "the first line names the columns: " + ",".join(COLUMNS)))
    header_line, header_text = records[0]
    header = [name.strip() for name in line_fields(header_text)]
    twice = next((name for index, name in enumerate(header) if name in header[:index]), None)
    if twice is not None:  # a row's dict would keep the second column's value
        raise _error(Code.RESULTS_BAD_HEADER, _cell(path, header_line, 1), text,
                     f"the header names `{twice}` twice", "the columns are " + ",".join(COLUMNS))
    missing = [name for name in COLUMNS if name not in header]
    if missing:
        raise _error(Code.RESULTS_BAD_HEADER, _cell(path, header_line, 1), text,
                     f"the header lacks {', '.join(missing)}",
                     "the columns are " + ",".join(COLUMNS))
    rows = [_row(path, text, number, line, header) for number, line in records[1:]]
    if not rows:
        raise _error(Code.RESULTS_EMPTY, _cell(path, header_line, 1), text,
                     "the header is followed by no rows",
                     "run validate/run_h200.py on a GPU machine to measure some")
    return text, rows


def _row(path, text, number, line, header) -> Row:
    fields = line_fields(line)
    if len(fields) != len(header):
        raise _error(Code.RESULTS_BAD_ROW, _cell(path, number, 1), text,
                     f"{len(fields)} fields where the header has {len(header)}",
                     "one value per column, empty for a counter not measured; quote a value "
                     "that holds a comma")
    values = {name: value.strip() for name, value in zip(header, fields)}
    columns = {name: cell_column(line, fields, index) for index, name in enumerate(header)}

    def fail(column: str, message: str, hint: str) -> NoReturn:
        at = _cell(path, number, cell_column(line, fields, header.index(column)))
        raise _error(Code.RESULTS_BAD_ROW, at, text, message, hint)

    for name in ("kernel", "spec", "sizes"):
        if not values[name]:
            fail(name, f"`{name}` is empty", "every row names its kernel, spec and sizes")
    sizes = {}
    field_text = fields[header.index("sizes")]
    offset = columns["sizes"] + (line[columns["sizes"] - 1:].find(field_text) if
                                 field_text in line[columns["sizes"] - 1:] else 0)
    for item in field_text.split(";"):
        name, equals, value = item.partition("=")
        if not equals or not name.strip() or not value.strip():
            raise _error(Code.RESULTS_BAD_ROW, _cell(path, number, offset), text,
                         f"cannot read the size `{item.strip()}`",
                         "sizes are NAME=VALUE separated by `;`, e.g. M=4096;N=4096")
        if name.strip() in sizes:
            raise _error(Code.RESULTS_BAD_ROW, _cell(path, number, offset), text,
                         f"the size `{name.strip()}` is given twice",
                         "give each size once: M=4096;N=4096")
        sizes[name.strip()] = value.strip()
        columns[f"size {name.strip()}"] = offset + len(name) + 1 + len(value) - len(value.lstrip())
        offset += len(item) + 1
    if values["dtype"] and values["dtype"] not in PRECISIONS:  # it was noted as it came
        fail("dtype", f"dtype `{values['dtype']}` is no precision",
             did_you_mean(values["dtype"], PRECISIONS)
             or "one of " + ", ".join(PRECISIONS) + ", or empty")
    time_s = cell_number(values["time_s"])
    if time_s is None or not MIN_TIME_S <= time_s <= MAX_TIME_S:
        fail("time_s", f"time_s `{values['time_s']}` is not a positive number of seconds "
                       f"(from {MIN_TIME_S:g} to {MAX_TIME_S:g})",
             "the measured time of one run, in seconds: 4.47e-4")
    counters: dict[str, float] = {}
    for name in COUNTERS:
        if values[name] == "":
            continue
        count = cell_number(values[name])
        if count is None or not 0 <= count <= MAX_COUNTER:
            fail(name, f"{name} `{values[name]}` is not a number from 0 to {MAX_COUNTER:g}",
                 "a counter is a count (bytes or FLOP), or empty when not measured")
        counters[name] = count
    return Row(number, values["kernel"], values["spec"], sizes, values["dtype"], time_s,
               counters, columns)


def _cell(path: str | Path, line: int, column: int) -> Span:
    """The character of the CSV an error points at."""
    return Span(str(path), line, column, line, column + 1)


def _error(code: ErrorCode, span: Span, text: str, message: str, hint: str) -> MeasurementError:
    return MeasurementError(code, Diagnostic(span, message, hint), text)


# -- comparing ------------------------------------------------------------------------------

def compare(path: str | Path, machine: str) -> list[Comparison]:
    """Read the CSV and compare each row with the spec's predictions on `machine`."""
    from ..hardware.machinefile import load_machine

    path = Path(path)
    text, rows = _read(path)
    loaded = load_machine(machine)
    specs: dict[Path, object] = {}
    return [_compare(path, text, row, loaded, specs) for row in rows]


def _compare(path: Path, text: str, row: Row, machine, specs) -> Comparison:
    """One row against its spec. The counts and the verdict only, not `analyze`'s limits and
    leading terms: those cost most of its time, and a results file has dozens of rows."""
    from ..base.watchdog import stage
    from .ledger import ledger
    from .model import verdict as model_verdict

    cost, settings, values, warnings = _row_cost(path, text, row, specs)
    unset = [str(p) for p in cost.parameters if p not in values]
    if unset:
        raise _error(Code.RESULTS_BAD_SPEC, _cell(path, row.line, 1), text,
                     f"{row.kernel}: the sizes leave {', '.join(unset)} unset",
                     "give every size of the spec without a default in the sizes column")
    stage(f"predicting line {row.line} ({row.kernel}) on {machine.id}")
    verdict = model_verdict(cost, machine, cost.precision, settings, apply_defaults=True)
    t_bound = _float(verdict.t_bound)
    t_model = _float(verdict.t_model)
    counters = tuple(_counter(name, row.counters[name], cost, values, verdict)
                     for name in COUNTERS if name in row.counters)
    return Comparison(row, t_bound, t_model,
                      verdict.bound_at_max_clock if t_bound is not None else None,
                      counters, warnings, _notes(row, cost, verdict, t_bound),
                      _float(verdict.t_floor), ledger(verdict))


def _row_cost(path: Path, text: str, row: Row, specs: dict):
    """The row's spec (loaded once, in `specs`) at its sizes: its cost, settings, numeric
    values and the warnings about them; a spec's error placed at the row that asked."""
    from ..analysis.api import _numeric_values, broken_assumptions, load
    from ..lang.settings import resolve_settings, setting_warnings
    from ..lang.sizes import size_warnings
    from .answer import refuse_verdict_sizes

    spec_path = _find_spec(path, row.spec)
    line = text.split("\n")[row.line - 1]
    if spec_path is None:
        raise _error(Code.RESULTS_BAD_SPEC, _cell(path, row.line, line.find(row.spec) + 1), text,
                     f"spec `{row.spec}` not found",
                     "a .kcost path, relative to here or to a folder above the CSV")
    try:
        if spec_path not in specs:
            specs[spec_path] = load(spec_path)
        spec = _scheduled(specs, spec_path, row.sizes)
        settings = resolve_settings(dict(row.sizes), spec.parameters)
        values = _numeric_values(spec, settings)
        refuse_verdict_sizes(spec, values, row.sizes)
        warnings = (*broken_assumptions(spec.checked, values), *setting_warnings(settings),
                    *size_warnings(spec.checked, values))
        return spec.cost(), settings, values, warnings
    except KcostError as error:  # the spec's own message, placed at the row that asked
        raise _at_row(path, text, row, error) from None


def _at_row(path: Path, text: str, row: Row, error: KcostError) -> MeasurementError:
    """A spec's error at the row's sizes: on a size's value where it is about one, at the
    column within it."""
    detail = error.diagnostics[0]
    column, where = row.columns.get("sizes", 1), ""
    if detail.span is not None and detail.span.file.startswith("--set "):
        start = row.columns.get(f"size {detail.span.file[6:]}")
        if start is not None:
            column = start + detail.span.column - 1
    elif detail.span is not None and detail.span.file == "--set":  # the name, in the sizes
        name = detail.message.split("`")[1] if detail.message.count("`") >= 2 else ""
        start = row.columns.get(f"size {name}")
        column = column if start is None else max(start - len(name) - 1, column)
    elif detail.span is not None:
        where = f" ({detail.span})"
    return _error(Code.RESULTS_BAD_SPEC, _cell(path, row.line, column), text,
                  f"{row.kernel}: {detail.message}{where}",
                  detail.hint or f"see `kernelcost analyze {row.spec}`")


def _notes(row: Row, cost, verdict, t_bound: float | None) -> tuple[Note, ...]:
    """What a reader of the row's comparison should know: the machine does not run it, its
    block does not fit, or the spec computes at another precision than the row's."""
    notes: list[Note] = []
    if verdict.unsupported:
        notes.append(NotRun(tuple(item.needed for item in verdict.unsupported)))
    elif t_bound is None:
        notes.append(NoFit(tuple(verdict.misfits)))
    if row.dtype and row.dtype != cost.precision:
        notes.append(OtherPrecision(row.dtype, cost.precision))
    return tuple(notes)


def _scheduled(specs: dict, spec_path: Path, sizes: dict[str, str]):
    """The spec with the schedule settings its sizes name opened as parameters, as `tune`
    opens them (lang.schedule): a row that ran a split the spec does not write says
    `SPLIT_K=4`. The spec itself where the sizes name none (or the spec has the name)."""
    from ..lang.schedule import Schedule

    spec = specs[spec_path]
    opened = tuple(setting for setting in Schedule
                   if setting.parameter in sizes and setting.parameter not in spec.parameters)
    if not opened:
        return spec
    if (spec_path, opened) not in specs:
        specs[spec_path, opened] = spec.with_schedule(opened)
    return specs[spec_path, opened]


def _counter(name: str, measured: float, cost, values, verdict) -> Counter:
    what = COUNTERS[name]
    if what == TermKind.WORK:
        return Counter(name, _float(cost.total_work.subs(values)), None, measured)
    predicted = _float(cost.traffic[what].subs(values)) if what in cost.traffic else 0.0
    model = None
    if what == Level.GLOBAL and verdict.grid is not None:
        terms = [t for t in verdict.grid.model_terms if t.key == Level.GLOBAL]
        model = _float(terms[0].amount) if terms else None
    return Counter(name, predicted, model, measured)


def _find_spec(csv_path: Path, spec: str) -> Path | None:
    candidate = Path(spec)
    if candidate.is_absolute():
        return candidate if candidate.is_file() else None
    if candidate.is_file():
        return candidate
    for folder in csv_path.resolve().parents:
        if (folder / candidate).is_file():
            return folder / candidate
    return None


def _float(value) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except TypeError:  # symbolic: a size left unset
        return None


# -- the command ----------------------------------------------------------------------------

def run(args, show) -> int:
    """Exit 1 when a run beat its t_bound (a falsified bound); bad input raises (exit 2).
    `show(machine, comparisons)` prints them, as text or JSON (report.validation: the
    printers live above this floor)."""
    comparisons = compare(args.results, args.machine)
    show(args.machine, comparisons)
    return 1 if any(c.falsified for c in comparisons) else 0
