"""The roofline as numbers, no matplotlib: roofs per compute ceiling, slopes per memory
level, ridge points, and each kernel as a point per level (and a path over a size sweep) with
its crossings. The figure (plot.draw) and anything else that draws a roofline read it."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy
import sympy

from .analysis import Analysis, Spec, load
from .errors import Diagnostic, KcostError
from .hardware import Machine, load_machine
from .model import Verdict, verdict
from .settings import resolve_settings
from .solve import ridge_crossings
from .sweep import SizeRange, sweep
from .units import plain

SLOPE_LEVELS = ("global", "l2", "shared")  # the chapter's hierarchy; registers when used
PATH_POINTS = 400  # a smooth path on log axes
PATH_MARKS = 6  # sizes marked along a path, equally spaced on the log axis



@dataclass(frozen=True)
class Roof:
    name: str  # "bf16 tensor peak"
    unit: str  # tensor | vector | sfu
    peak_FLOPps: float


@dataclass(frozen=True)
class Slope:
    level: str
    bandwidth_Bps: float


@dataclass(frozen=True)
class CrossingMark:
    level: str
    parameter: str
    value: float  # the crossing size, as solve gives it
    ridge: float  # FLOP/B: where the path meets the ridge
    label: str  # "N* = 699"


@dataclass(frozen=True)
class KernelMarks:
    """One kernel on the figure: a point per level, and a path per level over a sweep."""

    label: str
    points: dict[str, float]  # level -> I_l at the set sizes (FLOP/B); empty while symbolic
    parameter: str | None = None  # the swept size
    sizes: numpy.ndarray | None = None
    paths: dict[str, numpy.ndarray] = field(default_factory=dict)  # level -> I_l per size
    crossings: tuple[CrossingMark, ...] = ()
    never: dict[str, str] = field(default_factory=dict)  # level -> "never: I → 64 < 295.5"


@dataclass(frozen=True)
class Scene:
    title: str
    machine: Machine
    precision: str  # the main one: its fma ceiling is P for points and ridges
    peak_FLOPps: float  # P
    roofs: tuple[Roof, ...]
    slopes: tuple[Slope, ...]
    kernels: tuple[KernelMarks, ...]

    def ridge(self, level: str) -> float:
        return self.peak_FLOPps / self.bandwidth(level)

    def bandwidth(self, level: str) -> float:
        return next(s.bandwidth_Bps for s in self.slopes if s.level == level)

    def attainable(self, level: str, intensity):
        """min(P, I * B_l): the height of a kernel's point under a level's roof."""
        return numpy.minimum(self.peak_FLOPps, numpy.asarray(intensity) * self.bandwidth(level))


def scene(kernels, machine: Machine | str, precisions: Sequence[str] = (), *,
          settings: Mapping | None = None, size_range: SizeRange | None = None,
          reuse: str | None = None, on_kernel: Callable[[], None] | None = None) -> Scene:
    """Gather what a roofline figure shows. `kernels`: Analyses, Specs or spec paths (or one);
    `settings` (raw, {"M": "N", "N": 4096}) apply to every spec that has the parameter;
    `size_range` draws each kernel's path as that size grows; `on_kernel` is called as each
    kernel is done (a progress bar)."""
    machine = load_machine(machine) if isinstance(machine, str) else machine
    kernels = [kernels] if isinstance(kernels, (Analysis, Spec, str, Path)) else list(kernels)
    loaded = [_spec_and_settings(k, settings, reuse) for k in kernels]
    precisions = list(precisions) or [loaded[0][0].cost(loaded[0][2]).precision]
    precision = precisions[0]
    peak = float(machine.peak(precision, "fma"))
    uses_sfu = any(spec.cost(mode).work.get("sfu", 0) != 0 for spec, _, mode in loaded)
    used_levels = {level for spec, _, mode in loaded for level in spec.cost(mode).levels}
    slopes = tuple(Slope(level, machine.bandwidth(level)) for level in _levels(machine)
                   if machine.bandwidth(level) is not None
                   and (level in SLOPE_LEVELS or level in used_levels))
    marks = []
    for spec, raw, mode in loaded:
        marks.append(_kernel_marks(spec, raw, mode, machine, precision, size_range, slopes))
        if on_kernel is not None:
            on_kernel()
    title = f"{machine.name}, {', '.join(precisions)}: hierarchical roofline"
    return Scene(title, machine, precision, peak, _roofs(machine, precisions, uses_sfu),
                 slopes, tuple(marks))


def verdict_scene(result: Verdict, label: str = "kernel") -> Scene:
    """The figure of one verdict: its machine's roofs and slopes, the kernel's points."""
    machine = load_machine(result.machine)
    points = {level.level: float(level.intensity) for level in result.levels
              if level.intensity.is_number and level.intensity > 0}
    slopes = tuple(Slope(level, machine.bandwidth(level)) for level in _levels(machine)
                   if machine.bandwidth(level) is not None
                   and (level in SLOPE_LEVELS or level in points))
    return Scene(f"{machine.name}, {result.precision}: hierarchical roofline", machine,
                 result.precision, float(machine.peak(result.precision, "fma")),
                 _roofs(machine, [result.precision], False), slopes,
                 (KernelMarks(label, points),))


def _levels(machine: Machine) -> list[str]:
    return [memory.level for memory in machine.memory]


def _roofs(machine: Machine, precisions: Sequence[str], uses_sfu: bool) -> tuple[Roof, ...]:
    roofs: dict[str, Roof] = {}
    for precision in precisions:
        tensor = machine.dense_peak(precision, "tensor")
        if tensor is not None:
            roofs.setdefault(f"{precision} tensor", Roof(f"{precision} tensor", "tensor",
                                                        tensor.peak_FLOPps))
        vector = machine.ceiling(precision, "vector")
        name = vector.name.removesuffix(" peak")
        roofs.setdefault(name, Roof(name, "vector", vector.peak_FLOPps))
        if uses_sfu:
            sfu = machine.ceiling(precision, "sfu")
            roofs.setdefault("sfu", Roof(sfu.name, "sfu", sfu.peak_FLOPps))
    return tuple(sorted(roofs.values(), key=lambda roof: -roof.peak_FLOPps))


def _spec_and_settings(kernel, settings: Mapping | None, reuse: str | None):
    """(spec, raw settings for this spec, reuse mode). Settings name parameters of any of the
    specs on the figure; each spec takes those it has."""
    if isinstance(kernel, Analysis):
        raw = {str(s): _setting_text(e) for s, e in kernel.settings.items()}
        raw.update(settings or {})
        return kernel.spec, raw, reuse or kernel.reuse
    spec = kernel if isinstance(kernel, Spec) else load(kernel)
    raw = {name: value for name, value in (settings or {}).items() if name in spec.parameters}
    return spec, raw, reuse or "spec"


def _setting_text(expr: sympy.Expr):
    return int(expr) if expr.is_Integer else sympy.sstr(expr)


def _value_text(value) -> str:
    """A size as a person writes it: 4096, 7e10, M=N."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e6:
        return str(int(value))
    if isinstance(value, (int, float)):
        return f"{value:g}".replace("e+", "e")
    return str(value)


