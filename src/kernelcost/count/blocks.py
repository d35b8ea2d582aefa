"""The thread blocks of a parallel spec, counted: the grid, what one block does and holds on
chip, and the box of each global tensor one block touches (for the L2 model of waves).

The grid's loops are the outermost loops of the nest (the checker makes sure), so a block is
everything below them: per-block amounts are the kernel's sums taken from the grid's depth
in, with the grid iterators left free. Blocks are equal when no per-block amount depends on
them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy

from ..base.kinds import Role
from ..base.levels import Level
from ..base.symbols import ON_CHIP_LEVELS, iterator_symbol
from .cost import GridCost, ScopeCost, TileBox
from .fixup import fixup_bytes, stream_k_cost
from .lanes import lane_accesses

if TYPE_CHECKING:
    from ..lang.check_context import Tensor
    from .counting import NestCount
    from .loops import Loop
    from .nest import AccessSite

Box = tuple[tuple[sympy.Expr, sympy.Expr], ...]  # (low, high) along each dimension



def count_grid(counter: NestCount, scopes: tuple[ScopeCost, ...]) -> GridCost | None:
    """The GridCost of a parallel spec from its counter (spec_count._Counter), or None."""
    grid = counter.checked.grid
    if grid is None:
        return None
    depth = counter.grid_depth
    anchor = counter.nest.executions[0] if counter.nest.executions else counter.nest.accesses[0]
    grid_loops = anchor.loops[:depth]
    iterators = tuple(loop.var for loop in grid_loops)
    work = counter.work(depth)
    traffic = {level: amount for level, amount in counter.traffic(depth).items()
               if level in ON_CHIP_LEVELS}
    per_block = (*work.values(), *traffic.values())
    blocks = counter.finish(counter.executions(grid_loops))
    return GridCost(
        iterators=iterators,
        trips=tuple(counter.finish(loop.trips) for loop in grid_loops),
        lower_bounds=tuple(counter.finish(loop.lo) for loop in grid_loops),
        steps=tuple(counter.finish(loop.step) for loop in grid_loops),
        blocks=blocks,
        threads=counter.finish(grid.threads),
        registers=None if grid.registers is None else counter.finish(grid.registers),
        cluster_axis=None if grid.cluster_axis is None else iterator_symbol(grid.cluster_axis),
        cluster_size=grid.cluster_size,
        multicast=tuple(sorted(counter.multicast)),
        raster=grid.raster,
        group=grid.group,
        work=work,
        traffic=traffic,
        on_chip=_on_chip(counter, scopes),
        equal_blocks=not any(expr.free_symbols & set(iterators) for expr in per_block),
        step_iterator=_step_loop_var(counter, depth),
        tiles=_tiles(counter, depth),
        lane_accesses=lane_accesses(counter),
        split=counter.finish(grid.split),
        split_iterator=(None if grid.split_iterator is None
                        else iterator_symbol(grid.split_iterator)),
        fixup_B=fixup_bytes(counter),
        stream_k=stream_k_cost(counter, blocks),
        widths=grid.widths,
        instructions=None if grid.instructions is None else counter.finish(grid.instructions),
        passes=_passes(counter, depth),
        stream_steps=_stream_steps(counter, depth),
    )


def _on_chip(counter: NestCount, scopes: tuple[ScopeCost, ...]) -> dict[str, sympy.Expr]:
    """Bytes a block holds in each on-chip level: its keep scopes there (each its own buffer,
    times its stages), its local arrays, and tensors homed there."""
    held: dict[str, sympy.Expr] = {level: sympy.Integer(0) for level in ON_CHIP_LEVELS}
    for scope in scopes:
        if scope.level in held:
            held[scope.level] += scope.held_bytes * scope.stages
    for tensor in counter.checked.tensors.values():
        if tensor.level in held:
            held[tensor.level] += tensor.element_bytes * sympy.Mul(*tensor.shape)
    return {level: counter.finish(amount) for level, amount in held.items() if amount != 0}


def _step_loop(counter: NestCount, depth: int) -> Loop | None:
    """The innermost sequential loop around a keep that fills from L2: one step of it is what
    a block streams in at a time (k0 in a GEMM)."""
    candidates = [scope.loops[-1] for scope in counter.nest.scopes
                  if len(scope.loops) > depth and Level.L2 in scope.parent_levels.values()]
    if candidates:
        return max(candidates, key=lambda loop: loop.depth)
    return _streaming_loop(counter, depth)


def _streaming_loop(counter: NestCount, depth: int) -> Loop | None:
    """Without such a keep: the one sequential loop right inside the grid that every global
    read of the block runs in (k0 of a GEMV), one step of it what the block streams at a
    time, as a keep's loop is. None where a global read runs outside it, in `lanes` loops
    only, or in two such loops one after the other."""
    tensors = counter.checked.tensors
    reads = [site for site in counter.nest.accesses if not site.is_write
             and site.tensor in tensors and tensors[site.tensor].level == Level.GLOBAL]
    # a loop's place in the source tells two sibling loops of one header apart (`for i in
    # 0..n` twice): equal as records, they are two passes over the row, not one stream
    loops = {(site.loops[depth], site.loops[depth].span) if len(site.loops) > depth else None
             for site in reads}
    if len(loops) != 1:
        return None
    (only,) = loops
    return None if only is None or only[0].lanes else only[0]


def _stream_steps(counter: NestCount, depth: int) -> sympy.Expr | None:
    """The trips of the block's streaming loop (GridCost.stream_steps): the step loop, else
    the one sequential loop right inside the grid whose global reads span the most tensors
    (FlashAttention-2's key loop after its query tile's copy); None where two loops tie."""
    loop = _step_loop(counter, depth)
    if loop is None:
        tensors = counter.checked.tensors
        spans: dict[Loop, set[str]] = {}
        for site in counter.nest.accesses:
            if (not site.is_write and site.tensor in tensors and len(site.loops) > depth
                    and tensors[site.tensor].level == Level.GLOBAL
                    and not site.loops[depth].lanes):
                spans.setdefault(site.loops[depth], set()).add(site.tensor)
        widths = sorted((len(names) for names in spans.values()), reverse=True)
        if not widths or (len(widths) > 1 and widths[0] == widths[1]):
            return None
        loop = max(spans, key=lambda candidate: len(spans[candidate]))
    return counter.finish(loop.trips)


def _passes(counter: NestCount, depth: int) -> tuple[tuple[str, ...], ...]:
    """The global tensors each pass of a block reads (GridCost.passes), in source order."""
    tensors = counter.checked.tensors
    found: dict[object, list[str]] = {}
    for site in counter.nest.accesses:
        if (site.is_write or site.tensor not in tensors
                or tensors[site.tensor].level != Level.GLOBAL):
            continue
        key = ((site.loops[depth], site.loops[depth].span) if len(site.loops) > depth
               else site.span)
        names = found.setdefault(key, [])
        if site.tensor not in names:
            names.append(site.tensor)
    return tuple(tuple(names) for names in found.values())


def _step_loop_var(counter: NestCount, depth: int) -> sympy.Symbol | None:
    loop = _step_loop(counter, depth)
    return None if loop is None else loop.var


def _tiles(counter: NestCount, depth: int) -> tuple[TileBox, ...]:
    step = _step_loop(counter, depth)
    tiles = []
    for name, tensor in counter.checked.tensors.items():
        if tensor.level != Level.GLOBAL:
            continue
        sites = [s for s in counter.nest.accesses if s.tensor == name]
        if not sites or not tensor.shape:
            continue
        in_step = [s for s in sites if step is not None and step in s.loops]
        whole = _box(counter, sites, depth)
        per_step = (_box(counter, in_step, step.depth + 1) if in_step and step is not None
                    else ())
        if whole is None or per_step is None:
            whole = tuple((sympy.Integer(0), extent - 1) for extent in sites[0].extent)
            per_step = whole if in_step else ()
        elements = counter.footprint.union(sites, depth)
        volume = sympy.Mul(*[high - low + 1 for low, high in whole])
        exact = elements.exact and sympy.expand(volume - elements.elements) == 0
        written = _written_box(counter, tensor, sites, depth, whole)
        tiles.append(TileBox(name, tensor.element_bytes, _finish_box(counter, whole),
                             _finish_box(counter, per_step), exact,
                             _finish_box(counter, written)))
    return tuple(tiles)


def _written_box(counter: NestCount, tensor: Tensor, sites: list[AccessSite], depth: int,
                 whole: Box) -> Box:
    """What one block writes of an `inout` tensor: its elements are read from global memory
    (their first contents) and written back, two crossings where the box of all it touches
    counts one. Empty for `in` and `out` tensors (an `out` tensor's reads get what the kernel
    wrote: one crossing), and for an `inout` tensor the block only writes (what it overwrites
    is not read: its elements cross once, in the box of all it touches)."""
    writes = [s for s in sites if s.is_write]
    reads = [s for s in sites if not s.is_write or s.accumulation_read]
    if tensor.role != Role.INOUT or not writes or not reads:
        return ()
    box = _box(counter, writes, depth)
    return whole if box is None else box


def _box(counter: NestCount, sites: list[AccessSite], depth: int) -> Box | None:
    """The reach of the sites with clipped edges kept where every loop inside runs, else the
    straightened bounding box."""
    if all(loop.never_empty for site in sites for loop in site.loops[depth:]):
        box = counter.footprint.reach(sites, depth)
        if box is not None:
            return box
    return counter.footprint.box(sites, depth)


def _finish_box(counter: NestCount, box: Box) -> Box:
    return tuple((counter.finish(low), counter.finish(high)) for low, high in box)
