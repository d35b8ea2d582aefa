"""Values, in one place: machine figures and user numbers as exact rationals (ridges such as
990e12 / 3.35e12 = 19800/67 stay exact; a report rounds only when it prints), parameter
values with their defaults, chains of settings resolved, and one `evaluate`."""

from __future__ import annotations

import functools
import numbers
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy

from ..algebra.floor_sums import summed_at_sizes
from ..algebra.numeric_sums import has_sum
from ..algebra.quotients import cancel
from ..base.errors import Code, Diagnostic, SizeError
from ..base.symbols import size_symbol

if TYPE_CHECKING:
    from .cost import Cost


def exact(value) -> sympy.Rational:
    """A machine figure or a user value as an exact number: 3.35e12 -> 3350000000000."""
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, numbers.Integral):
        return sympy.Integer(int(value))
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, float):
        return _exact_float(value)
    raise TypeError(f"not a number: {value!r}")


@functools.lru_cache(maxsize=1024)
def _exact_float(value: float) -> sympy.Rational:
    # repr gives the shortest decimal that round-trips: 3.35e12, not its binary expansion.
    # Kept: every verdict reads its machine's figures again, and sympy parses the text
    return sympy.Rational(repr(value))


def parameter_values(cost: Cost, values: Mapping | None, apply_defaults: bool,
                     exclude: sympy.Symbol | None = None) -> dict[sympy.Symbol, sympy.Expr]:
    """Parameter symbol -> exact value or expression, defaults first, user values over them;
    `exclude` (a parameter being solved for) keeps no default."""
    substitutions: dict[sympy.Symbol, sympy.Expr] = {}
    if apply_defaults:
        substitutions.update({symbol: exact(value) for symbol, value in cost.defaults.items()
                              if symbol != exclude})
    for key, value in (values or {}).items():
        substitutions[as_symbol(key)] = parameter_value(value, cost, key)
    return resolve_chains(substitutions)


def parameter_value(value, cost: Cost, key) -> sympy.Expr:
    """A value for a parameter: a number, a sympy expression, or text as `--set` gives it
    (4096, 1e8, N, 2*N), read by the spec grammar's expression rule, never sympified."""
    if not isinstance(value, str):
        return exact(value)
    from ..lang.settings import size_expression

    names = {str(parameter): parameter for parameter in cost.parameters}
    return size_expression(value.strip(), names, f"value of {key}")


def resolve_chains(substitutions: dict[sympy.Symbol, sympy.Expr]) -> dict:
    """Follow values that name other parameters: {M: N, N: 4096} -> {M: 4096, N: 4096}."""
    for _ in range(len(substitutions) + 1):
        resolved = {symbol: sympy.sympify(value).xreplace(substitutions)
                    for symbol, value in substitutions.items()}
        if resolved == substitutions:
            return resolved
        substitutions = resolved
    cyclic = [str(s) for s, v in substitutions.items() if v.free_symbols & substitutions.keys()]
    raise SizeError(Code.SETTING_CYCLE, Diagnostic(
        None, f"parameter values refer to each other in a cycle: {', '.join(sorted(cyclic))}"))


def as_symbol(key) -> sympy.Symbol:
    if isinstance(key, sympy.Symbol):
        return key
    if isinstance(key, str):
        return size_symbol(key)
    raise TypeError(f"not a parameter: {key!r}")


def evaluate(expr: sympy.Expr, substitutions: Mapping) -> sympy.Expr:
    """Substitute parameter values; exact, symbolic where parameters remain."""
    expr = sympy.sympify(expr)
    if not substitutions:
        return expr
    return _substituted(expr, tuple(substitutions.items()))


@functools.lru_cache(maxsize=1024)
def _substituted(expr: sympy.Expr, substitutions: tuple) -> sympy.Expr:
    # kept: each machine and precision of a command evaluates the same work and traffic.
    # Simultaneous, so that {M: N, N: 4096} does not depend on the order of the keys. A Sum
    # is closed or added up where it can be (floor_sums.summed_at_sizes): the model compares
    # numbers
    replaced = expr.xreplace(dict(substitutions))
    return cancel(summed_at_sizes(replaced) if has_sum(replaced) else replaced)


def json_value(expr: sympy.Expr | None):
    """A number as a float (as its exact text where no double holds it, see jsonout), an
    expression as its sympy string, None as None."""
    from ..algebra.jsonout import number

    return number(expr)
