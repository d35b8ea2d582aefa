"""Waves in classes: in the interior of a grid, a wave and the one a period later touch as
many elements, so one period of waves stands for all.

The launch order repeats with the outermost axis of the raster (the first grid axis in row
and grouped order, the last in column order): `unit` blocks take one position of it (one row
of tiles; in a grouped raster one group of `group` rows). A wave of W blocks and the one
period = unit / gcd(W, unit) waves later start at the same place inside a unit, k units on
(k = period W / unit): their products of ranges (wave_pieces) are the same but for the outer
axis, moved by k positions (k group heights). The two unions are equal where every box is
invariant under that move along the outer axis: a tile's width does not change (a constant
piece), an interval's first and last index move together (affine pieces of one slope). So on
the longest run of outer positions where every box is so, whole units (whole groups) only,
the waves whose blocks all lie there take their period's representative; the waves at the
edges (a clipped last tile, a causal mask, a partial last group, the last partial wave) are
evaluated one by one."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from ..base.kinds import Raster
from .axis_classes import Pieces, Poly, aligned, degree
from .block_classes import GridAxes
from .wave_tables import AxisBox, AxisKind, BoxPlan

Array = np.ndarray


def alike_waves(axes: GridAxes, raster: Raster, group: int, wave_blocks: int,
                plans: Sequence[BoxPlan]) -> tuple[Array, Array]:
    """The waves to evaluate, and for each how many waves it stands for (its own included)."""
    blocks = axes.blocks
    waves = -(-blocks // wave_blocks)
    if waves < 4 or (raster == Raster.GROUPED and len(axes.counts) > 2):
        return _every(waves)  # a batched grouped raster (wave_pieces) repeats batch by batch
    outer = len(axes.counts) - 1 if raster == Raster.COLUMN else 0
    low, high = _longest_invariant_run(plans, outer, axes.counts[outer])
    if raster == Raster.GROUPED:
        unit = group * axes.counts[1]
        low, high = -(-low // group), min(high // group, axes.counts[0] // group)
    else:
        unit = blocks // axes.counts[outer]
    first = -(-low * unit // wave_blocks)
    last = min(high * unit // wave_blocks, blocks // wave_blocks)  # whole waves only
    period = unit // math.gcd(wave_blocks, unit)
    if last - first < 2 * period:
        return _every(waves)
    offsets = np.arange(period, dtype=np.int64)
    chosen = np.concatenate([np.arange(first), first + offsets, np.arange(last, waves)])
    weight = np.concatenate([np.ones(first, dtype=np.int64),
                             (last - first - offsets + period - 1) // period,
                             np.ones(waves - last, dtype=np.int64)])
    return chosen.astype(np.int64), weight


def _every(waves: int) -> tuple[Array, Array]:
    """Each wave for itself: made only where no period stands for them (at R = 1e15 rows,
    4.7e11 waves, the arrays made first were a MemoryError even where a period served)."""
    return np.arange(waves, dtype=np.int64), np.ones(waves, dtype=np.int64)


def _longest_invariant_run(plans: Sequence[BoxPlan], outer: int, count: int) -> tuple[int, int]:
    """The longest run of outer positions inside one piece of every box, where every box is
    invariant under a move (pieces are maximal: across a cut, some box changes)."""
    cuts = {0, count}
    bad: list[tuple[int, int]] = []
    for plan in plans:
        for part in plan.parts:
            if part.axis != outer:
                continue
            for start, stop, invariant in _runs(part):
                cuts |= {start, stop}
                if not invariant:
                    bad.append((start, stop))
    ordered = sorted(cuts)
    fine = [(start, stop) for start, stop in itertools.pairwise(ordered)
            if not any(a < stop and start < b for a, b in bad)]
    return max(fine, key=lambda run: run[1] - run[0], default=(0, 0))


def _runs(part: AxisBox) -> list[tuple[int, int, bool]]:
    """Runs of a box part along its axis, and whether a move leaves the union unchanged."""
    if part.kind == AxisKind.TILES:
        assert part.weight is not None
        return [(piece.start, piece.stop, degree(piece.poly) <= 0)
                for piece in part.weight.pieces]
    assert part.first is not None and part.last is not None
    functions: list[Pieces] = [part.first.pieces, part.last.pieces]
    return [(start, stop, _same_slope(first, last))
            for start, stop, (first, last) in aligned(functions)]


def _same_slope(first: Poly, last: Poly) -> bool:
    if degree(first) > 1 or degree(last) > 1:
        return False
    return (first[1] if len(first) > 1 else 0) == (last[1] if len(last) > 1 else 0)
