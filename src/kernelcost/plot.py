"""Stage: results -> a roofline figure (matplotlib, imported only when a figure is drawn).

The chapter's hierarchical roofline on log-log axes: one horizontal roof per compute ceiling
of the chosen precisions (tensor, vector, and the special-function unit when a kernel uses it),
one slope per memory level (y = I * B_l), a marked ridge point where each slope meets the main
roof (I_crit = P / B_l). Each kernel is a point per level at (I_l, min(P, I_l * B_l)) at its set
sizes and, with a sweep, a path per level as the size grows; where the path meets a ridge the
crossing size from `solve.ridge_crossings` is written beside it.

Two steps: `scene` gathers the numbers (no matplotlib), `draw` turns them into a Figure. Tests
read the numbers back from the figure's Line2D data and annotation texts."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from pathlib import Path

import numpy

from .errors import Diagnostic, KcostError
from .hardware import Machine
from .model import Verdict
from .outputs import check_output, write_via_temporary
from .scene import PATH_MARKS, KernelMarks, Scene, scene, verdict_scene
from .units import plain, si

# Okabe & Ito (2008), the colour-blind-safe palette: one colour per memory level.
LEVEL_COLOURS = {"global": "#0072B2", "l2": "#009E73", "shared": "#E69F00",
                 "registers": "#CC79A7"}
LEVEL_NAMES = {"global": "HBM", "l2": "L2", "shared": "shared", "registers": "registers"}
ROOF_COLOUR = "#222222"
ROOF_STYLES = {"tensor": "-", "vector": "--", "sfu": ":"}
KERNEL_MARKERS = ("o", "s", "^", "D", "v", "P")

# gids: how tests (and anyone) find an artist's role in the figure
GID_ROOF, GID_SLOPE, GID_RIDGE = "roof", "slope", "ridge"
GID_POINT, GID_PATH, GID_CROSSING, GID_NEVER = "point", "path", "crossing", "never"


# --------------------------------------------------------------------------------- drawing

PLOT_EXTRA_HINT = "install the plot extra: pip install 'kernelcost[plot]'"


def require_matplotlib() -> None:
    """Refuse to draw, with how to install the extra, where matplotlib is not installed
    (`pip install kernelcost` leaves it out)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise KcostError(Diagnostic(None, f"figures need matplotlib, which is not installed "
                                          f"({error})", PLOT_EXTRA_HINT)) from None


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
    x_limits, y_limits = _limits(figure_scene)
    axes.set_xlim(*x_limits)
    axes.set_ylim(*y_limits)
    labels = []
    labels += _draw_roofs(axes, figure_scene, x_limits)
    _draw_slopes(axes, figure_scene, x_limits)
    labels += _draw_ridges(axes, figure_scene)
    labels += _draw_kernels(axes, figure_scene)
    _decorate(axes, figure_scene)
    _legend(figure, axes, figure_scene)
    _separate(figure, labels)
    return figure


def _limits(figure_scene: Scene):
    """Whole decades around every point, path, ridge and roof, with room for the labels."""
    intensities = [figure_scene.ridge(s.level) for s in figure_scene.slopes]
    heights = [roof.peak_FLOPps for roof in figure_scene.roofs]
    for kernel in figure_scene.kernels:
        for level, intensity in kernel.points.items():
            intensities.append(intensity)
            heights.append(float(figure_scene.attainable(level, intensity)))
        for level, path in kernel.paths.items():
            finite = path[numpy.isfinite(path) & (path > 0)]
            if finite.size:
                intensities += [finite.min(), finite.max()]
                heights.append(float(figure_scene.attainable(level, finite.min())))
    low_x, high_x = min(intensities), max(intensities)
    low_y, high_y = min(heights), max(heights)
    # whole decades below and left (the slopes run off there); room above and right for labels
    x_limits = (10 ** math.floor(math.log10(low_x) - 0.3), high_x * 6)
    y_limits = (10 ** math.floor(math.log10(low_y) - 0.3), high_y * 2.5)
    return x_limits, y_limits


def _draw_roofs(axes, figure_scene: Scene, x_limits) -> list:
    fastest = max(s.bandwidth_Bps for s in figure_scene.slopes)
    labels = []
    for roof in figure_scene.roofs:
        start = roof.peak_FLOPps / fastest  # where the fastest slope reaches this roof
        axes.plot([start, x_limits[1]], [roof.peak_FLOPps] * 2, color=ROOF_COLOUR,
                  linestyle=ROOF_STYLES[roof.unit], linewidth=1.8, gid=f"{GID_ROOF}:{roof.name}",
                  label="_roof")
        labels.append(_label(axes, f"{roof.name} {si(roof.peak_FLOPps, 'FLOP/s')}",
                             (x_limits[1], roof.peak_FLOPps), (-4, 3), ha="right", va="bottom",
                             color=ROOF_COLOUR, gid=f"{GID_ROOF}:{roof.name}"))
    return labels


