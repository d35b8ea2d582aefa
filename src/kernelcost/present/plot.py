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
from ..base.kinds import Unit
from ..base.levels import Level
from ..base.outputs import check_output, write_via_temporary
from ..base.units import si
from ..hardware.machine import Machine
from .kernel_rates import Ceiling
from .placement import Label, place, ring_offsets
from .scene import LEVEL_NAMES, KernelMarks, Scene, scene, verdict_scene

# Okabe & Ito (2008), the colour-blind-safe palette (yellow left out: unreadable on white),
# one colour per kernel
KERNEL_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
LEVEL_MARKERS: dict[str, str] = {Level.GLOBAL: "o", Level.L2: "s", Level.SHARED: "^",
                                 Level.REGISTERS: "v"}
SLOPE_GREYS: dict[str, str] = {Level.GLOBAL: "#333333", Level.L2: "#777777",
                               Level.SHARED: "#aaaaaa",
               Level.REGISTERS: "#cccccc"}
ROOF_COLOUR = "#222222"
ROOF_STYLES = {Unit.TENSOR: "-", Unit.VECTOR: "--", Unit.SFU: ":"}
ACHIEVED_MARKERS = {"measured": "*", "model": "P"}
CAPACITY_MARKER = "X"

# gids: how tests (and anyone) find an artist's role in the figure
GID_ROOF, GID_SLOPE, GID_RIDGE, GID_KERNEL = "roof", "slope", "ridge", "kernel"
GID_POINT, GID_PATH, GID_CROSSING, GID_NEVER = "point", "path", "crossing", "never"
GID_CAPACITY, GID_MISFIT, GID_CEILING = "capacity", "path-misfit", "ceiling"
CEILING_REACH = 6  # a kernel's ceiling runs this factor either side of its points

ALONG_LINE = 24  # candidate anchors along a roof or a slope for its label
LEGEND_COLUMN_CHARACTERS = 70  # the longest legend entry two columns of a 9-inch figure hold
ABOVE_OR_BELOW = ((-3, 3), (-3, -3), (3, 3), (3, -3))  # points: beside a line, not on it


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


def kernel_colour(position: int) -> str:
    return KERNEL_COLOURS[position % len(KERNEL_COLOURS)]


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
    _legend(figure, figure_scene)
    labels = [label for position, kernel in enumerate(figure_scene.kernels)
              for label in _kernel_labels(axes, kernel, position)]
    labels += _line_labels(axes, figure_scene)
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
    for ceiling, (low, high) in _ceiling_spans(kernel):
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


def _kernel_labels(axes, kernel: KernelMarks, position: int) -> list[Label]:
    """The kernel's direct label at its binding point (or its first point, or the middle of
    its path), then what it reached, where it crosses, stops fitting and ends."""
    colour = kernel_colour(position)
    near = ring_offsets()
    labels = [Label(_text(axes, _kernel_text(kernel), _kernel_anchor(kernel), colour=colour,
                          weight="bold", gid=f"{GID_KERNEL}:{position}", leader=True),
                    [_kernel_anchor(kernel)], near)]
    for achieved in kernel.achieved:
        anchor = (achieved.intensity, achieved.performance)
        labels.append(Label(_text(axes, achieved.label, anchor, colour=colour, leader=True,
                                  gid=f"{achieved.kind}:{position}"), [anchor], near))
    for ceiling, (low, high) in _ceiling_spans(kernel):
        anchors = [(x, ceiling.performance) for x in numpy.geomspace(low, high, ALONG_LINE)]
        text = f"{ceiling.name}, this kernel's mix: {si(ceiling.performance, 'FLOP/s')}"
        # along its line, else off it with a leader (a ceiling may run close to a roof)
        labels.append(Label(_text(axes, text, anchors[0], colour=colour, size=8, leader=True,
                                  gid=f"{GID_CEILING}:{position}:{ceiling.name}"),
                            anchors, ABOVE_OR_BELOW + tuple(ring_offsets()),
                            offset_first=True))
    for gid, notes, leader in ((GID_CROSSING, kernel.crossings, True),
                               (GID_CAPACITY, kernel.capacity, True),
                               (GID_NEVER, kernel.never, False),
                               (f"{GID_PATH}-end", kernel.ends, False)):
        for note in notes:
            anchor = (note.intensity, note.performance)
            labels.append(Label(_text(axes, note.label, anchor, colour=colour, leader=leader,
                                      gid=f"{gid}:{position}:{note.level}",
                                      size=8 if gid.endswith("end") else 9),
                                [anchor], near))
    return labels


def _ceiling_spans(kernel: KernelMarks) -> list[tuple[Ceiling, tuple[float, float]]]:
    """Each ceiling of the kernel with the intensities it is drawn over: around its points."""
    if not kernel.points:
        return []
    intensities = [point.intensity for point in kernel.points.values()]
    span = (min(intensities) / CEILING_REACH, max(intensities) * CEILING_REACH)
    return [(ceiling, span) for ceiling in kernel.ceilings]


def _kernel_text(kernel: KernelMarks) -> str:
    if not kernel.runs:
        return f"{kernel.name}: not run on this machine"
    if kernel.binding is not None:
        return f"{kernel.name}: {LEVEL_NAMES[kernel.binding]} binds"
    if kernel.bound_by is not None:
        return f"{kernel.name}: {kernel.bound_by} binds"
    return kernel.name


