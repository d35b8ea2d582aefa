"""The fields of a machine file read by type: numbers in range, counts, fractions, strings,
choices and the source each number needs, every error naming the file and key and placed at
the key's line:col (or where a missing key belongs)."""

from __future__ import annotations

import math
import re
from typing import Literal, overload

from ..base.errors import (
    Code,
    Diagnostic,
    ErrorCode,
    MachineFileError,
    did_you_mean,
    quoted,
    too_long_a_name,
)
from ..base.kinds import Per
from ..base.levels import Level
from ..base.tomlplaces import missing_place, place_of

# the levels on each SM, whose capacity the analysis weighs per SM (occupancy, fits)
_ON_SM = (Level.SHARED, Level.TMEM, Level.REGISTERS)

# Every figure of a machine (FLOP/s, B/s, B, s) lies well inside this range; outside it the
# divisions of the model overflow or lose all precision (5e-324 B/s makes every time inf).
NUMBER_RANGE = (1e-15, 1e30)
MAX_COUNT = 10_000_000  # SMs or CUs
_ID = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
MAX_SHOWN_DIGITS = 24  # a figure out of range shown whole; longer, by its digit count


def _name(where: str, key: str) -> str:
    """A key's path for its place and message: `compute[2].peak_FLOPps`, `gpus` at the top."""
    return f"{where}.{key}" if where else key


