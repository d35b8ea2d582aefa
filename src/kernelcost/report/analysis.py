"""An analysis as JSON (the stable schema) and as rich tables."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..analysis import Analysis, Quantity
from ..jsonout import number
from ..units import plain, si
from .check import verification_json, verification_note
from .common import (
    INTENSITY_UNIT,
    TRAFFIC_UNIT,
    WORK_UNIT,
    expression,
    formula,
    limit_text,
    size_number,
)

if TYPE_CHECKING:
    pass


def _quantity_json(quantity: Quantity, values=None) -> dict:
    value = quantity.value
    if value is not None and not math.isfinite(value) and values is not None:
        value = number(quantity.expr.subs(values))  # exact text where a double overflows
    return {"expr": expression(quantity.expr), "value": value,
            "leading": expression(quantity.leading)}


def analysis_json(analysis: Analysis) -> dict:
    """The `analyze --json` object (schema in README.md)."""
    cost = analysis.cost
    values = analysis.values
    parameters = {name: value if value is None or math.isfinite(value) else
                  number(values[analysis.spec.parameters[name]])
                  for name, value in analysis.parameters.items()}
    return {
        "kernel": analysis.kernel,
        "spec": analysis.spec.path,
        "reuse": analysis.reuse,
        "parameters": parameters,
        "settings": {str(s): expression(e) for s, e in analysis.settings.items()},
        "precision": cost.precision,
        "exact": cost.exact,
        "closed_form": cost.closed_form,
        "warnings": list(analysis.warnings),
        "verified": verification_json(analysis.verified),
        "work": {
            **_quantity_json(analysis.work, values),
            "by_class": {cls: _quantity_json(q, values)
                         for cls, q in analysis.work_by_class.items()},
        },
        "traffic": {level: _quantity_json(q, values) for level, q in analysis.traffic.items()},
        "intensity": {
            level: {**_quantity_json(i, values), "limit": expression(i.limit),
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
    for warning in analysis.warnings:
        header.append(f"\nwarning: {warning}; the closed forms assume it", style="yellow")
    if analysis.verified is not None:
        header.append(f"\n{verification_note(analysis.verified)}",
                      style="green" if analysis.verified.skipped is None else "yellow")

    table = Table(title="Work, traffic, intensity", title_justify="left", expand=False)
    table.add_column("quantity")
    table.add_column("closed form", overflow="fold")
    table.add_column("as sizes grow", overflow="fold")
    table.add_column("value", justify="right")
    table.add_row("W (work)", formula(analysis.work.expr), formula(analysis.work.leading),
                  si(analysis.work.value, WORK_UNIT))
    if len(analysis.work_by_class) > 1:
        for cls, quantity in analysis.work_by_class.items():
            table.add_row(f"  W {cls}", formula(quantity.expr), formula(quantity.leading),
                          si(quantity.value, WORK_UNIT))
    for level, quantity in analysis.traffic.items():
        table.add_row(f"Q {level}", formula(quantity.expr), formula(quantity.leading),
                      si(quantity.value, TRAFFIC_UNIT))
    for level, intensity in analysis.intensity.items():
        table.add_row(f"I {level}", formula(intensity.expr), f"→ {limit_text(intensity.limit, None)}",
                      plain(intensity.value, INTENSITY_UNIT))
    return [header, table]


def _size_text(analysis: Analysis, name: str, value) -> str:
    symbol = analysis.spec.parameters[name]
    if symbol in analysis.settings and analysis.settings[symbol].free_symbols:
        return formula(analysis.settings[symbol])
    if value is None:
        return "symbolic"
    return size_number(value)
