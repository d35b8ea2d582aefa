"""The oracle: run a checked kernel's loop nest at concrete sizes and count, by enumeration, the
quantities that count.py derives in closed form: work by class, bytes per level, footprints per
tensor and, for every keep scope, the distinct elements filled and written back at each entry.

It is the test oracle for every closed form, so it shares nothing with count.py's summation or
footprint logic: it only reads the AST, the checked kernel and the FLOP rules (work.py), and it
counts with plain Python ints and Fractions. Each bound and index is turned once into a closure
(sizes folded in as constants); the loop nest then runs with iterator values in a dict.

    enumerate_counts(kernel, sizes, reuse) -> Counts      the enumeration
    comparisons(cost, counts)              -> [Comparison] closed forms evaluated against it
    compare(cost, counts)                  -> [Mismatch]  the comparisons that fail
    sample_sizes(kernel, count, rng)       -> [sizes]     small sizes meeting the assumptions
    draw_sizes(kernel, pick)               -> sizes       one draw of them (divisibility met)

The counting rules are those of DESIGN.md; where the oracle had to settle a detail it says so
at the place (scalar tensors, the accumulation skip, per-entry fills of nested scopes).
"""

from __future__ import annotations

import math
import operator
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from . import ast
from .check import CheckedKernel
from .cost import WORK_CLASSES, Cost
from .errors import Diagnostic, KcostError
from .oracle_blocks import BlockCounts, BlockState, compare_blocks
from .symbols import LEVELS, iterator_symbol, number, size_symbol, to_sympy
from .work import statement_work

REUSE_MODES = ("spec", "perfect", "none")
ACCUMULATIONS = ("+=", "max=", "min=")
DEFAULT_MAX_STEPS = 5_000_000  # loop iterations plus statement executions, per enumeration
SAMPLE_MAX_STEPS = 200_000
MAX_SUM_TERMS = 1_000_000  # terms of an unevaluated Sum added up one by one in `evaluate`  # what sample_sizes aims for, so that a property test stays fast

Value = int | Fraction  # a size, an iterator or an index component
Env = dict[str, Value]  # iterator name -> current value
Element = tuple  # one element of a tensor: its index values


# --- results -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ScopeEntry:
    """One run of a keep scope."""

    outer_values: dict[str, Value]  # iterator of each loop around the scope -> its value
    read_elements: dict[str, int]  # kept tensor -> distinct elements filled (skip rule applied)
    write_elements: dict[str, int]  # kept tensor -> distinct elements written back


@dataclass(frozen=True)
class ScopeCounts:
    """One `keep ... in LEVEL { }` scope, enumerated."""

    index: int  # position among the kernel's keep scopes, in source order
    level: str
    tensors: tuple[str, ...]
    outer_iterators: tuple[str, ...]  # loops around the scope, outermost first
    entries: tuple[ScopeEntry, ...]  # every run of the scope, in execution order
    # bytes of elements read or written at the first entry (0: none); None when that entry
    # is not the one at every outer lower bound, where the closed form takes it
    held_bytes_first: Fraction | None

    @property
    def entry_count(self) -> int:
        return len(self.entries)


@dataclass(frozen=True)
class Counts:
    """What the enumeration found, at one size assignment and one reuse mode."""

    kernel: str
    sizes: dict[str, Value]  # every size name (parameters, defaults, `let` sizes) -> value
    reuse: str  # spec | perfect | none
    work: dict[str, int]  # class (fma, vector, sfu) -> FLOP
    traffic: dict[str, Fraction]  # level -> bytes moved at that level (levels with traffic)
    footprints: dict[str, tuple[int, int]]  # tensor -> (distinct read, distinct written)
    scopes: tuple[ScopeCounts, ...]
    statement_executions: int
    steps: int  # loop iterations plus statement executions: what the budget limits
    blocks: tuple[BlockCounts, ...] = ()  # a parallel spec's thread blocks, in grid order

    @property
    def total_work(self) -> int:
        return sum(self.work.values())


@dataclass(frozen=True)
class Mismatch:
    """A closed form that disagrees with the enumeration."""

    quantity: str  # e.g. `traffic[global]`, `scope 0 read[A] at i0=0, k0=2`
    closed_form: Fraction | None  # its value at the sizes; None when it gave no number
    enumerated: Fraction
    relation: str  # `==` for an exact form, `>=` for an upper bound (a bounding box)
    expression: str = ""  # the closed form as sympy prints it

    def __str__(self) -> str:
        expected = {"==": "equal", ">=": "be at least", "<=": "be at most"}[self.relation]
        closed = "no number" if self.closed_form is None else str(self.closed_form)
        return (f"{self.quantity}: closed form {self.expression} = {closed} should {expected} "
                f"the enumeration {self.enumerated}")


@dataclass(frozen=True)
class Comparison:
    """One closed form evaluated against the enumeration: a row of `kernelcost check`."""

    quantity: str  # e.g. `traffic[global]`, `scope 0 (A in shared) read[A]`
    where: str  # the entry's outer iterator values (`i0=0, k0=2`), or "" for the whole kernel
    unit: str  # FLOP, B, elements, entries
    closed_form: Fraction | None  # its value at the sizes; None when it gave no number
    enumerated: Fraction
    relation: str  # `==` for an exact form, `>=` for an upper bound (a bounding box)
    form: object  # the closed form (sympy), printed only when a mismatch is reported

    @property
    def expression(self) -> str:
        return str(self.form)

    @property
    def holds(self) -> bool:
        if self.closed_form is None:
            return False
        if self.relation == "==":
            return self.closed_form == self.enumerated
        if self.relation == "<=":
            return self.closed_form <= self.enumerated
        return self.closed_form >= self.enumerated

    def mismatch(self) -> Mismatch:
        quantity = f"{self.quantity} at {self.where}" if self.where else self.quantity
        return Mismatch(quantity, self.closed_form, self.enumerated, self.relation,
                        self.expression)


