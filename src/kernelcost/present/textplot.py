"""A small text roofline for the terminal, drawn like the chapter's figure:

    FLOP/s
     1P │           ┬────┬─────────  990 TFLOP/s bf16 tensor peak
        │          ╱    ╱
    10T │    S   ╱    ╱ H
        └─────────────────────────→ FLOP/B

log-log axes, one slope per memory level, the compute roof, a ridge mark where each slope
meets it, and the kernel as one letter per level at (I_l, min(P, I_l * B_l)). Plain text, no
colour and no terminal library: it prints anywhere, and tests compare strings."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..answers.model import Verdict, verdict
from ..base.levels import Level
from ..base.records import record
from ..base.units import plain, si
from ..hardware.machine import Machine
from .roofs import roof_name

HEIGHT = 12  # rows of the plotting area
LABEL_WIDTH = 6  # the y tick labels: "100T "
LEVEL_NAMES: dict[str, str] = {Level.GLOBAL: "HBM", Level.L2: "L2", Level.SHARED: Level.SHARED,
                               Level.REGISTERS: Level.REGISTERS}
LEVEL_MARKS: dict[str, str] = {Level.GLOBAL: "H", Level.L2: "L", Level.SHARED: "S",
                               Level.REGISTERS: "R"}

ROOF, SLOPE, RIDGE, AXIS_Y, AXIS_X, CORNER = "─", "╱", "┬", "│", "─", "└"
X_ARROW = "→ FLOP/B"


@record
class _Level:
    name: str
    bandwidth: float  # B/s
    ridge: float  # FLOP/B
    intensity: float  # FLOP/B
    performance: float  # FLOP/s attainable under this level's roof


def render(source, machine: Machine | None = None, precision: str | None = None,
           width: int = 72) -> str:
    """The text roofline of an Analysis (at its set sizes, on `machine`) or of one or more
    Verdicts (which know their machine).

    Raises ValueError when the sizes are not all set (a symbolic point cannot be drawn)."""
    verdicts = _verdicts(source, machine, precision)
    return "\n\n".join(_render_one(one, width) for one in verdicts)


def _verdicts(source, machine: Machine | None, precision: str | None) -> list[Verdict]:
    if isinstance(source, Verdict):
        return [source]
    if isinstance(source, Sequence) and all(isinstance(v, Verdict) for v in source):
        return list(source)
    # an Analysis: the model at its sizes (expression settings such as M=N included)
    if machine is None:
        raise ValueError("an Analysis is drawn on a machine: give one")
    return [verdict(source.cost, machine, precision, source.settings)]


def _render_one(result: Verdict, width: int) -> str:
    levels = _levels(result)
    if not levels:
        raise ValueError("no memory level with traffic and a bandwidth to draw")
    peak = float(result.levels[0].peak_FLOPps)
    columns = max(width - LABEL_WIDTH - 1 - len(X_ARROW), 24)
    x_range = _decades([level.intensity for level in levels] + [level.ridge for level in levels])
    y_range = _decades([level.performance for level in levels] + [peak])
    grid = [[" "] * columns for _ in range(HEIGHT)]
    to_column = _scale(x_range, columns)
    to_row = _scale(y_range, HEIGHT)
    _draw_slopes(grid, levels, peak, x_range, y_range, to_row)
    _draw_roof(grid, levels, peak, to_column, to_row)
    _draw_points(grid, levels, to_column, to_row)
    _write_above_roof(grid, to_row(peak),
                      f"{si(peak, 'FLOP/s')} {roof_name(result.levels[0].peak_roof)}")
    lines = [f"{'FLOP/s':>{LABEL_WIDTH - 1}}"]
    for row in range(HEIGHT - 1, -1, -1):
        label = _y_label(row, y_range)
        text = "".join(grid[row]).rstrip()
        lines.append(f"{label:>{LABEL_WIDTH - 1}} {AXIS_Y}{text}".rstrip())
    lines.append(" " * LABEL_WIDTH + CORNER + AXIS_X * columns + X_ARROW)
    lines.append(" " * (LABEL_WIDTH + 1) + _x_labels(x_range, columns))
    lines += _legend(result, levels)
    return "\n".join(lines)


def drawable(result: Verdict) -> bool:
    """Whether every level's intensity is a positive number (the sizes are all set, and the
    kernel does work: a copy's I = 0 has no place on a log axis)."""
    return bool(result.levels) and all(level.intensity.is_number and level.intensity > 0
                                       for level in result.levels)


