"""How fast kernelcost is, and how its cost grows: the tables behind bench/RESULTS.md.

    .venv/bin/python bench/bench.py            # full run, writes bench/RESULTS.md
    .venv/bin/python bench/bench.py --quick    # fewer repeats and sizes, same tables

Before and after a change: time an older commit from a worktree, then this tree against it

    git worktree add /tmp/old <commit>
    .venv/bin/python bench/bench.py --src /tmp/old/src --json bench/before-<commit>.json \
        --output -
    .venv/bin/python bench/bench.py --before bench/before-<commit>.json

or, interleaved in one run: bench/before_after.py (whole commands, ratios to the floor),
bench/stage_cpu.py (load, count and analyze in process, CPU ms per spec) and
bench/solve_stage.py (the crossings and `solve` in process, CPU ms).

Standard library timing only (time.perf_counter, subprocess, tracemalloc). Six tables:

1. whole process: `kernelcost analyze SPEC --json` per shipped spec, median of several runs,
   beside `python -c "import sympy"` timed in the same run; the ratio is the figure that
   counts, since machines differ (target <= 1.5x), taken on CPU time (user + system), which
   a busy machine disturbs less than wall time (both are shown);
2. stages in process per spec: parse, check, count, analyze (values and asymptotics), the
   h100 verdict, the JSON report; sympy's cache is cleared before each spec;
3. scaling (bench/scaling.py): generated specs growing in nest depth, statements, tensors
   and nested keep scopes: load + analyze time, peak traced memory, and the log-log slope of
   each against the size;
4. sweep throughput (bench/scaling.py): sizes per second for the gemm_tiled global intensity
   through the lambdified closed form (target >= 1e7 sizes/s);
5. self-verification (bench/verify_cost.py): `analyze --json` over `analyze --json
   --no-verify` per shipped spec, whole process (target <= 1.10x), and in process;
6. whole commands with machines (bench/process_ratios.py): `analyze --json` alone, with
   `--machine h100` and with `--machine all`, and `solve gemm_tiled --for N`, each as the
   median of paired ratios to the import-sympy floor;
7. the execution model and the bounds (bench/constructs.py): blocks, waves and L2 unions,
   the HBL program and tuning, each as a series with its log-log growth slope;
8. clipped dimensions (bench/clipped_dims.py): whole-process `analyze --json` on generated
   specs with 1 to 8 independent min-clipped tile dimensions, the growth per dimension
   (target: 8 in under 2 s); `bench/clipped_dims.py --before-src OLD/src` times an older
   tree beside this one;
9. sweep CSV (bench/sweep_csv.py): `sweep --csv` over 10^5, 10^6 and 10^7 sizes, time and
   peak memory of the whole process (target: 10^7 in under 10 s and 1 GiB);
10. start-up (bench/startup.py): `import kernelcost.cli` as a paired ratio to the floor, and
    the modules `-X importtime` finds heaviest.

Targets are for this script to report, not timed assertions in the tests."""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.kcost"))
RESULTS = ROOT / "bench" / "RESULTS.md"

WHOLE_PROCESS_TARGET = 1.5  # analyze / import-sympy floor


# --- machine -----------------------------------------------------------------------------

def machine_description() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ""
    if hasattr(os, "getloadavg"):
        load = f", load average {os.getloadavg()[0]:.1f} at start"
    return (f"{cpu}, {cores} cores available{load}; Python {platform.python_version()} "
            f"({platform.python_implementation()}), {platform.system()} {platform.release()}")


def source_commit() -> str:
    """The git commit of the code timed (with `+changes` when the tree differs), if known."""
    folder = SOURCE or ROOT
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=folder,
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "."],
                               cwd=folder, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"
    return commit + ("+changes" if dirty else "")


# --- helpers -----------------------------------------------------------------------------