# --- sizes -------------------------------------------------------------------------------


def resolve_sizes(kernel: CheckedKernel, sizes: Mapping[str, int]) -> dict[str, Value]:
    """Every size name -> its value: the given parameters, defaults for the rest, and the
    derived (`let`) sizes evaluated. A missing, unknown or non-positive size is a KcostError."""
    parameter_names = [symbol.name for symbol in kernel.parameters]
    for name in sizes:
        if name not in parameter_names:
            raise KcostError(Diagnostic(None, f"`{name}` is not a size parameter of "
                                              f"`{kernel.name}`",
                                        "parameters: " + ", ".join(parameter_names)))
    values: dict[str, Value] = {}
    for symbol in kernel.parameters:
        value = sizes.get(symbol.name, kernel.defaults.get(symbol))
        if value is None:
            raise KcostError(Diagnostic(None, f"size `{symbol.name}` needs a value",
                                        f"set it: {symbol.name}=8"))
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise KcostError(Diagnostic(None, f"size `{symbol.name}` must be a positive "
                                              f"integer, not {value!r}"))
        values[symbol.name] = value
    substitution = _sympy_substitution(values)
    for name, expression in kernel.sizes.items():
        if name not in values:
            values[name] = _sympy_value(expression.xreplace(substitution), f"size `{name}`")
    return values


def _sympy_substitution(values: Mapping[str, Value]) -> dict[sympy.Symbol, sympy.Rational]:
    return {size_symbol(name): _rational(value) for name, value in values.items()}


def _rational(value: Value) -> sympy.Rational:
    value = Fraction(value)
    return sympy.Rational(value.numerator, value.denominator)


def _sympy_value(expression: sympy.Expr, what: str) -> Value:
    if not expression.is_Rational:
        raise KcostError(Diagnostic(None, f"{what} does not evaluate to a number: {expression}"))
    return _normal(Fraction(int(expression.p), int(expression.q)))


