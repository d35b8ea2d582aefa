"""CPU milliseconds of load, count and analyze in process, per spec, for two source trees run
alternately (sympy's cache cleared before each pass; analyze without self-verification):

    python bench/stage_cpu.py OLD/src src [--runs 3] [--rounds 2] [SPEC.kcost ...]

Each round runs every spec `--runs` times in a fresh process per tree and keeps the medians;
the table shows the mean of the rounds' medians. Without specs: every shipped spec."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("load", "count", "analyze")

CHILD = """
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from sympy.core.cache import clear_cache
from kernelcost.analysis import api as analysis
analysis.analyze(analysis.load(sys.argv[3]))  # first use: lazy imports, parser tables
figures = {}
for path in sys.argv[3:]:
    runs = []
    for _ in range(int(sys.argv[2])):
        clear_cache()
        start = time.process_time()
        spec = analysis.load(path)
        loaded = time.process_time()
        spec.cost("spec")
        counted = time.process_time()
        analysis.analyze(spec)
        runs.append((loaded - start, counted - loaded, time.process_time() - counted))
    figures[path] = [statistics.median(run[i] for run in runs) * 1000 for i in range(3)]
print(json.dumps(figures))
"""


def one_round(source: Path, specs: list[str], runs: int) -> dict[str, list[float]]:
    output = subprocess.run([sys.executable, "-c", CHILD, str(source), str(runs), *specs],
                            check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return json.loads(output)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the older tree's src/")
    parser.add_argument("after", type=Path, help="the newer tree's src/")
    parser.add_argument("specs", nargs="*", help="spec files (default: specs/*.kcost)")
    parser.add_argument("--runs", type=int, default=3, help="passes per spec and round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds per tree, alternating")
    args = parser.parse_args(argv)
    specs = args.specs or [str(path) for path in sorted((ROOT / "specs").glob("*.kcost"))]
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    rounds: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, source in trees.items():
            rounds[name].append(one_round(source, specs, args.runs))
    print("| spec | " + " | ".join(f"{stage} before | {stage} after" for stage in STAGES)
          + " | total before | total after | ratio |")
    print("|---|" + "---:|" * (2 * len(STAGES) + 3))
    totals = {name: 0.0 for name in trees}
    for spec in specs:
        means = {name: [statistics.mean(r[spec][i] for r in rounds[name]) for i in range(3)]
                 for name in trees}
        cells = [f"{means[name][i]:.0f}" for i in range(3) for name in trees]
        total = {name: sum(means[name]) for name in trees}
        for name in trees:
            totals[name] += total[name]
        print(f"| {Path(spec).stem} | " + " | ".join(cells) + f" | {total['before']:.0f} | "
              f"{total['after']:.0f} | {total['before'] / total['after']:.2f}x |")
    print(f"| all | {'| ' * 2 * len(STAGES)}{totals['before']:.0f} | {totals['after']:.0f} | "
          f"{totals['before'] / totals['after']:.2f}x |")
    print(f"\nCPU ms, medians of {args.runs} passes per round, mean of {args.rounds} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
