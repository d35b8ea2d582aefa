"""Roots found numerically, where no closed form exists: the intensity holds ceilings or
min/max and every other size is set. Sign changes on a log grid, refined by bisection."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import sympy

from .errors import Code, Diagnostic, SizeError
from .records import record

ABOVE = "above"  # the side of a root where the quantity exceeds the target
BELOW = "below"


@record
class Root:
    expr: sympy.Expr | None  # in the target symbol; None for a root found only numerically
    condition: sympy.Basic
    value: sympy.Expr  # at the target's value
    side: str | None  # where the quantity exceeds the target


def numeric_roots(quantity: sympy.Expr, variable: sympy.Symbol,
                   target_value: sympy.Expr) -> list[Root]:
    """Sign changes of quantity - target over 1 .. 1e15 on a log grid, refined by bisection:
    for intensities with ceilings or min/max, when every other parameter is set."""
    if quantity.free_symbols - {variable}:
        raise SizeError(Code.NOT_IN_CLOSED_FORM, Diagnostic(
            None, f"cannot solve {shortened(quantity)} = {target_value} in closed form",
            "set every other parameter (--set) for a numeric answer"))
    difference = sympy.lambdify(variable, quantity - target_value, modules="math")
    grid = [10 ** (k / 40) for k in range(15 * 40 + 1)]
    roots = []
    for left, right in itertools.pairwise(grid):
        if _sign(difference, left) * _sign(difference, right) < 0:
            root = _bisect(difference, left, right)
            if root < 1:
                continue
            value = sympy.Float(root, 6)
            side = ABOVE if _sign(difference, right) > 0 else BELOW
            roots.append(Root(None, sympy.true, value, side))
    return roots


def shortened(expr: sympy.Expr, width: int = 160) -> str:
    text = sympy.sstr(expr)
    return text if len(text) <= width else text[:width - 3] + "..."


def _sign(function: Callable[[float], object], x: float) -> int:
    """The sign at x; 0 where the form is undefined there (a pole, an overflow), so that no
    root is claimed across it."""
    try:
        value = function(x)
    except (ZeroDivisionError, OverflowError, ValueError):
        return 0
    if not isinstance(value, (int, float)) or math.isnan(value) or value == 0:
        return 0
    return int(math.copysign(1, value))


def _bisect(function: Callable[[float], object], left: float, right: float) -> float:
    for _ in range(200):
        middle = (left + right) / 2
        if _sign(function, middle) == _sign(function, left):
            left = middle
        else:
            right = middle
    return (left + right) / 2