def _normal(value: Value) -> Value:
    """Integral Fractions become ints, so that loops can use range()."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


# --- expressions as closures -------------------------------------------------------------
# An expression compiles to a constant (a Value) when it depends on sizes only, otherwise to a
# function of the iterator environment. Values are never callable, so callable() tells them
# apart.

Compiled = Value | Callable[[Env], Value]


def _divide(left: Value, right: Value) -> Value:
    if right == 0:
        raise KcostError(Diagnostic(None, "division by zero in an index or a loop bound"))
    if isinstance(left, int) and isinstance(right, int) and left % right == 0:
        return left // right
    return _normal(Fraction(left) / right)


_OPERATORS: dict[str, Callable[[Value, Value], Value]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": _divide,
}


def _compile(expr: ast.Expr, sizes: Mapping[str, Value]) -> Compiled:
    """An index or bound expression (sizes, iterators, + - * /, min, max) as a closure."""
    if isinstance(expr, ast.Number):
        rational = number(expr.text)
        return _normal(Fraction(int(rational.p), int(rational.q)))
    if isinstance(expr, ast.Name):
        if expr.id in sizes:
            return sizes[expr.id]
        return operator.itemgetter(expr.id)
    if isinstance(expr, ast.Neg):
        operand = _compile(expr.operand, sizes)
        if not callable(operand):
            return -operand
        return lambda env: -operand(env)
    if isinstance(expr, ast.BinOp):
        return _compile_binary(_OPERATORS[expr.op], _compile(expr.left, sizes),
                               _compile(expr.right, sizes))
    if isinstance(expr, ast.Call) and expr.func in ("min", "max"):
        return _compile_extremum(min if expr.func == "min" else max,
                                 [_compile(arg, sizes) for arg in expr.args])
    raise KcostError(Diagnostic(expr.span, "not an index or bound expression",
                                "indices and bounds use sizes, iterators, + - * /, min, max"))


def _compile_binary(apply, left: Compiled, right: Compiled) -> Compiled:
    if not callable(left) and not callable(right):
        return _normal(apply(left, right))
    if not callable(right):
        return lambda env: apply(left(env), right)
    if not callable(left):
        return lambda env: apply(left, right(env))
    return lambda env: apply(left(env), right(env))


def _compile_extremum(choose, args: list[Compiled]) -> Compiled:
    if not any(callable(arg) for arg in args):
        return choose(args)
    functions = [_as_function(arg) for arg in args]
    return lambda env: choose([function(env) for function in functions])


def _as_function(compiled: Compiled) -> Callable[[Env], Value]:
    if callable(compiled):
        return compiled
    return lambda env: compiled


def _compile_index(indices: tuple[ast.Expr, ...],
                   sizes: Mapping[str, Value]) -> Callable[[Env], Element]:
    """The element an access touches, as a tuple of index values (() for a scalar tensor)."""
    parts = [_as_function(_compile(index, sizes)) for index in indices]
    if not parts:
        return lambda env: ()
    if len(parts) == 1:
        (first,) = parts
        return lambda env: (first(env),)
    if len(parts) == 2:
        first, second = parts
        return lambda env: (first(env), second(env))
    if len(parts) == 3:
        first, second, third = parts
        return lambda env: (first(env), second(env), third(env))
    return lambda env: tuple(part(env) for part in parts)


# --- the plan: the statement tree, compiled --------------------------------------------------


class _Budget:
    """Counts steps (loop iterations and statement executions) and stops a runaway nest."""

    def __init__(self, max_steps: int):
        self.max_steps = max_steps
        self.steps = 0
        self.moves: Counter = Counter()  # (tensor, level) -> elements moved at that level

    def exceeded(self) -> None:
        raise KcostError(Diagnostic(
            None, f"the enumeration passed its budget of {self.max_steps:,} steps "
                  "(loop iterations plus statement executions)",
            "use smaller sizes, or raise max_steps"))


@dataclass(slots=True)
class _AccessPlan:
    """One access occurrence: where its element is recorded, and what one execution moves."""

    index: Callable[[Env], Element]
    sets: tuple[set, ...]  # kernel footprint, fills of enclosing scopes, direct perfect reuse
    move: tuple[str, str] | None  # (tensor, level) charged one element per execution


@dataclass(slots=True)
class _StatementPlan:
    work: Counter  # operations by class for one execution
    accesses: tuple[_AccessPlan, ...]
    executions: int = 0

    def execute(self, env: Env, budget: _Budget) -> None:
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


@dataclass(slots=True)
class _LoopPlan:
    var: str
    lo: Callable[[Env], Value]
    hi: Callable[[Env], Value]
    step: Value
    body: tuple

    def execute(self, env: Env, budget: _Budget) -> None:
        for value in _iterator_values(self.lo(env), self.hi(env), self.step):
            env[self.var] = value
            budget.steps += 1
            if budget.steps > budget.max_steps:
                budget.exceeded()
            for plan in self.body:
                plan.execute(env, budget)
        env.pop(self.var, None)


def _iterator_values(lo: Value, hi: Value, step: Value) -> Iterable[Value]:
    """lo, lo + step, ... while below hi; nothing when hi <= lo."""
    if isinstance(lo, int) and isinstance(hi, int) and isinstance(step, int):
        return range(lo, hi, step)
    count = max(0, math.ceil((hi - lo) / step))
    return (_normal(lo + step * k) for k in range(count))


@dataclass
class _ScopeState:
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

    def close_entry(self, env: Env, budget: _Budget) -> None:
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
            if level == "l2" and self.blocks is not None:
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


@dataclass(slots=True)
class _KeepPlan:
    scope: _ScopeState
    body: tuple

    def execute(self, env: Env, budget: _Budget) -> None:
        self.scope.open_entry()
        for plan in self.body:
            plan.execute(env, budget)
        self.scope.close_entry(env, budget)


class _Compiler:
    """Turns the checked statement tree into plans, deciding statically for each access
    occurrence which sets its elements join and at which level each execution is charged."""

    def __init__(self, kernel: CheckedKernel, sizes: Mapping[str, Value], reuse: str):
        self.kernel = kernel
        self.sizes = sizes
        self.honour_keeps = reuse == "spec"
        self.direct_reuse = kernel.reuse if reuse == "spec" else reuse
        tensors = kernel.tensors
        self.element_bytes = {name: _fraction(t.element_bytes) for name, t in tensors.items()}
        self.footprint_reads: dict[str, set] = {name: set() for name in tensors}
        self.footprint_writes: dict[str, set] = {name: set() for name in tensors}
        self.direct_reads: dict[str, set] = {name: set() for name in tensors}
        self.direct_writes: dict[str, set] = {name: set() for name in tensors}
        self.scopes: list[_ScopeState] = []
        self.statements: list[_StatementPlan] = []
        self.lower_bounds: dict[str, ast.Expr] = {}  # iterator -> its loop's `lo`, this chain
        self.grid = kernel.grid
        self.blocks = None if self.grid is None else BlockState(
            self.grid.iterators, self.element_bytes, None)

    def block(self, statements: Iterable[ast.Statement], loops: tuple[str, ...],
              keeps: tuple[_ScopeState, ...]) -> tuple:
        plans = []
        for stmt in statements:
            if isinstance(stmt, ast.For):
                plans.append(self.loop(stmt, loops, keeps))
            elif isinstance(stmt, ast.Keep) and self.honour_keeps:
                plans.append(self.keep(stmt, loops, keeps))
            elif isinstance(stmt, ast.Keep):  # a forced reuse mode: the scope is not there
                plans.extend(self.block(stmt.body, loops, keeps))
            elif isinstance(stmt, ast.Assign) or (isinstance(stmt, ast.Let) and stmt.dtype):
                plans.append(self.statement(stmt, keeps))
            # an untyped `let` is a derived size, already among the sizes
        return tuple(plans)

    def loop(self, loop: ast.For, loops, keeps) -> _LoopPlan:
        step = 1 if loop.step is None else _compile(loop.step, self.sizes)
        if callable(step) or step <= 0:
            what = "depends on an iterator" if callable(step) else f"is {step}"
            raise KcostError(Diagnostic(loop.span, f"loop step of `{loop.var}` {what}",
                                        "a step is a positive size expression"))
        lo = _as_function(_compile(loop.lo, self.sizes))
        hi = _as_function(_compile(loop.hi, self.sizes))
        outer_bound = self.lower_bounds.get(loop.var)
        self.lower_bounds[loop.var] = loop.lo
        if self.grid is not None and loop.var == self.grid.cluster_axis:
            self._cluster_along(loop.var, lo, step)
        body = self.block(loop.body, (*loops, loop.var), keeps)
        if self.grid is not None and loop.var == self.grid.iterators[-1]:
            body = (_BlockPlan(self.blocks, self.statements, body),)
        if outer_bound is None:
            del self.lower_bounds[loop.var]
        else:
            self.lower_bounds[loop.var] = outer_bound
        return _LoopPlan(loop.var, lo, hi, step, body)

    def _cluster_along(self, axis: str, lo, step) -> None:
        """Blocks c at a time along the axis form a cluster; the other coordinates agree."""
        size = int(_sympy_value(self.grid.cluster_size.xreplace(
            _sympy_substitution(self.sizes)), "the cluster size"))
        iterators = self.grid.iterators

        def cluster_of(env: Env) -> tuple:
            return tuple((env[name] - lo(env)) // step // size if name == axis else env[name]
                         for name in iterators)

        self.blocks.cluster_of = cluster_of

    def keep(self, keep: ast.Keep, loops, keeps) -> _KeepPlan:
        tensors = tuple(dict.fromkeys(name.id for name in keep.tensors))
        fill_levels = {tensor: self._current_level(tensor, keeps) for tensor in tensors}
        lows = tuple((name, _as_function(_compile(self.lower_bounds[name], self.sizes)))
                     for name in loops)
        scope = _ScopeState(len(self.scopes), keep.level.id, tensors, loops,
                            {tensor: self.element_bytes[tensor] for tensor in tensors},
                            fill_levels, outer_lows=lows, blocks=self.blocks)
        self.scopes.append(scope)
        return _KeepPlan(scope, self.block(keep.body, loops, (*keeps, scope)))

    def _current_level(self, tensor: str, keeps: tuple[_ScopeState, ...]) -> str:
        for scope in reversed(keeps):
            if tensor in scope.tensors:
                return scope.level
        level = self.kernel.tensors[tensor].level
        return "l2" if self.grid is not None and level == "global" else level

    def statement(self, stmt: ast.Assign | ast.Let, keeps) -> _StatementPlan:
        accesses = [self.access(tensor, indices, False, None, keeps)
                    for tensor, indices in self._value_reads(stmt.value)]
        target = stmt.target if isinstance(stmt, ast.Assign) else None
        target_access = self._as_access(target)
        if target_access is not None:
            tensor, indices = target_access
            if stmt.op in ACCUMULATIONS:
                accesses.append(self.access(tensor, indices, False, indices, keeps))
            accesses.append(self.access(tensor, indices, True, None, keeps))
        plan = _StatementPlan(statement_work(stmt), tuple(accesses))
        self.statements.append(plan)
        return plan

    def _as_access(self, expr) -> tuple[str, tuple[ast.Expr, ...]] | None:
        """A tensor access, or None for a register local. A scalar tensor (declared without a
        shape) is written as a bare name; it is one element, with the empty index ()."""
        if isinstance(expr, ast.Access):
            return expr.tensor, expr.indices
        if isinstance(expr, ast.Name) and expr.id in self.kernel.tensors:
            return expr.id, ()
        return None

    def _value_reads(self, value: ast.Expr) -> list[tuple[str, tuple[ast.Expr, ...]]]:
        reads = []
        for node in ast.walk_expr(value):
            access = self._as_access(node) if isinstance(node, (ast.Access, ast.Name)) else None
            if access is not None:
                reads.append(access)
        return reads

    def access(self, tensor: str, indices, is_write: bool, accumulated: tuple | None,
               keeps: tuple[_ScopeState, ...]) -> _AccessPlan:
        """accumulated: the target's indices when this is the read half of `+=` (or max=,
        min=); None for every other read and for writes."""
        declared = self.kernel.tensors[tensor]
        is_out_accumulation = accumulated is not None and declared.role == "out"
        footprint = self.footprint_writes if is_write else self.footprint_reads
        index = _compile_index(indices, self.sizes)
        if declared.role == "local":  # lives in its level: every access is served there
            return _AccessPlan(index, (footprint[tensor],), (tensor, declared.level))
        if self.grid is not None and declared.level == "global":
            return self._block_access(tensor, index, is_write, accumulated, keeps)
        sets = [footprint[tensor]]
        chain = [scope for scope in keeps if tensor in scope.tensors]  # empty when forced
        for scope in chain:
            if is_out_accumulation and self._encloses_reduction(scope, accumulated):
                continue
            sets.append((scope.write_sets if is_write else scope.read_sets)[tensor])
        move = None
        if chain:
            move = (tensor, chain[-1].level)  # served by the innermost keep, every execution
        elif self.direct_reuse == "none":
            move = (tensor, self.kernel.tensors[tensor].level)
        elif not is_out_accumulation:  # perfect: distinct elements, counted at the end
            sets.append((self.direct_writes if is_write else self.direct_reads)[tensor])
        return _AccessPlan(index, tuple(sets), move)

    def _block_access(self, tensor: str, index, is_write: bool, accumulated, keeps):
        """A global tensor in a parallel spec: each element reaches global memory once
        (compulsory); a block reads its fills from L2, and outside a keep the distinct
        elements it touches (every access under `reuse none`)."""
        is_out_accumulation = (accumulated is not None
                               and self.kernel.tensors[tensor].role == "out")
        kind = "write" if is_write else "read"
        sets = [(self.footprint_writes if is_write else self.footprint_reads)[tensor],
                self.blocks.touched[tensor]]
        if not is_out_accumulation:
            sets.append((self.direct_writes if is_write else self.direct_reads)[tensor])
        chain = [scope for scope in keeps if tensor in scope.tensors]
        for scope in chain:
            if is_out_accumulation and self._encloses_reduction(scope, accumulated):
                continue
            sets.append((scope.write_sets if is_write else scope.read_sets)[tensor])
        move = None
        if chain:
            move = (tensor, chain[-1].level)
        elif self.direct_reuse == "none":
            move = (tensor, "l2")
        elif not (is_out_accumulation and self._encloses_reduction(_WholeBlock(
                self.grid.iterators), accumulated)):
            sets.append(self.blocks.direct[(tensor, kind)])
        return _AccessPlan(index, tuple(sets), move)


    def _encloses_reduction(self, scope: _ScopeState, target_indices: tuple) -> bool:
        """The contract's test for skipping the fill of an `out` accumulation target: every
        loop around the scope moves the target's index expressions, directly or through the
        lower bounds of the loops inside the scope (`i` in `i0..i0 + T` moves with `i0`).
        Indices are read as sympy reads them, so `i0 - i0` does not count."""
        names = {name: size_symbol(name) for name in self.kernel.sizes}
        names.update({name: iterator_symbol(name) for name in self.lower_bounds})
        indices = [to_sympy(index, names) for index in target_indices]
        outer = {iterator_symbol(name) for name in scope.outer_iterators}
        for _ in range(len(self.lower_bounds)):  # each pass resolves one level of the nest
            inner = {symbol for index in indices for symbol in index.free_symbols
                     if symbol not in outer and symbol.name in self.lower_bounds}
            if not inner:
                break
            offsets = {symbol: to_sympy(self.lower_bounds[symbol.name], names)
                       + sympy.Dummy(f"{symbol.name}_offset") for symbol in inner}
            indices = [index.subs(offsets) for index in indices]
        symbols = set().union(*(index.free_symbols for index in indices))
        return all(iterator_symbol(name) in symbols for name in scope.outer_iterators)


@dataclass(frozen=True)
class _WholeBlock:
    """A block seen as a scope around everything inside the grid (for the skip rule)."""

    outer_iterators: tuple[str, ...]


@dataclass(slots=True)
class _BlockPlan:
    state: BlockState
    statements: list  # every statement plan of the kernel, for the block's work
    body: tuple

    def execute(self, env: Env, budget: _Budget) -> None:
        self.state.open(self.statements, budget.moves)
        for plan in self.body:
            plan.execute(env, budget)
        self.state.close(env, self.statements, budget.moves)


def _fraction(value: sympy.Rational) -> Fraction:
    return Fraction(int(value.p), int(value.q))


# --- enumeration -------------------------------------------------------------------------


def enumerate_counts(kernel: CheckedKernel, sizes: Mapping[str, int], reuse: str = "spec",
                     *, max_steps: int = DEFAULT_MAX_STEPS) -> Counts:
    """Run the kernel's loop nest at the given sizes (parameters missing from `sizes` take
    their defaults) and count work, traffic, footprints and scope fills by enumeration.

    reuse: `spec` honours keep scopes, and tensors outside them follow the kernel's `reuse`
    setting; `perfect` and `none` ignore every keep (no scope is reported, as in the Cost)
    and count every tensor that way.
    A nest running more than max_steps loop iterations plus statements is a KcostError."""
    if reuse not in REUSE_MODES:
        raise KcostError(Diagnostic(None, f"unknown reuse mode `{reuse}`",
                                    "use " + ", ".join(REUSE_MODES)))
    values = resolve_sizes(kernel, sizes)
    if count_steps(kernel, sizes, max_steps) > max_steps:
        _Budget(max_steps).exceeded()  # refuse before running: the count is cheap
    compiler = _Compiler(kernel, values, reuse)
    plans = compiler.block(kernel.kernel.statements, (), ())
    budget = _Budget(max_steps)
    env: Env = {}
    for plan in plans:
        plan.execute(env, budget)
    _check_inside_shapes(kernel, values, compiler)
    if compiler.blocks is not None:
        budget.moves.update({(tensor, "l2"): elements for tensor, elements
                             in compiler.blocks.l2_fill_elements().items()})
    return Counts(
        kernel=kernel.name,
        sizes=values,
        reuse=reuse,
        work=_work(compiler.statements),
        traffic=_traffic(compiler, budget.moves),
        footprints={name: (len(compiler.footprint_reads[name]),
                           len(compiler.footprint_writes[name]))
                    for name, tensor in kernel.tensors.items() if tensor.role != "local"},
        scopes=tuple(scope.result() for scope in compiler.scopes),
        statement_executions=sum(plan.executions for plan in compiler.statements),
        steps=budget.steps,
        blocks=() if compiler.blocks is None else tuple(compiler.blocks.blocks),
    )


def _check_inside_shapes(kernel: CheckedKernel, values: Mapping[str, Value],
                         compiler: _Compiler) -> None:
    """Every element touched lies inside its tensor's declared shape. Counts of a nest that
    reaches outside are not defined (a footprint bound may use the shape), so that is an
    error of the spec at these sizes rather than a number."""
    substitution = _sympy_substitution(values)
    for name, tensor in kernel.tensors.items():
        extents = [_sympy_value(extent.xreplace(substitution), f"the shape of `{name}`")
                   for extent in tensor.shape]
        touched = compiler.footprint_reads[name] | compiler.footprint_writes[name]
        for dimension, extent in enumerate(extents):
            if not touched:
                break
            low = min(element[dimension] for element in touched)
            high = max(element[dimension] for element in touched)
            if low < 0 or high >= extent:
                index = low if low < 0 else high
                sizes = ", ".join(f"{size} = {value}" for size, value in values.items())
                raise KcostError(Diagnostic(
                    tensor.span,
                    f"`{name}` is indexed at {index} in dimension {dimension + 1}, outside "
                    f"its declared extent 0..{extent - 1} (at {sizes})",
                    "declare a shape that holds every index, or bound the loops: counts "
                    "outside the shape are not defined"), kernel.kernel.source)


def _work(statements: list[_StatementPlan]) -> dict[str, int]:
    work = {work_class: 0 for work_class in WORK_CLASSES}
    for plan in statements:
        for work_class, operations in plan.work.items():
            work[work_class] = work.get(work_class, 0) + operations * plan.executions
    return work


def _traffic(compiler: _Compiler, moves: Counter) -> dict[str, Fraction]:
    """Bytes per level: elements moved one by one (served accesses, `none` reuse, fills),
    plus the distinct elements of direct accesses under perfect reuse, at the home level."""
    traffic: dict[str, Fraction] = {}
    for (tensor, level), elements in moves.items():
        traffic[level] = traffic.get(level, Fraction(0)) + compiler.element_bytes[tensor] * elements
    for tensor, declared in compiler.kernel.tensors.items():
        distinct = len(compiler.direct_reads[tensor]) + len(compiler.direct_writes[tensor])
        if distinct:
            traffic[declared.level] = (traffic.get(declared.level, Fraction(0))
                                       + compiler.element_bytes[tensor] * distinct)
    return {level: traffic[level] for level in LEVELS if traffic.get(level)}


# --- comparing closed forms with the enumeration -----------------------------------------


def compare(cost: Cost, counts: Counts, sizes: Mapping[str, int] | None = None,
            *, max_entries: int = 512) -> list[Mismatch]:
    """Every disagreement of the Cost's closed forms with the enumeration (see comparisons)."""
    return [row.mismatch() for row in comparisons(cost, counts, sizes, max_entries=max_entries)
            if not row.holds]


