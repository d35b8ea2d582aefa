"""Section 6 of bench/bench.py: how `analyze --json` grows with the number of clipped
dimensions (issue 17). Each dimension d is a tile loop `i<d>0 in 0..N<d> by T` and, inside a
keep, its clipped range `i<d> in i<d>0..min(i<d>0 + T, N<d>)`; the dimensions are independent,
so the sums separate into products of one-dimensional sums (target: 8 dimensions in under 2 s,
whole process).

Before and after in one run, alternating, the import-sympy floor timed beside them:

    git worktree add /tmp/old <commit>
    .venv/bin/python bench/clipped_dims.py --before-src /tmp/old/src"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

CLIPPED_TARGET_S = 2.0  # 8 clipped dimensions, whole process, CPU
DIMENSIONS = (1, 2, 3, 4, 5, 6, 7, 8)
QUICK_DIMENSIONS = (1, 2, 4, 8)

Timer = Callable[[list[str]], tuple[float, float]]  # command -> (wall s, CPU s)


def clipped_spec(dims: int) -> str:
    sizes = [f"N{d}" for d in range(1, dims + 1)]
    index = ", ".join(f"i{d}" for d in range(1, dims + 1))
    tiles = ", ".join(f"i{d}0 in 0..N{d} by T" for d in range(1, dims + 1))
    inner = ", ".join(f"i{d} in i{d}0..min(i{d}0 + T, N{d})" for d in range(1, dims + 1))
    return (f"kernel clipped({', '.join(sizes)}, T = 16) {{\n"
            f"    in X: f32[{', '.join(sizes)}]\n    out Y: f32[{', '.join(sizes)}]\n"
            f"    for {tiles} {{\n        keep X in shared {{\n"
            f"            for {inner} {{ Y[{index}] += X[{index}] * 2 }}\n"
            "        }\n    }\n}\n")


def growth_rows(trees: dict[str, list[str]], timer: Timer, dimensions, repeats: int):
    """CPU seconds per tree and dimension count (medians, runs alternating between trees),
    and the import-sympy floor's median from the same run."""
    floor_command = [sys.executable, "-c", "import sympy"]
    seconds = {name: {} for name in trees}
    floors = []
    with tempfile.TemporaryDirectory() as folder:
        for dims in dimensions:
            path = Path(folder) / f"clipped{dims}.kcost"
            path.write_text(clipped_spec(dims))
            runs = {name: [] for name in trees}
            for command in trees.values():
                timer(command + ["analyze", str(path), "--json"])  # warm-up
            for _ in range(repeats):
                floors.append(timer(floor_command)[1])
                for name, command in trees.items():
                    runs[name].append(timer(command + ["analyze", str(path), "--json"])[1])
            for name in trees:
                seconds[name][dims] = statistics.median(runs[name])
    return seconds, statistics.median(floors)


def clipped_growth(trees: dict[str, list[str]], timer: Timer,
                   table: Callable[[list[str], list[list[str]]], str],
                   quick: bool, repeats: int) -> tuple[str, dict]:
    dimensions = QUICK_DIMENSIONS if quick else DIMENSIONS
    seconds, floor = growth_rows(trees, timer, dimensions, repeats)
    names = list(trees)
    rows = []
    for position, dims in enumerate(dimensions):
        row = [str(dims)]
        for name in names:
            cpu = seconds[name][dims]
            growth = ("" if position == 0 else
                      f"x{(cpu / seconds[name][dimensions[position - 1]]):.2f}")
            row += [f"{cpu:.2f}", f"{cpu / floor:.2f}x", growth]
        if len(names) == 2:
            row.append(f"{seconds[names[0]][dims] / seconds[names[1]][dims]:.1f}x")
        rows.append(row)
    headers = ["clipped dims"]
    for name in names:
        headers += [f"{name} CPU (s)", f"{name} / floor", f"{name} growth"]
    if len(names) == 2:
        headers.append(f"{names[0]} / {names[1]}")
    last = seconds[names[-1]][dimensions[-1]]
    verdict = "yes" if last < CLIPPED_TARGET_S else "no"
    note = (f"`kernelcost analyze clipped<d>.kcost --json`, CPU (user + system), medians of "
            f"{repeats} runs after one warm-up, trees alternating; floor `python -c \"import "
            f"sympy\"` {floor:.2f} s CPU in the same run; growth: over the row above; "
            f"{dimensions[-1]} dimensions under {CLIPPED_TARGET_S:.0f} s ({names[-1]}): "
            f"{verdict}")
    return table(headers, rows) + "\n\n" + note, {"floor_cpu_s": floor, "cpu_s": seconds}


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before-src", type=Path, help="src/ of an older tree, timed beside")
    parser.add_argument("--quick", action="store_true", help="1, 2, 4 and 8 dimensions")
    parser.add_argument("--runs", type=int, default=3, help="runs per tree and size")
    args = parser.parse_args(argv)
    after = [sys.executable, "-m", "kernelcost.cli"]
    trees = {}
    if args.before_src is not None:
        old = args.before_src.resolve()
        trees["before"] = ["env", f"PYTHONPATH={old}", *after]
    trees["after"] = ["env", f"PYTHONPATH={bench.ROOT / 'src'}", *after]
    text, _ = clipped_growth(trees, bench.run_quietly, bench.markdown_table, args.quick,
                             args.runs)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
