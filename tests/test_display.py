"""Notebook display (issue 16, item 14): LaTeX that MathJax renders (an array in display math,
no tabular) with the verdicts when given, Markdown with formulas as $...$ math, and a short
repr instead of the whole dataclass."""

from pathlib import Path

import kernelcost
from kernelcost.answers.answer import answers
from kernelcost.present.report import analysis_mathjax

SPECS = Path(__file__).resolve().parent.parent / "specs"
SIZES = {"M": 4096, "N": 4096, "K": 4096}


def test_latex_is_display_math_with_an_array():
    latex = kernelcost.analyze(SPECS / "gemm_tiled.kcost")._repr_latex_()
    assert latex.startswith("$$") and latex.endswith("$$")
    assert r"\begin{array}" in latex and "tabular" not in latex
    assert r"\frac{K T}{2 K + T}" in latex and r"\to \frac{T}{2}" in latex
    assert latex.count(r"\begin{array}") == latex.count(r"\end{array}")


def test_latex_carries_the_verdicts_when_given():
    analysis = kernelcost.analyze(SPECS / "gemm.kcost", SIZES)
    latex = analysis_mathjax(analysis, answers(analysis, ["h100"], None))
    assert r"\text{H100 BF16}" in latex and r"\text{ridge (FLOP/B)}" in latex
    assert r"\text{4.62}" in latex and "tabular" not in latex
    assert analysis.report("h100")._repr_latex_() == latex


def test_markdown_formulas_are_math_not_code():
    markdown = kernelcost.analyze(SPECS / "gemm_tiled.kcost")._repr_markdown_()
    assert r"| $\frac{K T}{2 K + T}$ | $\frac{T}{2}$ |" in markdown
    assert "`2*K*M*N`" not in markdown
    report = kernelcost.analyze(SPECS / "gemm.kcost", SIZES).report("h100")._repr_markdown_()
    assert "| H100 BF16 | global |" in report


def test_repr_is_a_one_line_summary():
    text = repr(kernelcost.analyze(SPECS / "gemm_tiled.kcost"))
    assert text.startswith("<Analysis gemm_tiled: W = 2*K*M*N, Q_global = ")
    assert "I_global -> T/2" in text and text.endswith(">")
    assert "\n" not in text and "Spec(" not in text and len(text) < 200