class MachineFields:
    """Reads the fields of one parsed TOML document."""

    def __init__(self, path: str, text: str = ""):
        self.path = path
        self.text = text

    def error(self, code: ErrorCode, where: str, message: str, hint: str | None = None,
              key: bool = False) -> MachineFileError:
        missing = code == Code.MACHINE_MISSING_KEY  # placed where the key belongs
        span = None if not self.text else (missing_place(self.text, self.path, where) if missing
                                           else place_of(self.text, self.path, where, key))
        prefix = "" if span else f"{self.path}: "
        return MachineFileError(code, Diagnostic(span, f"{prefix}`{where}`: {message}", hint),
                                self.text)

    def entries(self, tables: list, key: str) -> list[dict]:
        for position, table in enumerate(tables):
            if not isinstance(table, dict):
                raise self.error(Code.MACHINE_BAD_VALUE, f"{key}[{position}]",
                                 f"expected a table, got {quoted(table, 40)}",
                                 f"write each entry as a [[{key}]] table")
        return tables

    # -- typed accessors ----------------------------------------------------------------

    def known_keys(self, table: dict, allowed: tuple[str, ...], where: str) -> None:
        for key in table:
            if key not in allowed:
                name = _name(where, key)
                raise self.error(Code.MACHINE_UNKNOWN_KEY, name, "unknown key",
                                 did_you_mean(key, allowed) or f"known keys: {', '.join(allowed)}",
                                 key=True)

    def table(self, data: dict, key: str, required: bool = False) -> dict:
        value = data.get(key)
        if value is None:
            if required:
                raise self.error(Code.MACHINE_MISSING_KEY, key, "missing table")
            return {}
        if not isinstance(value, dict):
            raise self.error(Code.MACHINE_BAD_VALUE, key, "expected a table")
        return value

    @overload
    def number(self, table: dict, key: str, where: str, required: Literal[True]) -> float: ...
    @overload
    def number(self, table: dict, key: str, where: str,
               required: bool = False) -> float | None: ...
    def number(self, table: dict, key: str, where: str, required: bool = False) -> float | None:
        value = table.get(key)
        if value is None:
            if required:
                raise self.error(Code.MACHINE_MISSING_KEY, _name(where, key), "missing number")
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(Code.MACHINE_BAD_VALUE, _name(where, key),
                             f"expected a positive number, got {quoted(value, 40)}")
        try:
            number = float(value)
        except OverflowError:  # an integer of hundreds of digits
            number = math.inf
        if not math.isfinite(number) or not NUMBER_RANGE[0] <= number <= NUMBER_RANGE[1]:
            digits = len(str(abs(value))) if isinstance(value, int) else 0
            shown = f"{value:.3g}" if isinstance(value, float) else str(value) if \
                digits <= MAX_SHOWN_DIGITS else f"an integer of {digits} digits"
            raise self.error(Code.MACHINE_BAD_VALUE, _name(where, key),
                             f"expected a positive number between "
                             f"{NUMBER_RANGE[0]:g} and {NUMBER_RANGE[1]:g} "
                             f"in SI base units, got {shown}")
        return number

    def count(self, table: dict, key: str, where: str) -> int:
        value = table.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_COUNT:
            raise self.error(Code.MACHINE_BAD_VALUE, _name(where, key),
                             f"expected a positive integer up to {MAX_COUNT:,}, got "
                             f"{quoted(value, 40)}")
        return value

    def fraction(self, table: dict, key: str, where: str) -> float:
        # from the figures' least (NUMBER_RANGE): an achievable fraction of 5e-324 took a
        # t_model past a double (`inf ms` in tune's table, a string in JSON)
        value = table.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not NUMBER_RANGE[0] <= value <= 1:
            raise self.error(Code.MACHINE_BAD_VALUE, _name(where, key),
                             f"expected a fraction from {NUMBER_RANGE[0]:g} to 1, got "
                             f"{quoted(value, 40)}")
        return float(value)

    @overload
    def string(self, table: dict, key: str, where: str, required: Literal[True]) -> str: ...
    @overload
    def string(self, table: dict, key: str, where: str, required: bool = False) -> str | None: ...
    def string(self, table: dict, key: str, where: str, required: bool = False) -> str | None:
        value = table.get(key)
        name = _name(where, key)
        if value is None:
            if required:
                raise self.error(Code.MACHINE_MISSING_KEY, name, "missing")
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.error(Code.MACHINE_BAD_VALUE, name,
                             f"expected a non-empty string, got {value!r}")
        return value

    def name(self, data: dict) -> str:
        """The file's `name`, shown in tables and sentences about the machine (or the
        topology)."""
        value = self.string(data, "name", "", required=True)
        if (refusal := too_long_a_name(value)) is not None:
            raise self.error(Code.MACHINE_BAD_VALUE, "name", *refusal)
        return value

    def identifier(self, data: dict) -> str:
        """The file's `id`: a name in --machine lists and in the file names of a figure
        for each machine (`p.h100.svg`), so no `/`, `,`, space or capital."""
        value = self.string(data, "id", "", required=True)
        if value != value.lower():
            raise self.error(Code.MACHINE_BAD_VALUE, "id",
                             f"machine ids are lower case: `{value.lower()}`")
        if not _ID.fullmatch(value):
            raise self.error(Code.MACHINE_BAD_VALUE, "id", f"{quoted(value, 40)} is no machine "
                             "id: at most 64 of a-z, 0-9, `_`, `-` and `.`, from a letter or "
                             "digit (`h100`, `h100_pcie`)")
        return value

    def boolean(self, table: dict, key: str, where: str) -> bool:
        value = table.get(key, False)
        if not isinstance(value, bool):
            raise self.error(Code.MACHINE_BAD_VALUE, _name(where, key),
                             f"expected true or false, got {value!r}")
        return value

    def choice(self, table: dict, key: str, allowed, where: str, default: object = ...):
        """The entry of `allowed` the file names: an enum's member where `allowed` holds
        members, so that the machine compares members, never the file's words."""
        value = table.get(key)
        if value is None and default is not ...:
            return default
        chosen = next((entry for entry in allowed if entry == value), None)
        if chosen is None:
            raise self.error(Code.MACHINE_BAD_VALUE, _name(where, key),
                             f"expected one of {', '.join(allowed)}, got {value!r}",
                             did_you_mean(str(value), allowed))
        return chosen

    def capacity_scope(self, table: dict, scopes, where: str) -> Per:
        """A [[memory]] level's `capacity_per`, an SM's by default for a level on each SM
        (the device's for every level was printed `228 KiB per device` of a shared level
        written without it, which the analysis weighs per SM)."""
        on_sm = table.get("level") in _ON_SM
        return self.choice(table, "capacity_per", scopes, where,
                           default=Per.SM if on_sm else Per.DEVICE)

    def refuse_capacity_scopes(self, levels) -> None:
        """An error at the first `capacity_per` the analysis does not weigh its level by:
        an SM's for a level on each SM, the device's or a partition's for the others (an L2
        of `50 MiB per SM` was weighed as 50 MiB in all)."""
        for position, memory in enumerate(levels):
            where, on_sm = f"memory[{position}].capacity_per", memory.level in _ON_SM
            if on_sm and memory.capacity_per != Per.SM:
                raise self.error(Code.MACHINE_INCONSISTENT, where,
                                 f"`{memory.level}` memory is on each SM, and its capacity is "
                                 f"weighed per SM, not per {memory.capacity_per}",
                                 'capacity_per = "sm"')
            if not on_sm and memory.capacity_per == Per.SM:
                raise self.error(Code.MACHINE_INCONSISTENT, where,
                                 f"`{memory.level}` is shared by the SMs, and its capacity is "
                                 "weighed as the whole level's, not an SM's",
                                 'capacity_per = "device", or "partition" for an L2 split '
                                 "between groups of SMs")

    def source_for(self, table: dict, number_key: str, source_key: str, where: str) -> str | None:
        """Every number needs its source: required when the number is there."""
        required = number_key in table
        source = self.string(table, source_key, where, required=required)
        if source is not None and not required:
            raise self.error(Code.MACHINE_MISSING_KEY, f"{where}.{source_key}",
                             f"a source without `{number_key}`")
        return source
