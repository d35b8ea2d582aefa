"""Labels placed where they hide nothing. Each label has candidate places (anchors on what it
names, offsets from them), nearest first; it takes the first whose rendered box stays inside
the axes, overlaps no label placed before it, and touches no drawn line, marker or earlier
leader line. Labels are placed in the order given, the most important first.

The text's size is measured once from its rendered extent; a candidate's box is that size
moved to the candidate's place, so trying hundreds of places costs arithmetic, not
rendering."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy

if TYPE_CHECKING:
    from matplotlib.text import Annotation

MARGIN_PX = 2.0  # clear space between a label and what it must not touch
RING_POINTS = (7, 14, 24, 36, 52, 72, 96, 128, 170, 225, 300)  # candidate offsets' distances
ANGLES = tuple(range(0, 360, 30))


@dataclass
class Label:
    """An annotation to place: `anchors` in data coordinates (the first is where its leader
    points when it has one), `offsets` in points, tried anchor by anchor."""

    annotation: Annotation  # created with xytext in offset points
    anchors: Sequence[tuple[float, float]]
    offsets: Sequence[tuple[float, float]]
    # a line's label: every anchor at the nearest offset before any anchor further away
    offset_first: bool = False

    def candidates(self):
        if self.offset_first:
            return [(anchor, offset) for offset in self.offsets for anchor in self.anchors]
        return [(anchor, offset) for anchor in self.anchors for offset in self.offsets]


def ring_offsets(distances: Sequence[float] = RING_POINTS,
                 angles: Sequence[float] = ANGLES) -> list[tuple[float, float]]:
    """Offsets around a point, nearest ring first, at every angle."""
    return [(distance * math.cos(math.radians(angle)), distance * math.sin(math.radians(angle)))
            for distance in distances for angle in angles]


def alignment(offset: tuple[float, float]) -> tuple[str, str]:
    """The text's alignment for an offset: it grows away from its anchor."""
    dx, dy = offset
    horizontal = "left" if dx > 0.5 else "right" if dx < -0.5 else "center"
    vertical = "bottom" if dy > 0.5 else "top" if dy < -0.5 else "center"
    return horizontal, vertical


class Obstacles:
    """What a label must not touch, in display pixels: segments of drawn lines (with half
    their width), marker boxes and the boxes of labels already placed."""

    def __init__(self, axes, renderer):
        self.pixels_per_point = renderer.points_to_pixels(1.0)
        self.segments: list[tuple[numpy.ndarray, float]] = []
        self.boxes: list[tuple[float, float, float, float]] = []
        for line in axes.get_lines():
            if line.get_visible():
                self._add_line(line)

    def _add_line(self, line) -> None:
        data = numpy.column_stack([numpy.asarray(line.get_xdata(), dtype=float),
                                   numpy.asarray(line.get_ydata(), dtype=float)])
        usable = numpy.isfinite(data).all(axis=1) & (data > 0).all(axis=1)
        if not usable.any():
            return
        pixels = line.get_transform().transform(data[usable])
        if line.get_linestyle() not in ("None", "", " ") and len(pixels) > 1:
            half_width = line.get_linewidth() * self.pixels_per_point / 2
            self.segments.append((numpy.hstack([pixels[:-1], pixels[1:]]), half_width))
        if line.get_marker() not in (None, "None", "", " "):
            half = (line.get_markersize() + line.get_markeredgewidth()) \
                * self.pixels_per_point / 2
            self.boxes += [(x - half, y - half, x + half, y + half) for x, y in pixels]

    def add_label(self, box, anchor_px, leader: bool) -> None:
        self.boxes.append(box)
        if leader:
            centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            self.segments.append((numpy.array([[*centre, *anchor_px]]), 0.5))

    def leader_crosses(self, box, anchor_px) -> bool:
        """Whether the line from the box's centre to its anchor crosses a drawn line away
        from the anchor (where it starts on the very line it names)."""
        centre = numpy.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
        anchor = numpy.asarray(anchor_px, dtype=float)
        length = numpy.hypot(*(centre - anchor))
        if length <= 12:
            return False
        start = anchor + (centre - anchor) * (12 / length)  # off the anchor's own marker
        return any(_segments_meet(start, centre, segments) for segments, _ in self.segments)

    def hit(self, box) -> bool:
        if any(_boxes_overlap(box, other) for other in self.boxes):
            return True
        return any(_segments_cross(box, segments, half_width + MARGIN_PX)
                   for segments, half_width in self.segments)


