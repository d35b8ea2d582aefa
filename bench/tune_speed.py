"""How fast `tune` ranks candidates: the vectorised evaluation (numpy over the lambdified
closed forms of gemm_hopper's blocks) per candidate, and the whole command as a process.

    .venv/bin/python bench/tune_speed.py

Prints candidates per second at growing candidate counts (target >= 1e5 per second) and the
wall and CPU time of `kernelcost tune specs/gemm_hopper.kcost --machine h100 --vary
TM,TN,TK --pow2 --set M=N,K=N,N=8192` (target < 2 s). Timings only, no assertion: the
tests check the ranking, not the speed of the machine they run on."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from kernelcost.analysis.api import load  # noqa: E402
from kernelcost.answers.tune import tune  # noqa: E402
from kernelcost.hardware.machinefile import load_machine  # noqa: E402
from kernelcost.lang.sizerange import parse_values  # noqa: E402

SETTINGS = {"M": "N", "K": "N", "N": "8192"}


def in_process() -> None:
    spec = load(ROOT / "specs" / "gemm_hopper.kcost")
    machine = load_machine("h100")
    spec.cost("spec")  # counted once; the ranking below is what is timed
    print("| values per parameter | candidates | seconds (median of 3) | candidates/s |")
    print("|---|---|---|---|")
    for text in ("16..512:32", "16..512:8", "8..1024:8"):
        values = parse_values(text, False)
        runs = [tune(spec, machine, ["TM", "TN", "TK"], values, SETTINGS)
                for _ in range(3)]
        seconds = statistics.median(run.seconds for run in runs)
        count = runs[0].candidates
        print(f"| {len(values)} ({text}) | {count:,} | {seconds:.4f} | {count / seconds:,.0f} |")


def whole_command() -> None:
    command = [str(Path(sys.executable).with_name("kernelcost")), "tune",
               "specs/gemm_hopper.kcost", "--machine", "h100", "--vary", "TM,TN,TK", "--pow2",
               "--set", "M=N,K=N,N=8192"]
    walls, cpus = [], []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    print(f"\nwhole `tune` command (216 candidates): wall {statistics.median(walls):.2f} s, "
          f"CPU {statistics.median(cpus):.2f} s (median of 3)")


if __name__ == "__main__":
    in_process()
    whole_command()