def _draw_slopes(axes, figure_scene: Scene, x_limits) -> None:
    top = max(roof.peak_FLOPps for roof in figure_scene.roofs)
    for slope in figure_scene.slopes:
        end = top / slope.bandwidth_Bps  # the slope stops at the highest roof
        start = x_limits[0]
        axes.plot([start, end], [start * slope.bandwidth_Bps, top],
                  color=LEVEL_COLOURS[slope.level], linewidth=1.8,
                  gid=f"{GID_SLOPE}:{slope.level}",
                  label=f"{LEVEL_NAMES[slope.level]} slope, {si(slope.bandwidth_Bps, 'B/s')}")


def _draw_ridges(axes, figure_scene: Scene) -> list:
    labels = []
    peak = figure_scene.peak_FLOPps
    for slope in figure_scene.slopes:
        ridge = figure_scene.ridge(slope.level)
        axes.plot([ridge], [peak], linestyle="none", marker="D", markersize=7,
                  markerfacecolor="white", markeredgecolor=LEVEL_COLOURS[slope.level],
                  markeredgewidth=1.8, zorder=5, gid=f"{GID_RIDGE}:{slope.level}",
                  label="_ridge")
        labels.append(_label(axes, plain(ridge, "FLOP/B"), (ridge, peak), (4, -6), ha="left",
                             va="top", color=LEVEL_COLOURS[slope.level],
                             gid=f"{GID_RIDGE}:{slope.level}"))
    return labels


def _draw_kernels(axes, figure_scene: Scene) -> list:
    labels = []
    for position, kernel in enumerate(figure_scene.kernels):
        marker = KERNEL_MARKERS[position % len(KERNEL_MARKERS)]
        for level, intensity in kernel.paths.items():
            # the path lies on the roofline by construction: a wide translucent band over
            # the slope, with small marks at a few sizes, shows where it runs
            heights = figure_scene.attainable(level, intensity)
            axes.plot(intensity, heights, color=LEVEL_COLOURS[level], linewidth=7, alpha=0.3,
                      solid_capstyle="round",
                      gid=f"{GID_PATH}:{position}:{level}", label="_path")
            marks = numpy.linspace(0, len(intensity) - 1, PATH_MARKS).round().astype(int)
            axes.plot(intensity[marks], heights[marks], linestyle="none", marker=marker,
                      markersize=4, color=LEVEL_COLOURS[level], markeredgecolor="black",
                      markeredgewidth=0.5, zorder=4, gid=f"{GID_PATH}-marks:{position}:{level}",
                      label="_path marks")
        for level, intensity in kernel.points.items():
            axes.plot([intensity], [figure_scene.attainable(level, intensity)], linestyle="none",
                      marker=marker, markersize=9, markerfacecolor=LEVEL_COLOURS[level],
                      markeredgecolor="black", zorder=6, gid=f"{GID_POINT}:{position}:{level}",
                      label="_point")
        labels += _path_ends(axes, figure_scene, kernel, position)
        for mark in kernel.crossings:
            labels.append(_label(axes, mark.label, (mark.ridge, figure_scene.peak_FLOPps),
                                 (-10, 14), ha="right", va="bottom",
                                 color=LEVEL_COLOURS[mark.level], weight="bold",
                                 gid=f"{GID_CROSSING}:{position}:{mark.level}", arrow=True))
        for level, text in kernel.never.items():
            if level != "global":
                continue  # the slowest level tells the story; more notes would crowd it
            path = kernel.paths[level]
            end = (path[-1], float(figure_scene.attainable(level, path[-1])))
            labels.append(_label(axes, text, end, (6, -4), ha="left", va="top",
                                 color=LEVEL_COLOURS[level], gid=f"{GID_NEVER}:{position}:{level}"))
    return labels


def _path_ends(axes, figure_scene: Scene, kernel: KernelMarks, position: int) -> list:
    """The first and last swept sizes written at the ends of the slowest level's path, so the
    direction of growth reads off the figure."""
    if not kernel.paths:
        return []
    level = next(iter(kernel.paths))
    path = kernel.paths[level]
    labels = []
    for index, offset, align in ((0, (-4, 4), "right"), (-1, (4, 4), "left")):
        where = (path[index], float(figure_scene.attainable(level, path[index])))
        text = f"{kernel.parameter}={kernel.sizes[index]:g}"
        labels.append(_label(axes, text, where, offset, ha=align, va="bottom", color="#555555",
                             size=8, gid=f"{GID_PATH}-end:{position}:{level}"))
    return labels


