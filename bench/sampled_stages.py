"""Where a command's analysis spends its CPU, by stage, sampled as the program runs it.

    PYTHONPATH=src python bench/sampled_stages.py --runs 6 -- analyze specs/X.kcost --json

Each run is a fresh process that imports kernelcost as the console script does (sympy lean,
the collector frozen and set as the program sets it; no watchdog fork) and runs the command's
own flow (cli._run_program) under a CPU-time interval timer (SIGPROF): each tick records the
Python stack, and a stack counts for the first stage below with a frame in it. The ticks of
all runs are pooled; a stage's milliseconds are its share of the ticks times the median CPU
of the analysis runs. A tracing profiler (cProfile) slows sympy's many small calls some
tenfold and moves the shares; the interval timer costs a stack walk per tick (the kernel
delivers about one every 4 ms of CPU), so a few runs are needed for steady shares."""

from __future__ import annotations

import argparse
import collections
import io
import json
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (stage, frame substrings); the first stage with a matching frame in a stack takes it
STAGES = (
    ("lazy imports", ("<frozen importlib._bootstrap>:_find_and_load",)),
    ("parse", ("lang/parse.py:parse_file",)),
    ("check", ("lang/check.py:check",)),
    ("count: loop nest", ("count/nest.py:build_nest",)),
    ("count: grid boxes and tiles", ("count/blocks.py:count_grid",)),
    ("count: readable forms", ("count/spec_count.py:finish",)),
    ("count: sums, footprints, rest", ("count/spec_count.py:count",)),
    ("self-verification", ("analysis/verify.py:self_verify",)),
    ("values, leading terms, intensities", ("analysis/api.py:analyze",)),
    ("crossings", ("answers/solve.py:at", "answers/solve.py:crossings")),
    ("verdicts", ("answers/model.py:verdict",)),
    ("machine files", ("cli/shared.py:machine_choice",)),
    ("other answers", ("answers/answer.py:answers",)),
    ("JSON and text", ("present/", "algebra/jsonout.py")),
)


def _frame_name(frame) -> str:
    path = frame.f_code.co_filename
    for marker in ("/kernelcost/", "site-packages/"):
        if marker in path:
            path = path.split(marker)[-1]
            break
    return f"{path}:{frame.f_code.co_name}"


def child(arguments: list[str]) -> None:
    """One run in this process: print the analysis's CPU milliseconds and its stage ticks."""
    sys.argv = ["kernelcost", *arguments]  # the console script's name: sympy imported lean
    from kernelcost.base import launch

    # no watchdog: one process to sample
    launch.start = lambda: None
    from kernelcost import cli
    from kernelcost.base.error_report import request_json

    args = cli.build_parser().parse_args(arguments)
    request_json(getattr(args, "json", False))
    ticks: collections.Counter[str] = collections.Counter()

    def tick(_signal, frame) -> None:
        names = []
        while frame is not None:
            names.append(_frame_name(frame))
            frame = frame.f_back
        ticks[next((stage for stage, keys in STAGES
                    if any(key in name for name in names for key in keys)), "other")] += 1

    signal.signal(signal.SIGPROF, tick)
    shown, sys.stdout = sys.stdout, io.StringIO()
    started = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
    cli._run_program(args)
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    seconds = time.process_time() - started
    sys.stdout = shown
    print(json.dumps({"ms": seconds * 1000, "ticks": ticks}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=6, help="fresh processes (default 6)")
    parser.add_argument("command", nargs="+", help="the kernelcost arguments, after --")
    args = parser.parse_args(argv)
    runs = [json.loads(subprocess.run(
        [sys.executable, __file__, "--child", *args.command], check=True, cwd=ROOT,
        capture_output=True, text=True).stdout) for _ in range(args.runs)]
    total: collections.Counter[str] = collections.Counter()
    for run in runs:
        total.update(run["ticks"])
    ms = statistics.median(run["ms"] for run in runs)
    ticks = sum(total.values())
    print(f"`kernelcost {' '.join(args.command)}`: analysis {ms:.0f} ms CPU (median of "
          f"{args.runs}), {ticks} ticks\n\n| stage | share | ms |\n|---|---:|---:|")
    for stage, _ in (*STAGES, ("other", ())):
        if total[stage]:
            print(f"| {stage} | {100 * total[stage] / ticks:.1f} % | "
                  f"{ms * total[stage] / ticks:.0f} |")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
    else:
        sys.exit(main())