def comparisons(cost: Cost, counts: Counts, sizes: Mapping[str, int] | None = None,
                *, max_entries: int = 512) -> list[Comparison]:
    """Evaluate the Cost's closed forms at the sizes of `counts` (`sizes`, when given,
    overrides some of them) against the enumeration, one row per quantity: equality where
    the form is exact, closed form >= enumeration where it is an upper bound. Per-entry scope
    footprints are checked at the recorded iterator values of up to max_entries entries of
    each scope (evenly spread, first and last included)."""
    if cost.reuse != counts.reuse:
        raise ValueError(f"the cost was counted under reuse `{cost.reuse}` and the "
                         f"enumeration under `{counts.reuse}`")
    substitution = _sympy_substitution({**counts.sizes, **(sizes or {})})
    checker = _Comparison(substitution)
    for work_class in sorted(set(cost.work) | set(counts.work)):
        checker.check(f"work[{work_class}]", "FLOP", cost.work.get(work_class, 0),
                      counts.work.get(work_class, 0), exact=True)
    for level in _ordered_levels(set(cost.traffic) | set(counts.traffic)):
        checker.check(f"traffic[{level}]", "B", cost.traffic.get(level, 0),
                      counts.traffic.get(level, 0), exact=cost.exact)
    _compare_footprints(checker, cost, counts)
    _compare_scopes(checker, cost, counts, max_entries)
    compare_blocks(checker, cost, counts, lambda blocks: _spread(blocks, max_entries))
    return checker.rows


