"""Blocks by classes (issue 35): `kernelcost analyze specs/gemm_hopper.kcost --machine h100`
over grids of 10^3 .. 10^8 thread blocks, each run a fresh process, before (the tree that
enumerates every block) and after (the classes), interleaved.

    python bench/block_classes.py OLD/src src --runs 3 --before-up-to 1000000

A row gives the blocks, the sizes, and per tree the median wall time, CPU time (user + system)
and peak resident memory of the whole command (os.wait4's rusage of that one child). The tree
before is run only up to --before-up-to blocks (it needs about 240 bytes and 2.3 us of CPU a
block: 4 GB and 38 s at 1.7e7) and under a memory limit (--limit-gb), so that it cannot take
the machine from others; a run that hits the limit shows as `MemoryError`. The last row is the
issue's reproducer (M = 1048576, N = 524288, K = 8192: 16,777,216 blocks)."""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# (row tiles, column tiles) of 128 x 256: even row counts, for the spec's clusters of two
GRIDS = ((40, 25), (100, 100), (400, 250), (1000, 1000), (4000, 2500), (10000, 10000),
         (8192, 2048))


def run(source: Path, sizes: str, limit_gb: float) -> tuple[float, float, float, str]:
    """Wall s, CPU s, peak MiB and the last line of stderr (empty when it succeeded)."""
    import time

    def limit() -> None:
        size = int(limit_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    command = [sys.executable, "-m", "kernelcost.cli", "analyze", "specs/gemm_hopper.kcost",
               "--set", sizes, "--machine", "h100", "--no-verify"]
    environment = {**os.environ, "PYTHONPATH": str(source)}
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, preexec_fn=limit)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    assert child.stderr is not None
    error = child.stderr.read().decode().strip().splitlines()
    child.returncode = os.waitstatus_to_exitcode(status)
    failed = error[-1] if child.returncode else ""
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the older tree's src/")
    parser.add_argument("after", type=Path, help="the newer tree's src/")
    parser.add_argument("--runs", type=int, default=3, help="runs a tree and grid (default 3)")
    parser.add_argument("--before-up-to", type=int, default=1_000_000,
                        help="largest grid the older tree runs (default 10^6 blocks)")
    parser.add_argument("--limit-gb", type=float, default=6.0,
                        help="address-space limit of each run (default 6 GB)")
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    print("| blocks | M, N (K = 8192) | before wall (s) | before CPU (s) | before peak (MiB) "
          "| after wall (s) | after CPU (s) | after peak (MiB) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for rows, cols in GRIDS:
        blocks = rows * cols
        sizes = f"M={rows * 128},N={cols * 256},K=8192"
        figures: dict[str, list[tuple[float, float, float, str]]] = {"before": [], "after": []}
        for _ in range(args.runs):
            for name, source in trees.items():
                if name == "before" and blocks > args.before_up_to:
                    continue
                figures[name].append(run(source, sizes, args.limit_gb))
        cells = []
        for name in trees:
            found = figures[name]
            if not found:
                cells += ["not run"] * 3
            elif any(failed for *_, failed in found):
                cells += [next(failed for *_, failed in found if failed)[:40], "", ""]
            else:
                cells += [f"{statistics.median(row[k] for row in found):.2f}" for k in (0, 1)]
                cells.append(f"{statistics.median(row[2] for row in found):.0f}")
        print(f"| {blocks:,} | {rows * 128}, {cols * 256} | {' | '.join(cells)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
