"""The enumeration: compile the checked kernel into a plan, run it at concrete sizes, and
count work, bytes per level, footprints and the fills of every keep scope."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace
from fractions import Fraction

import sympy

from ..base import tree as ast
from ..base.errors import Code, Diagnostic, SizeError, SpecCheckError
from ..base.kinds import Reuse, Role, WorkClass
from ..base.levels import Level
from ..base.symbols import LEVELS, iterator_symbol, size_symbol, to_sympy
from ..count.cost import WORK_CLASSES
from ..lang.check import CheckedKernel
from ..lang.work import statement_work
from .exprs import (
    as_function,
    compile_expr,
    compile_index,
    fraction_of,
    resolve_sizes,
    sympy_substitution,
    sympy_value,
)
from .grid_blocks import BlockState
from .partials import partial_tile_bytes
from .plans import (
    AccessPlan,
    BlockPlan,
    Budget,
    KeepPlan,
    LoopPlan,
    ScopeState,
    StatementPlan,
    WholeBlock,
)
from .results import ACCUMULATIONS, DEFAULT_MAX_STEPS, Counts, Env, Value
from .sample import count_steps
from .unit_choice import Mma, find_mma, relabelled, unit_of


class _Compiler:
    """Turns the checked statement tree into plans, deciding statically for each access
    occurrence which sets its elements join and at which level each execution is charged."""

    def __init__(self, kernel: CheckedKernel, sizes: Mapping[str, Value], reuse: Reuse):
        self.kernel = kernel
        self.sizes = sizes
        self.honour_keeps = reuse == Reuse.SPEC
        self.direct_reuse = kernel.reuse if reuse == Reuse.SPEC else reuse
        tensors = kernel.tensors
        self.element_bytes = {name: fraction_of(t.element_bytes) for name, t in tensors.items()}
        self.footprint_reads: dict[str, set] = {name: set() for name in tensors}
        self.footprint_writes: dict[str, set] = {name: set() for name in tensors}
        self.direct_reads: dict[str, set] = {name: set() for name in tensors}
        self.direct_writes: dict[str, set] = {name: set() for name in tensors}
        self.scopes: list[ScopeState] = []
        self.statements: list[StatementPlan] = []
        self.lower_bounds: dict[str, ast.Expr] = {}  # iterator -> its loop's `lo`, this chain
        self.grid = kernel.grid
        self.blocks = None if self.grid is None else BlockState(
            self.grid.iterators, self.element_bytes, None)
        # the unit rule: the loops around the statement being compiled, (iterator, key),
        # the most iterations each loop ran at once, and the contractions found
        self.loop_keys: list[tuple[str, int]] = []
        self.loops_compiled = 0
        self.largest: dict[int, int] = {}
        self.mmas: list[Mma] = []

    def block(self, statements: Iterable[ast.Statement], loops: tuple[str, ...],
              keeps: tuple[ScopeState, ...]) -> tuple:
        plans: list[LoopPlan | KeepPlan | StatementPlan] = []
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

    def loop(self, loop: ast.For, loops, keeps) -> LoopPlan:
        step = 1 if loop.step is None else compile_expr(loop.step, self.sizes)
        if callable(step) or step <= 0:
            what = "depends on an iterator" if callable(step) else f"is {step}"
            raise SizeError(Code.NOT_POSITIVE_AT_SIZES, Diagnostic(
                loop.span, f"loop step of `{loop.var}` {what}",
                "a step is a positive size expression"))
        lo = as_function(compile_expr(loop.lo, self.sizes))
        hi = as_function(compile_expr(loop.hi, self.sizes))
        outer_bound = self.lower_bounds.get(loop.var)
        self.lower_bounds[loop.var] = loop.lo
        if self.grid is not None and loop.var == self.grid.cluster_axis:
            self._cluster_along(loop.var, lo, step)
        key = self.loops_compiled = self.loops_compiled + 1
        self.loop_keys.append((loop.var, key))
        body = self.block(loop.body, (*loops, loop.var), keeps)
        self.loop_keys.pop()
        if self.grid is not None and loop.var == self.grid.iterators[-1]:
            assert self.blocks is not None  # made with the grid
            body = (BlockPlan(self.blocks, self.statements, body),)
        if outer_bound is None:
            del self.lower_bounds[loop.var]
        else:
            self.lower_bounds[loop.var] = outer_bound
        return LoopPlan(loop.var, lo, hi, step, body, key, self.largest)

    def _cluster_along(self, axis: str, lo, step) -> None:
        """Blocks c at a time along the axis form a cluster; the other coordinates agree."""
        assert self.grid is not None and self.blocks is not None  # a parallel spec's
        value = sympy_value(self.grid.cluster_size.xreplace(sympy_substitution(self.sizes)),
                            "the cluster size")
        if not value >= 1:  # `cluster i0 = E - 4096` at a drawn E: blocks // 0
            sizes = ", ".join(f"{name} = {size}" for name, size in self.sizes.items())
            raise SizeError(Code.NOT_POSITIVE_AT_SIZES, Diagnostic(
                self.grid.span, f"the cluster size is {value} at {sizes}",
                "a cluster holds at least one block: change the sizes, or the spec"),
                self.kernel.kernel.source)
        if not isinstance(value, int):  # `cluster i0 = 3 / 2`: not int(3/2) = 1 block
            sizes = ", ".join(f"{name} = {size}" for name, size in self.sizes.items())
            raise SizeError(Code.NOT_WHOLE_AT_SIZES, Diagnostic(
                self.grid.span, f"the cluster size is {value} at {sizes}, not a whole number",
                "a cluster holds whole blocks: change the sizes, or the spec"),
                self.kernel.kernel.source)
        size = value
        iterators = self.grid.iterators

        def cluster_of(env: Env) -> tuple:
            return tuple((env[name] - lo(env)) // step // size if name == axis else env[name]
                         for name in iterators)

        self.blocks.cluster_of = cluster_of

    def keep(self, keep: ast.Keep, loops, keeps) -> KeepPlan:
        tensors = tuple(dict.fromkeys(name.id for name in keep.tensors))
        fill_levels = {tensor: self._current_level(tensor, keeps) for tensor in tensors}
        lows = tuple((name, as_function(compile_expr(self.lower_bounds[name], self.sizes)))
                     for name in loops)
        scope = ScopeState(len(self.scopes), keep.level.id, tensors, loops,
                            {tensor: self.element_bytes[tensor] for tensor in tensors},
                            fill_levels, outer_lows=lows, blocks=self.blocks)
        self.scopes.append(scope)
        return KeepPlan(scope, self.block(keep.body, loops, (*keeps, scope)))

    def _current_level(self, tensor: str, keeps: tuple[ScopeState, ...]) -> str:
        for scope in reversed(keeps):
            if tensor in scope.tensors:
                return scope.level
        level = self.kernel.tensors[tensor].level
        return Level.L2 if self.grid is not None and level == Level.GLOBAL else level

    def statement(self, stmt: ast.Assign | ast.Let, keeps) -> StatementPlan:
        accesses = [self.access(tensor, indices, False, None, keeps)
                    for tensor, indices in self._value_reads(stmt.value)]
        target = stmt.target if isinstance(stmt, ast.Assign) else None
        target_access = self._as_access(target)
        if target_access is not None:
            assert isinstance(stmt, ast.Assign)  # only an assignment has a target
            tensor, indices = target_access
            if stmt.op in ACCUMULATIONS:
                accesses.append(self.access(tensor, indices, False, indices, keeps))
            accesses.append(self.access(tensor, indices, True, None, keeps))
        work = statement_work(stmt)
        mma = find_mma(stmt, self.loop_keys, len(self.statements))
        if mma is not None:  # its multiply-adds under its own key until its unit is known
            work[mma.key] = work.pop(WorkClass.FMA, 0)
            self.mmas.append(mma)
        plan = StatementPlan(work, tuple(accesses))
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
               keeps: tuple[ScopeState, ...]) -> AccessPlan:
        """accumulated: the target's indices when this is the read half of `+=` (or max=,
        min=); None for every other read and for writes."""
        declared = self.kernel.tensors[tensor]
        is_out_accumulation = accumulated is not None and declared.role == Role.OUT
        footprint = self.footprint_writes if is_write else self.footprint_reads
        index = compile_index(indices, self.sizes)
        if declared.role == Role.LOCAL:  # lives in its level: every access is served there
            return AccessPlan(index, (footprint[tensor],), (tensor, declared.level))
        if self.grid is not None and declared.level == Level.GLOBAL:
            return self._block_access(tensor, index, is_write, accumulated, keeps)
        chain = [scope for scope in keeps if tensor in scope.tensors]  # empty when forced
        sets = [footprint[tensor], *self._fill_sets(tensor, chain, is_write, accumulated)]
        move = None
        if chain:
            move = (tensor, chain[-1].level)  # served by the innermost keep, every execution
        elif self.direct_reuse == Reuse.NONE:
            move = (tensor, self.kernel.tensors[tensor].level)
        elif not is_out_accumulation:  # perfect: distinct elements, counted at the end
            sets.append((self.direct_writes if is_write else self.direct_reads)[tensor])
        return AccessPlan(index, tuple(sets), move)

    def _fill_sets(self, tensor: str, chain, is_write: bool, accumulated) -> list[set]:
        """The sets of the keeps around an access that its element joins: every scope's fill,
        but an `out` accumulation skips the scopes that hold its whole sum."""
        skip = accumulated is not None and self.kernel.tensors[tensor].role == Role.OUT
        return [(scope.write_sets if is_write else scope.read_sets)[tensor] for scope in chain
                if not (skip and self._encloses_reduction(scope, accumulated))]

    def _block_access(self, tensor: str, index, is_write: bool, accumulated, keeps):
        """A global tensor in a parallel spec: each element reaches global memory once
        (compulsory); a block reads its fills from L2, and outside a keep the distinct
        elements it touches (every access under `reuse none`)."""
        assert self.blocks is not None and self.grid is not None  # a parallel spec's
        is_out_accumulation = (accumulated is not None
                               and self.kernel.tensors[tensor].role == Role.OUT)
        kind = "write" if is_write else "read"
        sets = [(self.footprint_writes if is_write else self.footprint_reads)[tensor],
                self.blocks.touched[tensor]]
        if is_write:
            sets.append(self.blocks.written[tensor])
        if is_write or self.kernel.tensors[tensor].role != Role.OUT:
            # compulsory: an `out` tensor holds no input, so a read of it gets what the
            # kernel wrote there and never reaches global memory on its own
            sets.append((self.direct_writes if is_write else self.direct_reads)[tensor])
        chain = [scope for scope in keeps if tensor in scope.tensors]
        sets.extend(self._fill_sets(tensor, chain, is_write, accumulated))
        move = None
        if chain:
            move = (tensor, chain[-1].level)
        elif self.direct_reuse == Reuse.NONE:
            move = (tensor, Level.L2)
        elif not (is_out_accumulation and self._encloses_reduction(WholeBlock(
                self.grid.iterators), accumulated)):
            sets.append(self.blocks.direct[(tensor, kind)])
        return AccessPlan(index, tuple(sets), move)


    def _encloses_reduction(self, scope: ScopeState | WholeBlock,
                            target_indices: tuple) -> bool:
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



# --- enumeration -------------------------------------------------------------------------


def enumerate_counts(kernel: CheckedKernel, sizes: Mapping[str, int],
                     reuse: Reuse | str = Reuse.SPEC,
                     *, max_steps: int = DEFAULT_MAX_STEPS, counted: bool = False) -> Counts:
    """Run the kernel's loop nest at the given sizes (parameters missing from `sizes` take
    their defaults) and count work, traffic, footprints and scope fills by enumeration.

    reuse: `spec` honours keep scopes, and tensors outside them follow the kernel's `reuse`
    setting; `perfect` and `none` ignore every keep (no scope is reported, as in the Cost)
    and count every tensor that way.
    A nest running more than max_steps loop iterations plus statements is a KcostError.
    counted: the caller has found the nest's steps at these sizes within max_steps already
    (sample_sizes draws only such sizes), so they are not counted again before the run; the
    run itself still stops past max_steps."""
    if reuse not in tuple(Reuse):
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(None, f"unknown reuse mode `{reuse}`",
                                                          "use " + ", ".join(Reuse)))
    reuse = Reuse(reuse)
    values = resolve_sizes(kernel, sizes)
    if not counted and count_steps(kernel, sizes, max_steps) > max_steps:
        Budget(max_steps).exceeded()  # refuse before running: the count is cheap
    compiler = _Compiler(kernel, values, reuse)
    plans = compiler.block(kernel.kernel.statements, (), ())
    budget = Budget(max_steps)
    env: Env = {}
    for plan in plans:
        plan.execute(env, budget)
    _check_inside_shapes(kernel, values, compiler)
    if compiler.blocks is not None:
        budget.moves.update({(tensor, Level.L2): elements for tensor, elements
                             in compiler.blocks.l2_fill_elements().items()})
    units = {mma.key: unit_of(mma, compiler.largest) for mma in compiler.mmas}
    blocks = () if compiler.blocks is None else tuple(
        replace(block, work=relabelled(block.work, units)) for block in compiler.blocks.blocks)
    traffic = _traffic(compiler, budget.moves)
    partials = partial_tile_bytes(kernel, values, blocks)
    if partials:  # split-K's fix-up, at global memory as the reduction moves it
        traffic[Level.GLOBAL] = traffic.get(Level.GLOBAL, Fraction(0)) + partials
    return Counts(
        kernel=kernel.name,
        sizes=values,
        reuse=reuse,
        work=relabelled(_work(compiler.statements), units),
        traffic=traffic,
        footprints={name: (len(compiler.footprint_reads[name]),
                           len(compiler.footprint_writes[name]))
                    for name, tensor in kernel.tensors.items() if tensor.role != Role.LOCAL},
        scopes=tuple(scope.result() for scope in compiler.scopes),
        statement_executions=sum(plan.executions for plan in compiler.statements),
        compulsory_B=_compulsory(compiler),
        steps=budget.steps,
        blocks=blocks,
    )


def _check_inside_shapes(kernel: CheckedKernel, values: Mapping[str, Value],
                         compiler: _Compiler) -> None:
    """Every element touched lies inside its tensor's declared shape. Counts of a nest that
    reaches outside are not defined (a footprint bound may use the shape), so that is an
    error of the spec at these sizes rather than a number."""
    substitution = sympy_substitution(values)
    for name, tensor in kernel.tensors.items():
        extents = [sympy_value(extent.xreplace(substitution), f"the shape of `{name}`")
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
                raise SpecCheckError(Code.INDEX_OUT_OF_EXTENT, Diagnostic(
                    tensor.span,
                    f"`{name}` is indexed at {index} in dimension {dimension + 1}, outside "
                    f"its declared extent 0..{extent - 1} (at {sizes})",
                    "declare a shape that holds every index, or bound the loops: counts "
                    "outside the shape are not defined"), kernel.kernel.source)


def _work(statements: list[StatementPlan]) -> dict[str, int]:
    work: dict[str, int] = {work_class: 0 for work_class in WORK_CLASSES}
    for plan in statements:
        for work_class, operations in plan.work.items():
            work[work_class] = work.get(work_class, 0) + operations * plan.executions
    return work


def _compulsory(compiler: _Compiler) -> Fraction:
    """Bytes every run moves to and from global memory: of each tensor homed there, the
    elements it reads (none for an `out` tensor, whose reads get what the kernel wrote) and
    the elements it writes, once each."""
    total = Fraction(0)
    for tensor, declared in compiler.kernel.tensors.items():
        if declared.role == Role.LOCAL or declared.level != Level.GLOBAL:
            continue
        reads = 0 if declared.role == Role.OUT else len(compiler.footprint_reads[tensor])
        total += compiler.element_bytes[tensor] * (reads + len(compiler.footprint_writes[tensor]))
    return total


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