def _ordered_levels(levels: set[str]) -> list[str]:
    return sorted(levels, key=lambda level: (LEVELS.index(level) if level in LEVELS else 99,
                                             level))


class _Comparison:
    def __init__(self, substitution: dict[sympy.Symbol, sympy.Rational]):
        self.substitution = substitution
        self.rows: list[Comparison] = []

    def check(self, quantity: str, unit: str, closed_form, enumerated: Value, *, exact: bool,
              extra: Mapping[sympy.Symbol, sympy.Rational] | None = None,
              where: str = "", relation: str = ">=") -> None:
        """closed form == enumeration where exact; else the closed form bounds it (>= for an
        upper bound, <= for a lower end such as a box's first index)."""
        substitution = {**self.substitution, **extra} if extra else self.substitution
        self.rows.append(Comparison(quantity, where, unit, evaluate(closed_form, substitution),
                                    Fraction(enumerated), "==" if exact else relation,
                                    closed_form))


def evaluate(expression, substitution: Mapping[sympy.Symbol, sympy.Rational]) -> Fraction | None:
    """The exact value of a closed form at concrete sizes, or None when it gives no number."""
    if isinstance(expression, (int, Fraction)):
        return Fraction(expression)
    if expression.has(sympy.Sum):
        # the sums first, from the inside: a Min or Max cannot compare an unevaluated Sum
        value = _sum_explicitly(expression, dict(substitution), [MAX_SUM_TERMS])
        if value is None:
            return None
    else:
        value = expression.xreplace(dict(substitution))
    if not value.is_Rational:
        value = value.doit()
    if value.is_Float:
        value = sympy.nsimplify(value, rational=True)
    if not value.is_Rational:
        return None
    return Fraction(int(value.p), int(value.q))


