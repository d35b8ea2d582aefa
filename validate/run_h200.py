#!/usr/bin/env python3
"""Measure the library's kernels on an NVIDIA GPU and write one CSV for `kernelcost validate`.

    python validate/run_h200.py                      # measure, write validate/results/...
    python validate/run_h200.py --dry-run            # no GPU: list the cases and t_bound
    kernelcost validate validate/results/h200-DATE.csv --machine h200

Each case runs, as PyTorch or Triton code, what its spec (specs/*.kcost) counts, at the
spec's sizes; see validate/README.md for the CSV's columns and what each case runs.
Timing: CUDA events around one call, after warm-up; before every repeat a 256 MB buffer is
written so that L2 (60 MiB on an H200) holds nothing of the inputs; the median of the
repeats is kept. Where `ncu` (Nsight Compute) is on PATH, one size per kernel is profiled
again for DRAM bytes, L2 bytes and non-tensor FLOP. The whole run stays under 5 minutes.
Without a GPU (or PyTorch, or Triton) it says so and exits 2: nothing is measured then."""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
# its parts beside it (h200_cases, h200_builds, h200_measure) and triton_kernels, however
# it is started: as a script, by ncu (--profile-one), or loaded from its path by a test
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import h200_builds  # noqa: E402
from h200_builds import build  # noqa: E402
from h200_cases import cases, first_round  # noqa: E402
from h200_measure import (  # noqa: E402
    FLUSH_BYTES,
    NCU_CALL_S,
    UNPROFILED,
    clocks_now,
    counters,
    measure,
)

ROOT = HERE.parent
COLUMNS = ("kernel", "spec", "sizes", "dtype", "time_s", "dram_bytes", "l2_bytes", "flop")
BUDGET_S = 240  # no case is timed after this many seconds from the start
COUNTER_BUDGET_S = 270  # nor profiled by ncu after this (the counters come last)


# -- the child ncu runs ---------------------------------------------------------------------

def profile_one(case_id: int) -> int:
    """The child ncu runs: one case once, inside the NVTX range ncu keeps."""
    torch, triton_kernels = _gpu_or_exit()
    kernel, _, sizes, _, _ = cases()[case_id]
    fn, _ = build(kernel, sizes, torch, triton_kernels)
    fn()  # compile and pick algorithms outside the range
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("kcost")
    fn()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    return 0


# -- the run --------------------------------------------------------------------------------

def _gpu_or_exit():
    """torch and the Triton kernels, or a clear message and exit 2 without a GPU."""
    try:
        import torch
    except ImportError:
        _no_gpu("PyTorch is not installed")
    if not torch.cuda.is_available():
        _no_gpu("PyTorch sees no CUDA device")
    try:
        import triton_kernels
    except ImportError as error:
        _no_gpu(f"Triton is not usable ({error})")
    return torch, triton_kernels


def _no_gpu(reason: str):
    print(f"run_h200.py measures kernels on an NVIDIA GPU and cannot here: {reason}.\n"
          "Nothing was measured and no CSV was written. Run it on a machine with an NVIDIA "
          "GPU, PyTorch and Triton (see validate/README.md); `--dry-run` lists the cases "
          "without one.", file=sys.stderr)
    sys.exit(2)


def selected(only: str | None, new: bool) -> list[tuple[int, tuple]]:
    """(case id, case) of the cases asked for: `--new` the second round's alone; `--only`
    a comma list, each a part of the kernel's name (`=NAME` the whole name)."""
    found = list(enumerate(cases()))
    if new:
        found = found[len(first_round()):]
    if only:
        parts = [part.strip() for part in only.split(",") if part.strip()]
        found = [(i, c) for i, c in found if any(
            c[0] == part[1:] if part.startswith("=") else part in c[0] for part in parts)]
    return found


def dry_run(chosen=None) -> int:
    """The cases with their t_bound on the H200, on the CPU: checks every case's sizes
    against its spec before any GPU time is spent."""
    sys.path.insert(0, str(ROOT / "src"))
    import kernelcost
    from kernelcost.answers.answer import answers

    if chosen is None:
        chosen = list(enumerate(cases()))
    for _, (kernel, spec, sizes, dtype, _) in chosen:
        analysis = kernelcost.analyze(ROOT / "specs" / f"{spec}.kcost", sizes)
        if analysis.warnings:
            print(f"{kernel} {sizes}: {'; '.join(analysis.warnings)}", file=sys.stderr)
            return 1
        (answer,) = answers(analysis, ["h200"], None)
        verdict = answer.verdict
        print(f"{kernel:22} {spec:22} {_sizes(sizes):30} {dtype:5} t_bound "
              f"{float(verdict.t_bound) * 1e6:11.2f} us  t_model "
              f"{float(verdict.t_model) * 1e6:11.2f} us", flush=True)
    return 0


