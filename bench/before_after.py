"""Two source trees side by side in one run: each command's CPU time as a ratio to the
`python -c "import sympy"` floor, the two trees interleaved round by round, so that a machine
whose load changes during the run slows both alike (two separate bench.py runs minutes apart
on a shared machine differ by more than most changes do).

    python bench/before_after.py OLD/src src --runs 7 -- "analyze specs/conv3x3.kcost --json"

Either tree may instead be a virtual environment with a regular (not editable) install of
kernelcost, `python bench/before_after.py /tmp/venv-old /tmp/venv-new ...`: its console script
runs the command and its own python the floor, with no PYTHONPATH, as a user's install would.

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


def is_venv(tree: Path) -> bool:
    return (tree / "bin" / "kernelcost").is_file()


def cpu_seconds(command: list[str], source: Path | None) -> float:
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment.setdefault("KERNELCOST_BUDGET_S", "600")
    if source is not None and not is_venv(source):
        environment["PYTHONPATH"] = str(source)
    elif source is not None:
        environment.pop("PYTHONPATH", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=environment)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def python_command(text: str, tree: Path) -> list[str]:
    words = shlex.split(text)
    python = str(tree / "bin" / "python") if is_venv(tree) else sys.executable
    if words[0] == "-c":
        return [python, *words]
    if is_venv(tree):
        return [str(tree / "bin" / "kernelcost"), *words]
    return [python, "-m", "kernelcost.cli", *words]


def floor_command(tree: Path) -> list[str]:
    python = str(tree / "bin" / "python") if is_venv(tree) else sys.executable
    return [python, "-c", "import sympy"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the older tree's src/, or a venv")
    parser.add_argument("after", type=Path, help="the newer tree's src/, or a venv")
    parser.add_argument("commands", nargs="+", help="kernelcost arguments, or -c STATEMENT")
    parser.add_argument("--runs", type=int, default=7, help="rounds per command (default 7)")
    args = parser.parse_args(argv)
    before, after = args.before.resolve(), args.after.resolve()
    print("| command | before CPU (s) | before ratio | after CPU (s) | after ratio |")
    print("|---|---:|---:|---:|---:|")
    for text in args.commands:
        trees = {"before": before, "after": after}
        for source in trees.values():  # warm-up: bytecode, caches
            cpu_seconds(python_command(text, source), source)
        figures: dict[str, tuple[list[float], list[float]]] = {"before": ([], []),
                                                               "after": ([], [])}
        for _ in range(args.runs):
            for name, source in trees.items():
                floor_cpu = cpu_seconds(floor_command(source), None)
                command_cpu = cpu_seconds(python_command(text, source), source)
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
