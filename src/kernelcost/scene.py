"""The roofline as numbers, no matplotlib: roofs per compute ceiling, slopes per memory
level, ridge points, and each kernel as a point per level (and a path over a size sweep) with
its crossings, where its tiles stop fitting, a measured run and what lowers its roof. Every
coordinate the figure draws is computed here; `plot.draw` only places it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy
import sympy

from .analysis import Analysis, Spec, load
from .efficiency import measured_efficiency
from .errors import Diagnostic, KcostError
from .hardware import Machine, load_machine
from .model import Verdict, verdict
from .settings import resolve_settings
from .solve import capacity_crossings, ridge_crossings
from .sweep import SizeRange, sweep
from .units import binary, plain, si

SLOPE_LEVELS = ("global", "l2", "shared")  # the chapter's hierarchy; registers when used
LEVEL_NAMES = {"global": "HBM", "l2": "L2", "shared": "shared", "registers": "registers"}
PATH_POINTS = 400  # a smooth path on log axes
PATH_MARKS = 6  # sizes marked along a path, equally spaced on the log axis
# a derated point closer than this to its roof would hide under the roof's own marker
VISIBLE_DERATE = 0.95
SIDE_SIGNS = {"<=": "≤", ">=": "≥"}
ON_CHIP = ("shared", "registers")


@dataclass(frozen=True)
class Roof:
    name: str  # "bf16 tensor"
    unit: str  # tensor | vector | sfu
    peak_FLOPps: float
    start: float  # FLOP/B: where the fastest slope reaches this roof


@dataclass(frozen=True)
class Slope:
    level: str
    bandwidth_Bps: float
    end: float  # FLOP/B: where the slope meets the highest roof

    @property
    def label(self) -> str:
        return f"{LEVEL_NAMES[self.level]} {si(self.bandwidth_Bps, 'B/s')}"


@dataclass(frozen=True)
class Ridge:
    level: str
    precision: str
    intensity: float  # I_crit = P / B_l (FLOP/B)
    peak_FLOPps: float  # P of the precision
    label: str  # "295.5 FLOP/B"


@dataclass(frozen=True)
class Point:
    level: str
    intensity: float  # I_l (FLOP/B)
    performance: float  # min(P, I_l B_l) (FLOP/s)


@dataclass(frozen=True)
class Path:
    level: str
    intensity: numpy.ndarray  # I_l per swept size (FLOP/B)
    performance: numpy.ndarray  # min(P, I_l B_l) per swept size (FLOP/s)
    fits: numpy.ndarray  # bool per swept size: every on-chip tile fits its level
    marks: numpy.ndarray  # indices of the sizes marked along the path


@dataclass(frozen=True)
class Note:
    """A labelled place on the figure: a crossing, a capacity limit, a path's end, a limit."""

    level: str
    intensity: float
    performance: float
    label: str


@dataclass(frozen=True)
class Achieved:
    """A point under the roof: a measured run, or the model with its derates."""

    kind: str  # measured | model
    level: str
    intensity: float
    performance: float  # FLOP/s
    label: str


@dataclass(frozen=True)
class KernelMarks:
    """One kernel on the figure: a point per level, and a path per level over a sweep."""

    name: str  # the direct label: "gemm_tiled", or with its own sizes
    label: str  # with every size, for the legend
    precision: str
    peak_FLOPps: float  # the fma ceiling of its precision
    points: dict[str, Point]  # level -> point at the set sizes; empty while symbolic
    binding: str | None = None  # the level whose point binds (None: compute binds)
    parameter: str | None = None  # the swept size
    sizes: numpy.ndarray | None = None
    paths: dict[str, Path] = field(default_factory=dict)
    crossings: tuple[Note, ...] = ()  # "N* = 699" at the ridge
    never: tuple[Note, ...] = ()  # "never crosses: I → 64 < 295.5 FLOP/B" at the path's end
    capacity: tuple[Note, ...] = ()  # "T ≤ 241: shared full (228 KiB)" on the path
    ends: tuple[Note, ...] = ()  # "N=64", "N=65536" at the ends of the slowest path
    achieved: tuple[Achieved, ...] = ()


