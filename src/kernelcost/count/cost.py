"""The result of counting: a frozen value holding exact sympy expressions.

Everything is in the kernel's size parameters (sympy Symbols from symbols.size_symbol).
Work is in FLOP, traffic and footprints in bytes or elements as named."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from functools import cached_property

import sympy

from ..algebra.factored_forms import readable_cancelled
from ..base.kinds import Precision, Raster, Reuse, WorkClass
from ..base.levels import Level
from ..base.records import record
from ..lang.requirements import Requirements

# the classes of work in the order a Cost lists them (base.kinds.WorkClass says what each is)
WORK_CLASSES: tuple[WorkClass, ...] = tuple(WorkClass)


def main_work_class(work: Mapping[str, object]) -> WorkClass:
    """The class whose ceiling is a kernel's peak P (the ridge I_crit = P / B): the tensor
    units when it runs a contraction on them, else the vector FMA units (the vector units'
    peak); `tensor` for a kernel that does no arithmetic, the precision's headline peak."""
    for work_class in (WorkClass.TENSOR, WorkClass.FMA, WorkClass.VECTOR):
        if work.get(work_class, 0) != 0:
            return WorkClass.FMA if work_class == WorkClass.VECTOR else work_class
    return WorkClass.TENSOR


@record
class TensorFootprint:
    """Distinct elements of one tensor touched over the whole kernel."""

    tensor: str
    read_elements: sympy.Expr
    write_elements: sympy.Expr
    exact: bool  # False: a bounding box, an upper bound
    element_bytes: sympy.Expr = sympy.Integer(1)  # bytes per element of the tensor


@record
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
    stages: sympy.Expr = sympy.Integer(1)  # tiles held at once: the level holds stages x held


@record
class TileBox:
    """The elements of one global tensor that one block touches, as a box: per dimension the
    first and last index (in the grid iterators and the sizes). `per_step` is the box one step
    of the block's innermost sequential loop outside the keeps touches (its iterator free)."""

    tensor: str
    element_bytes: sympy.Expr
    whole: tuple[tuple[sympy.Expr, sympy.Expr], ...]
    per_step: tuple[tuple[sympy.Expr, sympy.Expr], ...]
    exact: bool  # False: a bounding box around what the block touches
    written: tuple[tuple[sympy.Expr, sympy.Expr], ...] = ()  # an `inout` tensor: the box
    # its writes touch, which cross to global memory besides its reads (empty otherwise)


@record
class LaneAccess:
    """One access inside a `lanes` loop, as a warp instruction sees it: 32 consecutive
    iterations of the lanes loop (the other iterators fixed) touch addresses `stride_bytes`
    apart. Served at `global` (through the L1<->L2 link, in 32-byte sectors) or `shared`
    (32 banks of 4-byte words)."""

    text: str  # the access as written, with its indices: `b[j0 + j, i0 + i]`
    tensor: str
    is_write: bool
    level: Level  # global or shared
    element_bytes: sympy.Expr
    stride_bytes: sympy.Expr  # between consecutive lanes, in the sizes
    lanes: sympy.Expr  # iterations of the lanes loop each time it runs
    executions: sympy.Expr  # thread accesses over the kernel (one a lane)
    tensor_elements: sympy.Expr  # the tensor's declared size
    swizzled_row_bytes: sympy.Expr | None = None  # XOR-swizzled shared rows of this many bytes


@record
class Contraction:
    """A statement shaped as a matrix contraction (contraction.py), or one that names its
    units: where its multiply-adds are counted, and what decides it at given sizes."""

    line: int  # where the statement is written
    text: str  # the statement as written
    named: WorkClass | None  # `on tensor` / `on fma`: the spec's choice, which the sizes never
    # change
    unit: WorkClass  # tensor | fma: the work class its multiply-adds are counted in
    work: sympy.Expr  # those multiply-adds' FLOP over the kernel
    block_work: sympy.Expr | None  # per block, in a parallel spec (grid iterators allowed)
    # per kind of axis (m, n, k): the trip counts of the band's loops of that kind, in the
    # sizes and the iterators of the loops around them; the tile is their product, each trip
    # count at its largest over the run
    trips: tuple[tuple[sympy.Expr, ...], ...]
    # (iterator, first value, step, trip count) of each loop around the statement, outermost
    # first: what the largest trip counts run over
    loops: tuple[tuple[sympy.Symbol, sympy.Expr, sympy.Expr, sympy.Expr], ...] = ()


@record
class StreamKCost:
    """A grid's stream-K (lang.stream_k), counted: what the schedule needs from the tiles."""

    iterations: sympy.Expr  # k-steps of one output tile
    workers: sympy.Expr | None  # persistent workers; None: SMs x blocks resident per SM
    partial_B: sympy.Expr  # one tile's partial accumulators in fp32 (count.fixup)