def median_seconds(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def loglog_slope(sizes: list[float], values: list[float]) -> float:
    """Least-squares slope of log(value) against log(size): 1 is linear growth, 2 quadratic."""
    points = [(math.log(s), math.log(v)) for s, v in zip(sizes, values) if s > 0 and v > 0]
    if len(points) < 2:
        return float("nan")
    mean_x = statistics.fmean(x for x, _ in points)
    mean_y = statistics.fmean(y for _, y in points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if i else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


SOURCE: Path | None = None  # --src: time the kernelcost package in this folder instead


def kernelcost_command() -> list[str]:
    script = Path(sys.executable).parent / "kernelcost"
    if script.exists() and SOURCE is None:
        return [str(script)]
    return [sys.executable, "-m", "kernelcost.cli"]


def child_environment() -> dict[str, str]:
    """This environment, but writing bytecode: sympy's .pyc files came with its install, and
    kernelcost's own are written on the first (warm-up) run as any install would have them."""
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment.setdefault("KERNELCOST_BUDGET_S", "600")  # a busy machine is no failure
    if SOURCE is not None:
        environment["PYTHONPATH"] = str(SOURCE)
    return environment


def run_quietly(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one child process. On a shared machine
    the CPU time is the steadier figure: waiting for a core counts in the wall time only."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT,
                   env=child_environment())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


# --- 1. whole process --------------------------------------------------------------------

IN_USE_COMMAND = "import sympy; a, b, c = sympy.symbols('a b c'); a + b + c"


def whole_process(repeats: int) -> tuple[str, dict]:
    """Runs alternate between the floor and each spec, so a busy machine slows both alike."""
    floor_command = [sys.executable, "-c", "import sympy"]
    run_quietly(floor_command)  # warm the file cache and the .pyc files
    # for reference: the first Add of three terms makes sympy import its tensor and
    # combinatorics modules (about 0.1 s), a cost every sympy program pays on first use
    in_use = statistics.median(run_quietly([sys.executable, "-c", IN_USE_COMMAND])[1]
                               for _ in range(repeats))
    floors, rows, figures = [], [], {}
    for spec in SPECS:
        command = kernelcost_command() + ["analyze", str(spec.relative_to(ROOT)), "--json"]
        run_quietly(command)
        spec_runs = []
        for _ in range(repeats):
            floors.append(run_quietly(floor_command))
            spec_runs.append(run_quietly(command))
        figures[spec.stem] = {"wall_s": statistics.median(w for w, _ in spec_runs),
                              "cpu_s": statistics.median(c for _, c in spec_runs)}
    floor = {"wall_s": statistics.median(w for w, _ in floors),
             "cpu_s": statistics.median(c for _, c in floors)}
    ratios = {}
    for name, spec_figures in figures.items():
        wall_ratio = spec_figures["wall_s"] / floor["wall_s"]
        ratios[name] = cpu_ratio = spec_figures["cpu_s"] / floor["cpu_s"]
        rows.append([name, f"{spec_figures['wall_s']:.2f}", f"{wall_ratio:.2f}x",
                     f"{spec_figures['cpu_s']:.2f}", f"{cpu_ratio:.2f}x",
                     "yes" if cpu_ratio <= WHOLE_PROCESS_TARGET else "no"])
    table = markdown_table(["spec", "wall (s)", "wall ratio", "CPU (s)", "CPU ratio",
                            f"<= {WHOLE_PROCESS_TARGET}x"], rows)
    summary = (f"floor, `python -c \"import sympy\"`: median {floor['wall_s']:.2f} s wall, "
               f"{floor['cpu_s']:.2f} s CPU over {len(floors)} runs interleaved with the specs; "
               f"CPU ratio median {statistics.median(ratios.values()):.2f}x, worst "
               f"{max(ratios.values()):.2f}x ({max(ratios, key=ratios.get)}); "
               f"medians of {repeats} runs per spec after one warm-up run. For reference, "
               f"sympy's first sum of three symbols (`{IN_USE_COMMAND}`) takes {in_use:.2f} s "
               f"CPU ({in_use / floor['cpu_s']:.2f}x the floor; that first sum imports "
               "sympy.tensor and sympy.combinatorics, which any sympy program then pays)")
    return table + "\n\n" + summary, {"floor": floor, "in_use_cpu_s": in_use,
                                       "specs": figures}


# --- 2. stages in process ----------------------------------------------------------------

STAGES = ("parse", "check", "count", "analyze", "model h100", "report json")


def stage_times(spec_path: Path) -> dict[str, float]:
    """One pass through the pipeline with sympy's cache cleared first."""
    from sympy.core.cache import clear_cache

    from kernelcost.analysis import api as analysis
    from kernelcost.answers.model import verdict
    from kernelcost.hardware.machinefile import load_machine
    from kernelcost.lang.check import check
    from kernelcost.lang.parse import parse
    from kernelcost.present import report

    clear_cache()
    text = spec_path.read_text()
    times = {}
    start = time.perf_counter()
    kernel = parse(text, str(spec_path))
    times["parse"] = time.perf_counter() - start
    start = time.perf_counter()
    checked = check(kernel)
    times["check"] = time.perf_counter() - start
    spec = analysis.Spec(str(spec_path), checked)
    start = time.perf_counter()
    spec.cost("spec")
    times["count"] = time.perf_counter() - start
    start = time.perf_counter()
    result = analysis.analyze(spec)
    times["analyze"] = time.perf_counter() - start
    machine = load_machine("h100")
    start = time.perf_counter()
    verdict(result.cost, machine, None, result.settings, apply_defaults=True)
    times["model h100"] = time.perf_counter() - start
    start = time.perf_counter()
    json.dumps(report.analysis_json(result), indent=2)
    times["report json"] = time.perf_counter() - start
    return times


def stages(repeats: int) -> tuple[str, dict]:
    from kernelcost.lang.parse import parse

    start = time.perf_counter()
    parse(SPECS[0].read_text())  # builds the parser once per process
    first_parse = time.perf_counter() - start
    rows, figures = [], {}
    for spec in SPECS:
        runs = [stage_times(spec) for _ in range(repeats)]
        medians = {stage: statistics.median(run[stage] for run in runs) for stage in STAGES}
        figures[spec.stem] = medians
        total = sum(medians.values())
        rows.append([spec.stem] + [f"{medians[s] * 1000:.0f}" for s in STAGES]
                    + [f"{total * 1000:.0f}"])
    table = markdown_table(["spec (ms)"] + list(STAGES) + ["total"], rows)
    note = (f"first parse in a process (the parser built from its generated tables): "
            f"{first_parse * 1000:.0f} ms; stage figures are medians of {repeats} runs, each "
            "with sympy's cache cleared")
    return table + "\n\n" + note, {"first_parse_s": first_parse, "specs": figures}


# --- main --------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and sizes")
    parser.add_argument("--runs", type=int, help="whole-process runs per spec (default 5, "
                                                 "quick 3)")
    parser.add_argument("--only", nargs="+",
                        choices=("process", "stages", "scaling", "sweep", "verify", "ratios",
                                 "constructs", "clipped", "csv", "startup"),
                        help="run only these tables")
    parser.add_argument("--specs", nargs="+", metavar="NAME",
                        help="time only these shipped specs (names without .kcost)")
    parser.add_argument("--output", type=Path, default=RESULTS,
                        help="Markdown results file (default bench/RESULTS.md); `-` for none")
    parser.add_argument("--json", type=Path, help="also write the raw figures as JSON")
    parser.add_argument("--before", type=Path, help="raw figures (--json) of an earlier run, "
                        "e.g. with --src at an older commit: adds a before/after table")
    parser.add_argument("--src", type=Path, help="time the kernelcost package under this "
                        "folder (a git worktree's src/ of an older commit: before and after)")
    args = parser.parse_args(argv)
    global SOURCE, SPECS
    if args.specs:
        SPECS = [spec for spec in SPECS if spec.stem in args.specs]
    if args.src is not None:
        SOURCE = args.src.resolve()
        sys.path.insert(0, str(SOURCE))
    else:
        sys.path.insert(0, str(ROOT / "src"))
    runs = args.runs or (3 if args.quick else 5)
    from clipped_dims import clipped_growth
    from constructs import constructs
    from process_ratios import process_ratios
    from scaling import generated_spec, scaling, sweep_throughput
    from startup import startup
    from sweep_csv import sweep_csv_cost
    from verify_cost import verification_cost
    sections = [
        ("process", "Whole process: `kernelcost analyze SPEC --json`",
         lambda: whole_process(runs)),
        ("stages", "Stages in process, per spec", lambda: stages(1 if args.quick else 3)),
        ("scaling", "Scaling with generated specs",
         lambda: scaling(args.quick, median_seconds, loglog_slope, markdown_table)),
        ("sweep", "Sweep throughput",
         lambda: sweep_throughput(args.quick, ROOT, median_seconds, markdown_table)),
        ("verify", "Self-verification: `analyze` with and without `--no-verify`",
         lambda: verification_cost(SPECS, ROOT, kernelcost_command(), run_quietly,
                                   markdown_table, runs)),
        ("ratios", "Whole commands with machines, paired ratios to `import sympy`",
         lambda: process_ratios(SPECS, ROOT, kernelcost_command(), run_quietly,
                                markdown_table, runs)),
        ("constructs", "Execution model and bounds: growth of each construct",
         lambda: constructs(ROOT, 1 if args.quick else 3, generated_spec, loglog_slope,
                            markdown_table)),
        ("clipped", "Clipped dimensions: `analyze --json` as they grow",
         lambda: clipped_growth({"kernelcost": kernelcost_command()}, run_quietly,
                                markdown_table, args.quick, 1 if args.quick else 3)),
        ("csv", "Sweep CSV: `kernelcost sweep --csv`", lambda: sweep_csv_cost(markdown_table, 1)),
        ("startup", "Start-up: `import kernelcost.cli`",
         lambda: startup(run_quietly, child_environment(), markdown_table, runs)),
    ]
    machine = machine_description()
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = "python bench/bench.py" + (" --quick" if args.quick else "")
    if SOURCE is not None:
        import kernelcost

        command += f" --src {SOURCE}"
        print(f"timing {Path(kernelcost.__file__).parent}", flush=True)
    document = [f"# kernelcost benchmarks\n\n- date: {date}\n- machine: {machine}\n"
                f"- command: `{command}`\n"]
    raw = {"date": date, "machine": machine, "commit": source_commit()}
    print(f"machine: {machine}", flush=True)
    for key, title, run in sections:
        if args.only and key not in args.only:
            continue
        start = time.perf_counter()
        text, figures = run()
        raw[key] = figures
        section = f"## {title}\n\n{text}\n"
        print(f"\n{section}(section took {time.perf_counter() - start:.1f} s)", flush=True)
        document.append(section)
    if args.before is not None:
        from compare import compare

        before = json.loads(args.before.read_text())
        section = (f"## Before and after\n\nbefore: `{args.before.name}` "
                   f"({before.get('commit', 'unknown commit')}, {before['date']}); after: this "
                   f"run ({raw['commit']})\n\n{compare(before, raw)}\n")
        print("\n" + section, flush=True)
        document.append(section)
    if str(args.output) != "-":
        args.output.write_text("\n".join(document))
        print(f"\nwrote {args.output}")
    if args.json:
        args.json.write_text(json.dumps(raw, indent=2, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