def _label(axes, text: str, xy, offset, *, gid: str, arrow: bool = False, size: float = 9,
           **style):
    """A text placed `offset` points from a data point; `_separate` may move it later."""
    arrowprops = dict(arrowstyle="-", color=style.get("color", "black"), linewidth=0.8,
                      shrinkA=0, shrinkB=4) if arrow else None
    annotation = axes.annotate(text, xy=xy, xytext=offset, textcoords="offset points",
                               fontsize=size, gid=gid, arrowprops=arrowprops,
                               bbox=dict(boxstyle="round,pad=0.15", facecolor="white",
                                         edgecolor="none", alpha=0.85), **style)
    annotation.set_in_layout(False)  # labels stay inside the axes; they do not resize them
    return annotation


def _decorate(axes, figure_scene: Scene) -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator

    axes.set_xlabel("arithmetic intensity I = W / Q (FLOP/B)")
    axes.set_ylabel("attainable performance (FLOP/s)")
    axes.set_title(figure_scene.title, fontsize=11)
    axes.xaxis.set_major_locator(LogLocator(base=10, numticks=20))
    axes.yaxis.set_major_locator(LogLocator(base=10, numticks=20))
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: si(value, "FLOP/s", 3)))
    axes.grid(True, which="major", color="#dddddd", linewidth=0.6)
    axes.set_axisbelow(True)


def _legend(figure, axes, figure_scene: Scene) -> None:
    from matplotlib.lines import Line2D

    handles = [handle for handle in axes.get_lines()
               if not handle.get_label().startswith("_")]
    grey = "#888888"
    for position, kernel in enumerate(figure_scene.kernels):
        # a kernel is told apart by its marker; its path is a band under the marks
        handles.append(Line2D([], [], color=grey, marker=KERNEL_MARKERS[position % 6],
                              markerfacecolor=grey, markeredgecolor="black",
                              linewidth=6 if kernel.paths else 0, alpha=0.8,
                              label=kernel.label + (f": path over {kernel.parameter}"
                                                    if kernel.paths else "")))
    handles.append(Line2D([], [], linestyle="none", marker="D", markerfacecolor="white",
                          markeredgecolor=grey, label="ridge point P / B (FLOP/B)"))
    for roof in figure_scene.roofs:
        handles.append(Line2D([], [], color=ROOF_COLOUR, linestyle=ROOF_STYLES[roof.unit],
                              label=f"{roof.name} roof"))
    figure.legend(handles=handles, loc="outside lower center", ncols=2, fontsize=8,
                  frameon=False)


def _separate(figure, labels: list, step_points: float = 3.0, tries: int = 80) -> None:
    """Move labels down, one step at a time, until none overlaps an earlier one: the ridges of
    nearby levels and the crossings of several kernels otherwise write over each other."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    placed = []
    for label in labels:
        for _ in range(tries):
            box = label.get_window_extent(renderer).expanded(1.04, 1.15)
            if not any(box.overlaps(other) for other in placed):
                break
            dx, dy = label.xyann
            label.xyann = (dx, dy - step_points)
        placed.append(label.get_window_extent(renderer))


# ---------------------------------------------------------------------------------- output

def roofline_figure(kernels, machine: Machine | str, precisions: Sequence[str] = (), **options):
    """`scene` then `draw`: a matplotlib Figure. Options as `scene`."""
    return draw(scene(kernels, machine, precisions, **options))


def save(figure, path: str | Path) -> Path:
    """Write the figure; the format follows the suffix (.svg, .png, .pdf)."""
    path = check_figure_path(path)
    kwargs = {"dpi": 150} if path.suffix.lower() == ".png" else {}
    if path.suffix.lower() in (".svg", ".pdf"):
        kwargs["metadata"] = {"CreationDate": None} if path.suffix.lower() == ".pdf" else {
            "Date": None}  # reproducible files: no timestamp
    kwargs["format"] = path.suffix.lower()[1:]

    def write(temporary: str) -> None:
        with _reproducible():
            figure.savefig(temporary, **kwargs)

    return write_via_temporary(path, write)


def check_figure_path(path: str | Path) -> Path:
    """Refuse an unusable figure name (format, directory, permissions) before drawing."""
    path = Path(path)
    if path.suffix.lower() not in (".svg", ".png", ".pdf"):
        raise KcostError(Diagnostic(None, f"cannot write `{path}`: the figure is .svg, .png "
                                          "or .pdf"))
    return check_output(path)


def _reproducible():
    """SVG element ids from a fixed salt, so that a figure rendered twice is the same file."""
    import matplotlib

    return matplotlib.rc_context({"svg.hashsalt": "kernelcost"})


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