def _levels(result: Verdict) -> list[_Level]:
    levels = []
    for level in result.levels:
        if not level.intensity.is_number:
            raise ValueError(f"the intensity at {level.level} is symbolic ({level.intensity}): "
                             "set every size to draw the kernel")
        levels.append(_Level(level.level, float(level.bandwidth_Bps), float(level.ridge),
                             float(level.intensity), float(level.performance)))
    return levels


def _decades(values: list[float]) -> tuple[float, float]:
    """Whole decades around the values, with half a decade of margin either side."""
    finite = [math.log10(v) for v in values if v > 0 and math.isfinite(v)]
    low, high = min(finite) - 0.5, max(finite) + 0.5
    return math.floor(low), math.ceil(high)


def _scale(log_range: tuple[float, float], cells: int):
    low, high = log_range

    def cell(value: float) -> int:
        position = (math.log10(value) - low) / (high - low) * cells
        return min(max(int(position), 0), cells - 1)

    return cell


def _draw_slopes(grid, levels: list[_Level], peak: float, x_range, y_range, to_row) -> None:
    columns = len(grid[0])
    low, high = x_range
    for column in range(columns):
        # the intensity at the middle of the column
        intensity = 10 ** (low + (column + 0.5) / columns * (high - low))
        for level in levels:
            height = intensity * level.bandwidth
            if 10 ** y_range[0] <= height < peak:
                grid[to_row(height)][column] = SLOPE


def _draw_roof(grid, levels: list[_Level], peak: float, to_column, to_row) -> None:
    row = to_row(peak)
    start = min(to_column(level.ridge) for level in levels)
    for column in range(start, len(grid[0])):
        grid[row][column] = ROOF
    for level in levels:
        grid[row][to_column(level.ridge)] = RIDGE


def _draw_points(grid, levels: list[_Level], to_column, to_row) -> None:
    for level in levels:
        grid[to_row(level.performance)][to_column(level.intensity)] = LEVEL_MARKS[level.name]


def _write_above_roof(grid, roof_row: int, label: str) -> None:
    """The roof's name, right-aligned on the row above it (nothing is drawn above the roof)."""
    row = min(roof_row + 1, len(grid) - 1)
    columns = len(grid[0])
    label = label[:columns]
    grid[row][columns - len(label):] = list(label)


def _y_label(row: int, y_range) -> str:
    """A decade label on the row where that decade starts."""
    low, high = y_range
    for decade in range(low, high + 1):
        position = (decade - low) / (high - low) * HEIGHT
        if int(position) == row and position < HEIGHT:
            return si(10.0 ** decade, "").replace(" ", "")
    return ""


def _x_labels(x_range, columns: int) -> str:
    low, high = x_range
    text = [" "] * (columns + 8)
    for decade in range(low, high + 1):
        column = round((decade - low) / (high - low) * columns)
        label = _decade_text(decade)
        start = min(column, columns + 8 - len(label))
        if all(char == " " for char in text[max(start - 1, 0):start + len(label) + 1]):
            text[start:start + len(label)] = label
    return "".join(text).rstrip()


def _decade_text(decade: int) -> str:
    value = 10.0 ** decade
    return f"{value:g}" if -3 <= decade <= 4 else f"1e{decade}"


def _legend(result: Verdict, levels: list[_Level]) -> list[str]:
    lines = [f"  {result.machine} {result.precision}"
             + (f", bound by {roof_name(result.bound)}" if result.bound is not None else "")]
    for level in levels:
        below = level.intensity < level.ridge
        lines.append(
            f"  {LEVEL_MARKS[level.name]} {LEVEL_NAMES[level.name]:<7} "
            f"I = {plain(level.intensity, '')}{'<' if below else '≥'} "
            f"ridge {plain(level.ridge, 'FLOP/B')}: "
            f"{'memory' if below else 'compute'}-bound, {si(level.performance, 'FLOP/s')}")
    return lines
