"""Fit each machine's cold start on the calibration rows of the published corpus: the median,
over the rows timed alone after an L2 flush, of measured - t_model (the time the harness saw
beyond the kernel's estimate). Reads calibration rows only (published.calibration_rows()); the
machine files' `cold_start_s` of h100 and h200 are this tool's figures, rounded to 0.1 us, and
a test holds them to it:

    .venv/bin/python tools/fit_cold_start.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from kernelcost.answers.published import calibration_rows
from kernelcost.answers.published_report import compare_rows


def fitted() -> dict[str, float]:
    """Machine id -> the median of measured - t_model over its cold calibration rows (s)."""
    gaps: dict[str, list[float]] = {}
    for result in compare_rows([row for row in calibration_rows() if row.cold]):
        if result.t_model is not None:
            gaps.setdefault(result.row.machine.value, []).append(
                result.row.time_s - result.t_model)
    return {machine: statistics.median(values) for machine, values in sorted(gaps.items())}


if __name__ == "__main__":
    for machine, seconds in fitted().items():
        print(f"{machine}: cold_start_s = {seconds:.3g} s")
