"""How `tune` grows with its shapes (`--shape`, repeated): gemm_hopper on h100, TM 64,128 x
TN 128,256, M = N, K = N, at N = 256 k for k = 1 .. S, in process (this checkout's src), CPU
seconds of the whole tune, of its search (the closed forms compiled once for every shape,
then evaluated at each) and of the re-scoring (the analysis at each shape for each
re-scored candidate: what remains linear in the shapes), median of `--runs`.

    PYTHONPATH=src .venv/bin/python bench/tune_shapes.py [--runs 3] [--shapes 1,30,300]

Timings only, no assertion."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from kernelcost.analysis.api import load  # noqa: E402
from kernelcost.answers.tune import tune  # noqa: E402
from kernelcost.hardware.machinefile import load_machine  # noqa: E402
from kernelcost.lang.varied import parse_vary  # noqa: E402


def once(count: int) -> tuple[float, float, float]:
    """CPU seconds of the whole tune at `count` shapes, and the ranking's own two clocks
    (wall: the search's and the re-scoring's)."""
    spec, machine = load(str(ROOT / "specs" / "gemm_hopper.kcost")), load_machine("h100")
    shapes = [{"N": str(256 * k)} for k in range(1, count + 1)]
    started = time.process_time()
    ranking = tune(spec, machine, parse_vary("TM=64,128,TN=128,256"), None,
                   {"M": "N", "K": "N"}, shapes=shapes)
    return time.process_time() - started, ranking.seconds, ranking.rescore_seconds


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--shapes", default="1,30,300")
    args = parser.parse_args()
    print("shapes  cpu s (median)  search s  re-scoring s  cpu ms a shape")
    for count in (int(text) for text in args.shapes.split(",")):
        runs = [once(count) for _ in range(args.runs)]
        cpu = statistics.median(run[0] for run in runs)
        search = statistics.median(run[1] for run in runs)
        rescoring = statistics.median(run[2] for run in runs)
        print(f"{count:6d}  {cpu:14.2f}  {search:8.3f}  {rescoring:12.2f}  "
              f"{1e3 * cpu / count:14.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
