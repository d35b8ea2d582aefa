"""Per wave, the distinct elements its blocks touch, from the block classes: no block is
listed, so memory does not grow with the grid.

Each wave is a few products of ranges of positions (wave_pieces); each tensor's box is a
constant factor times its parts along the axes (wave_tables). The union of a wave's boxes:
- a box free of the grid indices: the constant;
- a box along one axis: the ranges of the products on that axis, swept in order (tiles: the
  sum of the widths over the positions covered; intervals: the union of [first(a), last(b)]);
- a box of tiles along every axis: the products are disjoint, and so are their boxes: the sum
  over the products of the product over the axes of the widths' sums;
- otherwise, each part's axis cut at every product's ends into cells (positions for tiles,
  elements for intervals), and the measures of the cells some product covers summed: each
  product is a union of whole cells.
Waves are evaluated CHUNK at a time, in int64 with the magnitudes checked first: the time is
a few numpy operations a wave, and the memory a chunk's."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from fractions import Fraction

import numpy as np
import sympy

from ..base.kinds import Raster
from ..count.cost import GridCost
from .block_classes import GridAxes, WaveUnions, fraction_of, grid_axes
from .unclassified import Reason, Unclassified, Why
from .wave_periods import alike_waves
from .wave_pieces import Product, raster_products
from .wave_tables import SAFE, AxisBox, AxisKind, BoxPlan, box_plan

Array = np.ndarray
CHUNK = 1 << 15  # waves evaluated at once
CELLS = 1 << 22  # products x cells x waves the cell cover holds at once
PERIODS = True  # one period of interior waves stands for all (wave_periods); tests turn it off
FAR = -(1 << 62)  # before any element


def union_volumes(plan: BoxPlan, products: list[Product], axes: int) -> Array:
    """Per wave, the elements in the union of the boxes of its blocks."""
    shape = products[0].valid.shape
    live = [product for product in products if product.valid.any()]
    if plan.constant == 0 or not live:
        return np.zeros(shape, dtype=np.int64)
    if not plan.parts:
        touched = np.logical_or.reduce([product.valid for product in live])
        return np.where(touched, plan.constant, 0).astype(np.int64)
    if len(plan.parts) == 1:
        volume = _sweep(plan.parts[0], live)
    elif len(plan.parts) == axes and all(part.kind == AxisKind.TILES for part in plan.parts):
        volume = sum((np.where(product.valid, _measure(plan.parts, _bounds(plan.parts, product)),
                               0) for product in live), np.zeros(shape, dtype=np.int64))
    else:
        volume = _covered_cells(plan.parts, live, shape)
    return volume * plan.constant


def _ends(part: AxisBox, product: Product) -> tuple[Array, Array]:
    """The product's range on the part's axis: positions (tiles) or element bounds
    (intervals: first(a) and last(b))."""
    low, high = (np.broadcast_to(end, product.valid.shape) for end in product.ranges[part.axis])
    if part.kind == AxisKind.TILES:
        return low, high
    assert part.first is not None and part.last is not None
    top = part.first.count - 1
    return part.first.value(np.clip(low, 0, top)), part.last.value(np.clip(high, 0, top))


def _bounds(parts: tuple[AxisBox, ...], product: Product) -> list[tuple[Array, Array]]:
    return [_ends(part, product) for part in parts]


def _measure(parts: tuple[AxisBox, ...], bounds: list[tuple[Array, Array]]) -> Array:
    """Elements of the box product: per part a weight sum (tiles) or an interval's length."""
    volume: Array | None = None
    for part, (low, high) in zip(parts, bounds):
        if part.kind == AxisKind.TILES:
            assert part.weight is not None
            size = part.weight.run_sum(low, high)
        else:
            size = np.maximum(high - low + 1, 0)
        volume = size if volume is None else volume * size
    assert volume is not None
    return volume


def _sweep(part: AxisBox, products: list[Product]) -> Array:
    """The union along one axis: the products' ranges in order of their first end."""
    ends = [_ends(part, product) for product in products]
    valid = np.stack([product.valid for product in products])
    lows, highs = np.stack([low for low, _ in ends]), np.stack([high for _, high in ends])
    order = np.argsort(np.where(valid, lows, -FAR), axis=0, kind="stable")
    lows, highs, valid = (np.take_along_axis(x, order, axis=0) for x in (lows, highs, valid))
    covered = np.full(valid.shape[1:], -1 if part.kind == AxisKind.TILES else FAR, dtype=np.int64)
    total = np.zeros(valid.shape[1:], dtype=np.int64)
    for low, high, here in zip(lows, highs, valid):
        begin = np.maximum(low, covered + 1)
        if part.kind == AxisKind.TILES:
            assert part.weight is not None
            added = part.weight.run_sum(begin, high)
        else:
            added = np.maximum(high - begin + 1, 0)
        total += np.where(here, added, 0)
        covered = np.where(here, np.maximum(covered, high), covered)
    return total


