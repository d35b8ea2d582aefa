"""`validate`: predictions against measured runs, as the terminal shows them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...base.units import si
from ..roofs import roof_name
from .ledger_report import ledger_dict, ledger_text
from .page import Column, fitted_table

if TYPE_CHECKING:
    from ...answers.validate import Comparison, Note


VALIDATE_COLUMNS = [Column("line", "right"), Column("kernel"),
                    Column("t_floor", "right", optional=True), Column("t_bound", "right"),
                    Column("t_model", "right"), Column("measured", "right"),
                    Column("roof\n%", "right"), Column("error\n%", "right"), Column(""),
                    Column("sizes", optional=True)]


def validation_page(machine: str, comparisons: list[Comparison], width: int | None):
    """The comparisons as a fitted table (report.page), then the lines under it."""
    rows = [[str(c.row.line), c.row.kernel, _time(c.t_floor), _time(c.t_bound),
             _time(c.t_model), si(c.row.time_s, "s"), _percent(c.roof_fraction),
             _percent(c.model_error, signed=True), "FALSIFIED" if c.falsified else "ok",
             " ".join(f"{k}={v}" for k, v in c.row.sizes.items())] for c in comparisons]
    table = fitted_table(f"Predictions against measurements on {machine}", VALIDATE_COLUMNS,
                         rows, width)
    lines = [("roof: t_bound / measured (the fraction of the roof attained); error: "
              "(t_model - measured) / measured")]
    for c in comparisons:
        for k in c.counters:
            unit = "FLOP" if k.name == "flop" else "B"
            model = f", t_model {si(k.model, unit)}" if k.model is not None else ""
            ratio = f" ({k.ratio:.3g}x)" if k.ratio is not None else ""
            lines.append(f"line {c.row.line} {c.row.kernel} {k.name}: predicted "
                         f"{si(k.predicted, unit)}{model}, measured {si(k.measured, unit)}"
                         f"{ratio}")
        lines += [f"line {c.row.line} {c.row.kernel}: note: {note}" for note in notes_text(c)]
        steps = None if c.ledger is None else ledger_text(c.ledger)
        if steps is not None:
            lines.append(f"line {c.row.line} {c.row.kernel}:{steps.removeprefix(' ')}")
    bad = [c for c in comparisons if c.falsified]
    for c in bad:
        lines.append(f"line {c.row.line} {c.row.kernel}: FALSIFIED: measured "
                     f"{si(c.row.time_s, 's')} is below t_bound {si(c.t_bound, 's')} "
                     f"(bound by {None if c.bound is None else roof_name(c.bound)}): the spec or a "
                     f"figure of {machine} is wrong"
                     if c.t_bound is not None else
                     f"line {c.row.line} {c.row.kernel}: FALSIFIED: the spec says it "
                     "cannot run on this machine, yet it was measured")
    lines.append(f"{len(comparisons)} rows, {len(bad)} falsified")
    return table, lines


def validation_json(machine: str, comparisons: list[Comparison]) -> dict:
    """`validate --json`: a row per comparison, and how many were falsified."""
    return {
        "machine": machine,
        "rows": [{
            "line": c.row.line, "kernel": c.row.kernel, "spec": c.row.spec,
            "sizes": c.row.sizes, "dtype": c.row.dtype, "measured_s": c.row.time_s,
            "t_floor": c.t_floor, "t_bound": c.t_bound, "t_model": c.t_model,
            "bound": None if c.bound is None else roof_name(c.bound),
            "roof_fraction": c.roof_fraction, "model_error": c.model_error,
            "falsified": c.falsified,
            "counters": {k.name: {"predicted": k.predicted, "model": k.model,
                                  "measured": k.measured, "ratio": k.ratio}
                         for k in c.counters},
            "notes": notes_text(c),
            "ledger": None if c.ledger is None else ledger_dict(c.ledger),
        } for c in comparisons],
        "falsified": sum(c.falsified for c in comparisons),
    }


def notes_text(comparison: Comparison) -> list[str]:
    """The sizes' warnings, then the verdict's notes, in words."""
    return [*comparison.warnings, *map(note_text, comparison.notes)]


def note_text(note: Note) -> str:
    from ...answers.validate import NoFit, NotRun

    if isinstance(note, NotRun):
        return "the machine does not run the spec: it needs " + ", ".join(map(str, note.needed))
    if isinstance(note, NoFit):
        return "the spec does not fit the machine: " + "; ".join(
            f"{m.level} needs {float(m.needed):g} {m.unit} of {float(m.capacity):g} per {m.per}"
            for m in note.misfits)
    return f"measured in {note.measured}, the spec counts {note.counted}"


def _time(seconds: float | None) -> str:
    return "-" if seconds is None else si(seconds, "s")


def _percent(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value * 100:+.1f}" if signed else f"{value * 100:.1f}"