def place(figure, axes, labels: Sequence[Label]) -> list:
    """Move each label to its first free candidate place. Returns the annotations that found
    none (left at their first candidate): a figure test expects none."""
    figure.canvas.draw()  # the layout is final: axes positions no longer move
    renderer = figure.canvas.get_renderer()
    obstacles = Obstacles(axes, renderer)
    frame = axes.get_window_extent(renderer)
    inside = (frame.x0 + MARGIN_PX, frame.y0 + MARGIN_PX,
              frame.x1 - MARGIN_PX, frame.y1 - MARGIN_PX)
    crowded = []
    for label in labels:
        size = width, height = _size(label.annotation, renderer)
        leader = label.annotation.arrow_patch is not None
        # first a place whose leader crosses no line either, then any free place
        chosen = (_first_free(axes, label, obstacles, inside, size, clear_leader=leader)
                  or _first_free(axes, label, obstacles, inside, size, clear_leader=False))
        if chosen is None:
            crowded.append(label.annotation)
            anchor_px = axes.transData.transform(label.anchors[0])
            chosen = (label.anchors[0], anchor_px, label.offsets[0],
                      _box(anchor_px, label.offsets[0], width, height,
                           obstacles.pixels_per_point))
        anchor, anchor_px, offset, box = chosen
        _move(label.annotation, anchor, offset)
        obstacles.add_label(box, anchor_px, leader)
    return crowded


def _first_free(axes, label: Label, obstacles: Obstacles, inside,
                size: tuple[float, float], *, clear_leader: bool):
    """The first candidate (anchor, anchor in pixels, offset, box) that hits nothing, and,
    with `clear_leader`, whose leader line crosses no line either. `size`: the label's width
    and height in pixels."""
    width, height = size
    frame = axes.bbox
    for anchor, offset in label.candidates():
        anchor_px = axes.transData.transform(anchor)
        if not _within((*anchor_px, *anchor_px), (frame.x0, frame.y0, frame.x1, frame.y1)):
            continue
        box = _box(anchor_px, offset, width, height, obstacles.pixels_per_point)
        if not _within(box, inside) or obstacles.hit(box):
            continue
        if clear_leader and obstacles.leader_crosses(box, anchor_px):
            continue
        return anchor, anchor_px, offset, box
    return None


def _size(annotation, renderer) -> tuple[float, float]:
    from matplotlib.text import Text

    # an annotation whose anchor lies outside the axes is not drawn, and measures 1 x 1
    annotation.set_annotation_clip(False)
    annotation.update_positions(renderer)
    extent = Text.get_window_extent(annotation, renderer)  # without the leader line
    return extent.width, extent.height


def _box(anchor_px, offset, width: float, height: float, pixels_per_point: float):
    x = anchor_px[0] + offset[0] * pixels_per_point
    y = anchor_px[1] + offset[1] * pixels_per_point
    horizontal, vertical = alignment(offset)
    left = {"left": x, "right": x - width, "center": x - width / 2}[horizontal]
    bottom = {"bottom": y, "top": y - height, "center": y - height / 2}[vertical]
    return (left, bottom, left + width, bottom + height)


def _move(annotation, anchor, offset) -> None:
    horizontal, vertical = alignment(offset)
    annotation.xy = anchor
    annotation.xyann = offset
    annotation.set_horizontalalignment(horizontal)
    annotation.set_verticalalignment(vertical)


def _within(box, frame) -> bool:
    return box[0] >= frame[0] and box[1] >= frame[1] and box[2] <= frame[2] \
        and box[3] <= frame[3]


def _boxes_overlap(first, second) -> bool:
    return (first[0] < second[2] + MARGIN_PX and second[0] < first[2] + MARGIN_PX
            and first[1] < second[3] + MARGIN_PX and second[1] < first[3] + MARGIN_PX)


def _segments_meet(start, end, segments: numpy.ndarray) -> bool:
    """Whether the segment start-end meets any of `segments` (orientation tests)."""
    a, b = numpy.asarray(start), numpy.asarray(end)
    c, d = segments[:, :2], segments[:, 2:]

    def side(p, q, r):  # the sign of the turn p -> q -> r
        return numpy.sign((q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1])
                          - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0]))

    return bool(numpy.any((side(a, b, c) != side(a, b, d)) & (side(c, d, a) != side(c, d, b))))


def _segments_cross(box, segments: numpy.ndarray, pad: float) -> bool:
    """Whether any segment meets the box grown by `pad` (Liang-Barsky clipping, all segments
    at once)."""
    x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    start_x, start_y = segments[:, 0], segments[:, 1]
    dx, dy = segments[:, 2] - start_x, segments[:, 3] - start_y
    enter = numpy.zeros(len(segments))
    leave = numpy.ones(len(segments))
    missed = numpy.zeros(len(segments), dtype=bool)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        for direction, room in ((-dx, start_x - x0), (dx, x1 - start_x),
                                (-dy, start_y - y0), (dy, y1 - start_y)):
            missed |= (direction == 0) & (room < 0)
            ratio = room / direction
            enter = numpy.where(direction < 0, numpy.maximum(enter, ratio), enter)
            leave = numpy.where(direction > 0, numpy.minimum(leave, ratio), leave)
    return bool(numpy.any(~missed & (enter <= leave)))