def _covered_cells(parts: tuple[AxisBox, ...], products: list[Product],
                   shape: tuple[int, ...]) -> Array:
    """The union of the products' boxes: each part's axis cut at every product's ends into
    cells, and a cell counted once where some product covers it along every part. Each
    product is a union of whole cells, so the sum is the union's measure exactly, as the
    inclusion and exclusion over the products gives it, without its up to 2^products terms
    (a split-K grid's grouped waves have 13 products). Waves go CELLS // (cells x products)
    at a time."""
    each = [_bounds(parts, product) for product in products]
    valid = np.stack([np.broadcast_to(product.valid, shape) for product in products]
                     ).reshape(len(products), -1)
    cells = len(products) * (2 * len(products) - 1) ** len(parts)
    step = max(1, CELLS // cells)
    total = np.zeros(valid.shape[1], dtype=np.int64)
    for first in range(0, valid.shape[1], step):
        waves = slice(first, first + step)
        ends = [[(np.reshape(low, -1)[waves], np.reshape(high, -1)[waves]) for low, high in bounds]
                for bounds in each]
        total[waves] = _cover(parts, ends, valid[:, waves])
    return total.reshape(shape)


def _cover(parts: tuple[AxisBox, ...], each: list[list[tuple[Array, Array]]],
           valid: Array) -> Array:
    """_covered_cells over one run of waves: `each` product's (first, last) a part, per
    wave; valid (products x waves)."""
    count = valid.shape[0]
    covered = valid  # (products, cells along the parts so far ..., waves)
    measure: Array | None = None  # (cells ..., waves)
    for k, part in enumerate(parts):
        lows = np.stack([bounds[k][0] for bounds in each])
        ends = np.stack([bounds[k][1] for bounds in each]) + 1  # past the last
        edges = np.sort(np.concatenate([lows, ends]), axis=0)
        left, right = edges[:-1], edges[1:]  # the cells: left .. right - 1
        if part.kind == AxisKind.TILES:
            assert part.weight is not None
            size = part.weight.run_sum(left, right - 1)
        else:
            size = right - left
        inside = (lows[:, None] <= left) & (right <= ends[:, None])  # (products, cells, waves)
        placed = (1,) * k + left.shape
        covered = covered[..., None, :] & inside.reshape(count, *placed)
        measure = size if measure is None else measure[..., None, :] * size.reshape(placed)
    assert measure is not None
    return np.sum(covered.any(axis=0) * measure, axis=tuple(range(len(parts))))


# -- the waves of a grid --------------------------------------------------------------------

def wave_unions(grid: GridCost, sizes: Mapping[str, sympy.Rational], wave_blocks: int,
                step_first: object = 0) -> WaveUnions:
    """Bytes per tensor summed over the waves' unions, and the largest wave's step union
    (its whole union where the grid has no step loop): the figures of waves.estimate."""
    axes = grid_axes(grid, sizes)
    raster = _raster(grid, axes)
    group = int(fraction_of(grid.group, sizes)) if raster == Raster.GROUPED else 1
    plans = {tile.tensor: box_plan(tile.tensor, tile.whole, axes, sizes) for tile in grid.tiles}
    # an inout tensor's writes cross again (waves module): the union of its written boxes
    written = {tile.tensor: box_plan(tile.tensor, tile.written, axes, sizes)
               for tile in grid.tiles if tile.written}
    step_plans = _step_plans(grid, axes, sizes, step_first, plans)
    element_bytes = {tile.tensor: fraction_of(tile.element_bytes, sizes) for tile in grid.tiles}
    denominator = math.lcm(1, *(element_bytes[tensor].denominator for tensor in step_plans))
    weights = {tensor: int(element_bytes[tensor] * denominator) for tensor in step_plans}
    if sum(weights[tensor] * plan.bound() for tensor, plan in step_plans.items()) >= SAFE:
        raise Unclassified(Why(Reason.WAVE_BYTES_OVERFLOW))
    sums = dict.fromkeys(plans, 0)
    largest = 0
    every = [*plans.values(), *written.values(), *step_plans.values()]
    chosen, stands_for = (alike_waves(axes, raster, group, wave_blocks, every) if PERIODS
                          else (np.arange(-(-axes.blocks // wave_blocks)), None))
    for first, products in _chunks(axes, raster, group, wave_blocks, every, chosen):
        weight = None if stands_for is None else stands_for[first:first + len(products[0].valid)]
        volumes = {tensor: union_volumes(plan, products, len(axes.counts))
                   for tensor, plan in plans.items()}
        for tensor, volume in volumes.items():
            sums[tensor] += _weighted_sum(volume, weight, plans[tensor].bound())
        for tensor, plan in written.items():
            sums[tensor] += _weighted_sum(union_volumes(plan, products, len(axes.counts)),
                                          weight, plan.bound())
        step = np.zeros(products[0].valid.shape, dtype=np.int64)
        for tensor, plan in step_plans.items():
            volume = (volumes[tensor] if plan is plans[tensor]
                      else union_volumes(plan, products, len(axes.counts)))
            step += weights[tensor] * volume
        largest = max(largest, int(step.max(initial=0)))
    by_tensor = {tensor: element_bytes[tensor] * total for tensor, total in sums.items()}
    return WaveUnions(axes.blocks, -(-axes.blocks // wave_blocks), by_tensor,
                      Fraction(largest, denominator), raster, group)


def per_wave_volumes(grid: GridCost, sizes: Mapping[str, sympy.Rational], wave_blocks: int
                     ) -> dict[str, Array]:
    """Per tensor, each wave's union volume (elements) of the whole boxes, by the classes:
    what the property tests compare with the oracle's sets."""
    axes = grid_axes(grid, sizes)
    raster = _raster(grid, axes)
    group = int(fraction_of(grid.group, sizes)) if raster == Raster.GROUPED else 1
    plans = {tile.tensor: box_plan(tile.tensor, tile.whole, axes, sizes) for tile in grid.tiles}
    found: dict[str, list[Array]] = {tensor: [] for tensor in plans}
    chosen = np.arange(-(-axes.blocks // wave_blocks), dtype=np.int64)
    for _, products in _chunks(axes, raster, group, wave_blocks, list(plans.values()), chosen):
        for tensor, plan in plans.items():
            found[tensor].append(union_volumes(plan, products, len(axes.counts)))
    return {tensor: np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
            for tensor, parts in found.items()}


def _raster(grid: GridCost, axes: GridAxes) -> Raster:
    """The raster used: a grouped raster needs the last two axes of a rectangular grid (the
    axes before them are batches, wave_pieces), row order else."""
    if grid.raster == Raster.GROUPED and len(axes.counts) < 2:
        return Raster.ROW
    return grid.raster


def _step_plans(grid: GridCost, axes: GridAxes, sizes: Mapping[str, sympy.Rational],
                step_first: object, plans: dict[str, BoxPlan]) -> dict[str, BoxPlan]:
    """The boxes one step of the step loop (k0 at its first value) touches, of the tensors
    it touches; the whole boxes where the grid has no step loop (a wave holds all it
    touches)."""
    if grid.step_iterator is None:
        return dict(plans)
    at_step = dict(sizes)
    at_step[grid.step_iterator.name] = sympy.Rational(fraction_of(step_first, sizes))
    return {tile.tensor: box_plan(tile.tensor, tile.per_step, axes, at_step)
            for tile in grid.tiles if tile.per_step}


def _weighted_sum(volume: Array, weight: Array | None, bound: int) -> int:
    """sum(volume x weight), exactly: in int64 where it cannot pass 64-bit integers."""
    if weight is None:
        return int(volume.sum())
    if bound * int(weight.sum()) < SAFE:
        return int(np.dot(volume, weight))
    return sum(int(v) * int(w) for v, w in zip(volume.tolist(), weight.tolist()))


def _chunks(axes: GridAxes, raster: Raster, group: int, wave_blocks: int,
            plans: list[BoxPlan], chosen: Array) -> Iterator[tuple[int, list[Product]]]:
    """The chosen waves' products of ranges, CHUNK waves at a time (fewer where a chunk's sum
    of volumes could pass 64-bit integers, an inclusion-exclusion's partial sums included),
    each with the index of its first in `chosen`."""
    blocks = axes.blocks
    terms = 1 << max(7, 2 * len(axes.counts) - 1)  # subsets of a wave's products
    largest = max([plan.bound() * terms for plan in plans] + [1])
    if largest >= SAFE:
        raise Unclassified(Why(Reason.WAVE_UNION_OVERFLOW))
    chunk = max(1, min(CHUNK, SAFE // largest))
    for first in range(0, len(chosen), chunk):
        wave = chosen[first:first + chunk]
        start = wave * wave_blocks
        end = np.minimum(start + wave_blocks, blocks) - 1
        yield first, raster_products(raster, axes.counts, group, start, end)
