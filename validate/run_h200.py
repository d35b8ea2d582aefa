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
from collections.abc import Sequence
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
    """Every case: the first round's (measured 2026-12-04), then the second's (`--new`)."""
    return first_round() + second_round()


def first_round() -> list[tuple[str, str, dict, str, bool]]:
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


def second_round() -> list[tuple[str, str, dict, str, bool]]:
    """The cases added after the first run (`--new` runs these alone). In this order the
    counters, first size of each kernel, come in the order of their worth."""
    found = []
    # below L2 (60 MiB): the input is read cold (the flush), the output may stay in L2
    for n in (2**22, 2**20):
        found.append(("copy_triton", "copy", dict(n=n), "fp32", False))
        found.append(("copy", "copy", dict(n=n), "fp32", False))
    found.append(("rmsnorm_triton", "rmsnorm", dict(R=4096, n=8192), "bf16", False))
    # FlashAttention-2 forward through SDPA's flash backend, [1, H, S, d]. The specs model
    # FA2's hdim-128 tiling (Br = 128, Bc = 64); for d = 64 FA2 runs Br = 128, Bc = 128
    # (flash_fwd_launch_template.h, run_mha_fwd_hdim64). Grid (S / 128) x H blocks, at most
    # 2 a multiprocessor (255 registers x 128 threads), 132 multiprocessors: H = 1 leaves
    # it mostly idle (8, 32, 128 blocks), the others fill it several times over.
    for S, H, d in ((4096, 32, 128), (1024, 1, 128), (1024, 64, 128), (4096, 1, 128),
                    (16384, 1, 128), (16384, 8, 128), (1024, 64, 64), (4096, 32, 64),
                    (16384, 8, 64)):
        sizes = dict(S=S, H=H, d=d, **({"Bc": 128} if d == 64 else {}))
        found.append(("flash_attention", "flash_attention", sizes, "bf16", True))
    for S, H, d in ((4096, 32, 128), (1024, 1, 128), (16384, 1, 128), (16384, 8, 128),
                    (4096, 32, 64), (16384, 8, 64)):
        sizes = dict(S=S, H=H, d=d, **({"Bc": 128} if d == 64 else {}))
        found.append(("flash_attention_causal", "flash_attention_causal", sizes, "bf16",
                      True))
    # torch.matmul beyond squares. M = 16, 64, 128 break gemm_hopper's `2 TM | M` (TM =
    # 128): those go against gemv_decode (the skinny-GEMM spec, b = M); M = 256 is the
    # smallest gemm_hopper takes
    for M in (16, 64, 128):
        found.append(("gemm_skinny", "gemv_decode", dict(N=8192, K=8192, b=M), "bf16", True))
    found.append(("gemm_skinny", "gemm_hopper", dict(M=256, N=8192, K=8192), "bf16", True))
    for s in (512, 1024):
        found.append(("gemm_small", "gemm_hopper", dict(M=s, N=s, K=s), "bf16", True))
    found.append(("gemm_tallk", "gemm_hopper", dict(M=1024, N=1024, K=65536), "bf16", True))
    # gemm_ragged runs M - RAGGED, N - RAGGED, K - RAGGED (8191, 4095): gemm_hopper takes
    # only whole tiles, so the spec's sizes are the padded ones (the MMAs run whole tiles)
    for s in (8192, 4096):
        found.append(("gemm_ragged", "gemm_hopper", dict(M=s, N=s, K=s), "bf16", True))
    # the same product on zeros and on random data, alternated (power and clocks)
    for kernel in ("gemm", "gemm_zeros", "gemm", "gemm_zeros"):
        found.append((kernel, "gemm_hopper", dict(M=8192, N=8192, K=8192), "bf16", True))
    # launch overhead against kernel time: the same calls replayed from a CUDA graph
    found.append(("decode_attention_graph", "decode_attention", dict(b=1, h=32, L=4096),
                  "bf16", True))
    found.append(("decode_attention_graph", "decode_attention", dict(b=8, h=32, L=4096),
                  "bf16", True))
    found.append(("flash_attention_graph", "flash_attention", dict(S=1024, H=1, d=128),
                  "bf16", True))
    found.append(("rmsnorm_triton_graph", "rmsnorm", dict(R=1, n=4096), "bf16", False))
    found.append(("rope_triton_graph", "rope", dict(T=1, h=32, hk=8), "bf16", False))
    return found


