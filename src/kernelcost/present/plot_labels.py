"""The words of a roofline figure: each kernel's direct label and what it reached, crossed and
stopped fitting at, the ridges, slopes and roofs named along their lines (annotations that
`placement` moves off the lines and off each other), and the legend."""

from __future__ import annotations

import numpy

from ..base.units import si
from .placement import Label, ring_offsets
from .plot_style import (
    ABOVE_OR_BELOW,
    ACHIEVED_MARKERS,
    ALONG_LINE,
    CAPACITY_MARKER,
    GID_CAPACITY,
    GID_CEILING,
    GID_CROSSING,
    GID_KERNEL,
    GID_NEVER,
    GID_PATH,
    GID_RIDGE,
    GID_ROOF,
    GID_SLOPE,
    LEGEND_COLUMN_CHARACTERS,
    LEVEL_MARKERS,
    ROOF_COLOUR,
    SLOPE_GREYS,
    ceiling_spans,
    kernel_colour,
)
from .scene import LEVEL_NAMES, KernelMarks, Scene


def kernel_labels(axes, kernel: KernelMarks, position: int) -> list[Label]:
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
    for ceiling, (low, high) in ceiling_spans(kernel):
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


def line_labels(axes, figure_scene: Scene) -> list[Label]:
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


def legend(figure, figure_scene: Scene) -> None:
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
