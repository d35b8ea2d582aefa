"""Two source trees side by side in one run: each command's CPU time as a ratio to the
`python -c "import sympy"` floor, the two trees interleaved round by round, so that a machine
whose load changes during the run slows both alike (two separate bench.py runs minutes apart
on a shared machine differ by more than most changes do).

    python bench/before_after.py OLD/src src --runs 7 -- "analyze specs/conv3x3.kcost --json"

A command is the kernelcost command line after `kernelcost`, or a Python statement given as
`-c STATEMENT`. Each round runs: floor, before, floor, after; the figures are medians."""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(command: list[str], source: Path | None) -> float:
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment.setdefault("KERNELCOST_BUDGET_S", "600")
    if source is not None:
        environment["PYTHONPATH"] = str(source)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=environment)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def python_command(text: str) -> list[str]:
    words = shlex.split(text)
    if words[0] == "-c":
        return [sys.executable, *words]
    return [sys.executable, "-m", "kernelcost.cli", *words]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the older tree's src/")
    parser.add_argument("after", type=Path, help="the newer tree's src/")
    parser.add_argument("commands", nargs="+", help="kernelcost arguments, or -c STATEMENT")
    parser.add_argument("--runs", type=int, default=7, help="rounds per command (default 7)")
    args = parser.parse_args(argv)
    before, after = args.before.resolve(), args.after.resolve()
    floor = [sys.executable, "-c", "import sympy"]
    print("| command | before CPU (s) | before ratio | after CPU (s) | after ratio |")
    print("|---|---:|---:|---:|---:|")
    for text in args.commands:
        command = python_command(text)
        cpu_seconds(command, before), cpu_seconds(command, after)  # warm-up: bytecode, caches
        figures = {"before": ([], []), "after": ([], [])}
        for _ in range(args.runs):
            for name, source in (("before", before), ("after", after)):
                floor_cpu = cpu_seconds(floor, None)
                command_cpu = cpu_seconds(command, source)
                figures[name][0].append(command_cpu)
                figures[name][1].append(command_cpu / floor_cpu)
        cells = [f"{statistics.median(values):.{digits}f}{unit}"
                 for name in ("before", "after")
                 for values, digits, unit in ((figures[name][0], 2, ""),
                                              (figures[name][1], 2, "x"))]
        print(f"| `{text}` | " + " | ".join(cells) + " |", flush=True)
    print(f"\nmedians of {args.runs} rounds, each: floor, before, floor, after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
