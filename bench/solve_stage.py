"""CPU milliseconds of the crossing stages in process, for two source trees run alternately:
the ridge crossings of `analyze SPEC --machine all` (every machine's crossings in the one
free size, as `answer.answers` finds them, without the verdicts) and `solve_spec` of
`kernelcost solve` (ridge and capacity crossings):

    python bench/solve_stage.py OLD/src src [--runs 5]

Each figure is one fresh process: the spec analysed and the machines loaded first, the stage
run once on vector_add (lazy imports), every cache emptied, then the stage timed once. The
table shows medians over the runs, the two trees interleaved run by run."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALL = "a100,b200,h100,h200,l40s,mi250x,mi300x,rtx4090"
# (label, spec, parameter or "" for the one free size, settings, machines)
CASES = [
    ("crossings conv3x3, all machines", "conv3x3", "", "", ALL),
    ("crossings conv3x3_naive, all", "conv3x3_naive", "", "", ALL),
    ("crossings layernorm, all", "layernorm", "", "", ALL),
    ("crossings flash_attention, all", "flash_attention", "", "", ALL),
    ("crossings flash_attention_causal, all", "flash_attention_causal", "", "", ALL),
    ("solve gemm_tiled --for N", "gemm_tiled", "N", "", "h100"),
    ("solve gemm_tiled --for N --machine all", "gemm_tiled", "N", "", ALL),
    ("solve gemm_tiled --for N --set M=N,K=N", "gemm_tiled", "N", "M=N,K=N", "h100"),
    ("solve gemm_tiled --for T --set M=N,K=N,N=8192 --machine all", "gemm_tiled", "T",
     "M=N,K=N,N=8192", ALL),
]

CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
from sympy.core.cache import clear_cache
from kernelcost.algebra import equations
from kernelcost.analysis import api as analysis
from kernelcost.count import values
from kernelcost.hardware.machinefile import load_machine
try:  # where each tree keeps them
    from kernelcost.answers.solve import RidgeEquations, roof_levels, solve_spec
except ImportError:
    from kernelcost.answers.answer import RidgeEquations, roof_levels, solve_spec
from kernelcost.answers.answer import free_parameters

spec, parameter, settings, machine_ids = sys.argv[2:6]
machines = [load_machine(m) for m in machine_ids.split(",")]

def stage(result):
    if parameter:
        return lambda: solve_spec(result, parameter, machines, None, None)
    [free] = free_parameters(result)
    def crossings():
        equations_ = RidgeEquations(result.cost, free, result.settings)
        for machine in machines:
            for level in roof_levels(result.cost, machine):
                equations_.at(level).crossings(machine, result.cost.precision)
    return crossings

sizes = dict(item.split("=") for item in settings.split(",")) if settings else {}
result = analysis.analyze(f"specs/{spec}.kcost", sizes)
warm = analysis.analyze("specs/vector_add.kcost")
if parameter:
    solve_spec(warm, "n", machines, None, None)
else:
    RidgeEquations(warm.cost, free_parameters(warm)[0], {}).at("global").crossings(
        machines[0], warm.cost.precision)
run = stage(result)
clear_cache()
equations.equation.cache_clear()
values._substituted.cache_clear()
start = time.process_time()
run()
print((time.process_time() - start) * 1000)
"""


def one_run(source: Path, case: tuple[str, ...]) -> float:
    _, spec, parameter, settings, machines = case
    output = subprocess.run([sys.executable, "-c", CHILD, str(source), spec, parameter,
                             settings, machines], check=True, capture_output=True, text=True,
                            cwd=ROOT).stdout
    return float(output)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the older tree's src/")
    parser.add_argument("after", type=Path, help="the newer tree's src/")
    parser.add_argument("--runs", type=int, default=5, help="processes per case and tree")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    print("| stage | before CPU (ms) | after CPU (ms) | before / after |")
    print("|---|---:|---:|---:|")
    for case in CASES:
        figures: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, source in trees.items():
                figures[name].append(one_run(source, case))
        before, after = (statistics.median(figures[name]) for name in trees)
        print(f"| {case[0]} | {before:.1f} | {after:.1f} | {before / after:.2f}x |")
    print(f"\nCPU ms, medians of {args.runs} fresh processes per tree, interleaved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
