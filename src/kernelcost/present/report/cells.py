"""What every printer shares: numbers and expressions as text, machine labels, units."""

from __future__ import annotations

import functools
import math

import sympy

from ...algebra.cubic_real_roots import known_float
from ...algebra.jsonout import number
from ...algebra.texts import lex_text
from ...base.kinds import Per
from ...base.units import plain, si

WORK_UNIT, TRAFFIC_UNIT, INTENSITY_UNIT = "FLOP", "B", "FLOP/B"


MACHINE_NAMES = {"a100": "A100", "h100": "H100", "h200": "H200", "b200": "B200",
                 "mi300x": "MI300X", "mi250x": "MI250X", "l40s": "L40S", "rtx4090": "RTX 4090"}
# what a capacity is counted per, as the tables name it
PER_WORDS: dict[Per, str] = {Per.SM: "SM", Per.BLOCK: "block", Per.DEVICE: "device",
                             Per.CLUSTER: "cluster", Per.PARTITION: "partition"}


# kept: a command prints the same closed forms for every machine and level
@functools.lru_cache(maxsize=1024)
def expression(expr: sympy.Expr | None) -> str | None:
    """Expressions travel as sympy strings (parseable by sympy, deterministic)."""
    return None if expr is None else lex_text(expr)


def value_of(expr) -> float | None:
    """A number as a float (infinity kept), None for an expression or nothing."""
    if expr is None:
        return None
    if isinstance(expr, sympy.Basic):
        return _basic_value(expr)
    return _value(sympy.sympify(expr))


# kept: a command prints each verdict's t_min on every level's row and again in its answer,
# and a crossing's root (an algebraic number, evaluated anew each time) in its sentence and
# its JSON
@functools.lru_cache(maxsize=1024)
def _basic_value(expr: sympy.Basic) -> float | None:
    return _value(expr)


def _value(expr: sympy.Basic) -> float | None:
    if not expr.is_number:
        return None
    if not expr.is_Atom:  # a root's closed form: a finite value needs no assumptions asked
        known = known_float(expr)  # a cubic's root, decided by its exact bracket
        value = float(expr) if known is None else known
        if math.isfinite(value):
            return value
    return float(expr) if expr.is_finite is not False else float("inf")


def machine_label(machine_id: str, precision: str) -> str:
    return f"{MACHINE_NAMES.get(machine_id, machine_id)} {precision.upper()}"


def size_text(value: float) -> str:
    """A root between sizes with one decimal, more where one would round it to the whole
    size beside it (436.97, not 437.0); a whole root as the whole number."""
    if abs(value - round(value)) <= 1e-9:
        return f"{value:.0f}"
    for digits in range(1, 10):
        text = f"{value:.{digits}f}"
        if float(text) != round(value):
            return text.rstrip("0") if digits > 1 else text
    return repr(value)


def size_number(value: float | int) -> str:
    """A size as a user writes it: integers whole (65536, not 6.5536e+04), powers of ten as
    10^8 and round multiples as 3·10^9; other values with 6 significant digits."""
    if isinstance(value, int):  # exact, past a double's range too (a spec's 10^999)
        whole = value
    elif not math.isfinite(value):
        return "infinity" if value > 0 else "-infinity"
    elif value != round(value):
        return f"{value:g}"
    else:
        whole = int(round(value))  # noqa: RUF046 (a Python int whatever number is passed)
    digits = str(abs(whole))
    zeros = len(digits) - len(digits.rstrip("0"))
    if zeros < 6:
        return str(whole)
    mantissa = whole // 10 ** zeros
    return f"10^{zeros}" if mantissa == 1 else f"{mantissa}·10^{zeros}"


def bound_text(bound: tuple[str, int]) -> str:
    """(">=", 887) -> '>= 887'."""
    operator, value = bound
    return f"{operator} {size_number(value)}"


def condition_text(condition) -> str:
    """Where a closed form holds, in words when it always or never does."""
    if condition is None:
        return "-"
    if condition is sympy.true or condition is True:
        return "always"
    if condition is sympy.false or condition is False:
        return "never"
    return formula(condition)


def limit_text(expr, unit: str | None = INTENSITY_UNIT) -> str:
    """Where a quantity goes as a size grows: a number with its unit (exact, as 1/2, with no
    unit), `infinity`, or (other sizes unset) the closed form."""
    if expr is None:
        return "-"
    value = value_of(expr)
    if value is None:
        return formula(sympy.sympify(expr))
    if math.isinf(value):
        return "infinity" if value > 0 else "-infinity"
    return formula(sympy.sympify(expr)) if unit is None else plain(value, unit)


def formula(expr: sympy.Expr | None) -> str:
    return "-" if expr is None else lex_text(expr)


def json_number(expr):
    if expr is None:
        return None
    value = value_of(expr)
    if value is not None and not math.isfinite(value):
        return number(expr)  # exact text where a double overflows
    return value if value is not None else expression(sympy.sympify(expr))


def quantities(**named) -> dict[str, object]:
    """Each named quantity (a time, rate, size or ratio) as two JSON keys whose types never
    vary with the sizes: NAME, a number (its exact text, marked, past a double) or null where
    it stays symbolic or is infinite, and NAME_expr, its expression where it stays symbolic,
    else null."""
    fields: dict[str, object] = {}
    for name, expr in named.items():
        value = json_number(expr)
        # value_of (kept) is None exactly where the expression is no number: the same
        # answer as its is_number, which walks the whole form again on every call
        symbolic = type(value) is str and value_of(expr) is None
        fields[name] = None if type(value) is str else value  # Exact is a str's subclass
        fields[f"{name}_expr"] = value if symbolic else None
    return fields


def json_quantity(expr) -> float | str | None:
    """The number half of `quantities` alone, for a key without an `_expr` beside it: a
    number, its exact text (marked) past a double, or null where it stays symbolic. Never
    the word `inf` that a float overflowing on its way (value_of) would become."""
    value = json_number(expr)
    return None if type(value) is str else value  # an expression, or `oo`, is no number


def json_count(expr) -> int | float | None:
    """A count (blocks, waves, blocks resident on an SM) as a JSON integer where it is whole;
    null while symbolic."""
    value = value_of(expr)
    if value is not None and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def limit_fields(name: str, expr) -> dict[str, object]:
    """A limit as `quantities` gives it, and NAME_infinite: true where it is +oo (where the
    intensity grows without bound), false otherwise."""
    infinite = expr is not None and sympy.sympify(expr) == sympy.oo
    return {**quantities(**{name: expr}), f"{name}_infinite": infinite}


def condition_json(condition) -> dict[str, object]:
    """`condition`: true or false where it is decided, null with `condition_expr` where it
    holds sizes or the ridge."""
    if condition is sympy.true or condition is True:
        return {"condition": True, "condition_expr": None}
    if condition is sympy.false or condition is False:
        return {"condition": False, "condition_expr": None}
    return {"condition": None, "condition_expr": lex_text(condition)}


def value_or_formula(expr, unit: str, prefixed: bool = False) -> str:
    """The value with its unit, a short formula while symbolic, else `symbolic`."""
    value = value_of(expr)
    if value is None:
        text = formula(sympy.sympify(expr))
        return text if len(text) <= 16 else "symbolic"
    return (si(value, unit) if prefixed else plain(value, unit)).strip()