RAGGED = 1  # gemm_ragged runs each of M, N, K this much under the spec's (padded) sizes
UNPROFILED = {  # kernels ncu is not run on
    "copy": "cudaMemcpyAsync, not a kernel: ncu profiles none",
    "gemm_zeros": "the same traffic as gemm",
    **{f"{name}_graph": "the same kernels as without the graph" for name in (
        "decode_attention", "flash_attention", "rmsnorm_triton", "rope_triton")},
}


def build(kernel: str, sizes: dict, torch, triton_kernels):
    """The inputs and a call that does what the spec counts; `check`, called after one
    call, compares a Triton kernel's output with PyTorch's (None where PyTorch runs)."""
    cuda, bf16, f32 = DEVICE, torch.bfloat16, torch.float32
    F = torch.nn.functional
    s = sizes
    if kernel.endswith("_graph"):  # the same call, captured once and replayed
        fn, check = build(kernel[: -len("_graph")], sizes, torch, triton_kernels)
        return _graphed(fn, torch), check
    if kernel in ("gemm_skinny", "gemm_small", "gemm_tallk", "gemm_ragged", "gemm_zeros"):
        M, N, K = (s["b"], s["N"], s["K"]) if "b" in s else (s["M"], s["N"], s["K"])
        if kernel == "gemm_ragged":
            M, N, K = M - RAGGED, N - RAGGED, K - RAGGED
        make = torch.zeros if kernel == "gemm_zeros" else torch.randn
        a = make(M, K, device=cuda, dtype=bf16)
        b = make(K, N, device=cuda, dtype=bf16)
        return (lambda: torch.matmul(a, b)), None
    if kernel in ("flash_attention", "flash_attention_causal"):
        from torch.nn.attention import SDPBackend, sdpa_kernel

        q, k, v = (torch.randn(1, s["H"], s["S"], s["d"], device=cuda, dtype=bf16)
                   for _ in range(3))
        causal = kernel == "flash_attention_causal"

        def attention():
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):  # no other backend: else it raises
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

        return attention, None
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


def _graphed(fn, torch):
    """fn captured in a CUDA graph (warmed up on a side stream first): its replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    torch.cuda.synchronize()
    return graph.replay


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
    names: set[str] = set()
    for record in csv.DictReader(lines):
        names.add(str(record.get("Kernel Name", ""))[:200])
        name, value = record.get("Metric Name"), record.get("Metric Value", "")
        try:
            totals[name] = totals.get(name, 0.0) + float(value.replace(",", ""))
        except (TypeError, ValueError):
            continue
    if "dram__bytes.sum" not in totals:
        print(f"  ncu gave no counters (exit {done.returncode}): "
              f"{done.stderr.strip()[-300:] or done.stdout.strip()[-300:]}", file=sys.stderr)
        return {}
    print(f"  ncu kernels: {' | '.join(sorted(names))}", flush=True)
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
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device=DEVICE)
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
            state = _clocks()  # right after the repeats: the clocks they ran at
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
            _write(out, comment, rows, began, clocks)  # whole again, replacing the file
    _write(out, comment, rows, began, clocks)
    print(f"{len(rows)} rows in {out}; next: kernelcost validate {out} --machine h200")
    return 0


def _clocks() -> str:
    """The SM clock, the power drawn and the clock-limit reasons now (NVML), or ''."""
    try:
        import pynvml

        pynvml.nvmlInit()
        device = pynvml.nvmlDeviceGetHandleByIndex(0)
        sm = pynvml.nvmlDeviceGetClockInfo(device, pynvml.NVML_CLOCK_SM)
        watts = pynvml.nvmlDeviceGetPowerUsage(device) / 1000
        reasons = (getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None)
                   or pynvml.nvmlDeviceGetCurrentClocksThrottleReasons)(device)
        return f"sm {sm} MHz, {watts:.0f} W, clock-event reasons 0x{reasons:x}"
    except Exception:  # no NVML: the timings go on without
        return ""


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
