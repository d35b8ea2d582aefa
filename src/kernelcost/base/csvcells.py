"""Cells of a CSV line, as the readers of measured and published rows place their errors."""

from __future__ import annotations

import math


def cell_number(text: str) -> float | None:
    """A finite float, or None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def cell_column(line: str, fields: list[str], index: int) -> int:
    """1-based column where field `index` starts (the commas and quotes before it)."""
    position = 0
    for field in fields[:index]:
        found = line.find(field, position)
        position = (found if found >= 0 else position) + len(field)
        comma = line.find(",", position)
        position = comma + 1 if comma >= 0 else position
    return position + 1
