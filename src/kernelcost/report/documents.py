"""Markdown and LaTeX documents of an analysis: the same content as the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy

from ..analysis import Analysis, Intensity
from ..units import plain, si
from .answers import answer_lines
from .check import verification_markdown
from .common import (
    INTENSITY_UNIT,
    TRAFFIC_UNIT,
    WORK_UNIT,
    formula,
    machine_label,
    value_of,
    value_or_formula,
)

if TYPE_CHECKING:
    pass


# --- markdown and LaTeX: the same content --------------------------------------------------


def analysis_markdown(analysis: Analysis, answers=()) -> str:
    lines = [f"# {analysis.kernel}", "", f"Spec `{analysis.spec.path}`, reuse {analysis.reuse}.",
             *verification_markdown(analysis.verified),
             "", "| quantity | closed form | as sizes grow | value |", "|---|---|---|---|"]
    for name, quantity, unit in _rows(analysis):
        lines.append(f"| {name} | `{formula(quantity.expr)}` | `{formula(_grown(quantity))}` "
                     f"| {_value_text(quantity, unit)} |")
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


def analysis_latex(analysis: Analysis, answers=()) -> str:
    lines = [r"\begin{tabular}{llll}", r"\hline",
             r"quantity & closed form & as sizes grow & value \\", r"\hline"]
    for name, quantity, unit in _rows(analysis):
        grown = _grown(quantity)
        lines.append(f"{_latex_text(name)} & ${sympy.latex(quantity.expr)}$ & "
                     f"${sympy.latex(grown) if grown is not None else '-'}$ & "
                     f"{_latex_text(_value_text(quantity, unit))} \\\\")
    lines += [r"\hline", r"\end{tabular}"]
    if answers:
        lines += ["", r"\begin{itemize}"]
        lines += [rf"\item {_latex_text(line.strip())}" for line in answer_lines(answers)]
        lines.append(r"\end{itemize}")
    return "\n".join(lines) + "\n"


def _rows(analysis: Analysis):
    yield "W", analysis.work, WORK_UNIT
    for level, quantity in analysis.traffic.items():
        yield f"Q {level}", quantity, TRAFFIC_UNIT
    for level, intensity in analysis.intensity.items():
        yield f"I {level}", intensity, INTENSITY_UNIT


def _grown(quantity):
    """What a row shows as the sizes grow: an intensity's limit, another quantity's leading
    term."""
    return quantity.limit if isinstance(quantity, Intensity) else quantity.leading


def _value_text(quantity, unit: str) -> str:
    if unit == INTENSITY_UNIT:
        return plain(quantity.value, unit)
    return si(quantity.value, unit)


def _latex_text(text: str) -> str:
    for char, escaped in (("\\", r"\textbackslash{}"), ("%", r"\%"), ("_", r"\_"),
                          ("&", r"\&"), ("#", r"\#"), ("µ", r"$\mu$"), ("→", r"$\to$"),
                          ("×", r"$\times$"), ("∞", r"$\infty$")):
        text = text.replace(char, escaped)
    return text
