"""A sweep as a rich table or CSV."""

from __future__ import annotations

from collections.abc import Sequence

from ...answers.rates import plural
from ...base.units import plain, si
from .cells import INTENSITY_UNIT, TRAFFIC_UNIT, WORK_UNIT

# --- sweeps ----------------------------------------------------------------------------

def _sweep_columns(result, launch: bool = True) -> list[tuple[str, str, Sequence[object]]]:
    """(header, unit, values per size) for each column of a sweep; `launch`: with the
    columns of the launch overhead (the CSV has them, a table that must fit 80 columns
    leaves them out)."""
    columns = [(result.parameter, "", result.sizes), ("W", WORK_UNIT, result.work)]
    columns += [(f"Q {level}", TRAFFIC_UNIT, values) for level, values in result.traffic.items()]
    columns += [(f"I {level}", INTENSITY_UNIT, values)
                for level, values in result.intensity.items()]
    if result.t_min is not None:
        columns += [("t_min", "s", result.t_min), ("bound", "", result.short_binding),
                    ("of peak", "", result.peak_fraction)]
        columns += [("t_min +launch", "s", result.t_min_with_launch)] if launch else []
    if result.item_rate is not None:
        rate = f"{plural(result.item)}/s"
        columns += [(rate, "", result.item_rate)]
        columns += [(f"{rate} +launch", "", result.item_rate_with_launch)] if launch else []
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
    first_level = next(iter(result.traffic), None)
    columns = [Column(_sweep_header(header, unit),
                      "left" if header == "bound" else "right",
                      optional=header == "of peak" or (header[:2] in ("Q ", "I ")
                                                       and header[2:] != first_level))
               for header, unit, _ in data]
    rows = []
    for row in range(len(result.sizes)):
        if row == gap_after:
            rows.append(["⋮"] * len(data))
        rows.append([_sweep_cell(header, unit, values[row], result.parameter, percent)
                     for header, unit, values in data])
    return fitted_table(f"{result.kernel}: sweep over {result.parameter}{where}", columns, rows,
                        width)


def _sweep_header(header: str, unit: str) -> str:
    """A word a line keeps the columns as narrow as their numbers: `Q\nglobal\nB`."""
    return "\n".join(header.split(" ") + ([unit] if unit and unit != "s" else []))


def _sweep_cell(header: str, unit: str, value, parameter: str, percent) -> str:
    if header != "bound" and header != parameter and value != value:  # NaN: does not fit
        return "-"
    if header == parameter:
        # whole sizes as integers, every digit (a table of sizes is read down a column)
        return str(int(value)) if float(value).is_integer() else f"{value:.4g}"
    if header == "bound":
        return value
    if header == "of peak":
        return percent(float(value)).replace(" ", "")
    if unit == INTENSITY_UNIT:
        return plain(float(value), "").strip()
    if unit == "s":
        return si(float(value), unit)
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
    fields = [label_field(result.binding_index, result.term_names) if name == "bound"
              else figure_field(values) for name, _, values in columns]
    head = ""
    if header:
        head = ",".join(_csv_header(name, unit) for name, unit, _ in columns) + "\n"
    return head.encode() + csv_rows(fields)
