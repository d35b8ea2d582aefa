"""How fast `tune` searches (issue 41): the vectorised search's time and peak memory as the
candidates grow, the analysis's re-scoring beside it (in process, this checkout's src), and
the whole command over the issue's space as a process of a regular install (regular_install:
`pip install .` into a scratch venv, built once a run), CPU time, median of 10, beside that
install's `python -c "import sympy"` floor run in the same rounds.

    PYTHONPATH=src .venv/bin/python bench/tune_speed.py [--runs 10] [--venv VENV]

--venv times an install made before instead of building one (`pip install .` of the same
tree: the bench then says nothing about any other).

The spaces: TM, TN 16..512:16, TK 16,32,64,128, stages 1..8, threads 128..512:128, cluster
1..4, three rasters = 1,572,864 candidates of gemm_hopper at 8192^3 on h100; the issue's
tiles, TK too 16..512:16, = 12,582,912 (no split-K); the first with split-K 1..8 too,
= 12,582,912; and the issue's space whole, its tiles with split-K: 33,554,432 combinations,
100,663,296 candidates with the rasters (the whole command only).
Timings only, no assertion: the tests check the ranking, not the speed of the machine they
run on."""

from __future__ import annotations

import argparse
import statistics
import sys
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from regular_install import cpu_seconds, floor, kernelcost, regular_install  # noqa: E402

from kernelcost.analysis.api import load  # noqa: E402
from kernelcost.answers.tune import tune  # noqa: E402
from kernelcost.hardware.machinefile import load_machine  # noqa: E402
from kernelcost.lang.varied import parse_vary  # noqa: E402

SCHEDULE = "stages=1..8,threads=128..512:128,cluster=1..4,raster=row,column,grouped"
MILLION = f"TM=16..512:16,TN=16..512:16,TK=16,32,64,128,{SCHEDULE}"
# the issue's space whole, less split-K: TK too in multiples of 16 to 512
ISSUE = f"TM=16..512:16,TN=16..512:16,TK=16..512:16,{SCHEDULE}"
SETTINGS = {"M": "N", "K": "N", "N": "8192"}
SPLIT = f"{MILLION},split_k=1..8"  # every dimension the issue names, TK in four values
WHOLE = f"{ISSUE},split_k=1..8"  # the issue's space as it reads
GROWTH = ("TM=64..512:64,TN=64..512:64,TK=64", f"TM=64..512:64,TN=64..512:64,TK=64,{SCHEDULE}",
          f"TM=32..512:32,TN=32..512:32,TK=32,64,{SCHEDULE}", MILLION,
          f"TM=16..512:16,TN=16..512:16,TK=16..128:16,{SCHEDULE}", ISSUE, SPLIT)


def in_process() -> None:
    spec = load(ROOT / "specs" / "gemm_hopper.kcost")
    machine = load_machine("h100")
    tune(spec, machine, parse_vary(GROWTH[0]), None, SETTINGS)  # counted and compiled once
    print("| --vary | candidates | fit | search s (median of 3) | candidates/s | "
          "peak MiB | re-scored | re-score s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for text in GROWTH:
        varied = parse_vary(text)
        runs = [tune(spec, machine, varied, None, SETTINGS) for _ in range(3)]
        tracemalloc.start()
        tune(spec, machine, varied, None, SETTINGS)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        seconds = statistics.median(run.seconds for run in runs)
        rescore = statistics.median(run.rescore_seconds for run in runs)
        first = runs[0]
        print(f"| `{text}` | {first.candidates:,} | {first.fitting:,} | {seconds:.4f} | "
              f"{first.candidates / seconds:,.0f} | {peak:.0f} | {first.rescored} | "
              f"{rescore:.3f} |")


def whole_command(runs: int, venv: Path) -> None:
    for count, varied in (("1,572,864", MILLION), ("12,582,912", ISSUE),
                          ("12,582,912 with split-K", SPLIT),
                          ("100,663,296 (the issue's space, split-K too)", WHOLE)):
        command = kernelcost(venv, "tune", "specs/gemm_hopper.kcost", "--machine", "h100",
                             "--vary", varied, "--set", "M=N,K=N,N=8192")
        cpu_seconds(command), cpu_seconds(floor(venv))  # warm-up: bytecode, file caches
        tunes, floors = [], []
        for _ in range(runs):  # interleaved: a load that changes slows both alike
            floors.append(cpu_seconds(floor(venv)))
            tunes.append(cpu_seconds(command))
        ratios = [t / f for t, f in zip(tunes, floors)]
        print(f"\nwhole `tune` over {count} candidates (regular install): CPU "
              f"{statistics.median(tunes):.3f} s (median of {runs}; min {min(tunes):.3f}, "
              f"max {max(tunes):.3f}); `import sympy` {statistics.median(floors):.3f} s; "
              f"ratio {statistics.median(ratios):.2f}x (median of the rounds')", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--venv", type=Path, help="a regular install made before")
    args = parser.parse_args()
    in_process()
    with regular_install(args.venv) as venv:
        whole_command(args.runs, venv)
