"""Stage: results -> text. The printers of every result, none of them doing arithmetic
beyond formatting; no result type imports a printer (notebook display is registered by
kernelcost.present.display).

    spec_report     analyze --json (the stable schema) and its rich tables
    verdict_report  verdicts: the sentence, the verdict table, the JSON rows
    grid            the execution model's figures and clauses
    documents       what the documents show (the closed forms' rows), and repr
    markdown_document, latex_document   Markdown; LaTeX (a document's tabular, a notebook's
                    MathJax array)
    solve_report, machine_tables, check_report, sweeps   the other commands' tables and JSON
    cells           a cell's number, expression or machine label
    precision  the element types at a precision, the machines `--machine all` left out
"""

from __future__ import annotations

from importlib import import_module

# each printer by the module that holds it: the modules load on first use, so that
# `analyze --json` loads the analysis printers and none of the verdicts', sweeps' or machines'
_HOMES = {
    "spec_report": ("analysis_json", "analysis_tables"),
    "verdict_report": ("answer_lines", "answer_sentence", "answers_json", "verdict_table"),
    "check_report": ("check_tables", "verification_error", "verification_json",
                     "verification_note"),
    "cells": ("expression", "json_number", "machine_label"),
    "documents": ("analysis_summary",),
    "markdown_document": ("analysis_markdown",),
    "latex_document": ("analysis_latex", "analysis_mathjax"),
    "machine_tables": ("generation_lines", "machine_json", "machine_table", "machines_table"),
    "precision": ("dropped_json", "dropped_line", "mapping_json", "mapping_line"),
    "solve_report": ("solve_json", "solve_tables"),
    "sweeps": ("broken_bound_lines", "sweep_csv", "sweep_csv_bytes", "sweep_table"),
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
