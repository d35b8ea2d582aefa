"""The plan: the statement tree compiled into loops, keeps and statements that run with
iterator values in a dict and record the elements each access touches."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import field
from fractions import Fraction

from ..base.errors import BudgetError, Code, Diagnostic
from ..base.levels import Level
from ..base.records import record
from .exprs import normal
from .grid_blocks import BlockState
from .results import Element, Env, ScopeCounts, ScopeEntry, Value

# --- the plan: the statement tree, compiled --------------------------------------------------


class Budget:
    """Counts steps (loop iterations and statement executions) and stops a runaway nest."""

    def __init__(self, max_steps: int):
        self.max_steps = max_steps
        self.steps = 0
        self.moves: Counter = Counter()  # (tensor, level) -> elements moved at that level

    def exceeded(self) -> None:
        raise BudgetError(Code.ENUMERATION_BUDGET_RAN_OUT, Diagnostic(
            None,
            f"the enumeration passed its budget of {self.max_steps:,} steps "
            "(loop iterations plus statement executions)", "use smaller sizes, or raise max_steps"))


@record(frozen=False, slots=True)
class AccessPlan:
    """One access occurrence: where its element is recorded, and what one execution moves."""

    index: Callable[[Env], Element]
    sets: tuple[set, ...]  # kernel footprint, fills of enclosing scopes, direct perfect reuse
    move: tuple[str, str] | None  # (tensor, level) charged one element per execution


@record(frozen=False, slots=True)
class StatementPlan:
    work: Counter  # operations by class for one execution
    accesses: tuple[AccessPlan, ...]
    executions: int = 0

    def execute(self, env: Env, budget: Budget) -> None:
        self.executions += 1
        budget.steps += 1
        if budget.steps > budget.max_steps:
            budget.exceeded()
        moves = budget.moves
        for access in self.accesses:
            element = access.index(env)
            for elements in access.sets:
                elements.add(element)
            if access.move is not None:
                moves[access.move] += 1


@record(frozen=False, slots=True)
class LoopPlan:
    var: str
    lo: Callable[[Env], Value]
    hi: Callable[[Env], Value]
    step: Value
    body: tuple
    key: int = 0  # the loop's number in the kernel, for `largest`
    largest: dict[int, int] | None = None  # loop key -> most iterations in one run (tiles)

    def execute(self, env: Env, budget: Budget) -> None:
        ran = 0
        for value in iterator_values(self.lo(env), self.hi(env), self.step):
            ran += 1
            env[self.var] = value
            budget.steps += 1
            if budget.steps > budget.max_steps:
                budget.exceeded()
            for plan in self.body:
                plan.execute(env, budget)
        env.pop(self.var, None)
        if self.largest is not None and ran > self.largest.get(self.key, 0):
            self.largest[self.key] = ran


def iterator_values(lo: Value, hi: Value, step: Value) -> Iterable[Value]:
    """lo, lo + step, ... while below hi; nothing when hi <= lo."""
    if isinstance(lo, int) and isinstance(hi, int) and isinstance(step, int):
        return range(lo, hi, step)
    count = max(0, math.ceil((hi - lo) / step))
    return (normal(lo + step * k) for k in range(count))


def trip_count(lo: Value, hi: Value, step: Value) -> int:
    """How many values iterator_values gives, without making them: len(range) holds only
    what fits a C ssize_t, and a bound such as n * 1e19 goes past it."""
    if isinstance(lo, int) and isinstance(hi, int) and isinstance(step, int):
        return max(0, -((lo - hi) // step))
    return max(0, math.ceil((hi - lo) / step))


@record(frozen=False)
class ScopeState:
    """A keep scope while it runs: the elements touched in the current entry, and its log."""

    index: int
    level: str
    tensors: tuple[str, ...]
    outer_iterators: tuple[str, ...]
    element_bytes: dict[str, Fraction]
    fill_levels: dict[str, str]  # tensor -> level its fill crosses from (charged there)
    read_sets: dict[str, set] = field(default_factory=dict)
    write_sets: dict[str, set] = field(default_factory=dict)
    entries: list[ScopeEntry] = field(default_factory=list)
    held_bytes_first: Fraction = Fraction(0)
    # fills crossing from L2 in a parallel spec go to the block log, counted per cluster
    blocks: BlockState | None = None
    # (iterator, its loop's lower bound) for the loops around the scope, outermost first:
    # the closed form's held bytes are taken with each at its lower bound
    outer_lows: tuple = ()
    first_entry_at_lows: bool = True

    def __post_init__(self) -> None:
        self.read_sets = {tensor: set() for tensor in self.tensors}
        self.write_sets = {tensor: set() for tensor in self.tensors}

    def open_entry(self) -> None:
        for elements in (*self.read_sets.values(), *self.write_sets.values()):
            elements.clear()

    def close_entry(self, env: Env, budget: Budget) -> None:
        reads = {tensor: len(self.read_sets[tensor]) for tensor in self.tensors}
        writes = {tensor: len(self.write_sets[tensor]) for tensor in self.tensors}
        if not self.entries:
            self.first_entry_at_lows = self._at_lower_bounds(env)
            # every skipped read is an accumulation target, so it is among the writes: the
            # union of the recorded sets is the raw union of elements read or written
            self.held_bytes_first = sum(
                (self.element_bytes[tensor]
                 * len(self.read_sets[tensor] | self.write_sets[tensor])
                 for tensor in self.tensors), Fraction(0))
        outer_values = {name: env[name] for name in self.outer_iterators}
        self.entries.append(ScopeEntry(outer_values, reads, writes))
        for tensor, level in self.fill_levels.items():
            if level == Level.L2 and self.blocks is not None:
                step = (self.index, *(env[name] for name in self.outer_iterators
                                      if name not in self.blocks.iterators))
                self.blocks.fill_from_l2(env, step, tensor, self.read_sets[tensor], "read")
                self.blocks.fill_from_l2(env, step, tensor, self.write_sets[tensor], "write")
            else:
                budget.moves[(tensor, level)] += reads[tensor] + writes[tensor]

    def _at_lower_bounds(self, env: Env) -> bool:
        """Whether the first entry that ran is the one at every outer lower bound (it is not
        where a triangular outer loop is empty there: `for j in 0..i` at i = 0)."""
        point = dict(env)
        for name, low in self.outer_lows:
            point[name] = low(point)
            if point[name] != env[name]:
                return False
        return True

    def result(self) -> ScopeCounts:
        held = self.held_bytes_first if self.first_entry_at_lows else None
        return ScopeCounts(self.index, self.level, self.tensors, self.outer_iterators,
                           tuple(self.entries), held)


@record(frozen=False, slots=True)
class KeepPlan:
    scope: ScopeState
    body: tuple

    def execute(self, env: Env, budget: Budget) -> None:
        self.scope.open_entry()
        for plan in self.body:
            plan.execute(env, budget)
        self.scope.close_entry(env, budget)



@record
class WholeBlock:
    """A block seen as a scope around everything inside the grid (for the skip rule)."""

    outer_iterators: tuple[str, ...]


@record(frozen=False, slots=True)
class BlockPlan:
    state: BlockState
    statements: list  # every statement plan of the kernel, for the block's work
    body: tuple

    def execute(self, env: Env, budget: Budget) -> None:
        self.state.open(self.statements, budget.moves)
        for plan in self.body:
            plan.execute(env, budget)
        self.state.close(env, self.statements, budget.moves)
