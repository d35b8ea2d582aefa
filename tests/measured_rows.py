"""What the comparisons with published measurements share (collectives_measured.py,
serving_measured.py): a corpus CSV read with its line numbers, the units of a duration, the
90th percentile, and the block of a page that a regen tool writes between two markers."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

SCALE = {"s": 1.0, "ms": 1e-3, "us": 1e-6}  # a duration's unit, to seconds


def read_fields(path: Path) -> list[tuple[int, dict[str, str]]]:
    """The file's rows (its `#` lines are comments), each with its line number."""
    with open(path, newline="", encoding="utf-8") as handle:
        lines = [(number, line) for number, line in enumerate(handle, 1)
                 if not line.startswith("#")]
    reader = csv.DictReader(line for _, line in lines)
    return [(number, dict(fields)) for (number, _), fields in zip(lines[1:], reader)]


def p90(values: list[float]) -> float:
    """The 90th percentile, linear between order statistics (statistics.quantiles, inclusive)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[8]


def block(text: str, begin: str, end: str) -> str:
    """The block of the page between the markers, the markers included."""
    start, stop = text.index(begin), text.index(end) + len(end)
    return text[start:stop]
