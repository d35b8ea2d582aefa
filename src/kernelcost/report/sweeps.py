"""A sweep as a rich table or CSV."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..units import plain, si
from .common import INTENSITY_UNIT, TRAFFIC_UNIT, WORK_UNIT

if TYPE_CHECKING:
    pass


# --- sweeps ----------------------------------------------------------------------------

def _sweep_columns(result) -> list[tuple[str, str, object]]:
    """(header, unit, values per size) for each column of a sweep table."""
    columns = [(result.parameter, "", result.sizes), ("W", WORK_UNIT, result.work)]
    columns += [(f"Q {level}", TRAFFIC_UNIT, values) for level, values in result.traffic.items()]
    columns += [(f"I {level}", INTENSITY_UNIT, values)
                for level, values in result.intensity.items()]
    if result.t_min is not None:
        columns += [("t_min", "s", result.t_min), ("bound", "", result.binding),
                    ("of peak", "", result.peak_fraction)]
    return columns


def sweep_table(result):
    """A rich Table: one row per size; the unit in each header, an SI prefix in each cell."""
    from rich.table import Table

    from ..units import percent

    where = f" on {result.machine} {result.precision}" if result.machine else ""
    table = Table(title=f"{result.kernel}: sweep over {result.parameter}{where}",
                  title_justify="left")
    columns = _sweep_columns(result)
    for header, unit, _ in columns:
        # a word a line keeps the columns as narrow as their numbers
        lines = header.split(" ") + ([unit] if unit and unit != "s" else [])
        table.add_column("\n".join(lines),
                         justify="left" if header == "bound" else "right", no_wrap=True)
    for row in range(len(result.sizes)):
        table.add_row(*[_sweep_cell(header, unit, values[row], result.parameter, percent)
                        for header, unit, values in columns])
    return table


def _sweep_cell(header: str, unit: str, value, parameter: str, percent) -> str:
    if header == parameter:
        # whole sizes as integers, every digit (a table of sizes is read down a column)
        return str(int(value)) if float(value).is_integer() else f"{value:.4g}"
    if header == "bound":
        return value.removesuffix(" bandwidth").removesuffix(" peak")
    if header == "of peak":
        return percent(float(value)).replace(" ", "")
    if unit == INTENSITY_UNIT:
        return plain(float(value), "").strip()
    if unit == "s":
        return si(float(value), unit)
    return si(float(value), "").replace(" ", "")


def sweep_csv(result, header: bool = True) -> str:
    """CSV in SI base units, the unit in each header: N,W_FLOP,Q_global_B,... Built a column
    at a time (repr of each float, as csv would write it): a row loop costs minutes at 10^8
    sizes. header=False gives the rows alone, for the chunks after the first."""
    columns = _sweep_columns(result)
    lines = []
    if header:
        lines.append(",".join(name.replace(" ", "_") + (
            f"_{unit.replace('/', 'per')}" if unit else "") for name, unit, _ in columns))
    texts = [list(values) if isinstance(values, list) else
             _size_texts(values) if name == result.parameter else
             list(map(repr, numpy_floats(values))) for name, _, values in columns]
    lines.extend(map(",".join, zip(*texts)))
    return "\n".join(lines) + "\n" if lines else ""


def _size_texts(sizes) -> list[str]:
    """Sizes as integers where they are whole (128, not 128.0), as repr elsewhere."""
    return [str(int(size)) if size.is_integer() else repr(size)
            for size in numpy_floats(sizes)]


def numpy_floats(values) -> list[float]:
    return values.tolist() if hasattr(values, "tolist") else [float(v) for v in values]
