"""Notebook display (issue 16, item 14): LaTeX that MathJax renders (an array in display math,
no tabular) with the verdicts when given, Markdown with formulas as $...$ math, and a short
repr instead of the whole dataclass."""

import re
from pathlib import Path

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelcost
from kernelcost.answers.answer import answers
from kernelcost.present.report import analysis_latex, analysis_markdown, analysis_mathjax
from kernelcost.present.report.documents import tex

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


def test_latex_carries_the_verdict_sentences_and_the_warnings():
    analysis = kernelcost.analyze(SPECS / "llm_decode.kcost", {"b": 1, "Theta": "70e9+1"})
    assert analysis.warnings
    found = answers(analysis, ["h100"], None)
    latex = analysis_mathjax(analysis, found)
    assert r"\text{warning: `assume d**2 | Theta` does not hold" in latex
    assert r"\text{memory-bound on H100 BF16: I\_global = 1 FLOP/B" in latex
    assert latex.count(r"\begin{array}") == latex.count(r"\end{array}")
    markdown = analysis_markdown(analysis, found)
    assert "**warning:** `assume d**2 | Theta` does not hold" in markdown
    assert r"\textbf{warning:}" in analysis_latex(analysis, found)


# a size of several letters, Greek names, one letter, letters then digits
NAMES = ("TM", "TN", "Br", "WM", "Theta", "alpha", "K", "b", "i0", "TM2")


@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True),
       st.integers(1, 3), st.booleans())
@settings(max_examples=60, deadline=None)
def test_a_size_of_several_letters_is_one_word_in_latex(names, power, divided):
    symbols = [sympy.Symbol(name, positive=True, integer=True) for name in names]
    expr = sympy.Mul(2, *symbols[1:]) * symbols[0] ** power
    expr = 1 / expr if divided else expr
    written = tex(expr)
    for symbol in symbols:
        word = re.fullmatch(r"([A-Za-z]{2,})([0-9]*)", symbol.name)
        if word and word[1].lower() not in ("theta", "alpha"):
            assert rf"\mathit{{{word[1]}}}" in written
    # the same formula as sympy writes it once the words are unwrapped (digits aside)
    if not any(name[-1].isdigit() for name in names):
        assert re.sub(r"\\mathit\{(\w+)\}", r"\1", written) == sympy.latex(expr)
