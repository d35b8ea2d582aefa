"""Fit each engine's host path (src/kernelcost/answers/host_path.py) on the calibration rows of
validate/published/serving.csv alone: the rows' measured time less the composition's kernels,
launches and collectives (Compared.kernel_s, the host path left out). Reads no validation row:
the rows are filtered by their `split` column before anything is composed.

- trtllm-session-0.5: every calibration TTFT row of TensorRT-LLM 0.5 is one request of one
  step at batch 1, so the residual is all per request: its median.
- vllm-2024q1: vllm-pr2542's block 'This PR' (the fused MoE the composition times; the
  block 'Compare to master' runs an unfused MoE, whose residual holds kernel time), one
  residual a batch, divided over its output_len engine steps; the least-squares line over the
  batch gives the per-step and per-sequence figures.

host_path.py's HOST_PATHS hold this tool's figures, rounded; tests/test_host_path.py holds
them to it:

    PYTHONPATH=src:tools:tests .venv/bin/python tools/fit_host_path.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from serving_measured import Compared, compare_all, read_rows  # noqa: E402

from kernelcost.answers.host_path import HostEngine  # noqa: E402

FUSED_BLOCK = "vLLM at PR 2542"  # the implementation of vllm-pr2542's block 'This PR'


def calibration() -> list[Compared]:
    """The calibration rows compared with the composition (their split column read first)."""
    return compare_all([row for row in read_rows() if row.fields["split"] == "calibration"])


def residual_s(c: Compared) -> float:
    return c.row.time_s - c.kernel_s


def trtllm_rows(compared: list[Compared]) -> list[Compared]:
    return [c for c in compared if c.row.fields["host_path"] == HostEngine.TRTLLM_SESSION_V05
            and c.row.quantity == "ttft"]


def vllm_rows(compared: list[Compared]) -> list[Compared]:
    return [c for c in compared if c.row.fields["host_path"] == HostEngine.VLLM_2024Q1
            and c.row.fields["implementation"].startswith(FUSED_BLOCK)]


def per_step_points(rows: list[Compared]) -> list[tuple[int, float]]:
    """(batch, residual a step) of each row: output_len engine steps a batch."""
    return [(c.row.int("batch"), residual_s(c) / c.row.int("output_len")) for c in rows]


def line(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares: (intercept, slope) of the residual a step over the batch."""
    slope, intercept = statistics.linear_regression([float(b) for b, _ in points],
                                                    [r for _, r in points])
    return intercept, slope


def fitted() -> dict[HostEngine, tuple[float, float, float]]:
    """Engine -> (per request, per step, per sequence a step), in seconds."""
    compared = calibration()
    per_step, per_sequence = line(per_step_points(vllm_rows(compared)))
    return {
        HostEngine.TRTLLM_SESSION_V05: (
            statistics.median(residual_s(c) for c in trtllm_rows(compared)), 0.0, 0.0),
        HostEngine.VLLM_2024Q1: (0.0, per_step, per_sequence),
    }


if __name__ == "__main__":
    for engine, (request, step, sequence) in fitted().items():
        print(f"{engine}: per_request_s {request * 1e3:.3f} ms, per_step_s {step * 1e3:.3f} ms, "
              f"per_sequence_step_s {sequence * 1e3:.4f} ms")
