"""The roofline as numbers, no matplotlib: roofs per compute ceiling, slopes per memory
level, ridge points, and each kernel as a point per level (and a path over a size sweep) with
its crossings, where its tiles stop fitting, a measured run and what lowers its roof. Every
coordinate the figure draws is computed here; `plot.draw` only places it."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field, replace
from pathlib import Path

import numpy
import sympy

from ..analysis.api import Analysis, Spec, load, numeric_values
from ..answers.answer import refuse_verdict_sizes
from ..answers.efficiency import measured_efficiency
from ..answers.model import Verdict, verdict
from ..base import tree as ast
from ..base.errors import Code, Diagnostic, SizeError, did_you_mean
from ..base.kinds import Reuse, TermKind, Unit, WorkClass
from ..base.levels import Level
from ..base.records import record
from ..base.units import plain, si
from ..base.watchdog import stage
from ..hardware.machine import Machine
from ..hardware.machinefile import load_machine
from ..lang.settings import FLOAT_SIZES, MAX_FLOAT_SIZE, refuse_beyond, resolve_settings
from ..lang.sizerange import SizeRange
from .derate_text import efficiency_text
from .kernel_rates import Ceiling, bound_by, ceilings, model_rate, strongest_derates
from .roofs import short_roof_name
from .trajectory import Note, Placed, Trajectory, trajectory, value_text

# the chapter's hierarchy; registers when used
SLOPE_LEVELS = (Level.GLOBAL, Level.L2, Level.SHARED)
LEVEL_NAMES: dict[str, str] = {Level.GLOBAL: "HBM", Level.L2: "L2", Level.SHARED: Level.SHARED,
                               Level.REGISTERS: Level.REGISTERS}
# a derated point less than this far under its roof would hide under the point itself
VISIBLE_DERATE = 0.8


@record
class Roof:
    name: str  # "bf16 tensor"
    unit: Unit  # the line's style: tensor, vector or sfu
    peak_FLOPps: float
    start: float  # FLOP/B: where the fastest slope reaches this roof


@record
class Slope:
    level: str
    bandwidth_Bps: float
    end: float  # FLOP/B: where the slope meets the highest roof

    @property
    def label(self) -> str:
        return f"{LEVEL_NAMES[self.level]} {si(self.bandwidth_Bps, 'B/s')}"


@record
class Ridge:
    level: str
    precision: str
    intensity: float  # I_crit = P / B_l (FLOP/B)
    peak_FLOPps: float  # P of the precision
    label: str  # "295.5 FLOP/B"


@record
class Point:
    level: str
    intensity: float  # I_l (FLOP/B)
    performance: float  # min(W / t_min, I_l B_l) (FLOP/s): the kernel's roofline rate,
    # on the slope of the level that binds or the ceiling of the class that does


@record
class Achieved:
    """A point under the roof: a measured run, or the model with its derates."""

    kind: str  # measured | model
    level: str
    intensity: float
    performance: float  # FLOP/s
    label: str


@record
class KernelMarks:
    """One kernel on the figure: a point per level, and a path per level over a sweep."""

    name: str  # the direct label: "gemm_tiled", or with its own sizes
    label: str  # with every size, for the legend
    precision: str
    peak_FLOPps: float  # the ceiling of the units it runs on (its ridges)
    points: dict[str, Point]  # level -> point at the set sizes; empty while symbolic
    binding: str | None = None  # the level whose point binds (None: compute binds)
    parameter: str | None = None  # the swept size
    sizes: numpy.ndarray | None = None
    paths: dict[str, Trajectory] = field(default_factory=dict)
    crossings: tuple[Note, ...] = ()  # "N* = 699" at the ridge
    runs: bool = True  # False: the machine does not run the spec (gpu.support), no roof binds
    never: tuple[Note, ...] = ()  # "never crosses: I → 64 < 295.5 FLOP/B" at the path's end
    capacity: tuple[Note, ...] = ()  # "T ≤ 241: shared full (228 KiB)" on the path
    ends: tuple[Note, ...] = ()  # "N=64", "N=65536" at the ends of the slowest path
    achieved: tuple[Achieved, ...] = ()
    ceilings: tuple[Ceiling, ...] = ()  # the classes doing part of the work, at set sizes
    bound_by: str | None = None  # the compute roof or ceiling that binds ("sfu"), if one does


@record
class Scene:
    title: str
    machine: Machine
    roofs: tuple[Roof, ...]
    slopes: tuple[Slope, ...]
    ridges: tuple[Ridge, ...]
    kernels: tuple[KernelMarks, ...]
    x_limits: tuple[float, float] = (0.1, 1e4)  # FLOP/B
    y_limits: tuple[float, float] = (1e9, 1e15)  # FLOP/s


def scene(kernels, machine: Machine | str, precisions: Sequence[str] = (), *,
          settings: Mapping | None = None, own_settings: Sequence[Mapping] = (),
          size_range: SizeRange | None = None, reuse: str | None = None,
          measured: Sequence[Mapping | None] = (),
          on_kernel: Callable[[], None] | None = None) -> Scene:
    """Gather what a roofline figure shows. `kernels`: Analyses, Specs or spec paths (or one);
    `settings` (raw, {"M": "N", "N": 4096}) apply to every spec that has the parameter, and
    `own_settings[i]` to kernel i only; `size_range` draws each kernel's path as that size
    grows. Each kernel is placed under the roofs of its own precision unless `precisions`
    names one (the first); every precision named has its roofs drawn. `measured[i]`: a
    measurement of kernel i ({"seconds": 4e-4}, as efficiency.measured_efficiency takes).
    `on_kernel` is called as each kernel is done (a progress bar)."""
    machine = load_machine(machine) if isinstance(machine, str) else machine
    kernels = [kernels] if isinstance(kernels, (Analysis, Spec, str, Path)) else list(kernels)
    loaded = [_spec_and_settings(kernel, settings, own, reuse)
              for kernel, own in zip(kernels, _padded(own_settings, len(kernels)))]
    _refuse_names_of_no_spec(settings or {}, [spec for spec, *_ in loaded])
    chosen = list(precisions)
    kernel_precisions = [chosen[0] if chosen else spec.cost(mode).precision
                         for spec, _, _, mode in loaded]
    drawn = list(dict.fromkeys(kernel_precisions + chosen))
    used_levels = {level for spec, _, _, mode in loaded for level in spec.cost(mode).levels}
    roofs = _roofs(machine, drawn)
    slopes = _slopes(machine, used_levels, roofs)
    marks = []
    for (spec, raw, own, mode), precision, measurement in zip(
            loaded, kernel_precisions, _padded(measured, len(loaded))):
        placed = Placed(spec.at_precision(precision), raw, mode, machine, precision)
        marks.append(_kernel_marks(placed, own, size_range, slopes, measurement))
        if on_kernel is not None:
            on_kernel()
    title = f"{machine.name}, {', '.join(drawn)}: hierarchical roofline"
    return _framed(Scene(title, machine, roofs, slopes, _ridges(machine, drawn, slopes),
                         tuple(marks)))


def _refuse_names_of_no_spec(settings: Mapping, specs: Sequence[Spec]) -> None:
    """A shared --set applies to each spec that has the name; one that no spec on the figure
    has (`--set Q=4` beside gemm) was dropped without a word."""
    names = {name for spec in specs for name in spec.parameters}
    for name in settings:
        if name not in names:
            argument, start = getattr(settings, "places", {}).get(name, (f"{name}=", 1))
            raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
                ast.Span("--set", 1, start, 1, start + len(name)),
                f"`{name}` is a parameter of no spec on the figure",
                did_you_mean(name, sorted(names)) or "parameters: " + ", ".join(sorted(names))),
                argument)


def verdict_scene(result: Verdict, label: str = "kernel") -> Scene:
    """The figure of one verdict: its machine's roofs and slopes, the kernel's points."""
    machine = load_machine(result.machine)
    points = _verdict_points(result, [level.level for level in result.levels])
    roofs = _roofs(machine, [result.precision])
    slopes = _slopes(machine, set(points), roofs)
    peak = float(_kernel_peak(result, machine))
    kernel = KernelMarks(label, label, result.precision, peak, points, _binding(result, points),
                         runs=not result.unsupported,
                         ceilings=ceilings(result) if points else (),
                         bound_by=bound_by(result) if points else None)
    return _framed(Scene(f"{machine.name}, {result.precision}: hierarchical roofline", machine,
                         roofs, slopes, _ridges(machine, [result.precision], slopes),
                         (kernel,)))


def _kernel_peak(result: Verdict, machine: Machine) -> float:
    """P of a kernel's ridges: the ceiling of the units it runs on at the verdict's sizes."""
    if result.levels:
        return float(result.levels[0].peak_FLOPps)
    return machine.peak(result.precision, WorkClass.TENSOR)


def _padded(items: Sequence, count: int) -> list:
    return list(items) + [None] * (count - len(items))


def _levels(machine: Machine) -> list[str]:
    return [memory.level for memory in machine.memory]


def _slopes(machine: Machine, used_levels: set[str], roofs) -> tuple[Slope, ...]:
    top = max(roof.peak_FLOPps for roof in roofs)
    return tuple(Slope(level, bandwidth, top / bandwidth) for level in _levels(machine)
                 if (bandwidth := machine.bandwidth(level)) is not None
                 and (level in SLOPE_LEVELS or level in used_levels))


def _roofs(machine: Machine, precisions: Sequence[str]) -> tuple[Roof, ...]:
    """The machine's tensor and vector roofs of each precision. The SFU's rate is no roof of
    the whole: a kernel's exponentials are a share of its FLOP, so its ceiling is drawn in
    the kernel's own FLOP beside it (KernelMarks.ceilings)."""
    fastest = max(machine.bandwidth(level) or 0 for level in _levels(machine))
    peaks: dict[str, tuple[Unit, float]] = {}
    for precision in precisions:
        tensor = machine.dense_peak(precision, Unit.TENSOR)
        if tensor is not None:
            tensor_roof = machine.ceiling(precision, WorkClass.TENSOR).roof
            peaks.setdefault(short_roof_name(tensor_roof), (Unit.TENSOR, tensor.peak_FLOPps))
        vector = machine.ceiling(precision, WorkClass.VECTOR)
        peaks.setdefault(short_roof_name(vector.roof), (Unit.VECTOR, vector.peak_FLOPps))
    roofs = [Roof(name, unit, float(peak), float(peak) / fastest)
             for name, (unit, peak) in peaks.items()]
    return tuple(sorted(roofs, key=lambda roof: -roof.peak_FLOPps))


