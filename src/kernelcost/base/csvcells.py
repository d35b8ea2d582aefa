"""Cells of a CSV line, as the readers of measured and published rows place their errors."""

from __future__ import annotations

import math
import re

# a decimal number as a CSV writes one: float() also reads `5_2e-4` (as 5.2e-3), other
# scripts' digits (`٥` as 5), `nan` and `infinity`
DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def cell_number(text: str) -> float | None:
    """A finite float written as a decimal number in ASCII digits, or None."""
    if DECIMAL.fullmatch(text.strip()) is None:
        return None
    value = float(text)
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
