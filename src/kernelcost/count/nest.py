"""The loop nest as counting sees it: loops with their counters and trip counts, keep scopes,
access sites and statement executions, built once from the checked AST.

Every loop `for v in lo..hi by s` becomes a counter t = 0, 1, ..., trips - 1 with
v = lo + s*t and trips = ceiling((hi - lo)/s); a trip count that may be negative is clipped at
zero where the assumptions cannot prove the loop's range nonempty."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy

from ..base import tree as ast
from ..base.kinds import Reuse
from ..base.levels import Level
from ..base.records import record
from ..base.symbols import counter_symbol, iterator_symbol, to_sympy
from ..lang.check import CheckedKernel
from ..lang.work import statement_work
from .facts import Facts
from .loops import Loop

ACCUMULATIONS = ("+=", "max=", "min=")


@record
class Scope:
    index: int
    level: str
    tensors: tuple[str, ...]
    loops: tuple[Loop, ...]  # loops around the scope
    parent_levels: dict[str, str]  # tensor -> the level it is in when the scope starts
    stages: sympy.Expr = sympy.Integer(1)  # tiles held at once (a pipeline's depth)


@dataclass(frozen=True, eq=False)
class AccessSite:
    """One tensor access in one statement: read or write, with its place in the nest.
    Each site is its own identity (and hashable, to remember its footprints by)."""

    tensor: str
    indices: tuple[sympy.Expr, ...]
    is_write: bool
    accumulation_read: bool  # the read half of `X[..] += ...`
    loops: tuple[Loop, ...]
    scopes: tuple[Scope, ...]  # keep scopes around the access, outermost first
    extent: tuple[sympy.Expr, ...]  # the tensor's declared shape
    span: ast.Span | None = None  # where the access is written


@record
class Execution:
    """A statement that does work, with the loops around it."""

    work: Counter[str]
    loops: tuple[Loop, ...]
    # the statement itself, for the unit rule (mma.py); not part of the execution's identity
    statement: ast.Assign | ast.Let | None = field(default=None, compare=False)


@record(frozen=False)
class Nest:
    executions: list[Execution] = field(default_factory=list)
    accesses: list[AccessSite] = field(default_factory=list)
    scopes: list[Scope] = field(default_factory=list)

class NestBuilder:
    def __init__(self, checked: CheckedKernel, facts: Facts, reuse: Reuse):
        self.checked = checked
        self.facts = facts
        self.ignore_keeps = reuse != Reuse.SPEC
        self.sizes = {name: facts.apply(value) for name, value in checked.sizes.items()}
        self.nest = Nest()
        self.scope_count = 0

    def build(self) -> Nest:
        for stmt in self.checked.kernel.statements:
            self._statement(stmt, (), (), {})
        return self.nest

    def _names(self, loops: Sequence[Loop]) -> dict[str, sympy.Expr]:
        names = dict(self.sizes)
        for loop in loops:
            names[loop.var.name] = loop.var
        return names

    def _statement(self, stmt: ast.Statement, loops: tuple[Loop, ...],
                   scopes: tuple[Scope, ...], levels: dict[str, str]) -> None:
        if isinstance(stmt, ast.For):
            self._for(stmt, loops, scopes, levels)
        elif isinstance(stmt, ast.Keep):
            self._keep(stmt, loops, scopes, levels)
        elif isinstance(stmt, ast.Let) and stmt.dtype is not None:  # untyped: a size
            self.nest.executions.append(Execution(statement_work(stmt), loops, stmt))
            self._reads(stmt.value, loops, scopes)
        elif isinstance(stmt, ast.Assign):
            self.nest.executions.append(Execution(statement_work(stmt), loops, stmt))
            self._reads(stmt.value, loops, scopes)
            self._target(stmt, loops, scopes)

    def _for(self, loop: ast.For, loops: tuple[Loop, ...], scopes: tuple[Scope, ...],
             levels: dict[str, str]) -> None:
        names = self._names(loops)
        lo = to_sympy(loop.lo, names)
        hi = to_sympy(loop.hi, names)
        step = to_sympy(loop.step, names) if loop.step is not None else sympy.Integer(1)
        self.facts.assume_positive(step)
        trips = self.facts.whole_ceiling((hi - lo) / step)
        if not self.facts.nonnegative_within(hi - lo, loops):
            trips = sympy.Max(0, trips)
        never_empty = self.facts.nonnegative_within(hi - lo - 1, loops)
        this = Loop(iterator_symbol(loop.var), counter_symbol(loop.var), lo, hi, step, trips,
                    len(loops), never_empty, loop.lanes is not None, loop.span)
        for stmt in loop.body:
            self._statement(stmt, loops + (this,), scopes, levels)

    def _keep(self, keep: ast.Keep, loops: tuple[Loop, ...], scopes: tuple[Scope, ...],
              levels: dict[str, str]) -> None:
        index = self.scope_count
        self.scope_count += 1
        if self.ignore_keeps:
            for stmt in keep.body:
                self._statement(stmt, loops, scopes, levels)
            return
        tensors = tuple(name.id for name in keep.tensors)
        parent_levels = {t: self._fill_level(levels.get(t, self.checked.tensors[t].level))
                         for t in tensors}
        stages = (sympy.Integer(1) if keep.stages is None
                  else to_sympy(keep.stages, self.sizes))
        scope = Scope(index, keep.level.id, tensors, loops, parent_levels, stages)
        self.nest.scopes.append(scope)
        inner_levels = {**levels, **{t: keep.level.id for t in tensors}}
        for stmt in keep.body:
            self._statement(stmt, loops, scopes + (scope,), inner_levels)

    def _fill_level(self, level: str) -> str:
        """Thread blocks fill their tiles of a global tensor from L2, where every load of
        global memory goes through: in a parallel spec L2 serves the fills."""
        return Level.L2 if self.checked.grid is not None and level == Level.GLOBAL else level

    def _site(self, access: ast.Access, loops: tuple[Loop, ...], scopes: tuple[Scope, ...],
              is_write: bool, accumulation_read: bool = False) -> AccessSite:
        names = self._names(loops)
        indices = tuple(to_sympy(index, names) for index in access.indices)
        tensor_scopes = tuple(s for s in scopes if access.tensor in s.tensors)
        extent = tuple(self.facts.apply(e) for e in self.checked.tensors[access.tensor].shape)
        return AccessSite(access.tensor, indices, is_write, accumulation_read, loops,
                          tensor_scopes, extent, access.span)

    def _reads(self, expr: ast.Expr, loops: tuple[Loop, ...],
               scopes: tuple[Scope, ...]) -> None:
        for node in ast.walk_expr(expr):
            if isinstance(node, ast.Access):
                self.nest.accesses.append(self._site(node, loops, scopes, False))
            elif isinstance(node, ast.Name) and node.id in self.checked.tensors:
                scalar = ast.Access(node.id, (), node.span)
                self.nest.accesses.append(self._site(scalar, loops, scopes, False))

    def _target(self, assign: ast.Assign, loops: tuple[Loop, ...],
                scopes: tuple[Scope, ...]) -> None:
        target = assign.target
        if isinstance(target, ast.Name):
            if target.id not in self.checked.tensors:
                return  # a register local
            target = ast.Access(target.id, (), target.span)
        if assign.op in ACCUMULATIONS:
            self.nest.accesses.append(self._site(target, loops, scopes, False, True))
        self.nest.accesses.append(self._site(target, loops, scopes, True))



def build_nest(checked: CheckedKernel, facts: Facts, reuse: Reuse) -> Nest:
    """The nest of `checked`; with reuse other than `spec` the keep scopes are left out."""
    return NestBuilder(checked, facts, reuse).build()
