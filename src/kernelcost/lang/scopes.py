"""The checker's view of one statement: what is in scope there (module check)."""

from __future__ import annotations

from dataclasses import field

import sympy

from ..base import tree as ast
from ..base.records import record
from ..base.symbols import iterator_symbol


@record(frozen=False)
class Scope:
    """What a statement sees: iterators and locals in scope (name -> where declared), the
    level each kept tensor is in, and how many loops enclose it."""

    iterators: dict[str, ast.Span] = field(default_factory=dict)
    locals: dict[str, ast.Span] = field(default_factory=dict)
    keeps: dict[str, str] = field(default_factory=dict)
    depth: int = 0
    in_grid: bool = False  # inside the loops of the parallel header
    lanes: str | None = None  # the iterator of the enclosing `lanes` loop

    def child(self) -> Scope:
        return Scope(dict(self.iterators), dict(self.locals), dict(self.keeps), self.depth,
                      self.in_grid, self.lanes)

    def iterator_symbols(self) -> dict[str, sympy.Symbol]:
        return {name: iterator_symbol(name) for name in self.iterators}
