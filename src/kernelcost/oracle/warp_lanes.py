"""Sectors and bank conflicts by enumeration: run the nest at concrete sizes, give each
iteration of a `lanes` loop its lane, gather the lanes of every warp instruction, and count
what they touch: the 32-byte sectors of global memory, and the shared-memory wavefronts
(per phase of 128 bytes of requests, the most distinct 4-byte words in one of the 32 banks).

Independent of lanes.py on purpose: no strides and no closed forms, only the addresses each
lane computes from its own indices and the tensor's row-major layout."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import field

from ..base import tree as ast
from ..base.errors import BudgetError, Code, Diagnostic
from ..base.kinds import Reuse
from ..base.levels import Level
from ..base.records import record
from ..lang.check import CheckedKernel
from .exprs import as_function, compile_expr, resolve_sizes, sympy_substitution, sympy_value

LANES_PER_WARP = 32


@record(frozen=False)
class LaneCounts:
    """One access inside a lanes loop, in source order (reads of a statement as they appear,
    then the read half of an accumulation, then the write)."""

    tensor: str
    is_write: bool
    level: Level  # global or shared
    element_bytes: int
    instructions: int = 0  # warp instructions
    useful_B: int = 0  # element bytes x lanes, over every instruction
    sectors: int = 0  # global: 32-byte sectors, summed over the instructions
    wavefronts: int = 0  # shared: wavefronts, summed
    ideal_wavefronts: int = 0  # shared: what a conflict-free layout would take
    distinct_sectors: set = field(default_factory=set)  # global: over the kernel

    @property
    def sector_ratio(self):
        return self.sectors * 32 / self.useful_B

    @property
    def degree(self):
        return self.wavefronts / self.ideal_wavefronts


def enumerate_lanes(kernel: CheckedKernel, sizes: Mapping[str, int],
                    max_steps: int = 2_000_000, reuse: str = Reuse.SPEC) -> list[LaneCounts]:
    """The LaneCounts of every global or shared access inside a lanes loop. Under a forced
    reuse mode (`perfect`, `none`) the keeps are not there, as in enumerate_counts: every
    access is served from its tensor's home level."""
    return _Walker(kernel, resolve_sizes(kernel, sizes), max_steps, reuse == Reuse.SPEC).run()