@dataclass(frozen=True)
class Scene:
    title: str
    machine: Machine
    roofs: tuple[Roof, ...]
    slopes: tuple[Slope, ...]
    ridges: tuple[Ridge, ...]
    kernels: tuple[KernelMarks, ...]
    x_limits: tuple[float, float] = (0.1, 1e4)  # FLOP/B
    y_limits: tuple[float, float] = (1e9, 1e15)  # FLOP/s

    def bandwidth(self, level: str) -> float:
        return next(s.bandwidth_Bps for s in self.slopes if s.level == level)


def scene(kernels, machine: Machine | str, precisions: Sequence[str] = (), *,
          settings: Mapping | None = None, own_settings: Sequence[Mapping] = (),
          size_range: SizeRange | None = None, reuse: str | None = None,
          measured: Sequence[Mapping | None] = ()) -> Scene:
    """Gather what a roofline figure shows. `kernels`: Analyses, Specs or spec paths (or one);
    `settings` (raw, {"M": "N", "N": 4096}) apply to every spec that has the parameter, and
    `own_settings[i]` to kernel i only; `size_range` draws each kernel's path as that size
    grows. Each kernel is placed under the roofs of its own precision unless `precisions`
    names one (the first); every precision named has its roofs drawn. `measured[i]`: a
    measurement of kernel i ({"seconds": 4e-4}, as efficiency.measured_efficiency takes)."""
    machine = load_machine(machine) if isinstance(machine, str) else machine
    kernels = [kernels] if isinstance(kernels, (Analysis, Spec, str, Path)) else list(kernels)
    loaded = [_spec_and_settings(kernel, settings, own, reuse)
              for kernel, own in zip(kernels, _padded(own_settings, len(kernels)))]
    chosen = list(precisions)
    kernel_precisions = [chosen[0] if chosen else spec.cost(mode).precision
                         for spec, _, _, mode in loaded]
    drawn = list(dict.fromkeys(kernel_precisions + chosen))
    uses_sfu = any(spec.cost(mode).work.get("sfu", 0) != 0 for spec, _, _, mode in loaded)
    used_levels = {level for spec, _, _, mode in loaded for level in spec.cost(mode).levels}
    roofs = _roofs(machine, drawn, uses_sfu)
    slopes = _slopes(machine, used_levels, roofs)
    marks = tuple(_kernel_marks(spec, raw, own, mode, machine, precision, size_range, slopes,
                                measurement)
                  for (spec, raw, own, mode), precision, measurement
                  in zip(loaded, kernel_precisions, _padded(measured, len(loaded))))
    title = f"{machine.name}, {', '.join(drawn)}: hierarchical roofline"
    return _framed(Scene(title, machine, roofs, slopes, _ridges(machine, drawn, slopes),
                         marks))


def verdict_scene(result: Verdict, label: str = "kernel") -> Scene:
    """The figure of one verdict: its machine's roofs and slopes, the kernel's points."""
    machine = load_machine(result.machine)
    points = _verdict_points(result, [level.level for level in result.levels])
    roofs = _roofs(machine, [result.precision], False)
    slopes = _slopes(machine, set(points), roofs)
    peak = float(machine.peak(result.precision, "fma"))
    kernel = KernelMarks(label, label, result.precision, peak, points, _binding(result, points))
    return _framed(Scene(f"{machine.name}, {result.precision}: hierarchical roofline", machine,
                         roofs, slopes, _ridges(machine, [result.precision], slopes),
                         (kernel,)))


def _padded(items: Sequence, count: int) -> list:
    return list(items) + [None] * (count - len(items))


def _levels(machine: Machine) -> list[str]:
    return [memory.level for memory in machine.memory]


