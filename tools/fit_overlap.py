"""Choose the overlap effect's two exponents together on the calibration rows of the published
corpus: over a grid of (UNITS, TRAFFIC), the median |t_model + cold - measured| / measured
of every calibration row (the figure issue 39 grades), the smaller 90th percentile breaking
a tie. Reads calibration rows only (published.calibration_rows()); gpu/effects/overlap.py's
UNITS and TRAFFIC are this tool's answer, and tests/test_overlap.py holds them to a local
optimum:

    .venv/bin/python tools/fit_overlap.py
"""

from __future__ import annotations

import itertools
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from kernelcost.algebra.sympy_scope import patched
from kernelcost.answers.published import calibration_rows
from kernelcost.answers.published_report import compare_rows, summaries
from kernelcost.gpu.effects import overlap

UNITS = tuple(Fraction(tenths, 10) for tenths in range(10, 25, 2))
TRAFFIC = tuple(Fraction(each) for each in ("3/2", 2, "5/2", 3, 4, 6))


def score(units: Fraction, traffic: Fraction) -> tuple[float, float]:
    """(median, 90th percentile) of |error| over the calibration rows with these exponents."""
    kept = overlap.UNITS, overlap.TRAFFIC
    overlap.UNITS, overlap.TRAFFIC = units, traffic
    try:
        whole = summaries(compare_rows(calibration_rows()))[0]
    finally:
        overlap.UNITS, overlap.TRAFFIC = kept
    return whole.median_abs_error, whole.p90_abs_error


if __name__ == "__main__":
    with patched():  # sympy's fast paths, as a command has them: seconds a score, not a minute
        scores = {pair: score(*pair) for pair in itertools.product(UNITS, TRAFFIC)}
    for (units, traffic), (median, p90) in scores.items():
        print(f"UNITS {float(units):.1f}, TRAFFIC {float(traffic):g}: median {100 * median:.1f} %,"
              f" p90 {100 * p90:.1f} %", flush=True)
    units, traffic = min(scores, key=lambda pair: scores[pair])
    print(f"UNITS = Fraction({units.numerator}, {units.denominator})")
    print(f"TRAFFIC = Fraction({traffic.numerator}, {traffic.denominator})")
