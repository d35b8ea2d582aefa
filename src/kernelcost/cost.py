"""The result of counting: a frozen value holding exact sympy expressions.

Everything is in the kernel's size parameters (sympy Symbols from symbols.size_symbol).
Work is in FLOP, traffic and footprints in bytes or elements as named."""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

WORK_CLASSES: tuple[str, ...] = ("fma", "vector", "sfu")


@dataclass(frozen=True)
class TensorFootprint:
    """Distinct elements of one tensor touched over the whole kernel."""

    tensor: str
    read_elements: sympy.Expr
    write_elements: sympy.Expr
    exact: bool  # False: a bounding box, an upper bound
    element_bytes: sympy.Expr = sympy.Integer(1)  # bytes per element of the tensor


@dataclass(frozen=True)
class ScopeCost:
    """One `keep ... in LEVEL { }` scope."""

    index: int  # position among the kernel's keep scopes, in source order
    level: str
    tensors: tuple[str, ...]
    outer_iterators: tuple[sympy.Symbol, ...]  # iterators of the loops around the scope
    entries: sympy.Expr  # how many times the scope runs
    # per entry, as a function of the outer iterators and the sizes:
    read_elements: dict[str, sympy.Expr]  # tensor -> distinct elements filled in (read)
    write_elements: dict[str, sympy.Expr]  # tensor -> distinct elements written back
    exact: bool
    held_bytes: sympy.Expr  # bytes the scope holds at its first entry (for capacity checks)


@dataclass(frozen=True)
class Cost:
    kernel: str
    parameters: tuple[sympy.Symbol, ...]
    defaults: dict[sympy.Symbol, int]  # parameters with a default value (a tile size, say)
    precision: str  # the precision the spec computes in, from its tensors' element types
    reuse: str  # perfect | none | spec: how tensors outside keep scopes were counted
    work: dict[str, sympy.Expr]  # class (fma, vector, sfu) -> FLOP
    traffic: dict[str, sympy.Expr]  # level -> bytes moved at that level
    footprints: dict[str, TensorFootprint]
    scopes: tuple[ScopeCost, ...]
    conditions: tuple[sympy.Basic, ...] = field(default=())  # where the closed forms hold
    exact: bool = True  # False when a footprint is a bounding box (an upper bound)
    closed_form: bool = True  # False when a sum had to stay unevaluated (still exact)

    @property
    def total_work(self) -> sympy.Expr:
        return sympy.Add(*self.work.values())

    @property
    def levels(self) -> tuple[str, ...]:
        """Levels with traffic, slowest first."""
        from .symbols import LEVELS

        return tuple(level for level in LEVELS if level in self.traffic)

    def intensity(self, level: str) -> sympy.Expr:
        """I = W / Q at a level, in FLOP/B."""
        return sympy.factor(sympy.cancel(self.total_work / self.traffic[level]))
