"""An analysis as JSON (the stable schema) and as rich tables."""

from __future__ import annotations

import math

import sympy

from ...algebra.jsonout import number
from ...analysis.api import Analysis, Quantity
from ...base.units import plain, si
from .cells import (
    INTENSITY_UNIT,
    TRAFFIC_UNIT,
    WORK_UNIT,
    expression,
    formula,
    limit_text,
    size_number,
)
from .check_report import verification_json, verification_note
from .page import Column, fitted_table, wrap, wrap_lines
from .precision import mapping_json


def _quantity_json(quantity: Quantity, values=None) -> dict:
    value: float | str | None = quantity.value
    if quantity.value is not None and not math.isfinite(quantity.value) and values is not None:
        value = number(quantity.expr.subs(values))  # exact text where a double overflows
    return {"expr": expression(quantity.expr), "value": value,
            "leading": expression(quantity.leading)}


def _finite_form(expr) -> str | None:
    """A limit's form as sympy writes it; null where it is infinite (the `_infinite` fields
    say so) or unknown."""
    return None if expr is None or expr == sympy.oo else expression(expr)


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
        "element_types": mapping_json(analysis.spec.mapping),
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
            level: {**_quantity_json(i, values), "limit": _finite_form(i.limit),
                    "limit_infinite": i.limit == sympy.oo,
                    "limits": {p: _finite_form(v) for p, v in i.limits.items()},
                    "limits_infinite": [p for p, v in i.limits.items() if v == sympy.oo],
                    "limit_at_sizes": _finite_form(i.at_sizes),
                    "growing_at_sizes": list(i.growing_at_sizes)}
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


def analysis_tables(analysis: Analysis, width: int | None = None):
    """Rich renderables for the terminal report, fitted to `width` columns (None: every
    column): a narrow page gets the closed forms as lines under the table of values."""
    from rich.text import Text

    header = Text()
    header.append(f"{analysis.kernel}", style="bold")
    header.append(f"  ({analysis.spec.path})  reuse: {analysis.reuse}")
    mapping = analysis.spec.mapping
    if mapping is not None:  # --precision: the types, and so the bytes, are not the spec's
        header.append(f"  precision: {mapping.format.precision} (element types mapped from "
                      f"{mapping.own})")
    header.append("\n")
    sizes = ", ".join(f"{name} = {_size_text(analysis, name, value)}"
                      for name, value in analysis.parameters.items())
    header.append(wrap(f"sizes: {sizes}", width))
    if not analysis.cost.exact:
        header.append("\n" + wrap("some footprints are bounding boxes: traffic is an upper "
                                   "bound, and so may be the compulsory bytes t_floor charges",
                                   width), style="yellow")
    for warning in analysis.warnings:
        header.append(f"\nwarning: {warning}; the closed forms assume it", style="yellow")
    if analysis.verified is not None:
        header.append(f"\n{verification_note(analysis.verified)}",
                      style="green" if analysis.verified.skipped is None else "yellow")

    rows = [[name, closed, grown, value] for name, closed, grown, value in _quantity_rows(analysis)]
    table, left_out = fitted_table("Work, traffic, intensity", QUANTITY_COLUMNS, rows, width)
    if not left_out:
        return [header, table]
    # a narrow page: the values in the table, every formula as a line under it
    table, _ = fitted_table("Work, traffic, intensity", QUANTITY_COLUMNS, rows, 0)
    return [header, table, Text(wrap_lines([_formula_line(row) for row in rows], width))]


QUANTITY_COLUMNS = [Column("quantity"), Column("value", "right"),
                    Column("closed form", optional=True), Column("as sizes grow", optional=True)]


def _quantity_rows(analysis: Analysis):
    """(label, value with its unit, closed form, where it goes as the sizes grow) per row."""
    yield ("W (work)", si(analysis.work.value, WORK_UNIT), formula(analysis.work.expr),
           formula(analysis.work.leading))
    if len(analysis.work_by_class) > 1:
        for cls, quantity in analysis.work_by_class.items():
            yield (f"  W {cls}", si(quantity.value, WORK_UNIT), formula(quantity.expr),
                   formula(quantity.leading))
    for level, quantity in analysis.traffic.items():
        yield (f"Q {level}", si(quantity.value, TRAFFIC_UNIT), formula(quantity.expr),
               formula(quantity.leading))
    for level, intensity in analysis.intensity.items():
        yield (f"I {level}", plain(intensity.value, INTENSITY_UNIT), formula(intensity.expr),
               _grown_intensity(intensity))


def _grown_intensity(intensity) -> str:
    """Where I goes as the sizes grow: as the sizes left unset grow, where some are set (at
    b = 1, `→ 1 FLOP/B as Theta grows`, where all growing gives `→ infinity`)."""
    if intensity.at_sizes is None:
        return f"→ {limit_text(intensity.limit, None)}"
    names = intensity.growing_at_sizes
    return (f"→ {limit_text(intensity.at_sizes)} as {', '.join(names)} "
            f"grow{'s' if len(names) == 1 else ''}")


def _formula_line(row: list[str]) -> str:
    """`Q global = 2*M*N*(2*K + T)/T   as sizes grow 4*K*M*N/T`."""
    name, _, closed, grown = row
    if grown == closed:
        return f"{name.strip()} = {closed}"
    return f"{name.strip()} = {closed}   as sizes grow {grown}"


def _size_text(analysis: Analysis, name: str, value) -> str:
    symbol = analysis.spec.parameters[name]
    if symbol in analysis.settings and analysis.settings[symbol].free_symbols:
        return formula(analysis.settings[symbol])
    if value is None:
        return "symbolic"
    # the exact size where it is a whole number: its double past 2^53 showed 10^29 - 1 as
    # 99999999999999991433150857216
    exact = analysis.settings.get(symbol, analysis.spec.checked.defaults.get(symbol))
    if exact is not None and (isinstance(exact, int) or getattr(exact, "is_Integer", False)):
        return size_number(int(exact))
    return size_number(value)
