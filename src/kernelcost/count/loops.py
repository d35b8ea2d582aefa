"""A loop of the nest as counting sees it: `for v in lo..hi by s` as a counter from 0 to
trips - 1, with v = lo + s*counter (built by nest; read by the facts, sums and footprints)."""

from __future__ import annotations

from dataclasses import field

import sympy

from ..base import tree as ast
from ..base.records import record


@record
class Loop:
    var: sympy.Symbol
    counter: sympy.Symbol
    lo: sympy.Expr
    hi: sympy.Expr
    step: sympy.Expr
    trips: sympy.Expr
    depth: int  # position in the nest, 0 outermost
    never_empty: bool = True  # proven to run at least once at every outer iteration
    lanes: bool = False  # consecutive iterations run on consecutive lanes of a warp
    # where the spec writes it (none for a derived loop); not part of the loop's identity
    span: ast.Span | None = field(default=None, compare=False)
