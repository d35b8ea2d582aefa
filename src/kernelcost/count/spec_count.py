"""Stage 3: CheckedKernel -> Cost. Exact symbolic counting with sympy.

The work happens in rooms, each with its own tests: `nest` (the loop nest built from the
AST), `facts` (what the assumptions prove), `sums` (closed-form sums over loop ranges),
`footprint` (distinct elements touched) and `multicast` (what a cluster reads from L2 once).
This module assembles W by class, Q per level, footprints per tensor and the cost of each
keep scope from them."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence

import sympy

from ..algebra.factored_forms import readable_expanded
from ..base.errors import Code, Diagnostic, SizeError
from ..base.kinds import Reuse, Role, WorkClass
from ..base.levels import Level
from ..base.symbols import LEVELS, is_monomial, iterator_symbol, replace_symbols
from ..lang.check import CheckedKernel
from ..lang.check_context import Tensor
from .blocks import count_grid
from .cost import WORK_CLASSES, Contraction, Cost, ScopeCost, TensorFootprint
from .facts import Facts
from .fixup import fixup_bytes
from .footprint import Footprint, Footprints
from .loops import Loop
from .mma import contraction_of
from .multicast import cluster_multicast
from .nest import AccessSite, Execution, Nest, Scope, build_nest
from .sums import Summer


def count(checked: CheckedKernel, reuse: Reuse | str = Reuse.SPEC,
          budget_s: float | None = None) -> Cost:
    """Count work, traffic per level and footprints of a checked kernel.

    reuse: "spec" counts keep scopes as written and other tensors by the kernel's own
    `reuse` setting; "perfect" or "none" ignore the keep scopes and count every tensor so.
    budget_s: seconds of symbolic work allowed (default 60, or KERNELCOST_BUDGET_S)."""
    if reuse not in tuple(Reuse):
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(None, f"unknown reuse mode `{reuse}`",
                                                          "use spec, perfect or none"))
    reuse = Reuse(reuse)
    facts = Facts(checked, budget_s)
    nest = build_nest(checked, facts, reuse)
    summer = Summer(facts)
    counter = _Counter(checked, facts, summer, nest, reuse)
    work = counter.work()
    traffic = counter.traffic()
    footprints = counter.footprints()
    scopes = counter.scope_costs()
    grid = count_grid(counter, scopes)
    contractions = counter.contraction_costs()
    compulsory = counter.compulsory_bytes()
    if not counter.exact and Level.GLOBAL in traffic:
        # a bounding box may hold more than the schedule's own (also boxed) count charges
        # global memory: t_floor takes the fewer, so that it never exceeds t_bound
        # (unevaluated: comparing two uncounted sums symbolically can take minutes)
        compulsory = sympy.Min(compulsory, traffic[Level.GLOBAL], evaluate=False)
    exact = all(f.exact for f in footprints.values()) and all(s.exact for s in scopes)
    return Cost(
        kernel=checked.name,
        parameters=checked.parameters,
        defaults=dict(checked.defaults),
        precision=checked.precision,
        reuse=reuse,
        work=work,
        traffic=traffic,
        footprints=footprints,
        scopes=scopes,
        exact=exact and counter.exact,
        closed_form=summer.closed,
        grid=grid,
        homed=counter.homed(),
        contractions=contractions,
        divisibility=tuple(checked.divisibility),
        compulsory_B=compulsory,
        requirements=checked.requirements,
        serial=checked.serial,
    )


class _Counter:
    def __init__(self, checked: CheckedKernel, facts: Facts, summer: Summer, nest: Nest,
                 reuse: Reuse):
        self.checked = checked
        self.facts = facts
        self.summer = summer
        self.nest = nest
        self.reuse = reuse
        self.footprint = Footprints(facts, summer)
        self.exact = True
        self._executions_cache: dict[tuple[Loop, ...], sympy.Expr] = {}
        self._finished: dict[sympy.Expr, sympy.Expr] = {}  # the same totals recur per scope
        self._factors: dict[sympy.Expr, sympy.Expr] = {}
        grid = checked.grid
        self.grid_depth = 0 if grid is None else len(grid.iterators)
        self.multicast, multicast_exact = cluster_multicast(checked, nest, self.grid_depth)
        self.exact &= multicast_exact
        lines = (checked.kernel.source or "").split("\n")
        # execution position -> its statement as a contraction (the unit rule, mma.py)
        self.contractions = {
            position: found for position, execution in enumerate(nest.executions)
            if (found := contraction_of(execution, lines, self.finish)) is not None}

    def finish(self, expr: sympy.Expr) -> sympy.Expr:
        """Write the quotients back and put the expression in a readable canonical form."""
        if expr not in self._finished:
            self._finished[expr] = self._readable(self.facts.restore(expr))
        return self._finished[expr]

    def _readable(self, expr: sympy.Expr) -> sympy.Expr:
        if expr.has(sympy.Sum):
            return expr
        # factor, not simplify: as readable on these sums of products, and simplify's search
        # cost most of the time on clipped tiles. A product is factored factor by factor:
        # expanding c clipped widths first would make 2^c terms to factor back
        return sympy.Mul(*[part if is_monomial(part) else self._factored(part)
                           for part in sympy.Mul.make_args(expr)])

    def _factored(self, part: sympy.Expr) -> sympy.Expr:
        """One factor of a total, expanded and factored (within the generators that
        `readable` factors); the same factor recurs in several totals (a per-block count
        and the whole kernel's)."""
        if part not in self._factors:
            self._factors[part] = readable_expanded(part)
        return self._factors[part]

    def executions(self, loops: Sequence[Loop]) -> sympy.Expr:
        key = tuple(loops)
        if key not in self._executions_cache:
            self._executions_cache[key] = self.summer.over_loops(sympy.Integer(1), loops)
        return self._executions_cache[key]

    def work(self, depth: int = 0) -> dict[str, sympy.Expr]:
        """FLOP by class, summed over the loops from `depth` in (0: the whole kernel; the
        grid's depth: one block, in the grid iterators)."""
        totals: dict[str, sympy.Expr] = {cls: sympy.Integer(0) for cls in WORK_CLASSES}
        for position, execution in enumerate(self.nest.executions):
            count = self.executions(execution.loops[depth:])
            for cls, flops in self._classes(position, execution).items():
                totals[cls] += flops * count
        return {cls: self.finish(total) for cls, total in totals.items() if total != 0}

    def _classes(self, position: int, execution: Execution) -> dict[str, int]:
        """An execution's FLOP by class, its multiply-adds in class tensor where the statement
        is a contraction on the tensor units."""
        found = self.contractions.get(position)
        if found is None or found.unit != WorkClass.TENSOR:
            return dict(execution.work)
        work = dict(execution.work)
        work[WorkClass.TENSOR] = work.pop(WorkClass.FMA, 0)
        return work

    def contraction_costs(self) -> tuple[Contraction, ...]:
        """The Contraction records, with the FLOP of their multiply-adds (whole kernel, and
        per block in a parallel spec)."""
        found = []
        for position, contraction in sorted(self.contractions.items()):
            execution = self.nest.executions[position]
            flops = execution.work.get(WorkClass.FMA, 0)
            work = self.finish(flops * self.executions(execution.loops))
            block = (self.finish(flops * self.executions(execution.loops[self.grid_depth:]))
                     if self.grid_depth else None)
            found.append(dataclasses.replace(contraction, work=work, block_work=block))
        return tuple(found)

    # traffic

    def traffic(self, depth: int = 0) -> dict[str, sympy.Expr]:
        """Bytes per level, summed over the loops from `depth` in. In a parallel spec L2
        serves the blocks (their fills, and per block the distinct elements they touch
        outside a keep) and global memory sees each element once: the compulsory traffic,
        and split-K's partial tiles (count.fixup)."""
        bytes_at: defaultdict[str, sympy.Expr] = defaultdict(lambda: sympy.Integer(0))
        mode = self.reuse if self.reuse != Reuse.SPEC else self.checked.reuse
        for name, tensor in self.checked.tensors.items():
            sites = [s for s in self.nest.accesses if s.tensor == name]
            size = tensor.element_bytes
            if tensor.role == Role.LOCAL:  # lives in its level: every access is served there
                bytes_at[tensor.level] += size * self._dynamic(sites, depth)
                continue
            direct = [s for s in sites if not s.scopes]
            if self.grid_depth and tensor.level == Level.GLOBAL:
                if depth == 0:
                    bytes_at[Level.GLOBAL] += size * self._compulsory(tensor, sites)
                bytes_at[Level.L2] += size * self._block_direct(tensor, direct, mode, depth)
            elif depth == 0:
                bytes_at[tensor.level] += size * self._distinct(tensor, direct, mode)
            for scope in self.nest.scopes:
                if name not in scope.tensors:
                    continue
                inside = [s for s in sites if scope in s.scopes]
                multicast = (depth == 0 and name in self.multicast
                             and scope.parent_levels[name] == Level.L2)
                fill = self._scope_fill(tensor, scope, inside, depth, multicast)
                bytes_at[scope.parent_levels[name]] += size * fill
                served = [s for s in inside if s.scopes[-1] is scope]
                bytes_at[scope.level] += size * self._dynamic(served, depth)
        if depth == 0 and self.grid_depth:
            bytes_at[Level.GLOBAL] += fixup_bytes(self)  # split-K's partial tiles
        return {level: self.finish(bytes_at[level]) for level in LEVELS
                if level in bytes_at and bytes_at[level] != 0}

    def _dynamic(self, sites: list[AccessSite], depth: int = 0) -> sympy.Expr:
        return sympy.Add(*[self.executions(site.loops[depth:]) for site in sites])

    def _distinct(self, tensor: Tensor, sites: list[AccessSite], mode: Reuse) -> sympy.Expr:
        """Elements crossing under a reuse mode: every access (none) or each distinct element
        once (perfect; an `out` tensor's accumulation starts on chip and is not read)."""
        if not sites:
            return sympy.Integer(0)
        if mode == Reuse.NONE:
            return self._dynamic(sites)
        reads = [s for s in sites if not s.is_write
                 and not (s.accumulation_read and tensor.role == Role.OUT)]
        writes = [s for s in sites if s.is_write]
        read = self.footprint.union(reads, 0)
        write = self.footprint.union(writes, 0)
        self.exact &= read.exact and write.exact
        return read.elements + write.elements

    def _compulsory(self, tensor: Tensor, sites: list[AccessSite]) -> sympy.Expr:
        """Elements every run moves between global memory and the chip: each element an `in`
        or `inout` tensor reads (its first contents), each element an `out` or `inout`
        tensor writes, once. An `out` tensor holds no input, so what the kernel reads of it
        is what the kernel wrote (an accumulation starting from zero on chip, a partial read
        back): a run finds it on chip or in L2, and charging the read too would count a
        written-then-read partial twice, more than such a run moves."""
        reads = [] if tensor.role == Role.OUT else [s for s in sites if not s.is_write]
        read = self.footprint.union(reads, 0)
        write = self.footprint.union([s for s in sites if s.is_write], 0)
        self.exact &= read.exact and write.exact
        return _within(read, tensor) + _within(write, tensor)

    def compulsory_bytes(self) -> sympy.Expr:
        """Bytes of compulsory traffic (see _compulsory) of the tensors homed in global
        memory, whatever the spec keeps or the reuse mode says: what t_floor charges HBM."""
        total = sympy.Integer(0)
        for name, tensor in self.checked.tensors.items():
            if tensor.role == Role.LOCAL or tensor.level != Level.GLOBAL:
                continue
            sites = [s for s in self.nest.accesses if s.tensor == name]
            if sites:
                total += tensor.element_bytes * self._compulsory(tensor, sites)
        return self.finish(total)

    def _block_direct(self, tensor: Tensor, sites: list[AccessSite], mode: Reuse,
                      depth: int) -> sympy.Expr:
        """What the blocks move between L2 and the SMs outside any keep: every access, or
        (perfect reuse) each block the distinct elements it touches, an out accumulation
        that the block holds whole starting on chip."""
        if not sites:
            return sympy.Integer(0)
        if mode == Reuse.NONE:
            return self._dynamic(sites, depth)
        grid = self.grid_depth
        reads = [s for s in sites if not s.is_write
                 and not (s.accumulation_read and tensor.role == Role.OUT
                          and self._encloses_reduction(grid, s))]
        read = self.footprint.union(reads, grid)
        write = self.footprint.union([s for s in sites if s.is_write], grid)
        self.exact &= read.exact and write.exact
        grid_loops = sites[0].loops[depth:grid]
        return self.summer.over_loops(read.elements + write.elements, grid_loops)

    def _scope_reads_and_writes(self, tensor: Tensor, scope: Scope,
                                inside: list[AccessSite]) -> tuple[Footprint, Footprint]:
        depth = len(scope.loops)
        reads = [s for s in inside if not s.is_write
                 and not (s.accumulation_read and tensor.role == Role.OUT
                          and self._encloses_reduction(depth, s))]
        writes = [s for s in inside if s.is_write]
        return self.footprint.union(reads, depth), self.footprint.union(writes, depth)

    def _scope_fill(self, tensor: Tensor, scope: Scope, inside: list[AccessSite],
                    depth: int = 0, multicast: bool = False) -> sympy.Expr:
        read, write = self._scope_reads_and_writes(tensor, scope, inside)
        self.exact &= read.exact and write.exact
        loops = scope.loops[depth:]
        if multicast:  # one fill per cluster: the axis runs ceil(trips / c) clusters
            grid = self.checked.grid
            assert grid is not None and grid.cluster_axis is not None  # as multicast says
            axis = iterator_symbol(grid.cluster_axis)
            loops = tuple(dataclasses.replace(loop, trips=self._clusters(loop.trips))
                          if loop.var == axis else loop for loop in loops)
        return self.summer.over_loops(read.elements + write.elements, loops)

    def _clusters(self, trips: sympy.Expr) -> sympy.Expr:
        """Clusters of c blocks along an axis of `trips` blocks: ceil(trips / c), written
        ceil(x / c) where trips = ceil(x) (the same for a positive integer c)."""
        grid = self.checked.grid
        assert grid is not None
        if isinstance(trips, sympy.ceiling):
            trips = trips.args[0]
        return self.facts.whole_ceiling(trips / grid.cluster_size)

    def _encloses_reduction(self, depth: int, site: AccessSite) -> bool:
        """Every loop outside depth moves the target (directly, or through the bounds of the
        loops inside, as `i` in `i0..i0 + T` does): the region holds whole sums."""
        indices = self.footprint.view(site, depth).indices
        return all(any(loop.var in index.free_symbols for index in indices)
                   for loop in site.loops[:depth])

    # footprints and scopes

    def homed(self) -> dict[str, sympy.Expr]:
        held: defaultdict[str, sympy.Expr] = defaultdict(lambda: sympy.Integer(0))
        for tensor in self.checked.tensors.values():
            if tensor.role != Role.LOCAL and tensor.level != Level.GLOBAL:
                held[tensor.level] += tensor.element_bytes * sympy.Mul(*tensor.shape)
        return {level: self.finish(amount) for level, amount in held.items()}

    def footprints(self) -> dict[str, TensorFootprint]:
        result: dict[str, TensorFootprint] = {}
        for name, tensor in self.checked.tensors.items():
            if tensor.role == Role.LOCAL:
                continue  # on chip for the block's life: no footprint in memory
            sites = [s for s in self.nest.accesses if s.tensor == name]
            read = self.footprint.union([s for s in sites if not s.is_write], 0)
            write = self.footprint.union([s for s in sites if s.is_write], 0)
            result[name] = TensorFootprint(
                name, self.finish(read.elements), self.finish(write.elements),
                read.exact and write.exact, self.checked.tensors[name].element_bytes)
        return result

    def scope_costs(self) -> tuple[ScopeCost, ...]:
        costs = []
        for scope in self.nest.scopes:
            reads: dict[str, sympy.Expr] = {}
            writes: dict[str, sympy.Expr] = {}
            held, exact = sympy.Integer(0), True
            for name in scope.tensors:
                tensor = self.checked.tensors[name]
                inside = [s for s in self.nest.accesses if s.tensor == name and scope in s.scopes]
                read, write = self._scope_reads_and_writes(tensor, scope, inside)
                touched = self.footprint.union(inside, len(scope.loops))
                reads[name] = self.finish(read.elements)
                writes[name] = self.finish(write.elements)
                held += tensor.element_bytes * self._at_first_entry(touched.elements, scope)
                exact &= read.exact and write.exact and touched.exact
            costs.append(ScopeCost(
                index=scope.index, level=scope.level, tensors=scope.tensors,
                outer_iterators=tuple(loop.var for loop in scope.loops),
                entries=self.finish(self.executions(scope.loops)),
                read_elements=reads, write_elements=writes, exact=exact,
                held_bytes=self.finish(held), stages=self.finish(scope.stages),
            ))
        return tuple(costs)

    @staticmethod
    def _at_first_entry(expr: sympy.Expr, scope: Scope) -> sympy.Expr:
        for loop in scope.loops:  # outermost first: inner bounds may use outer iterators
            expr = replace_symbols(expr, {loop.var: loop.lo})
        return expr


def _within(footprint: Footprint, tensor: Tensor) -> sympy.Expr:
    """A footprint's elements, a bounding box cut to the tensor it lies in: no run touches
    more elements than the tensor holds."""
    if footprint.exact or footprint.elements == 0:
        return footprint.elements
    return sympy.Min(footprint.elements, sympy.Mul(*tensor.shape), evaluate=False)