def _ridges(machine: Machine, precisions: Sequence[str], slopes) -> tuple[Ridge, ...]:
    ridges = []
    for precision in precisions:
        peak = float(machine.peak(precision, WorkClass.TENSOR))  # the precision's headline peak
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
    return spec, {**raw, **own}, own, reuse or Reuse.SPEC


def _setting_text(expr: sympy.Expr):
    return int(expr) if expr.is_Integer else sympy.sstr(expr)


def _kernel_marks(kernel: Placed, own: dict, size_range: SizeRange | None,
                  slopes: tuple[Slope, ...], measurement: Mapping | None) -> KernelMarks:
    spec, raw, machine, precision = kernel.spec, kernel.raw, kernel.machine, kernel.precision
    cost = spec.cost(kernel.reuse)
    levels = [s.level for s in slopes if s.level in cost.levels]
    settings = resolve_settings(raw, spec.parameters)
    values = numeric_values(spec, settings)
    refuse_verdict_sizes(spec, values, raw)
    refuse_beyond(values, raw, spec.kernel, MAX_FLOAT_SIZE, FLOAT_SIZES,  # a figure's are
                  "give it at most 2^53 (9.0e15), or analyze it without a figure")
    stage(f"placing `{spec.name}` on {machine.id}'s roofline", spec.kernel.span)
    result = verdict(cost, machine, precision, settings)
    peak = float(_kernel_peak(result, machine))
    points = _verdict_points(result, levels)
    if not points and cost.total_work == 0 and (size_range is None or measurement):
        raise SizeError(Code.NOTHING_TO_PLOT, Diagnostic(  # I = 0: no point on a log axis
            None,
            f"`{spec.name}` does no work (W = 0): its "
            "intensity is 0, which a log axis cannot show",
            f"its time is Q / B: kernelcost analyze {spec.path} --machine ..."))
    name = spec.name + (f" ({_sizes_text(own)})" if own else "")
    marks = KernelMarks(name, _kernel_label(spec, raw), precision, peak, points,
                        _binding(result, points) if points else None,
                        achieved=_achieved(result, points, measurement),
                        runs=not result.unsupported,
                        ceilings=ceilings(result) if points else (),
                        bound_by=bound_by(result) if points else None)
    if size_range is None:
        if not points:
            raise SizeError(Code.SIZES_UNSET, Diagnostic(
                None,
                f"`{spec.name}`: set every size (--set) or give "
                "a sweep (--sweep NAME=LOW..HIGH) to plot it"))
        return marks
    if size_range.parameter not in spec.parameters:
        raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
            None, f"`{size_range.parameter}` is not a parameter of `{spec.name}`"))
    bandwidths = {slope.level: slope.bandwidth_Bps for slope in slopes if slope.level in levels}
    found = trajectory(kernel, size_range, bandwidths)
    return replace(marks, parameter=found.parameter, sizes=found.sizes, paths=found.paths,
                   crossings=found.crossings, never=found.never, capacity=found.capacity,
                   ends=found.ends)


