"""`tune` a chunk of the space at a time (answers.search_chunks): the search's time and peak
memory at each chunk size in process (this checkout's src), and whole commands of regular
installs side by side, CPU time and maximum resident set size as `/usr/bin/time -v` gives
them, so that a space's memory is seen to stay bounded and its time to grow with it.

    PYTHONPATH=src .venv/bin/python bench/tune_chunks.py sizes
    .venv/bin/python bench/tune_chunks.py --runs 10 commands before=VENV after=VENV

`sizes`: the search (`Ranking.seconds`: evaluation, the answers kept chunk by chunk and the
ranking; CPU seconds) over three spaces of gemm_hopper on h100, median of 5 in one process, and
tracemalloc's peak, at chunks of 2^15 to 2^22 candidates. `commands`: each space's whole
command on each install (a venv holding `pip install` of a tree, as bench/regular_install
makes), the installs interleaved round by round; a command that is refused (exit 2) is timed
as it is refused. Timings only, no assertion."""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCHEDULE = "stages=1..8,threads=128..512:128,cluster=1..4,raster=row,column,grouped"
SPACES = {  # name: (--vary, --set)
    # tiles 16..512, TK in four values, the schedule: 524,288 combinations
    "1.6M": (f"TM=16..512:16,TN=16..512:16,TK=16,32,64,128,{SCHEDULE}", "M=N,K=N,N=8192"),
    # TM x TN x TK in 256 values each: every array holds every axis, 65 B a combination
    "16.8M tiles": ("TM=16..4096:16,TN=16..4096:16,TK=16..4096:16", "M=N,K=N,N=4096"),
    # tiles 16..512 on each axis, the schedule and split-K 1..8 (issue 41's space)
    "33.6M": (f"TM=16..512:16,TN=16..512:16,TK=16..512:16,{SCHEDULE},split_k=1..8",
              "M=N,K=N,N=8192"),
    # the same with split-K 1..10: 41,943,040 combinations
    "41.9M": (f"TM=16..512:16,TN=16..512:16,TK=16..512:16,{SCHEDULE},split_k=1..10",
              "M=N,K=N,N=8192"),
    # split-K 1..100: 419,430,400 combinations, 1.26 x 10^9 candidates
    "419M": (f"TM=16..512:16,TN=16..512:16,TK=16..512:16,{SCHEDULE},split_k=1..100",
             "M=N,K=N,N=8192"),
}


def sizes() -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from kernelcost.analysis.api import load
    from kernelcost.answers import tune as tune_module
    from kernelcost.answers.tune import tune
    from kernelcost.hardware.machinefile import load_machine
    from kernelcost.lang.varied import parse_vary

    # the search's CPU seconds, not its wall clock's: the cores are shared
    tune_module.time = types.SimpleNamespace(perf_counter=time.process_time)
    spec, machine = load(ROOT / "specs" / "gemm_hopper.kcost"), load_machine("h100")
    print("| space | chunk | search CPU s (median of 5) | combinations/s | peak MiB |")
    print("|---|---:|---:|---:|---:|")
    for name in ("1.6M", "16.8M tiles", "33.6M"):
        vary, fixed = SPACES[name]
        settings = dict(pair.split("=") for pair in fixed.split(","))
        varied = parse_vary(vary)
        for power in range(15, 23):
            runs = [tune(spec, machine, varied, None, settings, rescore=0, chunk=1 << power)
                    for _ in range(5)]
            tracemalloc.start()
            tune(spec, machine, varied, None, settings, rescore=0, chunk=1 << power)
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            seconds = statistics.median(run.seconds for run in runs)
            print(f"| {name} | 2^{power} | {seconds:.3f} | {runs[0].points / seconds:,.0f} | "
                  f"{peak:.0f} |", flush=True)


def measured(venv: Path, vary: str, fixed: str) -> tuple[float, float, int]:
    """CPU seconds, maximum resident MB and exit status of one whole command."""
    command = ["/usr/bin/time", "-v", str(venv / "bin" / "kernelcost"), "tune",
               "specs/gemm_hopper.kcost", "--machine", "h100", "--vary", vary, "--set", fixed]
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    environment.setdefault("KERNELCOST_BUDGET_S", "600")
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=environment)
    field = {key: float(re.search(rf"{key}[^:]*: ([0-9.]+)", done.stderr).group(1))
             for key in ("User time", "System time", "Maximum resident set size")}
    code = int(re.search(r"Exit status: (\d+)", done.stderr).group(1))
    return field["User time"] + field["System time"], field["Maximum resident set size"] / 1e3, code


def commands(runs: int, installs: dict[str, Path], names: list[str]) -> None:
    print("| space | install | exit | CPU s (median) | min | max | max RSS MB (median) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in names:
        vary, fixed = SPACES[name]
        found: dict[str, list[tuple[float, float, int]]] = {label: [] for label in installs}
        for venv in installs.values():  # warm-up: bytecode, file caches
            measured(venv, vary, fixed)
        for _ in range(runs):
            for label, venv in installs.items():
                found[label].append(measured(venv, vary, fixed))
        for label, rows in found.items():
            cpu = [row[0] for row in rows]
            rss = statistics.median(row[1] for row in rows)
            print(f"| {name} | {label} | {rows[0][2]} | {statistics.median(cpu):.2f} | "
                  f"{min(cpu):.2f} | {max(cpu):.2f} | {rss:.0f} |", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["sizes", "commands"])
    parser.add_argument("installs", nargs="*", metavar="LABEL=VENV")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--spaces", default="1.6M,16.8M tiles,33.6M,41.9M",
                        help="the spaces of `commands`, by name, comma-separated")
    args = parser.parse_args()
    if args.what == "sizes":
        sizes()
    else:
        commands(args.runs, {label: Path(path) for label, path in
                             (each.split("=", 1) for each in args.installs)},
                 args.spaces.split(","))
