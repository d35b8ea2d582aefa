"""A kernel's path on the roofline as one size grows: its intensity and height per level, the
ridge crossings `solve` gives, where its on-chip tiles stop fitting (past that size the kernel
cannot run as written), the limit it tends to when it never crosses, and its end sizes."""

from __future__ import annotations

import math

import numpy

from ..analysis.api import Spec
from ..answers.capacity import capacity_crossings
from ..answers.solve import ridge_crossings
from ..base.kinds import Per
from ..base.records import record
from ..base.symbols import ON_CHIP_LEVELS
from ..base.units import binary, plain
from ..hardware.machine import Machine
from ..lang.settings import resolve_settings
from ..lang.sizerange import SizeRange
from .sweep import sweep

PATH_POINTS = 400  # a smooth path on log axes
PATH_MARKS = 6  # sizes marked along a path, equally spaced on the log axis
SIDE_SIGNS = {"<=": "≤", ">=": "≥"}


@record
class Placed:
    """A kernel as a figure places it: its spec at the precision of the roofs it is placed
    under (Spec.at_precision), the sizes as the user wrote them and the reuse mode, on one
    machine."""

    spec: Spec
    raw: dict
    reuse: str
    machine: Machine
    precision: str


@record
class Trajectory:
    """One level's path: the kernel's point at each swept size."""

    level: str
    intensity: numpy.ndarray  # I_l per swept size (FLOP/B)
    performance: numpy.ndarray  # min(P, I_l B_l) per swept size (FLOP/s)
    fits: numpy.ndarray  # bool per swept size: every on-chip tile fits its level
    marks: numpy.ndarray  # indices of the sizes marked along the path


@record
class Note:
    """A labelled place on the figure: a crossing, a capacity limit, a path's end, a limit."""

    level: str
    intensity: float
    performance: float
    label: str


@record
class SweepMarks:
    parameter: str  # the swept size
    sizes: numpy.ndarray
    paths: dict[str, Trajectory]  # level -> path, the slowest level first
    crossings: tuple[Note, ...]  # "N* = 699" at the ridge
    never: tuple[Note, ...]  # "never crosses: I → 64 < 295.5 FLOP/B" at the path's end
    capacity: tuple[Note, ...]  # "T ≤ 241: shared full (228 KiB per SM)" on the path
    ends: tuple[Note, ...]  # "N=64", "N=65536" at the ends of the slowest path


def trajectory(kernel: Placed, size_range: SizeRange,
               bandwidths: dict[str, float]) -> SweepMarks:
    """A kernel's path over the sweep at each level with a bandwidth (the slowest first), on
    the roofs of its precision, with its notes."""
    spec, reuse = kernel.spec, kernel.reuse
    peak = float(kernel.machine.peak(kernel.precision, spec.cost(reuse).main_class))
    levels = list(bandwidths)
    swept = sweep(spec, size_range.dense(PATH_POINTS), settings=kernel.raw, reuse=reuse)
    parameter = size_range.parameter
    limits, fits = _capacity(kernel, parameter, swept.sizes)
    marked = numpy.linspace(0, len(swept.sizes) - 1, PATH_MARKS).round().astype(int)
    paths = {}
    for level in levels:
        intensity = swept.intensity[level]
        paths[level] = Trajectory(level, intensity,
                                  numpy.minimum(peak, intensity * bandwidths[level]),
                                  fits, marked)
    slowest = paths[levels[0]]
    capacity = tuple(_on_path(slowest, index, label) for index, label in limits)
    crossings, never = _crossings(kernel, peak, size_range, paths)
    ends = tuple(_on_path(slowest, index, f"{parameter}={value_text(float(size))}")
                 for index, size in ((0, swept.sizes[0]), (-1, swept.sizes[-1])))
    return SweepMarks(parameter, swept.sizes, paths, crossings, never, capacity, ends)


def _on_path(path: Trajectory, index: int, label: str) -> Note:
    return Note(path.level, float(path.intensity[index]), float(path.performance[index]), label)


def _capacity(kernel: Placed, parameter: str, sizes: numpy.ndarray):
    """Where an on-chip tile stops fitting its level along the sweep: (the index of the swept
    size nearest the last that fits, its label) per limit, and which swept sizes fit."""
    others = {name: value for name, value in kernel.raw.items() if name != parameter}
    values = resolve_settings(others, kernel.spec.parameters)
    fits = numpy.ones(len(sizes), dtype=bool)
    limits = []
    for crossing in capacity_crossings(kernel.spec.cost(kernel.reuse), parameter,
                                       kernel.machine, values, apply_defaults=True):
        bound = crossing.integer_bound
        if bound is None or crossing.level not in ON_CHIP_LEVELS:
            continue  # L2 and HBM over capacity slow a kernel down; on chip, it cannot run
        side, limit = bound
        inside = sizes <= limit if side == "<=" else sizes >= limit
        if inside.all() or not (sizes.min() <= limit <= sizes.max()):
            continue
        fits &= inside
        nearest = int(numpy.argmin(numpy.abs(numpy.log(sizes) - math.log(limit))))
        per = " per SM" if crossing.capacity_per == Per.SM else ""
        label = (f"{parameter} {SIDE_SIGNS[side]} {limit}: {crossing.level} full "
                 f"({binary(float(crossing.capacity_B))}{per})")
        limits.append((nearest, label))
    return limits, fits


def _crossings(kernel: Placed, peak: float, size_range: SizeRange,
               paths: dict[str, Trajectory]):
    """The ridge crossings inside the swept range, exactly as `solve` gives them, and for a
    level that never crosses, the limit the intensity tends to instead (written at the end of
    the slowest level's path)."""
    others = {name: value for name, value in kernel.raw.items()
              if name != size_range.parameter}
    values = resolve_settings(others, kernel.spec.parameters)
    found, never = [], []
    levels = list(paths)
    for level in levels:
        for crossing in ridge_crossings(kernel.spec.cost(kernel.reuse), size_range.parameter,
                                        kernel.machine, kernel.precision, level, values,
                                        apply_defaults=True):
            ridge = float(crossing.ridge)
            if crossing.value is None and level == levels[0]:
                path = paths[level]
                never.append(Note(level, float(path.intensity[-1]),
                                  float(path.performance[-1]),
                                  never_label(crossing.limit, ridge)))
            elif crossing.value is not None and crossing.value.is_number:
                value = float(crossing.value)
                if size_range.low <= value <= size_range.high:
                    found.append(Note(level, ridge, peak,
                                      crossing_label(crossing.parameter, value)))
    return tuple(found), tuple(never)


def crossing_label(parameter: str, value: float) -> str:
    """'N* = 699': the crossing size, 4 significant digits as `units.plain` prints it."""
    return f"{parameter}* = {plain(value, '').strip()}"


def never_label(limit, ridge: float) -> str:
    limit_value = float(limit) if limit is not None and limit.is_number else None
    if limit_value is None or math.isinf(limit_value):
        return "never crosses the ridge"
    return (f"never crosses: I → {plain(limit_value, '').strip()} "
            f"< {plain(ridge, 'FLOP/B')}")


def value_text(value) -> str:
    """A size as a person writes it: 4096, 7e10, M=N."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e6:
        return str(int(value))
    if isinstance(value, (int, float)):
        return f"{value:g}".replace("e+", "e")
    return str(value)
