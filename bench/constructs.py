"""Section 7 of bench/bench.py: the execution model and the bounds, each as a series whose
time growth is fitted on a log-log scale (slope 1: linear in the series' size).

- blocks, waves and L2 unions: the h100 verdict of gemm_hopper (2-block clusters, grouped
  raster) at M = N = K = n, where the grid holds n^2 / 32768 blocks: occupancy, the busiest
  SM's share, the waves and the wave-union estimate of global traffic, all per verdict;
- the HBL program: `level_bound` (the lower-bound linear program and the optimal tile) at
  shared memory for generated nests of growing depth;
- tuning: `tune` over TM, TN, TK of gemm_hopper at N = 8192 for growing candidate counts.

Times are in process, medians of `repeats` runs after one untimed run (sympy's cache is not
cleared: the series measure how each construct grows, not first-use costs)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

HOPPER_SIZES = (2048, 4096, 8192, 16384, 32768)
BOUND_DEPTHS = (2, 3, 4, 5, 6)
TUNE_VALUES = ("16..512:64", "16..512:32", "16..512:16", "16..512:8")


def _median_ms(function, repeats: int) -> float:
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def _grid_series(root: Path, repeats: int):
    import kernelcost
    from kernelcost.answers.model import verdict
    from kernelcost.hardware.machinefile import load_machine

    spec = kernelcost.load(root / "specs" / "gemm_hopper.kcost")
    cost = spec.cost("spec")
    machine = load_machine("h100")
    n, m, k = (spec.parameters[name] for name in ("N", "M", "K"))
    sizes, times, notes = [], [], []
    for size in HOPPER_SIZES:
        values = {n: size, m: size, k: size}
        result = verdict(cost, machine, None, values)
        blocks = int(result.grid.occupancy.blocks)
        sizes.append(blocks)
        times.append(_median_ms(lambda at=values: verdict(cost, machine, None, at), repeats))
        notes.append(f"n = {size}, {int(result.grid.occupancy.waves)} waves")
    return "blocks, waves, L2 unions: gemm_hopper verdict on h100", "blocks", sizes, times, notes


def _bound_series(repeats: int, generated_spec: Callable[..., str]):
    import kernelcost
    from kernelcost.answers.lower import level_bound
    from kernelcost.hardware.machinefile import load_machine

    machine = load_machine("h100")
    times = []
    for depth in BOUND_DEPTHS:
        spec = kernelcost.loads(generated_spec(depth=depth, statements=1, tensors=3),
                                "<generated>")
        times.append(_median_ms(lambda nest=spec: level_bound(nest, "shared", machine),
                                repeats))
    return ("HBL program: level_bound at shared, generated nests", "nest depth",
            list(BOUND_DEPTHS), times, [""] * len(times))


def _tune_series(root: Path, repeats: int):
    import kernelcost
    from kernelcost.answers.tune import tune
    from kernelcost.hardware.machinefile import load_machine
    from kernelcost.lang.sizerange import parse_values

    spec = kernelcost.load(root / "specs" / "gemm_hopper.kcost")
    spec.cost("spec")
    machine = load_machine("h100")
    settings = {"M": "N", "K": "N", "N": "8192"}
    sizes, times = [], []
    import inspect

    # the vectorised search alone: a tree whose tune re-scores a shortlist for t_model
    # (issue 41) is asked not to, so that the series grows with the candidates as before
    search_only = {"rescore": 0} if "rescore" in inspect.signature(tune).parameters else {}
    for text in TUNE_VALUES:
        values = parse_values(text, False)
        sizes.append(len(values) ** 3)
        times.append(_median_ms(
            lambda tried=values: tune(spec, machine, ["TM", "TN", "TK"], tried, settings,
                                      **search_only),
            repeats))
    return ("tuning: tune gemm_hopper TM, TN, TK on h100", "candidates", sizes, times,
            [f"values {text}" for text in TUNE_VALUES])


def constructs(root: Path, repeats: int, generated_spec: Callable[..., str],
               slope: Callable[[list[float], list[float]], float],
               table: Callable[[list[str], list[list[str]]], str]) -> tuple[str, dict]:
    rows, figures = [], {}
    for name, unit, sizes, times, notes in (_grid_series(root, repeats),
                                            _bound_series(repeats, generated_spec),
                                            _tune_series(root, repeats)):
        series_rows = [[name, f"{size:,} {unit}", f"{ms:.1f}", note, ""]
                       for size, ms, note in zip(sizes, times, notes)]
        series_rows[-1][4] = f"{slope(sizes, times):.2f}"
        rows += series_rows
        figures[name] = {"unit": unit, "sizes": sizes, "ms": times}
    text = table(["construct", "size", "time (ms)", "note", "time slope"], rows)
    note = (f"in process, medians of {repeats} runs after one untimed run; slopes: "
            "least-squares fit of log(time) against log(size) over the series")
    return text + "\n\n" + note, figures