def _verdict_points(result: Verdict, levels: Sequence[str]) -> dict[str, Point]:
    """Each level's point, where its intensity is a positive number (a copy's I = 0 has no
    place on a log axis; a symbolic one waits for the sweep), at the kernel's rate W / t_min:
    under every slope and ceiling drawn (each term's time is at most t_min), on the one that
    binds. A level's own min(P, I_l B_l) put an attention bound by its exponentials on the
    tensor roof, far above what it runs at."""
    rate = result.performance
    return {level.level: Point(level.level, float(level.intensity),
                               min(float(rate), float(level.performance))
                               if rate.is_number and rate > 0 else float(level.performance))
            for level in result.levels
            if level.level in levels and level.intensity.is_number and level.intensity > 0}


def _binding(result: Verdict, points: dict[str, Point]) -> str | None:
    term = result.binding
    if result.unsupported:
        return None
    if term is not None and term.kind == TermKind.TRAFFIC and term.key in points:
        return term.key
    return None


def _achieved(result: Verdict, points: dict[str, Point],
              measurement: Mapping | None) -> tuple[Achieved, ...]:
    """The measured run (what Nsight Compute's roofline shows: the achieved FLOP/s at the
    kernel's intensity) and the model's point lowered by its derates."""
    if not points:
        if measurement:
            raise SizeError(Code.SIZES_UNSET, Diagnostic(
                None, "a measurement is drawn at the set sizes: set every size (--set)"))
        return ()
    binding = _binding(result, points) or next(iter(points))
    found = []
    if measurement:
        efficiency = measured_efficiency(result, **measurement)
        level = efficiency.level if efficiency.level in points else binding
        achieved = float(result.work_FLOP) / efficiency.measured_s
        found.append(Achieved("measured", level, points[level].intensity, achieved,
                              f"measured: {efficiency_text(efficiency)}"))
    performance = model_rate(result)
    roof = points[binding].performance
    if result.derates and performance is not None and performance < VISIBLE_DERATE * roof:
        found.append(Achieved("model", binding, points[binding].intensity, performance,
                              f"model {si(performance, 'FLOP/s')}: {strongest_derates(result)}"))
    return tuple(found)


def _sizes_text(raw: Mapping) -> str:
    return ", ".join(f"{name}={value_text(value)}" for name, value in raw.items())


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
        marks: list[Point | Achieved] = [*kernel.points.values(), *kernel.achieved]
        for mark in marks:
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
