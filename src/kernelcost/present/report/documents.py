"""What an analysis's documents show, in every format: the rows of the closed forms (a
quantity, its form, where it goes as the sizes grow, its value) that `markdown_document` and
`latex_document` lay out, and `repr(analysis)`, the one line of text."""

from __future__ import annotations

import re

import sympy
from sympy.printing.latex import greek_letters_set

from ...analysis.api import Analysis, Intensity
from ...base.units import plain, si
from .cells import INTENSITY_UNIT, TRAFFIC_UNIT, WORK_UNIT, formula


def analysis_summary(analysis: Analysis) -> str:
    """`repr(analysis)`: one line, the closed forms and where intensity goes."""
    parts = [f"W = {formula(analysis.work.expr)}"]
    parts += [f"Q_{level} = {formula(q.expr)}" for level, q in analysis.traffic.items()]
    parts += [f"I_{level} -> {formula(i.limit)}" for level, i in analysis.intensity.items()]
    return f"<Analysis {analysis.kernel}: {', '.join(parts)}>"


def quantity_rows(analysis: Analysis):
    yield "W", analysis.work, WORK_UNIT
    for level, quantity in analysis.traffic.items():
        yield f"Q {level}", quantity, TRAFFIC_UNIT
    for level, intensity in analysis.intensity.items():
        yield f"I {level}", intensity, INTENSITY_UNIT


def grown_form(quantity):
    """What a row shows as the sizes grow: an intensity's limit, another quantity's leading
    term."""
    return quantity.limit if isinstance(quantity, Intensity) else quantity.leading


def value_text(quantity, unit: str) -> str:
    if unit == INTENSITY_UNIT:
        return plain(quantity.value, unit)
    return si(quantity.value, unit)


def warning_texts(analysis: Analysis) -> list[str]:
    """The analysis's warnings as every format shows them."""
    return [f"{warning}; the closed forms assume it" for warning in analysis.warnings]


# a size of several letters is one symbol, set upright-italic as one word (\mathit{TM}), not
# as sympy sets it, a product of one-letter symbols (TM reads T times M); trailing digits
# stay a subscript as sympy writes them, Greek names its letters
_WORD = re.compile(r"([A-Za-z]{2,})([0-9]*)")


def tex(expr) -> str:
    """sympy's LaTeX of a formula, its sizes of several letters each one word."""
    names = {}
    for symbol in getattr(expr, "free_symbols", ()):
        match = _WORD.fullmatch(symbol.name)
        if match and match[1].lower() not in greek_letters_set:
            names[symbol] = rf"\mathit{{{match[1]}}}" + (f"_{{{match[2]}}}" if match[2] else "")
    return sympy.latex(expr, symbol_names=names)
