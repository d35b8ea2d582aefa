"""Stage: results -> text. The printers of every result, none of them doing arithmetic
beyond formatting; no result type imports a printer (notebook display is registered by
kernelcost.display).

    analysis   analyze --json (the stable schema) and its rich tables
    answers    verdicts: the sentence, the verdict table, the JSON rows
    grid       the execution model's figures and clauses
    documents  Markdown and LaTeX (a document's tabular; a notebook's MathJax array), repr
    solve, machines, check, sweeps   the other commands' tables and JSON
"""

from .analysis import analysis_json, analysis_tables
from .answers import answer_lines, answer_sentence, answers_json, verdict_table
from .check import check_tables, verification_error, verification_json, verification_note
from .common import expression, json_number, machine_label
from .documents import analysis_latex, analysis_markdown, analysis_mathjax, analysis_summary
from .machines import machine_json, machine_table, machines_table
from .solve import solve_json, solve_tables
from .sweeps import sweep_csv, sweep_csv_bytes, sweep_table

__all__ = [
    "analysis_json", "analysis_latex", "analysis_markdown", "analysis_mathjax",
    "analysis_summary", "analysis_tables", "answer_lines",
    "answer_sentence", "answers_json", "check_tables", "expression", "json_number",
    "machine_json", "machine_label", "machine_table", "machines_table",
    "solve_json", "solve_tables", "sweep_csv", "sweep_csv_bytes", "sweep_table", "verdict_table",
    "verification_error", "verification_json", "verification_note",
]
