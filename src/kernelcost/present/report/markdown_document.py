"""An analysis as Markdown: the closed forms as a table of `$...$` math, the verdicts as a
second table and the terminal's sentences as a list."""

from __future__ import annotations

from ...analysis.api import Analysis
from ...base.units import plain, si
from .cells import machine_label, value_of, value_or_formula
from .check_report import verification_note
from .documents import grown_form, quantity_rows, tex, value_text, warning_texts
from .verdict_report import answer_lines


def analysis_markdown(analysis: Analysis, answers=()) -> str:
    lines = [f"# {analysis.kernel}", "", f"Spec `{analysis.spec.path}`, reuse {analysis.reuse}.",
             *([] if analysis.verified is None
               else ["", verification_note(analysis.verified) + "."]),
             *(f"\n**warning:** {text}" for text in warning_texts(analysis)),
             "", "| quantity | closed form | as sizes grow | value |", "|---|---|---|---|"]
    for name, quantity, unit in quantity_rows(analysis):
        lines.append(f"| {name} | {_math(quantity.expr)} | {_math(grown_form(quantity))} "
                     f"| {value_text(quantity, unit)} |")
    if answers:
        lines += ["", "| machine | level | I (FLOP/B) | ridge (FLOP/B) | I / ridge | t_min |",
                  "|---|---|---|---|---|---|"]
        for answer in answers:
            for level in answer.verdict.levels:
                lines.append(
                    f"| {machine_label(answer.verdict.machine, answer.verdict.precision)} "
                    f"| {level.level} | {value_or_formula(level.intensity, '')} "
                    f"| {plain(value_of(level.ridge), '').strip()} "
                    f"| {value_or_formula(level.ratio, '')} "
                    f"| {si(value_of(answer.verdict.t_min), 's')} |")
        lines += [""] + [f"- {line.strip()}" for line in answer_lines(answers)]
    return "\n".join(lines) + "\n"


def _math(expr) -> str:
    """A formula as Markdown math, `$...$` (a `|` would end a table cell)."""
    if expr is None:
        return "-"
    return "$" + tex(expr).replace("|", r"\vert ") + "$"
