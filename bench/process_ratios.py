"""Section 6 of bench/bench.py: whole commands as ratios to importing sympy, with machines.

Each timed command runs right after a `python -c "import sympy"` floor run, and the figure is
the median over the runs of the paired ratio (command CPU / floor CPU), so a machine that
slows down mid-run slows both halves of a pair alike. Four modes per shipped spec:

- `analyze SPEC --json` (target <= 1.3x),
- `analyze SPEC --json --machine h100` (<= 1.4x),
- `analyze SPEC --json --machine all` (<= 1.6x),

and `solve specs/gemm_tiled.kcost --for N` (<= 1.5x)."""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Timer = Callable[[list[str]], tuple[float, float]]  # command -> (wall s, CPU s)


@dataclass(frozen=True)
class Mode:
    name: str  # column heading
    arguments: tuple[str, ...]  # after `analyze SPEC --json`
    target: float  # ratio to the floor


MODES = (Mode("analyze --json", (), 1.3),
         Mode("--machine h100", ("--machine", "h100"), 1.4),
         Mode("--machine all", ("--machine", "all"), 1.6))
SOLVE = Mode("solve gemm_tiled --for N", (), 1.5)
SOLVE_ARGUMENTS = ("solve", "specs/gemm_tiled.kcost", "--for", "N")


def paired_ratios(command: list[str], floor: list[str], timer: Timer,
                  repeats: int) -> tuple[float, float]:
    """Median CPU seconds of `command` and median of its CPU over the floor run before it."""
    timer(command)  # warm-up: bytecode, file cache
    seconds, ratios = [], []
    for _ in range(repeats):
        floor_cpu = timer(floor)[1]
        command_cpu = timer(command)[1]
        seconds.append(command_cpu)
        ratios.append(command_cpu / floor_cpu)
    return statistics.median(seconds), statistics.median(ratios)


def process_ratios(specs: list[Path], root: Path, command: list[str], timer: Timer,
                   table: Callable[[list[str], list[list[str]]], str],
                   repeats: int) -> tuple[str, dict]:
    floor = [sys.executable, "-c", "import sympy"]
    timer(floor)
    rows, figures = [], {}
    for spec in specs:
        analyze = command + ["analyze", str(spec.relative_to(root)), "--json"]
        row, spec_figures = [spec.stem], {}
        for mode in MODES:
            cpu, ratio = paired_ratios(analyze + list(mode.arguments), floor, timer, repeats)
            spec_figures[mode.name] = {"cpu_s": cpu, "ratio": ratio}
            row += [f"{cpu:.2f}", _ratio_cell(ratio, mode.target)]
        figures[spec.stem] = spec_figures
        rows.append(row)
    cpu, ratio = paired_ratios(command + list(SOLVE_ARGUMENTS), floor, timer, repeats)
    figures[SOLVE.name] = {"cpu_s": cpu, "ratio": ratio}
    headers = ["spec"]
    for mode in MODES:
        headers += [f"{mode.name} CPU (s)", f"ratio (<= {mode.target}x)"]
    text = table(headers, rows)
    summary = []
    for mode in MODES:
        ratios = {name: spec_figures[mode.name]["ratio"]
                  for name, spec_figures in figures.items() if name != SOLVE.name}
        worst = max(ratios, key=ratios.get)
        over = sum(ratio > mode.target for ratio in ratios.values())
        summary.append(f"`{mode.name}`: median {statistics.median(ratios.values()):.2f}x, "
                       f"worst {ratios[worst]:.2f}x ({worst}), {over} of {len(ratios)} over "
                       f"{mode.target}x")
    summary.append(f"`kernelcost {' '.join(SOLVE_ARGUMENTS)}`: {cpu:.2f} s CPU, "
                   f"{_ratio_cell(ratio, SOLVE.target)} (target <= {SOLVE.target}x)")
    note = ("CPU seconds: medians; ratios: medians over " f"{repeats} runs of the command's CPU "
            "time over that of `python -c \"import sympy\"` run just before it, after one "
            "warm-up of each command.\n\n" + "\n".join(f"- {line}" for line in summary))
    return text + "\n\n" + note, figures


def _ratio_cell(ratio: float, target: float) -> str:
    return f"{ratio:.2f}x" + ("" if ratio <= target else " (over)")
