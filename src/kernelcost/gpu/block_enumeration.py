"""The thread blocks of a grid one by one, at numeric sizes: the fallback of the block
classes for small grids (ENUMERATE_AT_MOST blocks) whose amounts or boxes the classes do not
express (a triangular grid, a bound of two grid indices), and the check of the classes.

Everything is enumerated: the grid (nested where a trip count holds an outer grid iterator),
the raster order, and per wave the exact union of the blocks' tile boxes. Box bounds are
compiled once into numpy code over arrays of block coordinates, in exact integer (rational)
arithmetic: floats would put floor/ceiling one off at exact multiples."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from ..base.kinds import Raster
from ..count.cost import GridCost
from .block_classes import WaveUnions, fraction_of, numeric_sizes, substituted

Env = Mapping[sympy.Symbol, np.ndarray]
Exact = tuple[Any, int]  # numerator (int or int64 array), positive denominator
MAX_CELLS = 1 << 22  # cells of one compressed union grid at once (int64: 32 MiB)


# -- exact vectorised evaluation of sizes and box bounds --------------------------------

def _compile(expr: sympy.Expr) -> Callable[[Env], Exact]:
    """expr as a function of arrays of iterator values, in exact rationals (num, den)."""
    if expr.is_Rational:
        p, q = int(expr.p), int(expr.q)
        return lambda env: (p, q)
    if expr.is_Symbol:
        return lambda env: (env[expr], 1)
    args = [_compile(arg) for arg in expr.args]
    if expr.is_Add:
        return lambda env: _fold(lambda a, b: _common(a, b, np.add), [a(env) for a in args])
    if expr.is_Mul:
        return lambda env: _fold(lambda a, b: (a[0] * b[0], a[1] * b[1]),
                                 [arg(env) for arg in args])
    if expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
        power = int(expr.exp)
        return lambda env: tuple(part ** power for part in args[0](env))
    if isinstance(expr, (sympy.Min, sympy.Max)):
        pick = np.minimum if isinstance(expr, sympy.Min) else np.maximum
        return lambda env: _fold(lambda a, b: _common(a, b, pick), [arg(env) for arg in args])
    if isinstance(expr, sympy.floor):
        return lambda env: _round(args[0](env), up=False)
    if isinstance(expr, sympy.ceiling):
        return lambda env: _round(args[0](env), up=True)
    raise ValueError(f"cannot evaluate `{expr}` per block")


def _fold(step, items: list[Exact]) -> Exact:
    result = items[0]
    for item in items[1:]:
        result = step(result, item)
    return result


def _common(a: Exact, b: Exact, combine) -> Exact:
    den = math.lcm(a[1], b[1])
    return combine(a[0] * (den // a[1]), b[0] * (den // b[1])), den


def _round(a: Exact, up: bool) -> Exact:
    num, den = a
    return (-((-num) // den) if up else num // den), 1


def _evaluate(expr: sympy.Expr, sizes: Mapping, env: Env, n: int) -> np.ndarray:
    """expr (sizes substituted, iterators from env) as n int64 values; integral or an error."""
    expr = substituted(expr, sizes, frozenset(env))
    unknown = expr.free_symbols - set(env)
    if unknown:
        raise ValueError(f"`{expr}` needs a value for {', '.join(sorted(map(str, unknown)))}")
    num, den = _compile(expr)(env)
    num = np.asarray(num, dtype=np.int64)
    if den != 1:
        if np.any(num % den):
            raise ValueError(f"`{expr}` is not an integer at some block")
        num = num // den
    return np.broadcast_to(num, (n,))


# -- the grid and its raster --------------------------------------------------------------

def _enumerate(grid: GridCost, sizes: Mapping) -> tuple[np.ndarray, np.ndarray, bool]:
    """Block coordinates and trip positions (B x d) in grid order (row-major loops), and
    whether the grid is rectangular. Nested, level by level, so that a trip count or bound
    holding an outer grid iterator is evaluated per outer block, vectorised."""
    coords = np.zeros((1, 0), dtype=np.int64)
    index = np.zeros((1, 0), dtype=np.int64)
    rectangular = True
    for level in range(len(grid.iterators)):
        env = {grid.iterators[k]: coords[:, k] for k in range(level)}
        n = len(coords)
        loop = (grid.trips[level], grid.lower_bounds[level], grid.steps[level])
        rectangular &= not any(sympy.sympify(e).free_symbols & set(grid.iterators) for e in loop)
        trips, low, step = (_evaluate(expr, sizes, env, n) for expr in loop)
        trips = np.maximum(trips, 0)
        rows = np.repeat(np.arange(n), trips)
        position = np.arange(len(rows)) - np.repeat(np.cumsum(trips) - trips, trips)
        coords = np.column_stack([coords[rows], low[rows] + step[rows] * position])
        index = np.column_stack([index[rows], position])
    return coords, index, rectangular


def _order(grid: GridCost, sizes: Mapping, index: np.ndarray,
           rectangular: bool) -> tuple[np.ndarray, bool]:
    """Grid-order positions of the blocks in launch order, and whether a grouped raster fell
    back to row order (it needs a rectangular grid of at least two axes)."""
    count, dims = index.shape
    if grid.raster == Raster.COLUMN:  # first iterator fastest: the last one is the primary key
        return np.lexsort(index.T), False
    if grid.raster != Raster.GROUPED or count == 0:
        return np.arange(count), False
    if dims < 2 or not rectangular:
        return np.arange(count), True
    num_m, num_n = int(index[:, -2].max()) + 1, int(index[:, -1].max()) + 1
    group = int(fraction_of(grid.group, sizes))
    # Triton's grouped ordering: `group` rows of blocks at a time, column-major inside; the
    # axes before the last two are batches, the slowest (a split-K grid's splits)
    batch, pid = np.divmod(np.arange(count), num_m * num_n)
    group_id, inside = pid // (group * num_n), pid % (group * num_n)
    first_m = group_id * group
    size_m = np.minimum(num_m - first_m, group)
    pid_m, pid_n = first_m + inside % size_m, inside // size_m
    return batch * num_m * num_n + pid_m * num_n + pid_n, False


def raster_order(grid: GridCost, values) -> list[tuple[int, ...]]:
    """Block coordinates (grid iterator values, outermost first) in launch order."""
    sizes = numeric_sizes(values)
    coords, index, rectangular = _enumerate(grid, sizes)
    order, _ = _order(grid, sizes, index, rectangular)
    return [tuple(int(v) for v in row) for row in coords[order]]


def launch_amounts(grid: GridCost, values, exprs: Sequence[sympy.Expr]) -> list[np.ndarray]:
    """Each expr at every block in launch order (the grid's raster), the grid enumerated
    once; a ValueError where one is not an integer at some block."""
    sizes = numeric_sizes(values)
    coords, index, rectangular = _enumerate(grid, sizes)
    order, _ = _order(grid, sizes, index, rectangular)
    env = {iterator: coords[order, k] for k, iterator in enumerate(grid.iterators)}
    return [_evaluate(sympy.sympify(expr).doit(), sizes, env, len(coords)) for expr in exprs]


def per_block(grid: GridCost, values, expr: sympy.Expr) -> np.ndarray:
    """expr (in the grid iterators and the sizes) at every block, exactly, as int64; a
    ValueError where it is not an integer at some block."""
    sizes = numeric_sizes(values)
    coords, _, _ = _enumerate(grid, sizes)
    env = {iterator: coords[:, k] for k, iterator in enumerate(grid.iterators)}
    return _evaluate(sympy.sympify(expr).doit(), sizes, env, len(coords))


# -- exact union volumes of integer boxes, per wave ---------------------------------------

def _distinct(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ids of the distinct (a, b) pairs, numbered in (a, b) order, and a row of each.
    One 1-D unique of a packed key: np.unique(axis=0) is ten times slower."""
    a0, b0 = a - a.min(), b - b.min()
    span = int(b0.max()) + 1
    if (int(a0.max()) + 1) * span >= 1 << 62:  # pack dense codes instead of values
        a0, b0 = (np.unique(x, return_inverse=True)[1].reshape(-1) for x in (a, b))
        span = int(b0.max()) + 1
    _, first, inverse = np.unique(a0 * span + b0, return_index=True, return_inverse=True)
    return inverse.reshape(-1), first


def _tiled_volumes(lows, highs, wave_of, waves: int) -> np.ndarray | None:
    """Per wave, the union volume when the boxes tile: per dimension, distinct intervals
    pairwise identical or disjoint, so that distinct boxes are disjoint (two of them differ
    somewhere, and there they do not meet) and the union is the sum of distinct boxes.
    None when they do not tile."""
    box = np.zeros(len(lows), dtype=np.int64)
    for dim in range(lows.shape[1]):
        interval, first = _distinct(lows[:, dim], highs[:, dim])
        low, high = lows[first, dim], highs[first, dim]  # sorted by low, then high
        if np.any(low[1:] <= high[:-1]):  # neighbours meet: overlapping intervals
            return None
        box = _distinct(box, interval)[0]  # the box so far, as one dense id
    _, first = _distinct(wave_of, box)  # one block per distinct box of each wave
    volume = np.prod(highs[first] - lows[first] + 1, axis=1)
    per_wave = np.zeros(waves, dtype=np.int64)
    np.add.at(per_wave, wave_of[first], volume)
    return per_wave


def _compressed_volume(lows: np.ndarray, highs: np.ndarray) -> int:
    """Union volume of overlapping boxes: cells between the distinct edges, covered ones
    marked with an n-D difference array, in slabs along the first axis to bound memory."""
    dims = lows.shape[1]
    edges = [np.unique(np.concatenate([lows[:, k], highs[:, k] + 1])) for k in range(dims)]
    start = [np.searchsorted(edges[k], lows[:, k]) for k in range(dims)]
    stop = [np.searchsorted(edges[k], highs[:, k] + 1) for k in range(dims)]
    widths = [np.diff(edge) for edge in edges]
    row_cells = max(1, math.prod(len(w) for w in widths[1:]))
    slab = max(1, MAX_CELLS // row_cells)
    total = 0
    for first in range(0, len(widths[0]), slab):
        last = min(first + slab, len(widths[0]))
        inside = (start[0] < last) & (stop[0] > first)
        lo = [np.clip(start[0][inside], first, last) - first] + [s[inside] for s in start[1:]]
        hi = [np.clip(stop[0][inside], first, last) - first] + [s[inside] for s in stop[1:]]
        shape = (last - first, *(len(w) for w in widths[1:]))
        marks = np.zeros(tuple(s + 1 for s in shape), dtype=np.int64)
        for corner in itertools.product((0, 1), repeat=dims):
            at = tuple((hi if c else lo)[k] for k, c in enumerate(corner))
            np.add.at(marks, at, -1 if sum(corner) % 2 else 1)
        for axis in range(dims):
            marks = np.cumsum(marks, axis=axis)
        covered = (marks[tuple(slice(0, s) for s in shape)] > 0).astype(np.int64)
        for width in reversed([widths[0][first:last], *widths[1:]]):
            covered = covered @ width  # contracts the last axis: exact int64
        total += int(covered)
    return total


def _wave_volumes(lows, highs, wave_of: np.ndarray, waves: int) -> np.ndarray:
    """Per wave, the exact number of elements in the union of its blocks' boxes."""
    keep = np.all(highs >= lows, axis=1)  # an empty box touches nothing
    lows, highs, wave_of = lows[keep], highs[keep], wave_of[keep]
    if len(lows) == 0:
        return np.zeros(waves, dtype=np.int64)
    per_wave = _tiled_volumes(lows, highs, wave_of, waves)  # the common case, all at once
    if per_wave is not None:
        return per_wave
    per_wave = np.zeros(waves, dtype=np.int64)
    bounds = np.searchsorted(wave_of, np.arange(waves + 1))  # blocks come wave by wave
    for wave in range(waves):
        mine = slice(bounds[wave], bounds[wave + 1])
        if mine.start < mine.stop:
            per_wave[wave] = _compressed_volume(lows[mine], highs[mine])
    return per_wave


def _boxes(box, sizes: Mapping, env: Env, n: int) -> tuple[np.ndarray, np.ndarray]:
    lows = np.column_stack([_evaluate(low, sizes, env, n) for low, _ in box])
    highs = np.column_stack([_evaluate(high, sizes, env, n) for _, high in box])
    return lows, highs




def wave_unions(grid: GridCost, sizes: Mapping[str, sympy.Rational], wave_blocks: int,
                step_first: object = 0) -> WaveUnions:
    """The figures of waves.estimate, block by block."""
    coords, index, rectangular = _enumerate(grid, sizes)
    order, row_order_used = _order(grid, sizes, index, rectangular)
    blocks = len(coords)
    waves = -(-blocks // wave_blocks)
    env = {iterator: coords[order, k] for k, iterator in enumerate(grid.iterators)}
    union, step_bytes = _per_wave(grid, sizes, env, np.arange(blocks) // wave_blocks, waves,
                                  step_first)
    raster = Raster.ROW if row_order_used else grid.raster
    group = int(fraction_of(grid.group, sizes)) if raster == Raster.GROUPED else 1
    return WaveUnions(blocks, waves, union, max(step_bytes, default=Fraction(0)), raster, group)


def _per_wave(grid: GridCost, sizes: Mapping, env: Env, wave_of: np.ndarray, waves: int,
              step_first) -> tuple[dict[str, Fraction], list[Fraction]]:
    """Bytes per tensor summed over the waves' unions, and per wave the bytes of its first
    step's union over the tensors (its whole union where the grid has no step loop)."""
    blocks = len(wave_of)
    at_step = dict(sizes)
    if grid.step_iterator is not None:
        at_step[grid.step_iterator.name] = sympy.Rational(substituted(step_first, sizes))
    union: dict[str, Fraction] = {}
    step_bytes = [Fraction(0)] * waves  # Fractions: an element may take half a byte
    for tile in grid.tiles:
        size = fraction_of(tile.element_bytes, sizes)
        volumes = _wave_volumes(*_boxes(tile.whole, sizes, env, blocks), wave_of, waves)
        union[tile.tensor] = size * int(volumes.sum())
        if tile.written:  # an inout tensor: its writes go back besides its reads
            written = _wave_volumes(*_boxes(tile.written, sizes, env, blocks), wave_of, waves)
            union[tile.tensor] += size * int(written.sum())
        if grid.step_iterator is None:  # nothing streams: a wave holds all it touches
            step = volumes
        elif tile.per_step:
            step = _wave_volumes(*_boxes(tile.per_step, at_step, env, blocks), wave_of, waves)
        else:
            continue  # not touched inside the step loop (C written after it)
        step_bytes = [total + size * int(v) for total, v in zip(step_bytes, step)]
    return union, step_bytes