def _sizes(sizes: dict) -> str:
    return ";".join(f"{name}={value}" for name, value in sizes.items())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="the CSV (default validate/results/<gpu>-<date>.csv)")
    parser.add_argument("--dry-run", action="store_true",
                        help="list the cases and their t_bound on the H200 (no GPU needed)")
    parser.add_argument("--no-counters", action="store_true", help="skip Nsight Compute")
    parser.add_argument("--only", help="measure only kernels whose name contains this "
                        "(a comma list: any of them; `=NAME`: the whole name)")
    parser.add_argument("--new", action="store_true",
                        help="only the cases added after the first run (2026-12-04)")
    parser.add_argument("--time-budget", type=float, default=BUDGET_S, metavar="S",
                        help=f"no case is timed after S seconds (default {BUDGET_S})")
    parser.add_argument("--counter-budget", type=float, default=COUNTER_BUDGET_S,
                        metavar="S", help="no ncu run starts, and none outlasts, S seconds "
                        f"from the start (default {COUNTER_BUDGET_S})")
    parser.add_argument("--profile-one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    chosen = selected(args.only, args.new)
    if args.dry_run:
        return dry_run(chosen)
    if args.profile_one is not None:
        return profile_one(args.profile_one)
    torch, triton_kernels = _gpu_or_exit()
    began = time.monotonic()
    name = torch.cuda.get_device_name()
    slug = "h200" if "H200" in name else "".join(c for c in name.lower() if c.isalnum())
    day = datetime.date.today().isoformat()
    out = Path(args.out or ROOT / "validate" / "results" / f"{slug}-{day}.csv")
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device=h200_builds.DEVICE)
    use_ncu = not args.no_counters and shutil.which("ncu") is not None
    comment = (f"# measured by validate/run_h200.py on {name}, {day}; torch "
               f"{torch.__version__}, CUDA {torch.version.cuda}, triton "
               f"{triton_kernels.triton.__version__}; ncu: {'yes' if use_ncu else 'no'}\n")
    # the CSV grows a row at a time (flushed), so that a run cut short keeps what it measured
    out.parent.mkdir(parents=True, exist_ok=True)
    handle = out.open("w", newline="")
    handle.write(comment)
    writer = csv.DictWriter(handle, fieldnames=COLUMNS)
    writer.writeheader()
    handle.flush()
    clocks: list[str] = []  # comment lines: SM clock and power after each case's repeats
    rows, first_of = [], {}  # first_of: kernel -> (case id, its row), the size ncu profiles
    for case_id, (kernel, spec, sizes, dtype, tensor) in chosen:
        if time.monotonic() - began > args.time_budget:
            print(f"time budget spent: {kernel} {_sizes(sizes)} and later not measured")
            break
        fn = check = None
        try:
            fn, check = build(kernel, sizes, torch, triton_kernels)
            fn()  # the check reads the output of one call
            torch.cuda.synchronize()
            if check is not None and not check():
                print(f"{kernel} {_sizes(sizes)}: the kernel's output is wrong; not timed")
                continue
            seconds = measure(fn, torch, flush)
            state = clocks_now()  # right after the repeats: the clocks they ran at
        except Exception as error:  # one broken case must not cost the others
            print(f"{kernel} {_sizes(sizes)}: failed, not timed: "
                  f"{type(error).__name__}: {str(error)[:500]}")
            continue
        finally:
            del fn, check
            torch.cuda.empty_cache()
        row = dict(kernel=kernel, spec=f"specs/{spec}.kcost", sizes=_sizes(sizes),
                   dtype=dtype, time_s=f"{seconds:.6e}", dram_bytes="", l2_bytes="", flop="")
        print(f"{kernel:22} {row['sizes']:34} {seconds * 1e6:12.2f} us  {state}", flush=True)
        rows.append(row)
        writer.writerow(row)
        handle.flush()
        if state:
            clocks.append(f"# after {kernel} {row['sizes']}: {state}\n")
        if kernel not in first_of and kernel not in UNPROFILED:
            first_of[kernel] = (case_id, row, tensor)
    handle.write(f"# timings: {len(rows)} rows in {time.monotonic() - began:.0f} s\n")
    handle.writelines(clocks)
    handle.close()
    print(f"timings: {len(rows)} rows in {time.monotonic() - began:.0f} s", flush=True)
    if use_ncu:  # after every timing: counters are worth less than the times
        del flush
        torch.cuda.empty_cache()
        failures = 0
        for kernel, (case_id, row, tensor) in first_of.items():
            left = args.counter_budget - (time.monotonic() - began)
            if left < 10:
                print(f"counter budget spent: {kernel} and later not profiled")
                break
            found = counters(Path(__file__).resolve(), case_id, timeout_s=min(NCU_CALL_S, left))
            if not found:
                failures += 1
                if failures >= 2 and not any(r["dram_bytes"] for r in rows):
                    print("ncu failed twice and never worked: no more counters")
                    break
                continue
            row.update(found)
            if tensor:
                row["flop"] = ""  # tensor-core MMAs are not in the SASS FP counters
            print(f"{kernel:18} {row['sizes']:34} dram {row['dram_bytes']:>14} "
                  f"l2 {row['l2_bytes']:>14} flop {row['flop']:>14}", flush=True)
            _write(out, comment, rows, began, clocks)  # whole again, replacing the file
    _write(out, comment, rows, began, clocks)
    print(f"{len(rows)} rows in {out}; next: kernelcost validate {out} --machine h200")
    return 0


def _write(out: Path, comment: str, rows: list[dict], began: float,
           clocks: Sequence[str] = ()) -> None:
    """The CSV with every row so far, written beside `out` and renamed over it."""
    partial = out.with_name(out.name + ".partial")
    with partial.open("w", newline="") as handle:
        handle.write(comment)
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
        handle.write(f"# {len(rows)} rows, {sum(bool(r['dram_bytes']) for r in rows)} with "
                     f"counters; {time.monotonic() - began:.0f} s\n")
        handle.writelines(clocks)
    os.replace(partial, out)


if __name__ == "__main__":
    sys.exit(main())
