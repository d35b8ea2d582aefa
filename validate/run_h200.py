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
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ("kernel", "spec", "sizes", "dtype", "time_s", "dram_bytes", "l2_bytes", "flop")
FLUSH_BYTES = 256 * 1024 * 1024  # written before each repeat: several times any L2
BUDGET_S = 240  # no case is timed after this many seconds from the start
COUNTER_BUDGET_S = 270  # nor profiled by ncu after this (the counters come last)
NCU_CALL_S = 90  # one ncu run at most
DEVICE = "cuda"  # where build() puts the inputs (a test may set "cpu", with TRITON_INTERPRET=1)
NCU_METRICS = {  # metric -> weight in the `flop` column (None: a byte counter)
    "dram__bytes.sum": None, "lts__t_bytes.sum": None,
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 1,
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 1,
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 2,
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum": 1,
    "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum": 1,
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum": 2,
}


# -- the cases: (kernel, spec, sizes, dtype, uses tensor cores); builders need torch ------

def cases() -> list[tuple[str, str, dict, str, bool]]:
    mixtral = dict(N=14336, K=4096)  # Mixtral-8x7B's w1: E = 8 experts, top-2
    found = []
    for n in (2**24, 2**26, 2**28, 2**30):
        found.append(("copy", "copy", dict(n=n), "fp32", False))
    for n in (2**24, 2**28):
        found.append(("copy_triton", "copy", dict(n=n), "fp32", False))
    for s in (2048, 4096, 8192):
        found.append(("gemm", "gemm_hopper", dict(M=s, N=s, K=s), "bf16", True))
    for N, K, b in ((4096, 4096, 1), (14336, 4096, 1), (4096, 14336, 8), (8192, 8192, 64)):
        found.append(("gemv_decode", "gemv_decode", dict(N=N, K=K, b=b), "bf16", True))
    for b, h, L in ((1, 32, 4096), (8, 32, 4096), (32, 64, 8192)):
        found.append(("decode_attention", "decode_attention", dict(b=b, h=h, L=L), "bf16",
                      True))
    for R, n in ((1, 4096), (64, 8192), (4096, 4096), (16384, 8192)):
        found.append(("rmsnorm_triton", "rmsnorm", dict(R=R, n=n), "bf16", False))
    for T in (1, 512, 8192):
        found.append(("rope_triton", "rope", dict(T=T, h=32, hk=8), "bf16", False))
    for T, n in ((1, 14336), (512, 14336), (8192, 14336)):
        found.append(("silu_mul_triton", "silu_mul", dict(T=T, n=n), "bf16", False))
    # Ea = E (1 - (1 - k/E)^b) and Mt = ceil(b k / Ea) for b = 1, 8, 64, 256 tokens; no
    # prefill-sized Mt: there the L2 term follows the tile, and cuBLAS picks its own
    for Ea, Mt in ((2, 1), (7, 3), (8, 16), (8, 64)):
        found.append(("moe_gemm", "moe_gemm", dict(Ea=Ea, Mt=Mt, **mixtral), "bf16", True))
    for n in (2**24, 2**26, 2**28):
        found.append(("reduce_sum", "reduce_sum", dict(n=n), "fp32", False))
    for R, n in ((4096, 4096), (8192, 8192), (64, 131072)):
        found.append(("softmax_rows", "softmax_rows", dict(R=R, n=n), "bf16", False))
        found.append(("layernorm_rows", "layernorm_rows", dict(R=R, n=n), "bf16", False))
    return found


