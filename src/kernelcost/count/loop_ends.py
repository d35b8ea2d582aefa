"""A second way to prove e >= 0 over a nest: each iterator at the end of its loop that makes
e least, written in the iterator rather than the counter. An iterator v of `for v in lo..hi
by s` lies in lo..hi - 1 (an integer below an integer hi), so a term linear in v with a
slope proven <= 0 is least at v = hi - 1 - slack, and one with a slope >= 0 at v = lo +
slack. The counter's own last value, lo + s*(ceiling((hi - lo)/s) - 1), holds a rounding of
hi that the prover cannot see through where hi is a min (a causal key loop `for j0 in
0..min(i0 + Br, S) by Bc` and its ragged tile `for j in j0..min(j0 + Bc, S)`: j0 <= S - 1)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sympy

from ..base.symbols import derivative
from .loops import Loop

_CALLS = (sympy.Min, sympy.Max, sympy.floor, sympy.ceiling)


def at_loop_ends(expr: sympy.Expr, loops: Sequence[Loop],
                 nonnegative: Callable[[sympy.Expr], bool],
                 within: Callable[[sympy.Expr, Sequence[Loop]], bool]) -> bool:
    """expr >= 0 at every point of `loops`, by the innermost loop whose iterator expr uses
    linearly: that iterator at the end that makes expr least, then the loops outside it
    (`within`); False where no such loop, slope sign or integer hi is found."""
    for loop in reversed(loops):
        if loop.var not in expr.free_symbols:
            continue
        if loop.counter in expr.free_symbols or any(
                loop.var in node.free_symbols for node in expr.atoms(*_CALLS)):
            return False  # not linear in the iterator: the min/max rules split it first
        slope = derivative(expr, loop.var)
        # one slack a loop: the ends of two loops move independently
        slack = sympy.Symbol(f"_end_slack{loop.depth}", integer=True, nonnegative=True)
        if loop.var in slope.free_symbols:
            return False
        if nonnegative(slope):
            end = loop.lo + slack
        elif nonnegative(-slope) and loop.hi.is_integer:
            end = loop.hi - 1 - slack
        else:
            return False
        return within(sympy.expand(expr.xreplace({loop.var: end})), loops[:loop.depth])
    return False
