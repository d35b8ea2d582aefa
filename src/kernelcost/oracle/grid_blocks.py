"""The oracle's view of thread blocks: while the grid's innermost loop runs one body, a block
is open; what it does is recorded on its own (work, on-chip traffic, the elements of each
global tensor it touches), and what it moves between L2 and its SM outside any keep is its
distinct elements. Fills from L2 are counted per cluster: the blocks of a cluster that fill a
tensor alike in a step read it from L2 once (multicast); blocks whose fills differ each read
their own.

Like the rest of the oracle it shares nothing with the counting code: it reads the checked
kernel and counts with Python sets."""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import field
from fractions import Fraction

from ..base.levels import Level
from ..base.records import record
from ..base.symbols import ON_CHIP_LEVELS


@record
class BlockCounts:
    """One thread block, enumerated."""

    coordinates: dict[str, object]  # grid iterator -> its value
    work: dict[str, int]  # class -> FLOP
    traffic: dict[str, Fraction]  # on-chip level -> bytes moved there
    elements: dict[str, frozenset]  # global tensor -> the elements the block touched
    written: dict[str, frozenset] = field(default_factory=dict)  # ... and those it wrote


@record(frozen=False)
class BlockState:
    """The open block, and the log of the closed ones."""

    iterators: tuple[str, ...]
    element_bytes: dict[str, Fraction]
    cluster_of: Callable[[dict], tuple] | None  # env -> the cluster the block belongs to
    # (tensor, read or write) -> the elements the block moves outside any keep
    direct: dict[tuple[str, str], set] = field(default_factory=lambda: defaultdict(set))
    touched: dict[str, set] = field(default_factory=lambda: defaultdict(set))
    written: dict[str, set] = field(default_factory=lambda: defaultdict(set))
    # (cluster, step) -> (tensor, read or write) -> block -> the elements its fill moves
    cluster_fills: dict[tuple, dict] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(lambda: defaultdict(set))))
    blocks: list[BlockCounts] = field(default_factory=list)
    _executions: list[int] = field(default_factory=list)
    _moves: Counter = field(default_factory=Counter)

    def open(self, statements, moves: Counter) -> None:
        for elements in (*self.direct.values(), *self.touched.values(),
                         *self.written.values()):
            elements.clear()  # the compiled accesses hold these very sets
        self._executions = [plan.executions for plan in statements]
        self._moves = Counter({key: value for key, value in moves.items()
                               if key[1] in ON_CHIP_LEVELS})

    def close(self, env: dict, statements, moves: Counter) -> None:
        for (tensor, _kind), elements in self.direct.items():
            moves[(tensor, Level.L2)] += len(elements)
        work: Counter = Counter()
        for plan, before in zip(statements, self._executions):
            for work_class, operations in plan.work.items():
                work[work_class] += operations * (plan.executions - before)
        traffic: dict[str, Fraction] = {}
        for (tensor, level), count in moves.items():
            moved = count - self._moves.get((tensor, level), 0)
            if level in ON_CHIP_LEVELS and moved:
                bytes_moved = self.element_bytes[tensor] * moved
                traffic[level] = traffic.get(level, Fraction(0)) + bytes_moved
        self.blocks.append(BlockCounts(
            {name: env[name] for name in self.iterators},
            {work_class: amount for work_class, amount in work.items() if amount},
            traffic, {tensor: frozenset(elements) for tensor, elements in self.touched.items()},
            {tensor: frozenset(elements) for tensor, elements in self.written.items()}))

    def fill_from_l2(self, env: dict, entry_key: tuple, tensor: str, elements: set,
                     kind: str) -> None:
        """A keep's fill crossing from L2: recorded per cluster, step and block."""
        block = tuple(env[n] for n in self.iterators)
        cluster = self.cluster_of(env) if self.cluster_of else block
        self.cluster_fills[(cluster, entry_key)][(tensor, kind)][block].update(elements)

    def l2_fill_elements(self) -> Counter:
        """Elements read from L2 by fills, per tensor: a fill every block of a cluster moves
        alike, once a cluster and step (one multicast serves them all); fills that differ
        (`x[i], x[i + 1]` along the cluster's axis: boxes that overlap but move), each
        block's own, as each block then loads its own box."""
        elements: Counter = Counter()
        for fills in self.cluster_fills.values():
            for (tensor, _), by_block in fills.items():
                sets = list(by_block.values())
                alike = all(found == sets[0] for found in sets)
                elements[tensor] += len(sets[0]) if alike else sum(map(len, sets))
        return elements


def compare_blocks(checker, cost, counts, spread) -> None:
    """The grid's closed forms against the blocks enumerated: how many, and at blocks spread
    over the grid, the work, the on-chip traffic and the box of each global tensor.
    `checker.check(quantity, unit, closed_form, value, exact=..., extra=..., where=...)`
    records a row; `spread(items)` picks the blocks to look at."""
    grid = cost.grid
    if grid is None:
        return
    checker.check("grid blocks", "blocks", grid.blocks, len(counts.blocks), exact=True)
    symbols = {symbol.name: symbol for symbol in grid.iterators}
    for block in spread(tuple(counts.blocks)):
        at = ", ".join(f"{name}={value}" for name, value in block.coordinates.items())
        extra = {symbols[name]: rational(value) for name, value in block.coordinates.items()}
        for work_class in sorted(set(grid.work) | set(block.work)):
            checker.check(f"block W {work_class}", "FLOP", grid.work.get(work_class, 0),
                          block.work.get(work_class, 0), exact=True, extra=extra, where=at)
        for level in ON_CHIP_LEVELS:
            checker.check(f"block Q {level}", "B", grid.traffic.get(level, 0),
                          block.traffic.get(level, 0), exact=cost.exact, extra=extra, where=at)
        for tile in grid.tiles:
            _compare_tile(checker, tile, block.elements.get(tile.tensor, frozenset()), at, extra)
            if tile.written:  # an inout tensor: the box of its writes holds every one
                _compare_box(checker, f"tile {tile.tensor} written", tile.written,
                             block.written.get(tile.tensor, frozenset()), at, extra)


def _compare_tile(checker, tile, elements: frozenset, at: str, extra) -> None:
    """The box holds every element the block touched, and has no more where it is exact."""
    if not elements:
        return
    volume = _compare_box(checker, f"tile {tile.tensor}", tile.whole, elements, at, extra)
    checker.check(f"tile {tile.tensor}", "elements", volume, len(elements), exact=tile.exact,
                  extra=extra, where=at)


def _compare_box(checker, name: str, box, elements: frozenset, at: str, extra):
    """Each dimension's first and last index hold the elements'; the box's volume."""
    if not elements:
        return 1
    for dim, (low, high) in enumerate(box):
        touched = [element[dim] for element in elements]
        checker.check(f"{name} first index {dim}", "", low, min(touched),
                      exact=False, extra=extra, where=at, relation="<=")
        checker.check(f"{name} last index {dim}", "", high, max(touched),
                      exact=False, extra=extra, where=at)
    return _volume(box)


# kept: every block enumerated asks the same box's volume, built in sympy
@functools.lru_cache(maxsize=256)
def _volume(box) -> object:
    """The product of the box's extents (last - first + 1), as a closed form."""
    volume = 1
    for low, high in box:
        volume = volume * (high - low + 1)
    return volume


def rational(value):
    import sympy

    if type(value) is int:  # a grid iterator's value (Integer is Rational's own form)
        return sympy.Integer(value)
    value = Fraction(value)
    return sympy.Rational(value.numerator, value.denominator)
