"""How run_h200.py measures a case: CUDA events around one call with L2 flushed before each
repeat, the median kept; the SM clock and power the repeats ran at (NVML); and, where
Nsight Compute is on PATH, the DRAM bytes, L2 bytes and non-tensor FLOP of one call."""

from __future__ import annotations

import csv
import os
import signal
import statistics
import subprocess
import sys
from pathlib import Path

FLUSH_BYTES = 256 * 1024 * 1024  # written before each repeat: several times any L2
NCU_CALL_S = 90  # one ncu run at most
NCU_METRICS = {  # metric -> weight in the `flop` column (None: a byte counter)
    "dram__bytes.sum": None, "lts__t_bytes.sum": None,
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 1,
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 1,
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 2,
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum": 1,
    "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum": 1,
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum": 2,
}
UNPROFILED = {  # kernels ncu is not run on
    "copy": "cudaMemcpyAsync, not a kernel: ncu profiles none",
    "gemm_zeros": "the same traffic as gemm",
    **{f"{name}_graph": "the same kernels as without the graph" for name in (
        "decode_attention", "flash_attention", "rmsnorm_triton", "rope_triton")},
}


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


def clocks_now() -> str:
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


# -- Nsight Compute -------------------------------------------------------------------------

def counters(harness: Path, case_id: int, timeout_s: float) -> dict[str, str]:
    """DRAM bytes, L2 bytes and non-tensor FLOP of one case, from `ncu` run on the harness
    script (--profile-one): every kernel inside the NVTX range `kcost`, summed. Empty on
    failure."""
    # --clock-control none: the card's clocks as they are (ncu would lock them to base);
    # --cache-control all (the default): caches flushed before each replay pass
    command = ["ncu", "--csv", "--print-units", "base", "--clock-control", "none",
               "--cache-control", "all", "--nvtx", "--nvtx-include", "kcost/",
               "--metrics", ",".join(NCU_METRICS), sys.executable,
               str(harness), "--profile-one", str(case_id)]
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