def _slopes(machine: Machine, used_levels: set[str], roofs) -> tuple[Slope, ...]:
    top = max(roof.peak_FLOPps for roof in roofs)
    return tuple(Slope(level, machine.bandwidth(level), top / machine.bandwidth(level))
                 for level in _levels(machine) if machine.bandwidth(level) is not None
                 and (level in SLOPE_LEVELS or level in used_levels))


def _roofs(machine: Machine, precisions: Sequence[str], uses_sfu: bool) -> tuple[Roof, ...]:
    fastest = max(machine.bandwidth(level) or 0 for level in _levels(machine))
    peaks: dict[str, tuple[str, float]] = {}
    for precision in precisions:
        tensor = machine.dense_peak(precision, "tensor")
        if tensor is not None:
            peaks.setdefault(f"{precision} tensor", ("tensor", tensor.peak_FLOPps))
        vector = machine.ceiling(precision, "vector")
        peaks.setdefault(vector.name.removesuffix(" peak"), ("vector", vector.peak_FLOPps))
        if uses_sfu:
            sfu = machine.ceiling(precision, "sfu")
            peaks.setdefault(sfu.name.removesuffix(" peak"), ("sfu", sfu.peak_FLOPps))
    roofs = [Roof(name, unit, float(peak), float(peak) / fastest)
             for name, (unit, peak) in peaks.items()]
    return tuple(sorted(roofs, key=lambda roof: -roof.peak_FLOPps))


def _ridges(machine: Machine, precisions: Sequence[str], slopes) -> tuple[Ridge, ...]:
    ridges = []
    for precision in precisions:
        peak = float(machine.peak(precision, "fma"))
        for slope in slopes:
            ridge = peak / slope.bandwidth_Bps
            ridges.append(Ridge(slope.level, precision, ridge, peak, plain(ridge, "FLOP/B")))
    return tuple(ridges)


def _spec_and_settings(kernel, settings: Mapping | None, own: Mapping | None,
                       reuse: str | None):
    """(spec, raw settings for this spec, its own settings, reuse mode). Shared settings name
    parameters of any of the specs on the figure; each spec takes those it has."""
    own = dict(own or {})
    if isinstance(kernel, Analysis):
        raw = {str(s): _setting_text(e) for s, e in kernel.settings.items()}
        raw.update(settings or {})
        return kernel.spec, {**raw, **own}, own, reuse or kernel.reuse
    spec = kernel if isinstance(kernel, Spec) else load(kernel)
    raw = {name: value for name, value in (settings or {}).items() if name in spec.parameters}
    return spec, {**raw, **own}, own, reuse or "spec"


def _setting_text(expr: sympy.Expr):
    return int(expr) if expr.is_Integer else sympy.sstr(expr)


