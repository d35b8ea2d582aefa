"""Cells of a CSV line, as the readers of measured and published rows place their errors."""

from __future__ import annotations

import csv
import math
import re

# a decimal number as a CSV writes one: float() also reads `5_2e-4` (as 5.2e-3), other
# scripts' digits (`٥` as 5), `nan` and `infinity`
DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def line_fields(line: str) -> list[str]:
    """The fields of one CSV line. csv's reader refuses a field past 131,072 characters with
    csv.Error (a kernel name of 5 MB was an internal error): the files read are at most 20
    MB, so the limit is lifted while the line is read, and put back."""
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(line) + 1))
    try:
        return next(csv.reader([line]), [])
    finally:
        csv.field_size_limit(limit)


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
