"""Notebook display, registered on the result types from here, as sympy's init_printing
registers its formatters: an Analysis shows its formulas (Markdown, LaTeX) and draws its
roofline, a Verdict draws itself. The result types import no printer; the printers (report,
plot) load only when something is displayed or drawn. `import kernelcost` registers them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..algebra.sympy_scope import patched
from ..analysis.api import Analysis
from ..base.drawable import Drawable
from ..base.errors import KcostError

if TYPE_CHECKING:
    from ..answers.model import Verdict


@patched()
def _markdown(analysis: Analysis) -> str:
    from .report import analysis_markdown

    return analysis_markdown(analysis)


@patched()
def _latex(analysis: Analysis) -> str:
    """Display math MathJax renders (an array; a tabular is text mode, which it cannot)."""
    from .report import analysis_mathjax

    return analysis_mathjax(analysis)


@patched()
def _summary(analysis: Analysis) -> str:
    """A one-line repr: the closed forms, not every field of the dataclass."""
    from .report import analysis_summary

    return analysis_summary(analysis)


@patched()
def _roofline(analysis: Analysis, machine="h100", precisions=(), **options):
    """The roofline figure at these sizes (options as plot.scene: size_range, ...); it
    displays itself in a notebook and has .save(path)."""
    from .plot import Roofline

    return Roofline.of(analysis, machine, precisions, **options)


class Report:
    """An analysis with its verdicts on machines: `analysis.report("h100")` shows the formulas
    and the verdict table (Markdown or MathJax) in a notebook."""

    def __init__(self, analysis: Analysis, answers: list):
        self.analysis, self.answers = analysis, answers

    @patched()
    def _repr_markdown_(self) -> str:
        from .report import analysis_markdown

        return analysis_markdown(self.analysis, self.answers)

    @patched()
    def _repr_latex_(self) -> str:
        from .report import analysis_mathjax

        return analysis_mathjax(self.analysis, self.answers)


@patched()
def _report(analysis: Analysis, machines="h100", precisions=None) -> Report:
    """The analysis and its verdicts on one machine id (or several, a list)."""
    from ..answers.answer import answers

    machines = [machines] if isinstance(machines, str) else list(machines)
    precisions = [precisions] if isinstance(precisions, str) else precisions
    return Report(analysis, answers(analysis, machines, precisions))


@patched()
def _verdict_svg(verdict: Verdict) -> str | None:
    """The figure, or None (the notebook shows the text form) without matplotlib."""
    from .plot import require_matplotlib, verdict_svg

    try:
        require_matplotlib()
    except KcostError:
        return None
    return verdict_svg(verdict)


def register() -> None:
    """Attach the display methods (idempotent)."""
    Analysis._repr_markdown_ = _markdown
    Analysis._repr_latex_ = _latex
    Analysis.__repr__ = _summary  # type: ignore[assignment]  # an Analysis reads its own fields
    Analysis.roofline = _roofline
    Analysis.report = _report
    Drawable._repr_svg_ = _verdict_svg  # model.Verdict, the one drawable result