def _value_text(value) -> str:
    """A size as a person writes it: 4096, 7e10, M=N."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e6:
        return str(int(value))
    if isinstance(value, (int, float)):
        return f"{value:g}".replace("e+", "e")
    return str(value)


def _kernel_marks(spec: Spec, raw: dict, own: dict, reuse: str, machine: Machine,
                  precision: str, size_range: SizeRange | None, slopes: tuple[Slope, ...],
                  measurement: Mapping | None) -> KernelMarks:
    cost = spec.cost(reuse)
    levels = [s.level for s in slopes if s.level in cost.levels]
    peak = float(machine.peak(precision, "fma"))
    result = verdict(cost, machine, precision, resolve_settings(raw, spec.parameters))
    points = _verdict_points(result, levels)
    name = spec.name + (f" ({_sizes_text(own)})" if own else "")
    marks = KernelMarks(name, _kernel_label(spec, raw), precision, peak, points,
                        _binding(result, points) if points else None,
                        achieved=_achieved(result, points, measurement))
    if size_range is None:
        if not points and cost.total_work == 0:  # I = 0: no point on a log axis
            raise KcostError(Diagnostic(None, f"`{spec.name}` does no work (W = 0): its "
                                              "intensity is 0, which a log axis cannot show",
                                        f"its time is Q / B: kernelcost analyze {spec.path} "
                                        "--machine ..."))
        if not points:
            raise KcostError(Diagnostic(None, f"`{spec.name}`: set every size (--set) or give "
                                              "a sweep (--sweep NAME=LOW..HIGH) to plot it"))
        return marks
    if size_range.parameter not in spec.parameters:
        raise KcostError(Diagnostic(None, f"`{size_range.parameter}` is not a parameter of "
                                          f"`{spec.name}`"))
    return _with_path(marks, spec, raw, reuse, machine, size_range, levels, slopes)


def _with_path(marks: KernelMarks, spec: Spec, raw: dict, reuse: str, machine: Machine,
               size_range: SizeRange, levels: list[str], slopes) -> KernelMarks:
    swept = sweep(spec, size_range.dense(PATH_POINTS), settings=raw, reuse=reuse)
    parameter = size_range.parameter
    limits, fits = _capacity(spec, raw, reuse, machine, parameter, swept.sizes)
    bandwidth = {slope.level: slope.bandwidth_Bps for slope in slopes}
    marked = numpy.linspace(0, len(swept.sizes) - 1, PATH_MARKS).round().astype(int)
    paths = {}
    for level in levels:
        intensity = swept.intensity[level]
        paths[level] = Path(level, intensity,
                            numpy.minimum(marks.peak_FLOPps, intensity * bandwidth[level]),
                            fits, marked)
    slowest = paths[levels[0]]
    capacity = tuple(_on_path(slowest, index, label) for index, label in limits)
    crossings, never = _crossings(spec, raw, reuse, machine, marks, size_range, levels,
                                  paths)
    ends = tuple(_on_path(slowest, index, f"{parameter}={_value_text(float(size))}")
                 for index, size in ((0, swept.sizes[0]), (-1, swept.sizes[-1])))
    return replace(marks, parameter=parameter, sizes=swept.sizes, paths=paths,
                   crossings=crossings, never=never, capacity=capacity, ends=ends)


def _verdict_points(result: Verdict, levels: Sequence[str]) -> dict[str, Point]:
    """Each level's point, where its intensity is a positive number (a copy's I = 0 has no
    place on a log axis; a symbolic one waits for the sweep)."""
    return {level.level: Point(level.level, float(level.intensity), float(level.performance))
            for level in result.levels
            if level.level in levels and level.intensity.is_number and level.intensity > 0}


def _binding(result: Verdict, points: dict[str, Point]) -> str | None:
    term = result.binding_term()
    if term is not None and term.kind == "traffic" and term.key in points:
        return term.key
    return None


def _achieved(result: Verdict, points: dict[str, Point],
              measurement: Mapping | None) -> tuple[Achieved, ...]:
    """The measured run (what Nsight Compute's roofline shows: the achieved FLOP/s at the
    kernel's intensity) and the model's point lowered by its derates."""
    if not points:
        if measurement:
            raise KcostError(Diagnostic(None, "a measurement is drawn at the set sizes: set "
                                              "every size (--set)"))
        return ()
    binding = _binding(result, points) or next(iter(points))
    found = []
    if measurement:
        efficiency = measured_efficiency(result, **measurement)
        level = efficiency.level if efficiency.level in points else binding
        achieved = float(result.work_FLOP) / efficiency.measured_s
        found.append(Achieved("measured", level, points[level].intensity, achieved,
                              f"measured: {efficiency.describe()}"))
    factor = math.prod(float(derate.factor) for derate in result.derates)
    if result.derates and factor < VISIBLE_DERATE:
        causes = ", ".join(f"{derate.cause} ×{float(derate.factor):.2g}"
                           for derate in result.derates)
        performance = points[binding].performance * factor
        found.append(Achieved("model", binding, points[binding].intensity, performance,
                              f"model {si(performance, 'FLOP/s')}: {causes}"))
    return tuple(found)


def _on_path(path: Path, index: int, label: str) -> Note:
    return Note(path.level, float(path.intensity[index]), float(path.performance[index]), label)


def _capacity(spec: Spec, raw: dict, reuse: str, machine: Machine, parameter: str,
              sizes: numpy.ndarray):
    """Where an on-chip tile stops fitting its level along the sweep: (the index of the swept
    size nearest the last that fits, its label) per limit, and which swept sizes fit."""
    others = {name: value for name, value in raw.items() if name != parameter}
    values = resolve_settings(others, spec.parameters)
    fits = numpy.ones(len(sizes), dtype=bool)
    limits = []
    for crossing in capacity_crossings(spec.cost(reuse), parameter, machine, values,
                                       apply_defaults=True):
        bound = crossing.integer_bound
        if bound is None or crossing.level not in ON_CHIP:
            continue  # L2 and HBM over capacity slow a kernel down; on chip, it cannot run
        side, limit = bound
        inside = sizes <= limit if side == "<=" else sizes >= limit
        if inside.all() or not (sizes.min() <= limit <= sizes.max()):
            continue
        fits &= inside
        nearest = int(numpy.argmin(numpy.abs(numpy.log(sizes) - math.log(limit))))
        per = " per SM" if crossing.capacity_per == "sm" else ""
        limits.append((nearest, f"{parameter} {SIDE_SIGNS[side]} {limit}: {crossing.level} full "
                                f"({binary(float(crossing.capacity_B))}{per})"))
    return limits, fits


def _crossings(spec: Spec, raw: dict, reuse: str, machine: Machine, marks: KernelMarks,
               size_range: SizeRange, levels: list[str], paths: dict[str, Path]):
    """The ridge crossings inside the swept range, exactly as `solve` gives them, and for a
    level that never crosses, the limit the intensity tends to instead (written at the end of
    the slowest level's path)."""
    others = {name: value for name, value in raw.items() if name != size_range.parameter}
    values = resolve_settings(others, spec.parameters)
    found, never = [], []
    for level in levels:
        for crossing in ridge_crossings(spec.cost(reuse), size_range.parameter, machine,
                                        marks.precision, level, values, apply_defaults=True):
            ridge = float(crossing.ridge)
            if crossing.value is None and level == levels[0]:
                path = paths[level]
                never.append(Note(level, float(path.intensity[-1]),
                                  float(path.performance[-1]),
                                  never_label(crossing.limit, ridge)))
            elif crossing.value is not None and crossing.value.is_number:
                value = float(crossing.value)
                if size_range.low <= value <= size_range.high:
                    found.append(Note(level, ridge, marks.peak_FLOPps,
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


def _sizes_text(raw: Mapping) -> str:
    return ", ".join(f"{name}={_value_text(value)}" for name, value in raw.items())


def _kernel_label(spec: Spec, raw: dict) -> str:
    # a swept default stays in the label: it is where the point is drawn
    defaults = {str(symbol): value for symbol, value in spec.checked.defaults.items()
                if str(symbol) not in raw}
    shown = _sizes_text({**raw, **defaults})
    return f"{spec.name} ({shown})" if shown else spec.name


def _framed(figure_scene: Scene) -> Scene:
    """Whole decades around every point, path, ridge and roof, with room for the labels
    (above the highest roof, right of the last point)."""
    intensities = [ridge.intensity for ridge in figure_scene.ridges]
    heights = [roof.peak_FLOPps for roof in figure_scene.roofs]
    for kernel in figure_scene.kernels:
        for mark in (*kernel.points.values(), *kernel.achieved):
            intensities.append(mark.intensity)
            heights.append(mark.performance)
        for path in kernel.paths.values():
            usable = numpy.isfinite(path.intensity) & (path.intensity > 0)
            if usable.any():
                intensities += [path.intensity[usable].min(), path.intensity[usable].max()]
                heights.append(path.performance[usable].min())
    low_x, high_x = min(intensities), max(intensities)
    low_y, high_y = min(heights), max(heights)
    x_limits = (10 ** math.floor(math.log10(low_x) - 0.3), high_x * 8)
    y_limits = (10 ** math.floor(math.log10(low_y) - 0.3), high_y * 3)
    return replace(figure_scene, x_limits=x_limits, y_limits=y_limits)
