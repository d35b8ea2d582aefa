"""Numbers for people: SI prefixes and units on every figure."""

from __future__ import annotations

import math

_PREFIXES = [(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"),
             (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")]


def si(value: float | None, unit: str, digits: int = 3) -> str:
    """`si(1.37e11, "FLOP")` -> '137 GFLOP'; `si(3.58e-4, "s")` -> '358 µs'."""
    if value is None:
        return "-"
    if math.isinf(value):
        return f"∞ {unit}" if value > 0 else f"-∞ {unit}"
    if value == 0:
        return f"0 {unit}"
    magnitude = abs(value)
    for scale, prefix in _PREFIXES:  # noqa: B007 (the pair that breaks is used below)
        if magnitude >= scale * 0.9995:
            break
    else:
        scale, prefix = _PREFIXES[-1]
    scaled = value / scale
    return f"{_significant(scaled, digits)} {prefix}{unit}"


def counted(count: int, noun: str, *, grouped: bool = False) -> str:
    """A count with its noun, singular at one: `counted(1, "block")` -> '1 block';
    `grouped`: its digits in thousands, '1,024 candidates'."""
    number = f"{count:,}" if grouped else f"{count}"
    return f"{number} {noun}" if count == 1 else f"{number} {noun}s"


def binary(value: float | None, digits: int = 3) -> str:
    """A capacity in binary units, as data sheets state them: '228 KiB', '60 MiB'."""
    if value is None:
        return "-"
    magnitude, prefix = abs(value), ""
    for candidate in ("Ki", "Mi", "Gi", "Ti"):
        if magnitude < 1024:
            break
        magnitude, prefix = magnitude / 1024, candidate
    return f"{_significant(math.copysign(magnitude, value), digits)} {prefix}B"


def plain(value: float | None, unit: str, digits: int = 4) -> str:
    """A number without prefix (intensities): '1365 FLOP/B', '0.08333 FLOP/B'."""
    if value is None:
        return "-"
    if math.isinf(value):
        return f"∞ {unit}"
    return f"{_significant(value, digits)} {unit}"


def percent(fraction: float) -> str:
    return f"{fraction * 100:.3g} %"


def _significant(value: float, digits: int) -> str:
    if value == 0:
        return "0"
    text = f"{value:.{digits}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        return f"{mantissa}e{int(exponent)}"
    return text


_MEASUREMENT_UNITS = {"s": "seconds", "FLOP/s": "FLOPps", "FLOPS": "FLOPps", "B/s": "Bps"}
_PREFIX_SCALE = {"": 1.0, "n": 1e-9, "u": 1e-6, "µ": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6,
                 "G": 1e9, "T": 1e12, "P": 1e15}


def parse_measurement(text: str) -> dict[str, float] | None:
    """'412us' -> {'seconds': 4.12e-4}; '400TFLOP/s' -> {'FLOPps': 4e14};
    '3.1 TB/s' -> {'Bps': 3.1e12}. None when the text is not a measurement."""
    import re

    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*"
                         r"([nuµmkMGTP]?)(s|FLOP/s|FLOPS|B/s)\s*", text)
    if match is None:
        return None
    number, prefix, unit = match.groups()
    if unit == "s" and prefix in ("M", "G", "T", "P", "k"):
        return None
    return {_MEASUREMENT_UNITS[unit]: float(number) * _PREFIX_SCALE[prefix]}
