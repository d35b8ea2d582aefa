"""Stage: results -> a roofline figure (matplotlib, imported only when a figure is drawn).

The chapter's hierarchical roofline on log-log axes: one horizontal roof per compute ceiling
of the precisions drawn (tensor, vector, and the special-function unit when a kernel uses it),
one grey slope per memory level (y = I * B_l), a marked ridge point where each slope meets a
precision's main roof (I_crit = P / B_l). Each kernel has one colour and a direct label; its
levels differ by marker. A kernel is a point per level at (I_l, min(P, I_l * B_l)) under the
roofs of its own precision and, with a sweep, a path per level as the size grows, dotted past
the size where its tiles stop fitting; where the path meets a ridge the crossing size from
`solve.ridge_crossings` is written beside it. A measured run, and the model lowered by its
derates, are points under the roof. At set sizes each level's point is at the kernel's rate
W / t_min, and each class doing a share of the work (the SFU's exponentials, the vector
units' sums) has its ceiling in the kernel's FLOP drawn beside it in the kernel's colour: the
points lie under every line and on the one that binds.

Two steps: `scene` computes every coordinate (no matplotlib), `draw` places them and then
the labels (`placement`), off the lines and off each other. Tests read the numbers back
from the figure's Line2D data and annotation texts, found by their gids."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import numpy

from ..answers.model import Verdict
from ..base.errors import Code, Diagnostic, InputOutputError
from ..base.outputs import check_output, write_via_temporary
from ..base.units import si
from ..hardware.machine import Machine
from .placement import place
from .plot_labels import kernel_labels, legend, line_labels
from .plot_style import (
    ACHIEVED_MARKERS,
    CAPACITY_MARKER,
    GID_CAPACITY,
    GID_CEILING,
    GID_MISFIT,
    GID_PATH,
    GID_POINT,
    GID_RIDGE,
    GID_ROOF,
    GID_SLOPE,
    LEVEL_MARKERS,
    ROOF_COLOUR,
    ROOF_STYLES,
    SLOPE_GREYS,
    ceiling_spans,
    kernel_colour,
)
from .scene import KernelMarks, Scene, scene, verdict_scene

# --------------------------------------------------------------------------------- drawing

PLOT_EXTRA_HINT = "install the plot extra: pip install 'kernelcost[plot]'"


def require_matplotlib() -> None:
    """Refuse to draw, with how to install the extra, where matplotlib is not installed
    (`pip install kernelcost` leaves it out)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise InputOutputError(Code.NO_MATPLOTLIB, Diagnostic(
            None, f"figures need matplotlib, which is not installed ({error})",
            PLOT_EXTRA_HINT)) from None


def draw(figure_scene: Scene):
    """A matplotlib Figure of the scene."""
    require_matplotlib()
    # a Figure on its own Agg canvas, without pyplot: no GUI backend, no global state
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(9, 7.5), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(*figure_scene.x_limits)
    axes.set_ylim(*figure_scene.y_limits)
    _draw_roofs(axes, figure_scene)
    _draw_slopes(axes, figure_scene)
    _draw_ridges(axes, figure_scene)
    for position, kernel in enumerate(figure_scene.kernels):
        _draw_kernel(axes, kernel, position)
    _decorate(axes, figure_scene)
    legend(figure, figure_scene)
    labels = [label for position, kernel in enumerate(figure_scene.kernels)
              for label in kernel_labels(axes, kernel, position)]
    labels += line_labels(axes, figure_scene)
    figure.crowded_labels = place(figure, axes, labels)  # type: ignore[attr-defined]  # a note
    return figure


def _draw_roofs(axes, figure_scene: Scene) -> None:
    for roof in figure_scene.roofs:
        axes.plot([roof.start, figure_scene.x_limits[1]], [roof.peak_FLOPps] * 2,
                  color=ROOF_COLOUR, linestyle=ROOF_STYLES[roof.unit], linewidth=1.6,
                  gid=f"{GID_ROOF}:{roof.name}")


def _draw_slopes(axes, figure_scene: Scene) -> None:
    top = max(roof.peak_FLOPps for roof in figure_scene.roofs)
    start = figure_scene.x_limits[0]
    for slope in figure_scene.slopes:
        axes.plot([start, slope.end], [start * slope.bandwidth_Bps, top],
                  color=SLOPE_GREYS[slope.level], linewidth=1.6,
                  gid=f"{GID_SLOPE}:{slope.level}")


def _draw_ridges(axes, figure_scene: Scene) -> None:
    for ridge in figure_scene.ridges:
        axes.plot([ridge.intensity], [ridge.peak_FLOPps], linestyle="none", marker="D",
                  markersize=6, markerfacecolor="white",
                  markeredgecolor=SLOPE_GREYS[ridge.level], markeredgewidth=1.6, zorder=5,
                  gid=f"{GID_RIDGE}:{ridge.level}:{ridge.precision}")