def _sum_explicitly(expr: sympy.Expr, values: dict, terms_left: list[int]) -> sympy.Expr | None:
    """expr at `values` with every Sum added up term by term, rebuilt from the leaves up so
    that no node ever holds an unevaluated Sum; None when a bound is no integer or the terms
    run out."""
    if not expr.has(sympy.Sum):
        return expr.xreplace(values)
    if not isinstance(expr, sympy.Sum):
        args = [_sum_explicitly(arg, values, terms_left) for arg in expr.args]
        return None if any(arg is None for arg in args) else expr.func(*args)
    *inner, (variable, first, last) = expr.limits
    first, last = first.xreplace(values), last.xreplace(values)
    if not (first.is_Integer and last.is_Integer):
        return None
    total = sympy.Integer(0)
    for value in range(int(first), int(last) + 1):
        terms_left[0] -= 1
        if terms_left[0] < 0:
            return None
        term = sympy.Sum(expr.function, *inner) if inner else expr.function
        term = _sum_explicitly(term, {**values, variable: sympy.Integer(value)}, terms_left)
        if term is None:
            return None
        total += term
    return total


def _compare_footprints(checker: _Comparison, cost: Cost, counts: Counts) -> None:
    for tensor, (read, written) in counts.footprints.items():
        footprint = cost.footprints.get(tensor)
        if footprint is None:
            if read or written:
                checker.rows.append(Comparison(f"footprint[{tensor}]", "", "elements", None,
                                               Fraction(read + written), "==", "missing"))
            continue
        checker.check(f"footprint[{tensor}].read", "elements", footprint.read_elements, read,
                      exact=footprint.exact)
        checker.check(f"footprint[{tensor}].write", "elements", footprint.write_elements,
                      written, exact=footprint.exact)