def build(kernel: str, sizes: dict, torch, triton_kernels):
    """The inputs and a call that does what the spec counts; `check`, called after one
    call, compares a Triton kernel's output with PyTorch's (None where PyTorch runs)."""
    cuda, bf16, f32 = DEVICE, torch.bfloat16, torch.float32
    F = torch.nn.functional
    s = sizes
    if kernel in ("copy", "copy_triton"):
        x, y = torch.randn(s["n"], device=cuda), torch.empty(s["n"], device=cuda)
        if kernel == "copy":
            return (lambda: y.copy_(x)), None
        return (lambda: triton_kernels.copy(x, y)), lambda: torch.equal(x, y)
    if kernel == "gemm":
        a = torch.randn(s["M"], s["K"], device=cuda, dtype=bf16)
        b = torch.randn(s["K"], s["N"], device=cuda, dtype=bf16)
        return (lambda: torch.matmul(a, b)), None
    if kernel == "gemv_decode":
        w = torch.randn(s["N"], s["K"], device=cuda, dtype=bf16)
        x = torch.randn(s["b"], s["K"], device=cuda, dtype=bf16)
        return (lambda: F.linear(x, w)), None
    if kernel == "decode_attention":
        g, d = 8, 128  # the spec's defaults; the g query heads of a KV head as g rows
        H = s["h"] // g
        q = torch.randn(s["b"], H, g, d, device=cuda, dtype=bf16)
        k = torch.randn(s["b"], H, s["L"], d, device=cuda, dtype=bf16)
        v = torch.randn_like(k)
        return (lambda: F.scaled_dot_product_attention(q, k, v)), None
    if kernel == "rmsnorm_triton":
        x = torch.randn(s["R"], s["n"], device=cuda, dtype=bf16)
        w = torch.randn(s["n"], device=cuda, dtype=bf16)
        y = torch.empty_like(x)

        def reference():
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float())

        return (lambda: triton_kernels.rmsnorm(x, w, y)), lambda: torch.allclose(
            y.float(), reference(), atol=0.05, rtol=0.02)
    if kernel == "rope_triton":
        T, h, hk, d = s["T"], s["h"], s["hk"], 128
        q = torch.randn(T, h, 2, d // 2, device=cuda, dtype=bf16)
        k = torch.randn(T, hk, 2, d // 2, device=cuda, dtype=bf16)
        angle = torch.rand(T, 1, d // 2, device=cuda) * 6.28  # a rotation keeps the norm
        cs = torch.cat([angle.cos(), angle.sin()], dim=1).to(bf16)  # repeats stay finite
        q0 = q.clone()

        def check():
            q.copy_(q0)
            triton_kernels.rope(q, k, cs)
            c, sn = cs[:, None, 0].float(), cs[:, None, 1].float()
            x1, x2 = q0[:, :, 0].float(), q0[:, :, 1].float()
            return torch.allclose(q[:, :, 0].float(), x1 * c - x2 * sn, atol=0.05, rtol=0.02)

        return (lambda: triton_kernels.rope(q, k, cs)), check
    if kernel == "silu_mul_triton":
        x = torch.randn(s["T"], 2, s["n"], device=cuda, dtype=bf16)
        y = torch.empty(s["T"], s["n"], device=cuda, dtype=bf16)
        return (lambda: triton_kernels.silu_mul(x, y)), lambda: torch.allclose(
            y.float(), (F.silu(x[:, 0].float()) * x[:, 1].float()), atol=0.05, rtol=0.02)
    if kernel == "moe_gemm":
        w = torch.randn(8, s["N"], s["K"], device=cuda, dtype=bf16)
        x = torch.randn(s["Ea"], s["Mt"], s["K"], device=cuda, dtype=bf16)
        wt = w[: s["Ea"]].transpose(1, 2)  # a view: the touched experts' weights, unmoved
        return (lambda: torch.bmm(x, wt)), None
    if kernel == "reduce_sum":
        x = torch.randn(s["n"], device=cuda, dtype=f32)
        return (lambda: x.sum()), None
    if kernel == "softmax_rows":
        x = torch.randn(s["R"], s["n"], device=cuda, dtype=bf16)
        return (lambda: torch.softmax(x, dim=-1)), None
    if kernel == "layernorm_rows":
        x = torch.randn(s["R"], s["n"], device=cuda, dtype=bf16)
        gamma, beta = torch.randn(s["n"], device=cuda, dtype=bf16), torch.randn(
            s["n"], device=cuda, dtype=bf16)
        return (lambda: F.layer_norm(x, (s["n"],), gamma, beta)), None
    raise ValueError(kernel)


# -- timing ---------------------------------------------------------------------------------

def measure(fn, torch, flush, target_s: float = 0.2) -> float:
    """Median seconds of one call, L2 flushed before each: warm-up (compilation, cuBLAS
    heuristics), an estimate, then as many repeats as fit in target_s (5 to 100)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    rough = _timed(fn, torch, flush, 3)
    repeats = max(5, min(100, int(target_s / max(statistics.median(rough), 1e-6))))
    return statistics.median(_timed(fn, torch, flush, repeats))


def _timed(fn, torch, flush, repeats: int) -> list[float]:
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(repeats)]
    for start, end in events:
        flush.zero_()  # queued before the start event: the call begins on a cold L2
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return [start.elapsed_time(end) / 1e3 for start, end in events]


# -- Nsight Compute -------------------------------------------------------------------------

def counters(case_id: int, timeout_s: float) -> dict[str, str]:
    """DRAM bytes, L2 bytes and non-tensor FLOP of one case, from `ncu` run on this script
    (--profile-one): every kernel inside the NVTX range `kcost`, summed. Empty on failure."""
    # --clock-control none: the card's clocks as they are (ncu would lock them to base);
    # --cache-control all (the default): caches flushed before each replay pass
    command = ["ncu", "--csv", "--print-units", "base", "--clock-control", "none",
               "--cache-control", "all", "--nvtx", "--nvtx-include", "kcost/",
               "--metrics", ",".join(NCU_METRICS), sys.executable,
               str(Path(__file__).resolve()), "--profile-one", str(case_id)]
    try:  # a session of its own, so that a timeout ends ncu's child (python) too
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, start_new_session=True)
    except OSError as error:
        print(f"  ncu: {error}", file=sys.stderr)
        return {}
    try:
        stdout, stderr = child.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        print(f"  ncu: no answer in {timeout_s:.0f} s; stopped", file=sys.stderr)
        return {}
    done = subprocess.CompletedProcess(command, child.returncode, stdout, stderr)
    lines = [line for line in done.stdout.splitlines() if line.startswith('"')]
    totals: dict[str, float] = {}
    for record in csv.DictReader(lines):
        name, value = record.get("Metric Name"), record.get("Metric Value", "")
        try:
            totals[name] = totals.get(name, 0.0) + float(value.replace(",", ""))
        except (TypeError, ValueError):
            continue
    if "dram__bytes.sum" not in totals:
        print(f"  ncu gave no counters (exit {done.returncode}): "
              f"{done.stderr.strip()[-300:] or done.stdout.strip()[-300:]}", file=sys.stderr)
        return {}
    flop = sum(totals.get(metric, 0.0) * weight for metric, weight in NCU_METRICS.items()
               if weight is not None)
    return {"dram_bytes": f"{totals['dram__bytes.sum']:.0f}",
            "l2_bytes": f"{totals.get('lts__t_bytes.sum', 0.0):.0f}",
            "flop": f"{flop:.0f}"}


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
        sys.path.insert(0, str(Path(__file__).resolve().parent))
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


def dry_run() -> int:
    """The cases with their t_bound on the H200, on the CPU: checks every case's sizes
    against its spec before any GPU time is spent."""
    sys.path.insert(0, str(ROOT / "src"))
    import kernelcost
    from kernelcost.answer import answers

    for kernel, spec, sizes, dtype, _ in cases():
        analysis = kernelcost.analyze(ROOT / "specs" / f"{spec}.kcost", sizes)
        if analysis.warnings:
            print(f"{kernel} {sizes}: {'; '.join(analysis.warnings)}", file=sys.stderr)
            return 1
        (answer,) = answers(analysis, ["h200"], None)
        print(f"{kernel:18} {_sizes(sizes):34} {dtype:5} t_bound "
              f"{float(answer.verdict.t_bound) * 1e6:12.2f} us")
    return 0


def _sizes(sizes: dict) -> str:
    return ";".join(f"{name}={value}" for name, value in sizes.items())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="the CSV (default validate/results/<gpu>-<date>.csv)")
    parser.add_argument("--dry-run", action="store_true",
                        help="list the cases and their t_bound on the H200 (no GPU needed)")
    parser.add_argument("--no-counters", action="store_true", help="skip Nsight Compute")
    parser.add_argument("--only", help="measure only kernels whose name contains this")
    parser.add_argument("--time-budget", type=float, default=BUDGET_S, metavar="S",
                        help=f"no case is timed after S seconds (default {BUDGET_S})")
    parser.add_argument("--counter-budget", type=float, default=COUNTER_BUDGET_S,
                        metavar="S", help="no ncu run starts, and none outlasts, S seconds "
                        f"from the start (default {COUNTER_BUDGET_S})")
    parser.add_argument("--profile-one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.dry_run:
        return dry_run()
    if args.profile_one is not None:
        return profile_one(args.profile_one)
    torch, triton_kernels = _gpu_or_exit()
    began = time.monotonic()
    name = torch.cuda.get_device_name()
    slug = "h200" if "H200" in name else "".join(c for c in name.lower() if c.isalnum())
    day = datetime.date.today().isoformat()
    out = Path(args.out or ROOT / "validate" / "results" / f"{slug}-{day}.csv")
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device=DEVICE)
    use_ncu = not args.no_counters and shutil.which("ncu") is not None
    chosen = [(i, c) for i, c in enumerate(cases()) if not args.only or args.only in c[0]]
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
        except Exception as error:  # one broken case must not cost the others
            print(f"{kernel} {_sizes(sizes)}: failed, not timed: "
                  f"{type(error).__name__}: {str(error)[:500]}")
            continue
        finally:
            del fn, check
            torch.cuda.empty_cache()
        row = dict(kernel=kernel, spec=f"specs/{spec}.kcost", sizes=_sizes(sizes),
                   dtype=dtype, time_s=f"{seconds:.6e}", dram_bytes="", l2_bytes="", flop="")
        print(f"{kernel:18} {row['sizes']:34} {seconds * 1e6:12.2f} us", flush=True)
        rows.append(row)
        writer.writerow(row)
        handle.flush()
        if kernel not in first_of:
            first_of[kernel] = (case_id, row, tensor)
    handle.write(f"# timings: {len(rows)} rows in {time.monotonic() - began:.0f} s\n")
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
            found = counters(case_id, timeout_s=min(NCU_CALL_S, left))
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
            _write(out, comment, rows, began)  # whole again, replacing the file at once
    _write(out, comment, rows, began)
    print(f"{len(rows)} rows in {out}; next: kernelcost validate {out} --machine h200")
    return 0


def _write(out: Path, comment: str, rows: list[dict], began: float) -> None:
    """The CSV with every row so far, written beside `out` and renamed over it."""
    partial = out.with_name(out.name + ".partial")
    with partial.open("w", newline="") as handle:
        handle.write(comment)
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
        handle.write(f"# {len(rows)} rows, {sum(bool(r['dram_bytes']) for r in rows)} with "
                     f"counters; {time.monotonic() - began:.0f} s\n")
    os.replace(partial, out)


if __name__ == "__main__":
    sys.exit(main())
