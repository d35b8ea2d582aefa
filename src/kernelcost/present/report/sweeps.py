"""A sweep as a rich table or CSV."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum, auto

from ...answers.rates import plural
from ...base.records import record
from ...base.units import plain, si
from .cells import INTENSITY_UNIT, TRAFFIC_UNIT, WORK_UNIT

# --- sweeps ----------------------------------------------------------------------------

class Cell(Enum):
    """How a column's cells read in a table (the CSV writes every figure as it is)."""

    SIZE = auto()  # the swept size: whole sizes as integers, every digit
    FIGURE = auto()  # W, Q, item rates: an SI prefix, `1.02k`
    INTENSITY = auto()  # FLOP/B, its unit in the header
    TIME = auto()  # seconds, with their unit
    ROOF = auto()  # the binding roof's short name (`bf16 tensor`)
    SHARE = auto()  # of peak, a percentage


@record
class SweepColumn:
    header: str
    unit: str
    values: Sequence[object]  # one per size
    cell: Cell
    optional: bool = False  # left out first on a narrow page


def _sweep_columns(result, launch: bool = True) -> list[SweepColumn]:
    """The columns of a sweep; `launch`: with those of the launch overhead (the CSV has
    them, a table that must fit 80 columns leaves them out)."""
    first_level = next(iter(result.traffic), None)
    columns = [SweepColumn(result.parameter, "", result.sizes, Cell.SIZE),
               SweepColumn("W", WORK_UNIT, result.work, Cell.FIGURE)]
    columns += [SweepColumn(f"Q {level}", TRAFFIC_UNIT, values, Cell.FIGURE,
                            level != first_level) for level, values in result.traffic.items()]
    columns += [SweepColumn(f"I {level}", INTENSITY_UNIT, values, Cell.INTENSITY,
                            level != first_level)
                for level, values in result.intensity.items()]
    if result.t_min is not None:
        columns += [SweepColumn("t_min", "s", result.t_min, Cell.TIME),
                    SweepColumn("bound", "", result.short_binding, Cell.ROOF),
                    SweepColumn("of peak", "", result.peak_fraction, Cell.SHARE, True)]
        if launch:
            columns.append(SweepColumn("t_min +launch", "s", result.t_min_with_launch,
                                       Cell.TIME))
    if result.item_rate is not None:
        rate = f"{plural(result.item)}/s"
        columns.append(SweepColumn(rate, "", result.item_rate, Cell.FIGURE))
        if launch:
            columns.append(SweepColumn(f"{rate} +launch", "", result.item_rate_with_launch,
                                       Cell.FIGURE))
    return columns


def _csv_header(name: str, unit: str) -> str:
    """Q_global_B, t_min_with_launch_s, tokens_per_s_with_launch: the unit after an `_`."""
    name = name.replace("/s", " per s").replace(" +launch", " with launch")
    return name.replace(" ", "_") + (f"_{unit.replace('/', 'per')}" if unit else "")


def sweep_table(result, gap_after: int | None = None, width: int | None = None):
    """One row per size, the unit in each header and an SI prefix in each cell, fitted to
    `width` (report.page): the levels after the first and `of peak` are left out first on a
    narrow page. With `gap_after`, a row of dots after that many marks the sizes left out
    there. Returns the table and the headers left out."""
    from ...base.units import percent
    from .page import Column, fitted_table

    where = f" on {result.machine} {result.precision}" if result.machine else ""
    data = _sweep_columns(result, launch=False)
    columns = [Column(_sweep_header(column.header, column.unit),
                      "left" if column.cell is Cell.ROOF else "right", optional=column.optional)
               for column in data]
    rows = []
    for row in range(len(result.sizes)):
        if row == gap_after:
            rows.append(["⋮"] * len(data))
        rows.append([_sweep_cell(column, column.values[row], percent) for column in data])
    return fitted_table(f"{result.kernel}: sweep over {result.parameter}{where}", columns, rows,
                        width)


def _sweep_header(header: str, unit: str) -> str:
    """A word a line keeps the columns as narrow as their numbers: `Q\nglobal\nB`."""
    return "\n".join(header.split(" ") + ([unit] if unit and unit != "s" else []))


def _sweep_cell(column: SweepColumn, value, percent) -> str:
    if column.cell is Cell.ROOF:
        return str(value)
    if column.cell is Cell.SIZE:
        # whole sizes as integers, every digit (a table of sizes is read down a column)
        return str(int(value)) if float(value).is_integer() else f"{value:.4g}"
    if value != value:  # NaN: does not fit
        return "-"
    if column.cell is Cell.SHARE:
        return percent(float(value)).replace(" ", "")
    if column.cell is Cell.INTENSITY:
        return plain(float(value), "").strip()
    if column.cell is Cell.TIME:
        return si(float(value), column.unit)
    return si(float(value), "").replace(" ", "")  # W, Q and item rates: 1.02k


def sweep_csv(result, header: bool = True) -> str:
    """CSV in SI base units, the unit in each header: N,W_FLOP,Q_global_B,... header=False
    gives the rows alone, for the chunks after the first."""
    return sweep_csv_bytes(result, header).decode()


def sweep_csv_bytes(result, header: bool = True) -> bytes:
    """sweep_csv as bytes, each column formatted at once (csvtext): a row loop costs a
    minute at 10^7 sizes. Figures as '%.16g' writes them: sizes and counts as integers."""
    from .csvtext import csv_rows, figure_field, label_field

    columns = _sweep_columns(result)
    fields = [label_field(result.binding_index, result.term_names) if column.cell is Cell.ROOF
              else figure_field(column.values) for column in columns]
    head = ""
    if header:
        head = ",".join(_csv_header(column.header, column.unit) for column in columns) + "\n"
    return head.encode() + csv_rows(fields)


def broken_bound_lines(broken, parameter: str, shown: bool = False) -> list[str]:
    """A warning for each assumed bound swept sizes break (sweep.Broken): the closed forms
    take it to hold, so the counts past it are not those of the loops as written."""
    which = "of the sizes shown" if shown else "of the sizes"
    lines = []
    for found in broken:
        at = (f"{parameter} = {found.least:g}" if found.least == found.largest
              else f"{parameter} = {found.least:g} to {found.largest:g}")
        lines.append(f"warning: `assume {found.text}` does not hold at {found.count:,} {which}, "
                     f"{at}: the closed forms assume it, so the counts there are not the loops'")
    return lines
