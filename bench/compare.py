"""Before and after: two raw result files of bench.py (--json) side by side, as Markdown.

    python bench/bench.py --src OLD_WORKTREE/src --json before.json --output -
    python bench/bench.py --json after.json
    python bench/compare.py before.json after.json"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def _row(name: str, before: float, after: float, unit: str = "s") -> list[str]:
    if unit == "ms":
        before, after = before * 1000, after * 1000
        cells = [f"{before:.0f} ms", f"{after:.0f} ms"]
    elif unit == "x":
        cells = [f"{before:.2f}x", f"{after:.2f}x"]
    else:
        cells = [f"{before:.2f} s", f"{after:.2f} s"]
    change = before / after if after else float("inf")
    return [name, *cells, f"{change:.1f}x faster" if change >= 1 else f"{1 / change:.1f}x slower"]


def compare(before: dict, after: dict) -> str:
    rows = []
    if "process" in before and "process" in after:
        old, new = before["process"], after["process"]
        ratio = {}
        for figures in (old, new):
            floor = figures["floor"]["cpu_s"]
            ratio[id(figures)] = [s["cpu_s"] / floor for s in figures["specs"].values()]
        rows.append(_row("analyze --json, CPU / import-sympy CPU, median over specs",
                         statistics.median(ratio[id(old)]), statistics.median(ratio[id(new)]),
                         "x"))
        rows.append(_row("analyze --json, CPU / import-sympy CPU, worst spec",
                         max(ratio[id(old)]), max(ratio[id(new)]), "x"))
        for name in new["specs"]:
            if name in old["specs"]:
                rows.append(_row(f"analyze --json {name} (CPU)", old["specs"][name]["cpu_s"],
                                 new["specs"][name]["cpu_s"]))
    if "stages" in before and "stages" in after:
        old, new = before["stages"], after["stages"]
        rows.append(_row("first parse in a process", old["first_parse_s"],
                         new["first_parse_s"], "ms"))
        for name, stages in new["specs"].items():
            if name in old["specs"]:
                rows.append(_row(f"in process, all stages: {name}",
                                 sum(old["specs"][name].values()), sum(stages.values()), "ms"))
    if "scaling" in before and "scaling" in after:
        key = "depth 8 x 64 statements"
        rows.append(_row("depth 8, 64 statements, 16 tensors: load + analyze",
                         before["scaling"][key]["seconds"], after["scaling"][key]["seconds"]))
    lines = ["| figure | before | after | change |", "|---|---:|---:|---:|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    before, after = (json.loads(Path(path).read_text()) for path in argv)
    print(compare(before, after))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