def _compare_scopes(checker: _Comparison, cost: Cost, counts: Counts, max_entries: int) -> None:
    if len(cost.scopes) != len(counts.scopes):
        checker.check("number of scopes", "scopes", len(cost.scopes), len(counts.scopes),
                      exact=True)
    for closed, counted in zip(cost.scopes, counts.scopes):
        name = f"scope {counted.index} ({', '.join(counted.tensors)} in {counted.level})"
        checker.check(f"{name} entries", "entries", closed.entries, counted.entry_count,
                      exact=True)
        for entry in _spread(counted.entries, max_entries):
            at = {iterator_symbol(n): _rational(v) for n, v in entry.outer_values.items()}
            where = ", ".join(f"{n}={v}" for n, v in entry.outer_values.items())
            for tensor in counted.tensors:
                checker.check(f"{name} read[{tensor}]", "elements",
                              closed.read_elements.get(tensor, 0),
                              entry.read_elements[tensor], exact=closed.exact, extra=at,
                              where=where)
                checker.check(f"{name} write[{tensor}]", "elements",
                              closed.write_elements.get(tensor, 0),
                              entry.write_elements[tensor], exact=closed.exact, extra=at,
                              where=where)
        if counted.entries and counted.held_bytes_first is not None:
            first = counted.entries[0].outer_values
            at = {iterator_symbol(n): _rational(v) for n, v in first.items()}
            checker.check(f"{name} held bytes", "B", closed.held_bytes,
                          counted.held_bytes_first, exact=closed.exact, extra=at)


def _spread(entries: tuple, limit: int) -> list:
    if len(entries) <= limit:
        return list(entries)
    last = len(entries) - 1
    positions = sorted({round(k * last / (limit - 1)) for k in range(limit)})
    return [entries[position] for position in positions]


# --- sampling sizes ----------------------------------------------------------------------


def sample_sizes(kernel: CheckedKernel, count: int, rng: random.Random, *,
                 max_steps: int = SAMPLE_MAX_STEPS, extra_facts: Iterable[sympy.Basic] = (),
                 max_attempts: int = 4000,
                 stop: Callable[[], bool] | None = None) -> list[dict[str, int]]:
    """Draw `count` small assignments of every size parameter that satisfy the kernel's
    assumptions (divisibility and bounds, plus extra_facts such as a Cost's conditions) and
    whose nest runs at most max_steps loop iterations plus statements (counted by count_steps
    before the nest is ever run). Parameters that divide others
    or have a default (tile sizes) are drawn from 1..4, the others from 1..12; the ranges
    shrink when draws keep failing. Distinct assignments are preferred. `stop`, asked before
    each draw, ends the search early: the assignments found so far are returned."""
    extra_facts = tuple(extra_facts)
    samples: list[dict[str, int]] = []
    seen: set[tuple] = set()
    for attempt in range(max_attempts):
        if len(samples) == count:
            break
        if stop is not None and stop():
            return samples
        shrink = attempt * 4 // max_attempts  # 0, 1, 2, 3 over the attempts
        candidate = draw_sizes(kernel, lambda name, top: rng.randint(1, top),
                               size_top=12 - 3 * shrink, tile_top=4 - shrink)
        key = tuple(sorted(candidate.items()))
        if key in seen and attempt < max_attempts // 2:
            continue
        if not assumptions_hold(kernel, candidate, extra_facts):
            continue
        if count_steps(kernel, candidate, max_steps) > max_steps:
            continue
        seen.add(key)
        samples.append(candidate)
    if len(samples) < count:
        raise KcostError(Diagnostic(None, f"found only {len(samples)} of {count} size "
                                          f"assignments of `{kernel.name}` that satisfy its "
                                          f"assumptions within {max_steps:,} steps",
                                    "check that the `assume` facts can hold together"))
    return samples