def _kernel_anchor(kernel: KernelMarks) -> tuple[float, float]:
    if kernel.points:
        point = kernel.points[kernel.binding or next(iter(kernel.points))]
        return point.intensity, point.performance
    path = next(iter(kernel.paths.values()))
    middle = path.marks[len(path.marks) // 2]
    return float(path.intensity[middle]), float(path.performance[middle])


def _line_labels(axes, figure_scene: Scene) -> list[Label]:
    """Ridges beside their markers; slopes and roofs somewhere along their length."""
    labels = []
    for ridge in figure_scene.ridges:
        anchor = (ridge.intensity, ridge.peak_FLOPps)
        labels.append(Label(_text(axes, ridge.label, anchor, colour=SLOPE_GREYS[ridge.level],
                                  gid=f"{GID_RIDGE}:{ridge.level}:{ridge.precision}"),
                            [anchor], ring_offsets()))
    low, high = figure_scene.x_limits
    for slope in figure_scene.slopes:
        along = numpy.geomspace(max(low, slope.end / 1e4), slope.end, ALONG_LINE)
        anchors = [(x, x * slope.bandwidth_Bps) for x in along]
        # between two slopes there may be no room: then off to one side, with a leader
        labels.append(Label(_text(axes, slope.label, anchors[0], colour=SLOPE_GREYS[slope.level],
                                  gid=f"{GID_SLOPE}:{slope.level}", leader=True),
                            anchors, ABOVE_OR_BELOW + tuple(ring_offsets()), offset_first=True))
    for roof in figure_scene.roofs:
        along = numpy.geomspace(high, roof.start, ALONG_LINE)
        anchors = [(x, roof.peak_FLOPps) for x in along]
        text = f"{roof.name} {si(roof.peak_FLOPps, 'FLOP/s')}"
        # along the roof, else off it with a leader (a kernel's points may crowd it)
        labels.append(Label(_text(axes, text, anchors[0], colour=ROOF_COLOUR, leader=True,
                                  gid=f"{GID_ROOF}:{roof.name}"),
                            anchors, ((-3, 3), (-3, -3)) + tuple(ring_offsets()),
                            offset_first=True))
    return labels


def _text(axes, text: str, anchor, *, gid: str, colour: str, leader: bool = False,
          size: float = 9, **style):
    """An annotation at `anchor`, in offset points; `placement.place` moves it."""
    arrowprops = {"arrowstyle": "-", "color": colour, "linewidth": 0.7, "shrinkA": 1,
                  "shrinkB": 5} if leader else None
    annotation = axes.annotate(text, xy=anchor, xytext=(0, 0), textcoords="offset points",
                               fontsize=size, gid=gid, color=colour, arrowprops=arrowprops,
                               **style)
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
    axes.grid(True, which="major", color="#e6e6e6", linewidth=0.6)
    axes.set_axisbelow(True)


def _legend(figure, figure_scene: Scene) -> None:
    """What the direct labels do not say: each kernel's sizes, which marker is which level."""
    from matplotlib.lines import Line2D

    grey = "#888888"
    handles = []
    for position, kernel in enumerate(figure_scene.kernels):
        colour = kernel_colour(position)
        handles.append(Line2D([], [], color=colour, linewidth=6 if kernel.paths else 0,
                              alpha=0.6, marker="o", markerfacecolor=colour,
                              markeredgecolor="black",
                              label=f"{kernel.label}, {kernel.precision}"
                                    + (f": path over {kernel.parameter}"
                                       if kernel.paths else "")))
    levels = {level for kernel in figure_scene.kernels
              for level in (*kernel.points, *kernel.paths)}
    for level, marker in LEVEL_MARKERS.items():
        if level in levels:
            handles.append(Line2D([], [], linestyle="none", marker=marker, color=grey,
                                  markeredgecolor="black", label=f"{LEVEL_NAMES[level]} point"))
    handles.append(Line2D([], [], linestyle="none", marker="D", markerfacecolor="white",
                          markeredgecolor=grey, label="ridge point P / B (FLOP/B)"))
    handles += _legend_extras(figure_scene, grey)
    # two columns where they fit the figure's width; a kernel's label with all its sizes
    # may take it whole, and a second column would run off the page
    widest = max(len(str(handle.get_label())) for handle in handles)
    figure.legend(handles=handles, loc="outside lower center",
                  ncols=2 if widest <= LEGEND_COLUMN_CHARACTERS else 1, fontsize=8,
                  frameon=False)


def _legend_extras(figure_scene: Scene, grey: str) -> list:
    from matplotlib.lines import Line2D

    kinds = {achieved.kind for kernel in figure_scene.kernels for achieved in kernel.achieved}
    extras = [Line2D([], [], linestyle="none", marker=ACHIEVED_MARKERS[kind], color=grey,
                     markeredgecolor="black", markersize=10,
                     label={"measured": "measured run",
                            "model": "t_model: the roof lowered by its derates"}[kind])
              for kind in sorted(kinds)]
    if any(kernel.capacity for kernel in figure_scene.kernels):
        extras.append(Line2D([], [], color=grey, linestyle=":", marker=CAPACITY_MARKER,
                             markeredgecolor="black",
                             label="last size whose tiles fit; dotted: they do not"))
    return extras


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
