"""The "ski slope": Q_lower(S) of `bound` against the fast memory's capacity S (log-log) at
fixed sizes, the tight reference line of a matrix product, the spec's own traffic at each
level as a horizontal line (it does not depend on S), and the machine's capacities marked
(registers per SM, shared per SM, both together, L2; tensor memory with the registers where
the machine has it, as `bound` counts it). Where the slope meets the spec's line
the spec moves what the best schedule through that S would; left of it the spec's count
assumes more reuse than S can give."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy
import sympy

from ..analysis.api import Spec, _numeric_values
from ..answers.lower import LevelBound, machine_capacity
from ..base.errors import Code, Diagnostic, SizeError
from ..base.kinds import Reuse
from ..base.levels import Level
from ..base.records import record
from ..base.units import binary, si
from ..lang.settings import FLOAT_SIZES, MAX_FLOAT_SIZE, refuse_beyond, resolve_settings
from .bound_report import capacity_text

S_RANGE_B = (2.0 ** 10, 2.0 ** 32)  # 1 KiB to 4 GiB


@record
class Slope:
    S_B: numpy.ndarray  # capacities, bytes
    q_lower_B: numpy.ndarray
    reference_B: numpy.ndarray | None
    spec_B: tuple[tuple[str, float], ...]  # level -> the spec's traffic there, bytes
    capacities: tuple[tuple[str, float], ...]  # name -> bytes
    sizes: tuple[tuple[str, float], ...]


def slope(spec: Spec, result: LevelBound, machine, raw: dict) -> Slope:
    settings = resolve_settings(raw, spec.parameters)
    values = _numeric_values(spec, settings)
    missing = [str(p) for p in spec.checked.parameters if p not in values]
    if missing:
        raise SizeError(Code.SIZES_UNSET, Diagnostic(
            None,
            "--plot: the ski-slope figure needs every size: "
            + ", ".join(missing), "add --set " + ",".join(f"{m}=4096" for m in missing)))
    refuse_beyond(values, raw, spec.kernel, MAX_FLOAT_SIZE, FLOAT_SIZES,
                  "give it at most 2^53 (9.0e15), or bound it without --plot")
    b = float(result.word_bytes)
    S_B = numpy.geomspace(*S_RANGE_B, 400)

    def curve(expr):
        at = sympy.sympify(expr).xreplace(values)
        function = sympy.lambdify(result.S, at, modules="numpy")
        return b * numpy.broadcast_to(numpy.asarray(function(S_B / b), dtype=float), S_B.shape)

    reference = None if result.reference is None else curve(result.reference)
    traffic = spec.cost(Reuse.SPEC).traffic
    spec_B = tuple((level, float(sympy.sympify(q).xreplace(values)))
                   for level, q in traffic.items())
    capacities = []
    if machine is not None:
        # the S of each bound level (tensor memory with the registers, where the machine
        # has it), and shared memory alone
        registers, registers_parts = machine_capacity(machine, Level.REGISTERS)
        fast, fast_parts = machine_capacity(machine, Level.SHARED)
        for name, value in ((capacity_text(registers_parts), registers),
                            ("shared per SM", machine.capacity(Level.SHARED)),
                            (capacity_text(fast_parts), fast),
                            ("L2", machine.capacity(Level.L2))):
            if value:
                capacities.append((name, float(value)))
    sizes = tuple((str(p), float(values[p])) for p in spec.checked.parameters
                  if p not in spec.checked.defaults)  # the tile defaults are in the spec
    q_lower = curve(result.q_lower)
    if not (q_lower > 0).any() and not any(value > 0 for _, value in spec_B):
        at = ", ".join(f"{name} = {value:g}" for name, value in sizes)
        raise SizeError(Code.NOTHING_TO_PLOT, Diagnostic(
            None, f"--plot: at {at} Q_lower is 0 B at every S and the spec moves no byte, "
                  "which a log axis cannot show",
            "give sizes where the kernel moves bytes, or bound it without --plot"))
    return Slope(S_B, q_lower, reference, spec_B, tuple(capacities), sizes)


def draw(result: Slope, title: str):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 6), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.set_xscale("log")
    axes.set_yscale("log")
    (line,) = axes.plot(result.S_B, result.q_lower_B, color="black", lw=2,
                        label="Q_lower(S): no schedule moves less")
    line.set_gid("qlower")
    if result.reference_B is not None:
        (ref,) = axes.plot(result.S_B, result.reference_B, ":", color="black",
                           label="2|Z|/sqrt(S) words (tight, Smith et al. 2019)")
        ref.set_gid("reference")
    for k, (level, value) in enumerate(result.spec_B):
        (flat,) = axes.plot(result.S_B[[0, -1]], [value, value], "-", lw=1.2,
                            color=f"C{k}", label=f"the spec's Q {level}")
        flat.set_gid(f"spec:{level}")
    for (name, value), height in zip(result.capacities, _label_heights(result.capacities)):
        mark = axes.axvline(value, color="grey", ls="--", lw=0.8)
        mark.set_gid(f"capacity:{name}")
        axes.text(value, height, f" {name}", rotation=90, va="top", fontsize=7,
                  transform=axes.get_xaxis_transform(), gid=f"capacity-label:{name}")
    axes.set_xlabel("S, capacity of the fast memory")
    axes.set_ylabel("traffic into it")
    _byte_ticks(axes)
    sizes = ", ".join(f"{name}={value:g}" for name, value in result.sizes)
    axes.set_title(f"{title} ({sizes})", fontsize=10)
    axes.legend(fontsize=8, loc="lower left")
    return figure


# capacities closer than this (a tenth of a decade, about 14 pixels of the figure's axis)
# have their labels one under the other: 228 KiB of shared memory beside 256 KiB of registers
_NEAR_DECADES = 0.1
_LABEL_HEIGHTS = (0.98, 0.62, 0.26)  # of the axes, from the top


def _label_heights(capacities: Sequence[tuple[str, float]]) -> list[float]:
    """Where each capacity's vertical label starts: at the top, or under the label of a
    capacity near it (in log space), so that no two labels overlap."""
    heights: list[float] = []
    for index, (_, value) in enumerate(capacities):
        taken = {heights[other] for other, (_, near) in enumerate(capacities[:index])
                 if abs(math.log10(value / near)) < _NEAR_DECADES}
        heights.append(next((h for h in _LABEL_HEIGHTS if h not in taken), _LABEL_HEIGHTS[0]))
    return heights


def _byte_ticks(axes) -> None:
    """Capacities in binary units at powers of 32 (1 KiB, 32 KiB, 1 MiB), as data sheets
    state them; traffic in decimal ones (1 GB): the axes showed raw byte counts."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axes.xaxis.set_major_locator(LogLocator(base=32))
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: binary(value, 4)))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: si(value, "B")))
    for axis in (axes.xaxis, axes.yaxis):
        axis.set_minor_formatter(NullFormatter())