def _draw_kernel(axes, kernel: KernelMarks, position: int) -> None:
    colour = kernel_colour(position)
    for level, path in kernel.paths.items():
        fits = numpy.where(path.fits, path.performance, numpy.nan)
        # the path lies on the roofline by construction: a wide translucent band over the
        # slope shows where it runs, with a few sizes marked
        axes.plot(path.intensity, fits, color=colour, linewidth=6, alpha=0.35,
                  solid_capstyle="round", gid=f"{GID_PATH}:{position}:{level}")
        if not path.fits.all():
            # past the capacity limit the kernel cannot run as written: a dotted trace
            misfit = numpy.where(path.fits, numpy.nan, path.performance)
            axes.plot(path.intensity, misfit, color=colour, linewidth=1.4, linestyle=":",
                      gid=f"{GID_MISFIT}:{position}:{level}")
        axes.plot(path.intensity[path.marks], path.performance[path.marks], linestyle="none",
                  marker=LEVEL_MARKERS[level], markersize=4, color=colour,
                  markeredgecolor="black", markeredgewidth=0.5, zorder=4,
                  gid=f"{GID_PATH}-marks:{position}:{level}")
    for ceiling, (low, high) in ceiling_spans(kernel):
        axes.plot([low, high], [ceiling.performance] * 2, color=colour, linewidth=1.2,
                  linestyle=ROOF_STYLES[ceiling.unit],
                  gid=f"{GID_CEILING}:{position}:{ceiling.name}")
    for level, point in kernel.points.items():
        axes.plot([point.intensity], [point.performance], linestyle="none",
                  marker=LEVEL_MARKERS[level], markersize=10 if level == kernel.binding else 8,
                  markerfacecolor=colour, markeredgecolor="black",
                  markeredgewidth=1.6 if level == kernel.binding else 0.8, zorder=6,
                  gid=f"{GID_POINT}:{position}:{level}")
    for achieved in kernel.achieved:
        roof = kernel.points[achieved.level].performance
        axes.plot([achieved.intensity] * 2, [roof, achieved.performance], color=colour,
                  linewidth=1, linestyle=":", gid=f"{achieved.kind}-drop:{position}")
        axes.plot([achieved.intensity], [achieved.performance], linestyle="none",
                  marker=ACHIEVED_MARKERS[achieved.kind], markersize=11,
                  markerfacecolor=colour, markeredgecolor="black", markeredgewidth=0.8,
                  zorder=6, gid=f"{achieved.kind}:{position}")
    for note in kernel.capacity:
        axes.plot([note.intensity], [note.performance], linestyle="none",
                  marker=CAPACITY_MARKER, markersize=9, markerfacecolor=colour,
                  markeredgecolor="black", markeredgewidth=0.8, zorder=6,
                  gid=f"{GID_CAPACITY}:{position}")


def _decorate(axes, figure_scene: Scene) -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator

    axes.set_xlabel("arithmetic intensity I = W / Q (FLOP/B)")
    axes.set_ylabel("attainable performance (FLOP/s)")
    axes.set_title(figure_scene.title, fontsize=11)
    axes.xaxis.set_major_locator(LogLocator(base=10, numticks=20))
    axes.yaxis.set_major_locator(LogLocator(base=10, numticks=20))
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: si(value, "FLOP/s", 3)))
    axes.grid(True, which="major", color="#e6e6e6", linewidth=0.6)
    axes.set_axisbelow(True)


# ---------------------------------------------------------------------------------- output

def roofline_figure(kernels, machine: Machine | str, precisions: Sequence[str] = (), **options):
    """`scene` then `draw`: a matplotlib Figure. Options as `scene`."""
    return draw(scene(kernels, machine, precisions, **options))


def save(figure, path: str | Path) -> Path:
    """Write the figure; the format follows the suffix (.svg, .png, .pdf)."""
    path = check_figure_path(path)
    kwargs: dict[str, object] = {"dpi": 150} if path.suffix.lower() == ".png" else {}
    if path.suffix.lower() in (".svg", ".pdf"):
        kwargs["metadata"] = {"CreationDate": None} if path.suffix.lower() == ".pdf" else {
            "Date": None}  # reproducible files: no timestamp
    kwargs["format"] = path.suffix.lower()[1:]

    def write(file) -> None:  # the new file, open for writing
        with _reproducible():
            figure.savefig(file, **kwargs)

    return write_via_temporary(path, write)


def check_figure_path(path: str | Path) -> Path:
    """Refuse an unusable figure name (format, directory, permissions) before drawing."""
    path = Path(path)
    if path.suffix.lower() not in (".svg", ".png", ".pdf"):
        raise InputOutputError(Code.FIGURE_FORMAT, Diagnostic(
            None, f"cannot write `{path}`: the figure is .svg, .png or .pdf"))
    return check_output(path)


def _reproducible():
    """SVG element ids from a fixed salt, so that a figure rendered twice is the same file."""
    import matplotlib

    # svg.fonttype none: text stays text (searchable, copyable), not glyph outlines
    return matplotlib.rc_context({"svg.hashsalt": "kernelcost", "svg.fonttype": "none"})


def svg_text(figure) -> str:
    """The figure as SVG text, for notebooks (`_repr_svg_`)."""
    buffer = io.StringIO()
    with _reproducible():
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def verdict_svg(result: Verdict) -> str:
    return svg_text(draw(verdict_scene(result)))


class Roofline:
    """A figure that displays itself in a notebook: `analysis.roofline("h100")`."""

    def __init__(self, figure):
        self.figure = figure

    @classmethod
    def of(cls, kernels, machine, precisions=(), **options) -> Roofline:
        require_matplotlib()  # before the scene, with how to install it
        return cls(roofline_figure(kernels, machine, precisions, **options))

    def _repr_svg_(self) -> str:
        return svg_text(self.figure)

    def save(self, path: str | Path) -> Path:
        return save(self.figure, path)
