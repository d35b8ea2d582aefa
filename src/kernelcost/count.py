"""Stage 3: CheckedKernel -> Cost. Exact symbolic counting with sympy.

The work happens in four rooms, each with its own tests: `nest` (the loop nest built from the
AST), `facts` (what the assumptions prove), `sums` (closed-form sums over loop ranges) and
`footprint` (distinct elements touched). This module assembles W by class, Q per level,
footprints per tensor and the cost of each keep scope from them."""

from __future__ import annotations

from collections import defaultdict

import sympy

from .check import CheckedKernel
from .cost import WORK_CLASSES, Cost, ScopeCost, TensorFootprint
from .errors import Diagnostic, KcostError
from .facts import Facts
from .footprint import CounterView, Footprints
from .nest import build_nest
from .sums import Summer
from .symbols import LEVELS

REUSE_MODES = ("spec", "perfect", "none")


def count(checked: CheckedKernel, reuse: str = "spec", budget_s: float | None = None) -> Cost:
    """Count work, traffic per level and footprints of a checked kernel.

    reuse: "spec" counts keep scopes as written and other tensors by the kernel's own
    `reuse` setting; "perfect" or "none" ignore the keep scopes and count every tensor so.
    budget_s: seconds of symbolic work allowed (default 60, or KERNELCOST_BUDGET_S)."""
    if reuse not in REUSE_MODES:
        raise KcostError(Diagnostic(None, f"unknown reuse mode `{reuse}`",
                                    "use spec, perfect or none"))
    facts = Facts(checked, budget_s)
    nest = build_nest(checked, facts, reuse)
    summer = Summer(facts)
    counter = _Counter(checked, facts, summer, nest, reuse)
    work = counter.work()
    traffic = counter.traffic()
    footprints = counter.footprints()
    scopes = counter.scope_costs()
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
    )


class _Counter:
    def __init__(self, checked, facts, summer, nest, reuse):
        self.checked = checked
        self.facts = facts
        self.summer = summer
        self.nest = nest
        self.reuse = reuse
        self.footprint = Footprints(facts, summer)
        self.exact = True
        self._executions_cache: dict = {}

    def finish(self, expr: sympy.Expr) -> sympy.Expr:
        """Write the quotients back and put the expression in a readable canonical form."""
        expr = self.facts.restore(expr)
        if expr.has(sympy.Sum):
            return expr
        # factor, not simplify: as readable on these sums of products, and simplify's search
        # cost most of the time on clipped tiles
        return sympy.factor(sympy.expand(expr))

    def executions(self, loops) -> sympy.Expr:
        key = tuple(loops)
        if key not in self._executions_cache:
            self._executions_cache[key] = self.summer.over_loops(sympy.Integer(1), loops)
        return self._executions_cache[key]

    def work(self) -> dict[str, sympy.Expr]:
        totals = {cls: sympy.Integer(0) for cls in WORK_CLASSES}
        for execution in self.nest.executions:
            count = self.executions(execution.loops)
            for cls, flops in execution.work.items():
                totals[cls] += flops * count
        return {cls: self.finish(total) for cls, total in totals.items() if total != 0}

    # traffic

    def traffic(self) -> dict[str, sympy.Expr]:
        bytes_at = defaultdict(lambda: sympy.Integer(0))
        for name, tensor in self.checked.tensors.items():
            sites = [s for s in self.nest.accesses if s.tensor == name]
            direct = [s for s in sites if not s.scopes]
            mode = self.reuse if self.reuse != "spec" else self.checked.reuse
            bytes_at[tensor.level] += tensor.element_bytes * self._direct_elements(
                tensor, direct, mode)
            for scope in self.nest.scopes:
                if name not in scope.tensors:
                    continue
                inside = [s for s in sites if scope in s.scopes]
                fill = self._scope_fill(tensor, scope, inside)
                bytes_at[scope.parent_levels[name]] += tensor.element_bytes * fill
                served = [s for s in inside if s.scopes[-1] is scope]
                bytes_at[scope.level] += tensor.element_bytes * self._dynamic(served)
        return {level: self.finish(bytes_at[level]) for level in LEVELS
                if level in bytes_at and bytes_at[level] != 0}

    def _dynamic(self, sites) -> sympy.Expr:
        return sympy.Add(*[self.executions(site.loops) for site in sites])

    def _direct_elements(self, tensor, sites, mode) -> sympy.Expr:
        if not sites:
            return sympy.Integer(0)
        if mode == "none":
            return self._dynamic(sites)
        reads = [s for s in sites if not s.is_write
                 and not (s.accumulation_read and tensor.role == "out")]
        writes = [s for s in sites if s.is_write]
        read = self.footprint.union(reads, 0)
        write = self.footprint.union(writes, 0)
        self.exact &= read.exact and write.exact
        return read.elements + write.elements

    def _scope_reads_and_writes(self, tensor, scope, inside):
        depth = len(scope.loops)
        reads = [s for s in inside if not s.is_write
                 and not (s.accumulation_read and tensor.role == "out"
                          and self._encloses_reduction(scope, s))]
        writes = [s for s in inside if s.is_write]
        return self.footprint.union(reads, depth), self.footprint.union(writes, depth)

    def _scope_fill(self, tensor, scope, inside) -> sympy.Expr:
        read, write = self._scope_reads_and_writes(tensor, scope, inside)
        self.exact &= read.exact and write.exact
        return self.summer.over_loops(read.elements + write.elements, scope.loops)

    @staticmethod
    def _encloses_reduction(scope, site) -> bool:
        """Every loop outside the scope moves the target (directly, or through the bounds of
        the loops inside, as `i` in `i0..i0 + T` does): the scope holds whole sums."""
        indices = CounterView(site, len(scope.loops)).indices
        outside = site.loops[:len(scope.loops)]
        return all(any(loop.var in index.free_symbols for index in indices)
                   for loop in outside)

    # footprints and scopes

    def footprints(self) -> dict[str, TensorFootprint]:
        result = {}
        for name in self.checked.tensors:
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
            reads, writes, held, exact = {}, {}, sympy.Integer(0), True
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
                held_bytes=self.finish(held),
            ))
        return tuple(costs)

    @staticmethod
    def _at_first_entry(expr, scope) -> sympy.Expr:
        for loop in scope.loops:  # outermost first: inner bounds may use outer iterators
            expr = expr.subs(loop.var, loop.lo)
        return expr
