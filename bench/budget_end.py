"""How soon after its budget a command ends, measured from exec to exit (issue 35).

For each budget B, runs `kernelcost analyze tests/specs_slow/slow.kcost` (a spec that counts
for half a minute or more) with KERNELCOST_BUDGET_S=B, timing each run from just before the
spawn to just after the exit is reaped, and reports the overshoot past B (the issue asks for at most
0.3 s on an idle machine). The console script is used where it sits beside the interpreter
(the process then starts as a user's does), else `python -m kernelcost.cli`. The load
average is printed with the figures: on a busy machine the kill and the report wait for a
core.

    PYTHONPATH=src .venv/bin/python bench/budget_end.py --budgets 1 5 --runs 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLOW = ROOT / "tests" / "specs_slow" / "slow.kcost"


def command() -> list[str]:
    script = Path(sys.executable).with_name("kernelcost")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "kernelcost.cli"]


def one_run(budget: float) -> tuple[float, int, str]:
    """(seconds from spawn to reaped exit, exit code, last line of stderr)."""
    environment = dict(os.environ, KERNELCOST_BUDGET_S=f"{budget:g}")
    started = time.monotonic()
    completed = subprocess.run([*command(), "analyze", str(SLOW)], capture_output=True,
                               text=True, env=environment, check=False)
    elapsed = time.monotonic() - started
    first = (completed.stderr.splitlines() or [""])[0]
    return elapsed, completed.returncode, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", type=float, nargs="+", default=[1.0, 5.0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"command: {' '.join(command())} analyze {SLOW.relative_to(ROOT)}")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("| budget B | runs | exit codes | median end - B | max end - B | within B + 0.3 s |")
    print("|---|---|---|---|---|---|")
    for budget in args.budgets:
        runs = [one_run(budget) for _ in range(args.runs)]
        over = [elapsed - budget for elapsed, _, _ in runs]
        codes = sorted({code for _, code, _ in runs})
        within = sum(value <= 0.3 for value in over)
        print(f"| {budget:g} s | {len(runs)} | {codes} | {statistics.median(over):+.3f} s | "
              f"{max(over):+.3f} s | {within}/{len(runs)} |")
        stages = sorted({line.split("ran out while ")[-1][:60] for _, _, line in runs})
        print(f"<!-- stages: {stages} -->")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
