"""How fast `model --grid` evaluates (issue 41): the grid's time and peak memory as the points
grow, in process (this checkout's src), and the whole command over 102,400 points as a
process of a regular install (regular_install: `pip install .` into a scratch venv, built
once a run), CPU time, median of 10, beside that install's `python -c "import sympy"` floor
and the ordinary `model` at one batch, run in the same rounds.

    PYTHONPATH=src .venv/bin/python bench/model_grid.py [--runs 10] [--venv VENV]

The grids: Llama-3-8B on h100, --batch 1..B x --context 128..8192:128 (its 8,192 positions,
max_position_embeddings: `model` refuses a longer context) x --tp 1 (and 1,2,4,8), the
collectives on the machine's HGX system. Timings only, no assertion: the
tests check the figures (tests/test_model_grid.py), not the speed of the machine."""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from regular_install import cpu_seconds, floor, kernelcost, regular_install  # noqa: E402

from kernelcost.answers.model_grid import GridAxes, model_grid  # noqa: E402
from kernelcost.hardware.hfconfig import load_model_or_config  # noqa: E402
from kernelcost.hardware.machinefile import load_machine  # noqa: E402
from kernelcost.hardware.topology import default_topology  # noqa: E402
from kernelcost.present.model_grid_report import grid_csv  # noqa: E402

GROWTH = ((16, 8192, (1,)), (160, 8192, (1,)), (1600, 8192, (1,)), (1600, 8192, (1, 2, 4, 8)),
          (16000, 8192, (1,)))
ONE_BATCH = ["--batch", "1", "--context", "4096"]
GRID = ["--batch", "1..1600", "--context", "128..8192:128"]  # 102,400 points


def in_process() -> None:
    model, machine = load_model_or_config("llama3_8b"), load_machine("h100")

    def topology(tp):
        return default_topology(machine.id) if tp > 1 else None

    model_grid(model, machine, GridAxes((1,), (128,), (1, 2)), topology=topology)  # counted
    print("| --batch | --context | --tp | points | grid CPU s (median of 3) | points/s | "
          "peak MiB | CSV CPU s | CSV MB |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for batches, contexts, tps in GROWTH:
        axes = GridAxes(tuple(range(1, batches + 1)), tuple(range(128, contexts + 1, 128)),
                        tps)
        runs = []
        for _ in range(3):
            started = time.process_time()
            grid = model_grid(model, machine, axes, topology=topology)
            runs.append(time.process_time() - started)
        tracemalloc.start()
        model_grid(model, machine, axes, topology=topology)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        started = time.process_time()
        text = grid_csv(grid)
        writing = time.process_time() - started
        seconds = statistics.median(runs)
        print(f"| 1..{batches} | 128..{contexts}:128 | {','.join(map(str, tps))} | "
              f"{axes.points:,} | {seconds:.3f} | {axes.points / seconds:,.0f} | {peak:.0f} | "
              f"{writing:.3f} | {len(text) / 1e6:.1f} |")


def whole_command(runs: int, venv: Path) -> None:
    model = kernelcost(venv, "model", "llama3_8b")
    with tempfile.TemporaryDirectory() as folder:
        grid = [*model, *GRID, "--grid", str(Path(folder) / "grid.csv")]
        one = [*model, *ONE_BATCH, "--json"]
        for command in (grid, one, floor(venv)):  # warm-up: bytecode, file caches
            cpu_seconds(command)
        grids, ones, floors = [], [], []
        for _ in range(runs):  # interleaved: a load that changes slows all alike
            floors.append(cpu_seconds(floor(venv)))
            grids.append(cpu_seconds(grid))
            ones.append(cpu_seconds(one))
    ratios = [g / f for g, f in zip(grids, floors)]
    print(f"\nwhole `model {' '.join(GRID)} --grid FILE` (102,400 points, regular install): "
          f"CPU {statistics.median(grids):.3f} s (median of {runs}; min {min(grids):.3f}, max "
          f"{max(grids):.3f}); `import sympy` {statistics.median(floors):.3f} s; ratio "
          f"{statistics.median(ratios):.2f}x; `model {' '.join(ONE_BATCH)}` (one point) "
          f"{statistics.median(ones):.3f} s", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--venv", type=Path, help="a regular install made before")
    args = parser.parse_args()
    in_process()
    with regular_install(args.venv) as venv:
        whole_command(args.runs, venv)
