"""An analysis as LaTeX: a document's `tabular`, and the notebook's display math (MathJax
reads an `array`, not a `tabular`)."""

from __future__ import annotations

from ...analysis.api import Analysis, Intensity
from ...base.units import plain, si
from .cells import machine_label, value_of, value_or_formula
from .documents import grown_form, quantity_rows, tex, value_text, warning_texts
from .verdict_report import answer_lines


def analysis_latex(analysis: Analysis, answers=()) -> str:
    lines = [r"\begin{tabular}{llll}", r"\hline",
             r"quantity & closed form & as sizes grow & value \\", r"\hline"]
    for name, quantity, unit in quantity_rows(analysis):
        grown = grown_form(quantity)
        lines.append(f"{_latex_text(name)} & ${tex(quantity.expr)}$ & "
                     f"${tex(grown) if grown is not None else '-'}$ & "
                     f"{_latex_text(value_text(quantity, unit))} \\\\")
    lines += [r"\hline", r"\end{tabular}"]
    lines += [rf"\par\textbf{{warning:}} {_latex_text(text)}" for text in warning_texts(analysis)]
    if answers:
        lines += ["", r"\begin{itemize}"]
        lines += [rf"\item {_latex_text(line.strip())}" for line in answer_lines(answers)]
        lines.append(r"\end{itemize}")
    return "\n".join(lines) + "\n"


def analysis_mathjax(analysis: Analysis, answers=()) -> str:
    """The notebook's LaTeX: display math MathJax renders (an `array`, not a `tabular`), the
    verdicts as a second array when answers are given, the warnings and the verdicts'
    sentences as lines of text under them."""
    rows = [r"\text{quantity} & \text{closed form} & \text{as sizes grow} & \text{value}"]
    for name, quantity, unit in quantity_rows(analysis):
        grown = grown_form(quantity)
        rows.append(f"{_math_text(name)} & {tex(quantity.expr)} & "
                    f"{_grown_latex(quantity, grown)} & "
                    f"{_math_text(value_text(quantity, unit))}")
    parts = [_array("llll", rows)]
    if answers:
        verdicts = [r"\text{machine} & \text{level} & I\ (\text{FLOP/B}) & "
                    r"\text{ridge (FLOP/B)} & I / \text{ridge} & t_{\min}"]
        for answer in answers:
            for level in answer.verdict.levels:
                verdicts.append(" & ".join(_math_text(text) for text in (
                    machine_label(answer.verdict.machine, answer.verdict.precision),
                    level.level, value_or_formula(level.intensity, ""),
                    plain(value_of(level.ridge), "").strip(),
                    value_or_formula(level.ratio, ""),
                    si(value_of(answer.verdict.t_min), "s"))))
        parts.append(_array("llllll", verdicts))
    notes = [f"warning: {text}" for text in warning_texts(analysis)]
    notes += [line.strip() for line in answer_lines(answers)] if answers else []
    if notes:
        parts.append("\\\\\n".join(_math_text(note) for note in notes))
    if len(parts) == 1:
        return f"$$\n{parts[0]}\n$$"
    # one display, the two arrays stacked in an outer one (MathJax has no `\\\\` outside an
    # environment)
    return "$$\n\\begin{array}{l}\n" + "\n\\\\[2ex]\n".join(parts) + "\n\\end{array}\n$$"


def _array(columns: str, rows: list[str]) -> str:
    return (f"\\begin{{array}}{{{columns}}}\n" + " \\\\ \\hline\n".join(rows[:1])
            + " \\\\ \\hline\n" + " \\\\\n".join(rows[1:]) + "\n\\end{array}")


def _math_text(text: str) -> str:
    """Words inside math: \\text{...}, with the characters MathJax's text mode reads."""
    for char, escaped in (("\\", ""), ("{", ""), ("}", ""), ("_", "\\_"), ("%", "\\%"),
                          ("&", "\\&"), ("#", "\\#"), ("$", "")):
        text = text.replace(char, escaped)
    return f"\\text{{{text}}}"


def _grown_latex(quantity, grown) -> str:
    """An intensity's limit (→ T/2), another quantity's leading term (∼ 2 K M N)."""
    if grown is None:
        return "-"
    return (r"\to " if isinstance(quantity, Intensity) else r"\sim ") + tex(grown)


def _latex_text(text: str) -> str:
    for char, escaped in (("\\", r"\textbackslash{}"), ("%", r"\%"), ("_", r"\_"),
                          ("&", r"\&"), ("#", r"\#"), ("µ", r"$\mu$"), ("→", r"$\to$"),
                          ("×", r"$\times$"), ("∞", r"$\infty$")):
        text = text.replace(char, escaped)
    return text
