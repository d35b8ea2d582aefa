"""Section 8 of bench/bench.py: what starting the command line costs before any spec is read.

`import kernelcost.cli` as the console script imports it (sympy then lean: lean_sympy) as a
median of paired CPU ratios to the `python -c "import sympy"` floor, and the same under
`python -X importtime` as the median over the runs of each module's cumulative import time
(the heaviest kernelcost modules and the libraries they pull in). -X importtime reads wall time
and inflates it for what it measures: its figures rank the modules, the paired CPU ratio is the
cost."""

from __future__ import annotations

import statistics
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable

Timer = Callable[[list[str]], tuple[float, float]]  # command -> (wall s, CPU s)

# the console script's argv[0]: a command's process imports sympy lean
IMPORT = "import sys; sys.argv[0] = 'kernelcost'; import kernelcost.cli"
LIBRARIES = ("sympy", "lark", "numpy", "rich", "tomllib", "json", "argparse", "csv")
SHOWN = 12  # kernelcost modules listed, by cumulative time


def import_times(environment: dict[str, str], repeats: int) -> dict[str, float]:
    """Module -> median cumulative import milliseconds over `repeats` runs (0 when a run
    did not import it)."""
    runs: dict[str, list[float]] = defaultdict(list)
    for _ in range(repeats):
        completed = subprocess.run([sys.executable, "-X", "importtime", "-c", IMPORT],
                                   capture_output=True, text=True, check=True, env=environment)
        for line in completed.stderr.splitlines():
            fields = line.removeprefix("import time:").split("|")
            if len(fields) != 3 or not fields[1].strip().isdigit():
                continue
            runs[fields[2].strip()].append(int(fields[1]) / 1000)
    return {module: statistics.median(times + [0.0] * (repeats - len(times)))
            for module, times in runs.items()}


def startup(timer: Timer, environment: dict[str, str], table: Callable[[list[str],
            list[list[str]]], str], repeats: int) -> tuple[str, dict]:
    floor = [sys.executable, "-c", "import sympy"]
    command = [sys.executable, "-c", IMPORT]
    timer(floor), timer(command)  # warm-up: bytecode and file cache
    floor_cpu, command_cpu, ratios = [], [], []
    for _ in range(repeats):
        floor_cpu.append(timer(floor)[1])
        command_cpu.append(timer(command)[1])
        ratios.append(command_cpu[-1] / floor_cpu[-1])
    cumulative = import_times(environment, repeats)
    modules = sorted((m for m in cumulative if m.startswith("kernelcost.")),
                     key=cumulative.get, reverse=True)[:SHOWN]
    rows = [[f"`{module}`", f"{cumulative[module]:.1f}"]
            for module in (*(m for m in LIBRARIES if m in cumulative), "kernelcost", *modules)
            if module in cumulative]
    own = cumulative.get("kernelcost.cli", 0.0) - sum(cumulative.get(library, 0.0)
                                                       for library in ("sympy", "lark"))
    figures = {"floor_cpu_s": statistics.median(floor_cpu),
               "import_cpu_s": statistics.median(command_cpu),
               "ratio": statistics.median(ratios), "importtime_ms": cumulative,
               "own_ms": own}
    note = (f"`python -c \"{IMPORT}\"`: {figures['import_cpu_s']:.3f} s CPU against "
            f"{figures['floor_cpu_s']:.3f} s for `import sympy`, paired ratio "
            f"{figures['ratio']:.2f}x (medians of {repeats}); kernelcost's own modules and "
            f"what they import besides sympy and lark: {own:.0f} ms; the table: medians of "
            f"{repeats} runs of `python -X importtime -c \"{IMPORT}\"`, cumulative wall "
            "milliseconds of each module with what it imports first")
    return table(["module", "cumulative import (ms)"], rows) + "\n\n" + note, figures
