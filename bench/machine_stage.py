"""The machine stage in process, two source trees interleaved: CPU milliseconds of
`answer.answers(analysis, machines)` (verdicts, crossings, rates) after `load` and `analyze`,
each measured in a fresh process so that no cache carries over from one run to the next.

    python bench/machine_stage.py OLD/src src --runs 3 --specs conv3x3 gemm_hopper --machines all

Each round runs before, then after, for every spec on H100 alone and on all built-in
machines (or those `--machines` names); the table gives every run's figure, so that the
scatter of a loaded machine shows."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MACHINES = ("h100", "all")
SPECS = ("conv3x3", "stencil2d5pt", "gemm_hopper", "gemm_tiled", "int4_decode")
MEASURE = """
import sys, time
import kernelcost
from kernelcost.answers import answer
from kernelcost.hardware.machinefile import builtin_machine_ids
analysis = kernelcost.analyze(kernelcost.load(sys.argv[1]))
machines = ["h100"] if sys.argv[2] == "h100" else builtin_machine_ids()
start = time.process_time()
answer.answers(analysis, machines, None)
print(round((time.process_time() - start) * 1000))
"""


def stage_ms(source: Path, spec: str, machines: str) -> int:
    environment = {**os.environ, "PYTHONPATH": str(source)}
    done = subprocess.run([sys.executable, "-c", MEASURE, f"specs/{spec}.kcost", machines],
                          check=True, capture_output=True, text=True, cwd=ROOT, env=environment)
    return int(done.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the older tree's src/")
    parser.add_argument("after", type=Path, help="the newer tree's src/")
    parser.add_argument("--runs", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--specs", nargs="+", default=list(SPECS), help="shipped spec names")
    parser.add_argument("--machines", nargs="+", choices=MACHINES, default=list(MACHINES),
                        help="H100 alone, all built-in machines, or both (the default)")
    args = parser.parse_args(argv)
    before, after = args.before.resolve(), args.after.resolve()
    print("| spec, machines | before (ms) | after (ms) |")
    print("|---|---:|---:|")
    for spec in args.specs:
        for machines in args.machines:
            figures: dict[Path, list[int]] = {before: [], after: []}
            for _ in range(args.runs):
                for source in (before, after):
                    figures[source].append(stage_ms(source, spec, machines))
            cells = [" ".join(map(str, figures[source])) for source in (before, after)]
            print(f"| {spec}, {machines} | {cells[0]} | {cells[1]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