@record
class GridCost:
    """The thread blocks of a parallel spec. Per-block amounts may hold the grid iterators
    (unequal blocks: clipped edges, causal masks); `equal_blocks` says they do not."""

    iterators: tuple[sympy.Symbol, ...]  # the grid's loops, outermost first
    trips: tuple[sympy.Expr, ...]  # trip count of each grid loop (outer iterators allowed)
    lower_bounds: tuple[sympy.Expr, ...]  # first value of each grid iterator
    steps: tuple[sympy.Expr, ...]  # step of each grid loop
    blocks: sympy.Expr  # B: the number of blocks
    threads: sympy.Expr  # per block
    registers: sympy.Expr | None  # per thread, as the spec gives it
    cluster_axis: sympy.Symbol | None  # the grid iterator clusters run along
    cluster_size: sympy.Expr  # blocks per cluster (1: none)
    multicast: tuple[str, ...]  # tensors a cluster reads from L2 once
    raster: Raster
    group: sympy.Expr | None  # rows of blocks per group (grouped raster)
    work: dict[str, sympy.Expr]  # per block: class -> FLOP
    traffic: dict[str, sympy.Expr]  # per block: on-chip level -> bytes moved there
    on_chip: dict[str, sympy.Expr]  # per block: on-chip level -> bytes held (stages included)
    equal_blocks: bool  # per-block work and traffic free of the grid iterators
    step_iterator: sympy.Symbol | None  # the innermost sequential loop outside the keeps
    tiles: tuple[TileBox, ...]  # what one block touches of each global tensor
    lane_accesses: tuple[LaneAccess, ...] = ()  # accesses inside `lanes` loops
    split: sympy.Expr = sympy.Integer(1)  # split-K's parts of the k-loop (1: none)
    split_iterator: sympy.Symbol | None = None  # the grid iterator over them
    fixup_B: sympy.Expr = sympy.Integer(0)  # split-K's partial tiles at global (count.fixup)
    stream_k: StreamKCost | None = None  # the grid's stream-K, its fix-up the machine's
    widths: tuple[tuple[str, sympy.Expr], ...] = ()  # (tensor, bytes of one load): `width`
    instructions: sympy.Expr | None = None  # warp instructions a block issues: `instructions`
    # the global tensors each pass of a block reads, in source order: a pass is a loop right
    # inside the grid (sibling loops told apart by their place) or a statement there
    passes: tuple[tuple[str, ...], ...] = ()
    # steps of the block's streaming loop (the step loop, else the loop right inside the
    # grid whose global reads span the most tensors: an attention's key loop); None: none
    stream_steps: sympy.Expr | None = None


@record
class Cost:
    kernel: str
    parameters: tuple[sympy.Symbol, ...]
    defaults: dict[sympy.Symbol, int]  # parameters with a default value (a tile size, say)
    precision: Precision  # the precision the spec computes in, from its tensors' element types
    reuse: Reuse  # perfect | none | spec: how tensors outside keep scopes were counted
    work: dict[str, sympy.Expr]  # class (tensor, fma, vector, sfu) -> FLOP
    traffic: dict[str, sympy.Expr]  # level -> bytes moved at that level
    footprints: dict[str, TensorFootprint]
    scopes: tuple[ScopeCost, ...]
    exact: bool = True  # False when a footprint is a bounding box (an upper bound)
    closed_form: bool = True  # False when a sum had to stay unevaluated (still exact)
    grid: GridCost | None = None  # the thread blocks, for a parallel spec
    homed: dict[str, sympy.Expr] = field(default_factory=dict)  # level -> bytes of the
    # tensors declared in it (`@ shared`): what it must hold besides the keeps
    contractions: tuple[Contraction, ...] = ()  # statements the unit rule looked at
    divisibility: tuple[tuple[sympy.Expr, sympy.Expr], ...] = ()  # the spec's `assume d | n`
    # facts as (divisor, dividend): the closed forms hold where they do
    compulsory_B: sympy.Expr | None = None  # bytes every run moves to and from global
    # memory: each element read of an `in` or `inout` tensor, each element written, once
    # (an `out` tensor's reads get what the kernel wrote); None where not counted
    requirements: Requirements = Requirements()  # the spec's `target` and `needs`
    serial: tuple[tuple[str, ...], ...] = ()  # roofs whose times add in t_model (`serial`)

    @property
    def main_class(self) -> WorkClass:
        """The work class whose ceiling is the kernel's peak (main_work_class)."""
        return main_work_class(self.work)

    @property
    def total_work(self) -> sympy.Expr:
        return sympy.Add(*self.work.values())

    @property
    def levels(self) -> tuple[str, ...]:
        """Levels with traffic, slowest first."""
        from ..base.symbols import LEVELS

        return tuple(level for level in LEVELS if level in self.traffic)

    def working_set_bytes(self, element_bytes: Mapping[str, sympy.Expr] | None = None
                          ) -> sympy.Expr:
        """Bytes of all tensors' footprints: per tensor the larger of its read and written
        elements (an inout tensor reads and writes the same elements) times its element size,
        from `element_bytes` (tensor -> bytes) when given, else from the footprints."""
        if element_bytes is None:
            return self._footprint_bytes
        return self._working_set(element_bytes)

    @cached_property
    def _footprint_bytes(self) -> sympy.Expr:
        """working_set_bytes() once for every machine: each Max compares its arguments."""
        return self._working_set(None)

    def _working_set(self, element_bytes: Mapping[str, sympy.Expr] | None) -> sympy.Expr:
        total = sympy.Integer(0)
        for name, footprint in self.footprints.items():
            elements = sympy.Max(footprint.read_elements, footprint.write_elements)
            size = footprint.element_bytes if element_bytes is None else element_bytes[name]
            total += elements * size
        return total

    def intensity(self, level: str) -> sympy.Expr:
        """I = W / Q at a level, in FLOP/B, once a level: the analysis and each level's ridge
        equation ask for the same."""
        if level not in self._intensities:
            self._intensities[level] = self._intensity(level)
        return self._intensities[level]

    @cached_property
    def _intensities(self) -> dict[str, sympy.Expr]:
        return {}

    def _intensity(self, level: str) -> sympy.Expr:
        ratio = self.total_work / self.traffic[level]
        if ratio.has(sympy.Sum):
            return ratio  # sums left open do not cancel, and trying takes seconds
        return readable_cancelled(ratio)

