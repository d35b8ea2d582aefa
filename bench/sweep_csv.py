"""Section 6 of bench/bench.py: what `kernelcost sweep --csv` costs over 10^5, 10^6 and 10^7
sizes (issue 17; target: 10^7 sizes in under 10 s and 1 GiB).

Each run is a whole process, `sweep specs/gemm.kcost --sweep N=1..n --linear --points n --set
M=N,K=N --machine h100 --csv` (every size distinct: n rows of 7 columns), its output sent to
/dev/null; wall and CPU (user + system) seconds and the peak resident memory come from the
child's own rusage (os.wait4). With `--before SRC` the same runs alternate with the package
under SRC (an older tree's src/), and the table gives the ratio of each figure in one run.

    .venv/bin/python bench/sweep_csv.py
    git archive main src | tar -x -C /tmp/before
    .venv/bin/python bench/sweep_csv.py --before /tmp/before/src"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = (10**5, 10**6, 10**7)
TIME_TARGET_S = 10.0  # 10^7 sizes, whole process
MEMORY_TARGET_MIB = 1024.0


def sweep_command(sizes: int) -> list[str]:
    return [sys.executable, "-m", "kernelcost.cli", "sweep", "specs/gemm.kcost", "--sweep",
            f"N=1..{sizes}", "--linear", "--points", str(sizes), "--set", "M=N,K=N",
            "--machine", "h100", "--csv"]


def measured(command: list[str], source: Path | None) -> tuple[float, float, float]:
    """Wall s, CPU s and peak resident MiB of one child process."""
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment["PYTHONPATH"] = str(source or ROOT / "src")
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             cwd=ROOT, env=environment)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(command)} exited {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def medians(runs: list[tuple[float, float, float]]) -> dict[str, float]:
    return {key: statistics.median(run[position] for run in runs)
            for position, key in enumerate(("wall_s", "cpu_s", "peak_MiB"))}


def sweep_csv_cost(table: Callable[[list[str], list[list[str]]], str], repeats: int,
                   before: Path | None = None,
                   sizes: tuple[int, ...] = SIZES) -> tuple[str, dict]:
    rows, figures = [], {}
    measured(sweep_command(1000), None)  # warm-up: bytecode and the file cache
    for count in sizes:
        after_runs, before_runs = [], []
        for _ in range(repeats):  # alternating, so that a busy machine slows both alike
            if before is not None:
                before_runs.append(measured(sweep_command(count), before))
            after_runs.append(measured(sweep_command(count), None))
        after = medians(after_runs)
        figures[str(count)] = {"after": after}
        row = [f"{count:,}", f"{after['wall_s']:.2f}", f"{after['cpu_s']:.2f}",
               f"{after['peak_MiB']:.0f}"]
        if before is not None:
            old = medians(before_runs)
            figures[str(count)]["before"] = old
            row = [row[0], f"{old['wall_s']:.2f}", row[1], f"{old['cpu_s']:.2f}", row[2],
                   f"{old['cpu_s'] / after['cpu_s']:.1f}x", f"{old['peak_MiB']:.0f}", row[3]]
        rows.append(row)
    if before is None:
        headers = ["sizes", "wall (s)", "CPU (s)", "peak RSS (MiB)"]
    else:
        headers = ["sizes", "wall before (s)", "wall after (s)", "CPU before (s)",
                   "CPU after (s)", "CPU before / after", "peak before (MiB)",
                   "peak after (MiB)"]
    largest = figures[str(max(sizes))]["after"]
    met = largest["cpu_s"] < TIME_TARGET_S and largest["peak_MiB"] < MEMORY_TARGET_MIB
    note = (f"whole process, medians of {repeats} run(s) after one warm-up, output to "
            f"/dev/null; target for {max(sizes):,} sizes: under {TIME_TARGET_S:.0f} s and "
            f"{MEMORY_TARGET_MIB:.0f} MiB: {'met' if met else 'not met'} on CPU time "
            "(the wall time of a shared machine includes waiting for a core)")
    return table(headers, rows) + "\n\n" + note, figures


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if i else "---" for i in range(len(headers))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="an older tree's src/ to time alongside")
    parser.add_argument("--runs", type=int, default=1, help="runs per size (default 1)")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    args = parser.parse_args()
    text, _ = sweep_csv_cost(markdown_table, args.runs, args.before, tuple(args.sizes))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