def draw_sizes(kernel: CheckedKernel, pick: Callable[[str, int], int], *, size_top: int = 12,
               tile_top: int = 4) -> dict[str, int]:
    """One assignment, with `pick(name, top)` choosing an integer in 1..top (a random draw,
    or a hypothesis draw in the property tests). Tile-like parameters (divisors, and those
    with a default) take top = tile_top, the others size_top. Divisors are drawn before what
    they divide, which is then drawn as a multiple of their least common multiple; a cycle
    of facts is drawn freely (assumptions_hold filters it). Relations (`T <= N`) are not
    enforced here: the caller filters with assumptions_hold."""
    divisor_names = {symbol.name for divisor, _ in kernel.divisibility
                     for symbol in divisor.free_symbols}
    tile_like = divisor_names | {symbol.name for symbol in kernel.defaults}
    pending = [symbol.name for symbol in kernel.parameters]
    values: dict[str, int] = {}
    while pending:
        ready = [name for name in pending if _divisors_known(kernel, name, values)]
        name = ready[0] if ready else pending[0]  # a cycle of facts: draw freely
        top = tile_top if name in tile_like else size_top
        base = _divisors_lcm(kernel, name, values) if ready else 1
        values[name] = base * pick(name, max(1, top // base))
        pending.remove(name)
    return values


def _divisors_of(kernel: CheckedKernel, name: str) -> list[sympy.Expr]:
    return [divisor for divisor, dividend in kernel.divisibility
            if dividend == size_symbol(name)]


def _divisors_known(kernel: CheckedKernel, name: str, values: Mapping[str, int]) -> bool:
    return all(symbol.name in values for divisor in _divisors_of(kernel, name)
               for symbol in divisor.free_symbols)


def _divisors_lcm(kernel: CheckedKernel, name: str, values: Mapping[str, int]) -> int:
    substitution = _sympy_substitution(values)
    base = 1
    for divisor in _divisors_of(kernel, name):
        value = divisor.xreplace(substitution)
        if value.is_Integer and value > 0:
            base = math.lcm(base, int(value))
    return base


def assumptions_hold(kernel: CheckedKernel, sizes: Mapping[str, int],
                     extra_facts: Iterable[sympy.Basic] = ()) -> bool:
    """Whether the sizes satisfy every `assume` fact of the kernel, and the extra relations."""
    substitution = _sympy_substitution(resolve_sizes(kernel, sizes))
    for divisor, dividend in kernel.divisibility:
        divisor_value = evaluate(divisor, substitution)
        dividend_value = evaluate(dividend, substitution)
        if divisor_value is None or dividend_value is None or divisor_value == 0:
            return False
        if (dividend_value / divisor_value).denominator != 1:
            return False
    for relation in (*kernel.bounds, *extra_facts):
        if not _relation_holds(relation, substitution):
            return False
    return True


_RELATIONS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt,
              "==": operator.eq, "!=": operator.ne}


def _relation_holds(relation: sympy.Basic, substitution) -> bool:
    if relation in (sympy.true, True):
        return True
    if relation in (sympy.false, False):
        return False
    if isinstance(relation, sympy.And):
        return all(_relation_holds(arg, substitution) for arg in relation.args)
    if isinstance(relation, sympy.Or):
        return any(_relation_holds(arg, substitution) for arg in relation.args)
    if getattr(relation, "rel_op", None) in _RELATIONS:
        left = evaluate(relation.lhs, substitution)
        right = evaluate(relation.rhs, substitution)
        return left is not None and right is not None and _RELATIONS[relation.rel_op](left, right)
    value = relation.xreplace(dict(substitution))
    return bool(value == sympy.true)


# --- counting the steps before running the nest -----------------------------------------


class _OverLimit(Exception):
    pass


@dataclass(frozen=True)
class _LoopShape:
    """A loop with its bounds compiled and its body reduced to what costs steps."""

    lo: Callable[[Env], Value]
    hi: Callable[[Env], Value]
    step: Value
    var: str
    statements: int  # statements directly in the body (keeps flattened)
    loops: tuple[_LoopShape, ...]


def count_steps(kernel: CheckedKernel, sizes: Mapping[str, int],
                limit: int = SAMPLE_MAX_STEPS) -> float:
    """Loop iterations plus statement executions of the nest, as enumerate_counts would run
    them, or inf as soon as they pass `limit`. Much cheaper than the enumeration: no access is
    evaluated, and a loop with no loop inside is counted from its trip count alone."""
    values = resolve_sizes(kernel, sizes)
    statements, loops = _shape(kernel.kernel.statements, values)
    try:
        return _count_block(statements, loops, {}, limit)
    except _OverLimit:
        return math.inf


def _shape(statements, sizes) -> tuple[int, tuple[_LoopShape, ...]]:
    count, loops = 0, []
    for stmt in statements:
        if isinstance(stmt, ast.For):
            step = 1 if stmt.step is None else _compile(stmt.step, sizes)
            if callable(step) or step <= 0:
                raise KcostError(Diagnostic(stmt.span, f"loop step of `{stmt.var}` must be a "
                                                       f"positive size expression"))
            inner_count, inner_loops = _shape(stmt.body, sizes)
            loops.append(_LoopShape(_as_function(_compile(stmt.lo, sizes)),
                                    _as_function(_compile(stmt.hi, sizes)), step, stmt.var,
                                    inner_count, inner_loops))
        elif isinstance(stmt, ast.Keep):
            inner_count, inner_loops = _shape(stmt.body, sizes)
            count += inner_count
            loops.extend(inner_loops)
        elif isinstance(stmt, ast.Assign) or (isinstance(stmt, ast.Let) and stmt.dtype):
            count += 1
    return count, tuple(loops)


def _count_block(statements: int, loops: tuple[_LoopShape, ...], env: Env, limit: int) -> int:
    total = statements
    for loop in loops:
        values = _iterator_values(loop.lo(env), loop.hi(env), loop.step)
        if not loop.loops:
            trips = len(values) if isinstance(values, range) else sum(1 for _ in values)
            total += trips * (1 + loop.statements)
        else:
            for value in values:
                env[loop.var] = value
                total += 1 + _count_block(loop.statements, loop.loops, env, limit)
                if total > limit:
                    raise _OverLimit
            env.pop(loop.var, None)
        if total > limit:
            raise _OverLimit
    return total