def _kernel_marks(spec: Spec, raw: dict, reuse: str, machine: Machine, precision: str,
                  size_range: SizeRange | None, slopes: tuple[Slope, ...]) -> KernelMarks:
    cost = spec.cost(reuse)
    levels = [s.level for s in slopes if s.level in cost.levels]
    label = _kernel_label(spec, raw)
    points = _points(spec, raw, reuse, machine, precision, levels)
    if size_range is None:
        if not points and cost.total_work == 0:  # I = 0: no point on a log axis
            raise KcostError(Diagnostic(None, f"`{spec.name}` does no work (W = 0): its "
                                              "intensity is 0, which a log axis cannot show",
                                        f"its time is Q / B: kernelcost analyze {spec.path} "
                                        "--machine ..."))
        if not points:
            raise KcostError(Diagnostic(None, f"`{spec.name}`: set every size (--set) or give "
                                              "a sweep (--sweep NAME=LOW..HIGH) to plot it"))
        return KernelMarks(label, points)
    if size_range.parameter not in spec.parameters:
        raise KcostError(Diagnostic(None, f"`{size_range.parameter}` is not a parameter of "
                                          f"`{spec.name}`"))
    path = sweep(spec, size_range.dense(PATH_POINTS), settings=raw, reuse=reuse)
    crossings, never = _crossings(spec, raw, reuse, machine, precision, size_range, levels)
    return KernelMarks(label, points, size_range.parameter, path.sizes,
                       {level: path.intensity[level] for level in levels}, crossings, never)


def _points(spec: Spec, raw: dict, reuse: str, machine: Machine, precision: str,
            levels: list[str]) -> dict[str, float]:
    """I_l at the set sizes, or {} when some size is left unset (the sweep draws the path)."""
    settings = resolve_settings(raw, spec.parameters)
    result = verdict(spec.cost(reuse), machine, precision, settings)
    points = {}
    for level in result.levels:
        # a kernel without work (a copy) has I = 0: nothing to place on a log axis
        if level.level in levels and level.intensity.is_number and level.intensity > 0:
            points[level.level] = float(level.intensity)
    return points


def _crossings(spec: Spec, raw: dict, reuse: str, machine: Machine, precision: str,
               size_range: SizeRange, levels: list[str]):
    """The ridge crossings inside the swept range, exactly as `solve` gives them, and for a
    level that never crosses, the limit the intensity tends to instead."""
    others = {name: value for name, value in raw.items() if name != size_range.parameter}
    values = resolve_settings(others, spec.parameters)
    marks, never = [], {}
    for level in levels:
        for crossing in ridge_crossings(spec.cost(reuse), size_range.parameter, machine,
                                        precision, level, values, apply_defaults=True):
            ridge = float(crossing.ridge)
            if crossing.value is None:
                never[level] = never_label(crossing.limit, ridge)
            elif crossing.value.is_number:
                value = float(crossing.value)
                if size_range.low <= value <= size_range.high:
                    marks.append(CrossingMark(level, crossing.parameter, value, ridge,
                                              crossing_label(crossing.parameter, value)))
    return tuple(marks), never


def crossing_label(parameter: str, value: float) -> str:
    """'N* = 699': the crossing size, 4 significant digits as `units.plain` prints it."""
    return f"{parameter}* = {plain(value, '').strip()}"


def never_label(limit, ridge: float) -> str:
    limit_value = float(limit) if limit is not None and limit.is_number else None
    if limit_value is None or math.isinf(limit_value):
        return "never crosses the ridge"
    return (f"never crosses: I → {plain(limit_value, '').strip()} "
            f"< {plain(ridge, 'FLOP/B')}")


def _kernel_label(spec: Spec, raw: dict) -> str:
    sizes = [f"{name}={_value_text(value)}" for name, value in raw.items()]
    # a swept default stays in the label: it is where the point is drawn
    defaults = [f"{symbol}={value}" for symbol, value in spec.checked.defaults.items()
                if str(symbol) not in raw]
    shown = ", ".join(sizes + defaults)
    return f"{spec.name} ({shown})" if shown else spec.name
