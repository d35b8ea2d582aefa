"""Notebook display, registered on the result types from here, as sympy's init_printing
registers its formatters: an Analysis shows its formulas (Markdown, LaTeX) and draws its
roofline, a Verdict draws itself. The result types import no printer; the printers (report,
plot) load only when something is displayed or drawn. `import kernelcost` registers them."""

from __future__ import annotations

from .analysis import Analysis
from .errors import KcostError
from .model import Verdict


def _markdown(analysis: Analysis) -> str:
    from .report import analysis_markdown

    return analysis_markdown(analysis)


def _latex(analysis: Analysis) -> str:
    from .report import analysis_latex

    return analysis_latex(analysis)


def _roofline(analysis: Analysis, machine="h100", precisions=(), **options):
    """The roofline figure at these sizes (options as plot.scene: size_range, ...); it
    displays itself in a notebook and has .save(path)."""
    from .plot import Roofline

    return Roofline.of(analysis, machine, precisions, **options)


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
    Analysis.roofline = _roofline
    Verdict._repr_svg_ = _verdict_svg
