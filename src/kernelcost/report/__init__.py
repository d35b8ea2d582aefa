"""Stage: results -> text. The printers of every result, none of them doing arithmetic
beyond formatting; no result type imports a printer (notebook display is registered by
kernelcost.display).

    analysis   analyze --json (the stable schema) and its rich tables
    answers    verdicts: the sentence, the verdict table, the JSON rows
    grid       the execution model's figures and clauses
    documents  Markdown and LaTeX (a document's tabular; a notebook's MathJax array), repr
    solve, machines, check, sweeps   the other commands' tables and JSON
    precision  the element types at a precision, the machines `--machine all` left out
"""

from __future__ import annotations

from importlib import import_module

# each printer by the module that holds it: the modules load on first use, so that
# `analyze --json` loads the analysis printers and none of the verdicts', sweeps' or machines'
_HOMES = {
    "analysis": ("analysis_json", "analysis_tables"),
    "answers": ("answer_lines", "answer_sentence", "answers_json", "verdict_table"),
    "check": ("check_tables", "verification_error", "verification_json", "verification_note"),
    "common": ("expression", "json_number", "machine_label"),
    "documents": ("analysis_latex", "analysis_markdown", "analysis_mathjax", "analysis_summary"),
    "machines": ("machine_json", "machine_table", "machines_table"),
    "precision": ("dropped_json", "dropped_line", "mapping_json", "mapping_line"),
    "solve": ("solve_json", "solve_tables"),
    "sweeps": ("sweep_csv", "sweep_csv_bytes", "sweep_table"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}
__all__ = sorted(_HOME_OF)  # noqa: PLE0605 (the names above, each loaded on first use)


def __getattr__(name: str):
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
