"""Stage 5: results -> text. JSON (the stable schema), rich tables for the terminal.
No arithmetic happens here beyond formatting."""

from __future__ import annotations

import sympy

from .analysis import Analysis, Quantity
from .units import plain, si

WORK_UNIT, TRAFFIC_UNIT, INTENSITY_UNIT = "FLOP", "B", "FLOP/B"


def expression(expr: sympy.Expr | None) -> str | None:
    """Expressions travel as sympy strings (parseable by sympy, deterministic)."""
    return None if expr is None else sympy.sstr(expr, order="lex")


def _quantity_json(quantity: Quantity) -> dict:
    return {"expr": expression(quantity.expr), "value": quantity.value,
            "leading": expression(quantity.leading)}


def analysis_json(analysis: Analysis) -> dict:
    """The `analyze --json` object (schema in README.md)."""
    cost = analysis.cost
    return {
        "kernel": analysis.kernel,
        "spec": analysis.spec.path,
        "reuse": analysis.reuse,
        "parameters": dict(analysis.parameters),
        "settings": {str(s): expression(e) for s, e in analysis.settings.items()},
        "precision": cost.precision,
        "exact": cost.exact,
        "closed_form": cost.closed_form,
        "work": {
            **_quantity_json(analysis.work),
            "by_class": {cls: _quantity_json(q) for cls, q in analysis.work_by_class.items()},
        },
        "traffic": {level: _quantity_json(q) for level, q in analysis.traffic.items()},
        "intensity": {
            level: {**_quantity_json(i), "limit": expression(i.limit),
                    "limits": {p: expression(v) for p, v in i.limits.items()}}
            for level, i in analysis.intensity.items()
        },
        "footprints": {
            name: {"read_elements": expression(f.read_elements),
                   "write_elements": expression(f.write_elements), "exact": f.exact}
            for name, f in cost.footprints.items()
        },
        "scopes": [
            {"index": s.index, "level": s.level, "tensors": list(s.tensors),
             "entries": expression(s.entries), "held_bytes": expression(s.held_bytes),
             "exact": s.exact}
            for s in cost.scopes
        ],
    }


# --- rich --------------------------------------------------------------------------------


def _formula(expr: sympy.Expr | None) -> str:
    return "-" if expr is None else sympy.sstr(expr, order="lex")


def analysis_tables(analysis: Analysis):
    """Rich renderables for the terminal report."""
    from rich.table import Table
    from rich.text import Text

    header = Text()
    header.append(f"{analysis.kernel}", style="bold")
    header.append(f"  ({analysis.spec.path})  reuse: {analysis.reuse}\n")
    sizes = ", ".join(f"{name} = {_size_text(analysis, name, value)}"
                      for name, value in analysis.parameters.items())
    header.append(f"sizes: {sizes}")
    if not analysis.cost.exact:
        header.append("\nsome footprints are bounding boxes: traffic is an upper bound",
                      style="yellow")

    table = Table(title="Work, traffic, intensity", title_justify="left", expand=False)
    table.add_column("quantity")
    table.add_column("closed form", overflow="fold")
    table.add_column("as sizes grow", overflow="fold")
    table.add_column("value", justify="right")
    table.add_row("W (work)", _formula(analysis.work.expr), _formula(analysis.work.leading),
                  si(analysis.work.value, WORK_UNIT))
    if len(analysis.work_by_class) > 1:
        for cls, quantity in analysis.work_by_class.items():
            table.add_row(f"  W {cls}", _formula(quantity.expr), _formula(quantity.leading),
                          si(quantity.value, WORK_UNIT))
    for level, quantity in analysis.traffic.items():
        table.add_row(f"Q {level}", _formula(quantity.expr), _formula(quantity.leading),
                      si(quantity.value, TRAFFIC_UNIT))
    for level, intensity in analysis.intensity.items():
        table.add_row(f"I {level}", _formula(intensity.expr), f"→ {_formula(intensity.limit)}",
                      plain(intensity.value, INTENSITY_UNIT))
    return [header, table]


def _size_text(analysis: Analysis, name: str, value) -> str:
    symbol = analysis.spec.parameters[name]
    if symbol in analysis.settings and analysis.settings[symbol].free_symbols:
        return _formula(analysis.settings[symbol])
    if value is None:
        return "symbolic"
    return f"{value:g}"


# --- sweeps (issue 5) --------------------------------------------------------------------

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

    from .units import percent

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
        return f"{int(value)}" if value < 1e9 and float(value).is_integer() else (
            f"{value:.4g}".replace("e+", "e"))
    if header == "bound":
        return value.removesuffix(" bandwidth").removesuffix(" peak")
    if header == "of peak":
        return percent(float(value)).replace(" ", "")
    if unit == INTENSITY_UNIT:
        return plain(float(value), "").strip()
    if unit == "s":
        return si(float(value), unit)
    return si(float(value), "").replace(" ", "")


def sweep_csv(result) -> str:
    """CSV in SI base units, the unit in each header: N,W_FLOP,Q_global_B,..."""
    import csv
    import io

    columns = _sweep_columns(result)
    headers = [header.replace(" ", "_") + (f"_{unit.replace('/', 'per')}" if unit else "")
               for header, unit, _ in columns]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(headers)
    for row in range(len(result.sizes)):
        writer.writerow([values[row] if isinstance(values[row], str) else repr(float(values[row]))
                         for _, _, values in columns])
    return buffer.getvalue()
