"""Strict JSON out: every document is RFC 8259 JSON, never with bare Infinity or NaN.

A value that is finite but does not fit a double (10**400 FLOP at a size of 1e200) travels as
its exact text in a string, marked as Exact so that the writer can say where it did so; a
float that is already infinite or NaN by the time it reaches the writer becomes the string
"inf", "-inf" or "nan", with the same warning."""

from __future__ import annotations

import json
import math
import sys

import sympy

from .texts import text

EXACT_DIGITS = 4_000  # Python refuses to print an integer of more than 4,300 digits
_EXACT_BITS = int(EXACT_DIGITS * 3.3219)


class Exact(str):
    """A number too large or too small for a double, written as its exact text."""


def number(expr) -> float | str | None:
    """A sympy or Python number as a float when one holds it, else its exact text; a
    non-number as its sympy string."""
    if expr is None:
        return None
    if isinstance(expr, float):
        return expr if math.isfinite(expr) else Exact(_float_text(expr))
    expr = sympy.sympify(expr)
    if not expr.is_number:
        return text(expr)
    if expr in (sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
        return str(expr)
    try:
        value = float(expr)
    except (OverflowError, TypeError, ValueError):
        value = math.inf
    if math.isfinite(value) and (value != 0 or expr.is_zero):
        return value
    return Exact(exact_text(expr))


def exact_text(expr: sympy.Expr) -> str:
    """An integer or fraction exactly (up to EXACT_DIGITS digits); anything else to 30
    significant digits."""
    if expr.is_Rational and max(abs(expr.p), abs(expr.q)).bit_length() <= _EXACT_BITS:
        return str(expr)
    return str(sympy.N(expr, 30))


def _float_text(value: float) -> str:
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def strict(document) -> tuple[object, list[str]]:
    """(document with every non-finite float replaced, warnings naming each Exact value)."""
    warnings: list[str] = []

    def walk(value, path: str):
        if isinstance(value, dict):
            return {key: walk(item, f"{path}.{key}" if path else str(key))
                    for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [walk(item, f"{path}[{index}]") for index, item in enumerate(value)]
        if isinstance(value, float) and not math.isfinite(value):
            value = Exact(_float_text(value))
        if isinstance(value, Exact):
            shown = value if len(value) <= 40 else value[:18] + "..." + value[-18:]
            warnings.append(f"`{path}` = {shown} does not fit a double; written as a string")
            return str(value)
        return value

    return walk(document, ""), warnings


def dumps(document, **options) -> tuple[str, list[str]]:
    """(strict JSON text, warnings); the warnings also join a top-level `warnings` list."""
    document, warnings = strict(document)
    if warnings and isinstance(document, dict) and isinstance(document.get("warnings"), list):
        document["warnings"] = document["warnings"] + warnings
    return json.dumps(document, allow_nan=False, **options), warnings


def print_json(document) -> None:
    """Print strict JSON; each value written as exact text is announced on stderr."""
    text, warnings = dumps(document, indent=2)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(text)