class _Walker:
    def __init__(self, kernel: CheckedKernel, sizes, max_steps: int, honour_keeps: bool):
        self.kernel = kernel
        self.sizes = sizes
        self.honour_keeps = honour_keeps
        self.steps_left = max_steps
        substitution = sympy_substitution(sizes)
        self.shapes = {name: [int(sympy_value(extent.xreplace(substitution), "an extent"))
                              for extent in tensor.shape]
                       for name, tensor in kernel.tensors.items()}
        self.counts: dict[tuple, LaneCounts] = {}
        # (access occurrence, the other iterators, warp) -> {lane: address}
        self.warps: dict[tuple, dict[int, int]] = defaultdict(dict)

    def run(self) -> list[LaneCounts]:
        self._block(self.kernel.kernel.statements, {}, (), None)
        for (occurrence, _, _), lanes in self.warps.items():
            self._count_warp(self.counts[occurrence], lanes)
        return [self.counts[key] for key in sorted(self.counts)]

    def _block(self, statements, env: dict, keeps: tuple, lane) -> None:
        for stmt in statements:
            if isinstance(stmt, ast.For):
                self._loop(stmt, env, keeps, lane)
            elif isinstance(stmt, ast.Keep):
                scope = (tuple(name.id for name in stmt.tensors), stmt.level.id)
                inner = (*keeps, scope) if self.honour_keeps else keeps
                self._block(stmt.body, env, inner, lane)
            elif lane is not None and (isinstance(stmt, ast.Assign)
                                       or (isinstance(stmt, ast.Let) and stmt.dtype)):
                self._statement(stmt, env, keeps, lane)

    def _loop(self, loop: ast.For, env: dict, keeps: tuple, lane) -> None:
        lo = as_function(compile_expr(loop.lo, self.sizes))(env)
        hi = as_function(compile_expr(loop.hi, self.sizes))(env)
        step = 1 if loop.step is None else compile_expr(loop.step, self.sizes)
        assert not callable(step)  # a step is a size expression (the checker's rule)
        value, counter = lo, 0
        while value < hi:
            self.steps_left -= 1
            if self.steps_left < 0:
                raise BudgetError(Code.ENUMERATION_BUDGET_RAN_OUT, Diagnostic(
                    None, "the lanes enumeration ran out of steps", "use smaller sizes"))
            inner = {**env, loop.var: value}
            self._block(loop.body, inner, keeps, (loop.var, counter) if loop.lanes else lane)
            value, counter = value + step, counter + 1

    def _statement(self, stmt, env: dict, keeps: tuple, lane) -> None:
        accesses = []
        for node in ast.walk_expr(stmt.value):
            if isinstance(node, ast.Access):
                accesses.append((node.tensor, node.indices, False))
            elif isinstance(node, ast.Name) and node.id in self.kernel.tensors:
                accesses.append((node.id, (), False))
        target = getattr(stmt, "target", None)
        if isinstance(target, (ast.Access, ast.Name)) and (
                isinstance(target, ast.Access) or target.id in self.kernel.tensors):
            indices = target.indices if isinstance(target, ast.Access) else ()
            tensor = target.tensor if isinstance(target, ast.Access) else target.id
            if stmt.op != "=":
                accesses.append((tensor, indices, False))
            accesses.append((tensor, indices, True))
        for position, (tensor, indices, is_write) in enumerate(accesses):
            level = self._served_at(tensor, keeps)
            if level is None:
                continue
            key = (stmt.span.line, stmt.span.column, position)  # sorts in source order
            if key not in self.counts:
                element = int(self.kernel.tensors[tensor].element_bytes)
                self.counts[key] = LaneCounts(tensor, is_write, level, element)
            values = [as_function(compile_expr(index, self.sizes))(env) for index in indices]
            var, counter = lane
            others = tuple(sorted((name, value) for name, value in env.items() if name != var))
            warp = (key, others, counter // LANES_PER_WARP)
            # whole numbers: the checker's indices are integer at every point
            self.warps[warp][counter % LANES_PER_WARP] = self._address(
                tensor, values)  # type: ignore[arg-type]

    def _address(self, tensor: str, values: list[int]) -> int:
        """Byte address in the tensor's row-major layout; a swizzled array keeps word w of row
        r at w XOR (r mod 32) within its row."""
        declared = self.kernel.tensors[tensor]
        element = int(declared.element_bytes)
        offset = 0
        for value, extent in zip(values, self.shapes[tensor]):
            offset = offset * extent + value
        if not declared.swizzled:
            return offset * element
        row, column = values
        in_row = column * element
        word = in_row // 4 ^ row % 32
        return row * self.shapes[tensor][1] * element + word * 4 + in_row % 4

    def _served_at(self, tensor: str, keeps: tuple) -> Level | None:
        level = self.kernel.tensors[tensor].level
        for names, keep_level in keeps:
            if tensor in names:
                level = keep_level
        if level in (Level.GLOBAL, Level.L2):
            return Level.GLOBAL
        return Level.SHARED if level == Level.SHARED else None

    @staticmethod
    def _count_warp(counts: LaneCounts, lanes: dict[int, int]) -> None:
        element = counts.element_bytes
        counts.instructions += 1
        counts.useful_B += element * len(lanes)
        if counts.level == Level.GLOBAL:
            sectors = {byte // 32 for address in lanes.values()
                       for byte in range(address, address + element)}
            counts.sectors += len(sectors)
            counts.distinct_sectors |= sectors
            return
        per_phase = LANES_PER_WARP // max(1, element // 4)
        phases: dict[int, dict[int, set]] = defaultdict(lambda: defaultdict(set))
        for lane, address in lanes.items():
            for byte in range(address, address + element, min(element, 4)):
                word = byte // 4
                phases[lane // per_phase][word % 32].add(word)
        counts.wavefronts += sum(max(len(words) for words in banks.values())
                                 for banks in phases.values())
        counts.ideal_wavefronts += len(phases)
