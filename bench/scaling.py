"""Sections 3 and 4 of bench/bench.py: how load + analyze grows on generated specs (nest depth,
statements, tensors, keep scopes), and how many sizes a second a sweep evaluates."""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

DEEP_NEST_TARGET_S = 2.0  # depth 8, 64 statements, in process
SWEEP_TARGET = 1e7  # sizes per second


# --- 3. scaling --------------------------------------------------------------------------

KEEP_LEVELS = ("l2", "shared", "registers")


def generated_spec(depth: int = 1, statements: int = 1, tensors: int = 2, keeps: int = 0) -> str:
    """A spec with `depth` nested loops (one size each), `statements` accumulations in the
    innermost body over `tensors` tensors (one output, the rest inputs indexed by pairs of
    loop variables), and `keeps` nested keep scopes, one around each of the outer loops."""
    depth = max(depth, keeps, 1)
    sizes = [f"N{level}" for level in range(1, depth + 1)]
    loops = [f"i{level}" for level in range(1, depth + 1)]
    inputs = max(tensors - 1, keeps)
    lines = [f"kernel generated({', '.join(sizes)}) {{",
             f"    out Y: f32[{', '.join(sizes)}]"]
    input_indices = []
    for number in range(inputs):
        first, second = number % depth, (number + 1 + number // depth) % depth
        dims = [first] if first == second else [first, second]
        input_indices.append(", ".join(loops[d] for d in dims))
        lines.append(f"    in X{number}: f32[{', '.join(sizes[d] for d in dims)}]")
    if inputs:
        body = [f"Y[{', '.join(loops)}] += X{j % inputs}[{input_indices[j % inputs]}] "
                f"* X{(j + 1) % inputs}[{input_indices[(j + 1) % inputs]}]"
                for j in range(statements)]
    else:  # one tensor: the output alone
        body = [f"Y[{', '.join(loops)}] += {j + 1}" for j in range(statements)]
    for level in reversed(range(depth)):
        body = [f"for {loops[level]} in 0..{sizes[level]} {{"] + ["    " + b for b in body] + ["}"]
        if level < keeps:
            keep_level = KEEP_LEVELS[level % len(KEEP_LEVELS)]
            body = [f"keep X{level} in {keep_level} {{"] + ["    " + b for b in body] + ["}"]
    lines += ["    " + b for b in body] + ["}"]
    return "\n".join(lines) + "\n"


SERIES = {
    "nest depth": ("depth", [1, 2, 3, 4, 5, 6, 7, 8], dict(statements=1, tensors=2)),
    "statements (depth 3)": ("statements", [1, 2, 4, 8, 16, 32, 64], dict(depth=3, tensors=4)),
    "tensors (depth 3)": ("tensors", [1, 2, 4, 8, 16], dict(depth=3, statements=16)),
    "keep scopes (depth 6)": ("keeps", [1, 2, 3, 4, 5, 6], dict(depth=6, statements=2,
                                                                 tensors=7)),
}
QUICK_SERIES = {
    "nest depth": ("depth", [1, 2, 4, 8], dict(statements=1, tensors=2)),
    "statements (depth 3)": ("statements", [1, 4, 16, 64], dict(depth=3, tensors=4)),
    "tensors (depth 3)": ("tensors", [1, 4, 16], dict(depth=3, statements=16)),
    "keep scopes (depth 6)": ("keeps", [1, 3, 6], dict(depth=6, statements=2, tensors=7)),
}


def load_and_analyze(text: str):
    from sympy.core.cache import clear_cache

    import kernelcost

    clear_cache()
    return kernelcost.analyze(kernelcost.loads(text, "<generated>"))


def time_and_memory(text: str, median_seconds: Callable,
                    repeats: int = 1) -> tuple[float, float]:
    """Median seconds without tracing, then peak traced MiB in one more run (tracing slows
    it)."""
    gc.collect()
    seconds = median_seconds(lambda: load_and_analyze(text), repeats)
    gc.collect()
    tracemalloc.start()
    load_and_analyze(text)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak / 2**20


def scaling(quick: bool, median_seconds: Callable, loglog_slope: Callable,
            markdown_table: Callable) -> tuple[str, dict]:
    series = QUICK_SERIES if quick else SERIES
    repeats = 1 if quick else 3
    rows, figures = [], {}
    load_and_analyze(generated_spec())  # first-use costs out of the first row
    for name, (knob, sizes, fixed) in series.items():
        times, peaks = [], []
        for size in sizes:
            seconds, peak = time_and_memory(generated_spec(**{knob: size}, **fixed),
                                            median_seconds, repeats)
            times.append(seconds)
            peaks.append(peak)
            rows.append([name, str(size), f"{seconds * 1000:.0f}", f"{peak:.1f}", "", ""])
        rows[-1][4] = f"{loglog_slope(sizes, times):.2f}"
        rows[-1][5] = f"{loglog_slope(sizes, peaks):.2f}"
        figures[name] = {"sizes": sizes, "seconds": times, "peak_MiB": peaks}
    seconds, peak = time_and_memory(generated_spec(depth=8, statements=64, tensors=16),
                                    median_seconds, repeats)
    rows.append(["target: depth 8, 64 statements, 16 tensors", "-", f"{seconds * 1000:.0f}",
                 f"{peak:.1f}", "", ""])
    figures["depth 8 x 64 statements"] = {"seconds": seconds, "peak_MiB": peak}
    table = markdown_table(["series", "size", "load+analyze (ms)", "peak (MiB)",
                            "time slope", "memory slope"], rows)
    verdict = "yes" if seconds < DEEP_NEST_TARGET_S else "no"
    note = (f"times: median of {repeats} run(s), sympy's cache cleared before each; peak: "
            "tracemalloc over one more run; slopes: least-squares log-log fit over the series "
            f"(1 = linear); depth 8 x 64 "
            f"statements under {DEEP_NEST_TARGET_S:.0f} s in process: {verdict}")
    return table + "\n\n" + note, figures


# --- 4. sweep throughput -----------------------------------------------------------------

def sweep_throughput(quick: bool, root: Path, median_seconds: Callable,
                     markdown_table: Callable) -> tuple[str, dict]:
    import numpy
    import sympy

    import kernelcost
    from kernelcost.count.values import evaluate, parameter_values
    from kernelcost.present import sweep

    spec = kernelcost.load(root / "specs" / "gemm_tiled.kcost")
    cost = spec.cost("spec")
    n = spec.parameters["N"]
    settings = {spec.parameters["M"]: n, spec.parameters["K"]: n}
    substitutions = parameter_values(cost, settings, apply_defaults=True, exclude=n)
    intensity = sympy.cancel(evaluate(cost.intensity("global"), substitutions))
    count = 10**5 if quick else 10**6
    sizes = numpy.arange(1, count + 1, dtype=float) * 128
    start = time.perf_counter()
    function = sweep.vectorized(intensity, n)
    build = time.perf_counter() - start
    function(sizes)
    seconds = median_seconds(lambda: function(sizes), 5 if quick else 15)
    rate = count / seconds
    start = time.perf_counter()
    sweep.sweep(spec, sizes, "N", settings={"M": "N", "K": "N"})
    whole = time.perf_counter() - start
    rows = [["intensity I_global(N), lambdified", f"{count:,}", f"{seconds * 1000:.2f}",
             f"{rate:.3g}", "yes" if rate >= SWEEP_TARGET else "no"],
            ["sweep.sweep(): W, Q per level, I per level", f"{count:,}", f"{whole * 1000:.1f}",
             f"{count / whole:.3g}", ""]]
    table = markdown_table(["gemm_tiled, M = K = N, T = 128", "sizes", "time (ms)", "sizes/s",
                            f">= {SWEEP_TARGET:.0e}"], rows)
    note = f"closed form: `{intensity}`; lambdify took {build * 1000:.0f} ms"
    return table + "\n\n" + note, {"sizes_per_s": rate, "sweep_call_s": whole}
