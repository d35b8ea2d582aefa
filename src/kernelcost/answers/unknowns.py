"""The parameter `solve` solves for, beside the others: its size symbol (or an error naming
the choices), the positive real that stands for it while solving, the values of the other
parameters, and the whole sizes on one side of a root."""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from ..algebra.surds import exact_floor
from ..base.errors import Code, Diagnostic, SizeError, did_you_mean
from ..base.kinds import Side
from ..count.cost import Cost
from ..count.values import as_symbol, parameter_values

# parameters (symbols or names) to numbers or expressions (`{M: N, K: N}`)
Values = Mapping[sympy.Symbol | str, object]


def real_variable(symbol: sympy.Symbol) -> sympy.Symbol:
    """The parameter as a positive real of the same name: sympy.solve drops the roots an
    integer symbol cannot take, and a crossing at N = 886.6 is still the answer."""
    return sympy.Symbol(str(symbol), positive=True)


def parameter_symbol(cost: Cost, parameter: sympy.Symbol | str) -> sympy.Symbol:
    """The size symbol of a parameter name (or symbol), or a KcostError naming the choices."""
    symbol = as_symbol(parameter)
    if symbol not in cost.parameters:
        names = [str(p) for p in cost.parameters]
        raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
            None, f"`{symbol}` is not a parameter of `{cost.kernel}`",
            did_you_mean(str(symbol), names)
            or f"parameters: {', '.join(names)}"))
    return symbol


def other_values(cost: Cost, symbol: sympy.Symbol, values: Values | None,
                  apply_defaults: bool) -> dict[sympy.Symbol, sympy.Expr]:
    if symbol in {as_symbol(key) for key in (values or {})}:
        raise SizeError(Code.SET_AND_VARIED, Diagnostic(
            None, f"`{symbol}` is both solved for and set"))
    # a default of the solved parameter does not apply
    return parameter_values(cost, values, apply_defaults, exclude=symbol)


def integer_bound(value: sympy.Expr | None, side: Side | None, edge: int | None = None,
                  exceeds: Side | None = None) -> tuple[str, int] | None:
    """The integers on `side` of a root, the root included: (">=", ceil) above, ("<=",
    floor) below. `edge`, where a numeric search knows it: the size nearest the root on the
    side `exceeds` of it (numeric_roots.Root.edge), which decides the whole numbers."""
    if value is None or side is None:
        return None
    if edge is not None and exceeds is not None:
        if side == exceeds:
            return (">=", edge) if side == Side.ABOVE else ("<=", edge)
        return ("<=", edge - 1) if exceeds == Side.ABOVE else (">=", edge + 1)
    value = sympy.sympify(value)
    whole = exact_floor(-value) if side == Side.ABOVE else exact_floor(value)
    if whole is not None:
        return (">=", -whole) if side == Side.ABOVE else ("<=", whole)
    if not value.is_number or not value.is_finite or not value.is_real:
        return None
    if side == Side.ABOVE:
        return ">=", int(sympy.ceiling(value))
    return "<=", int(sympy.floor(value))
