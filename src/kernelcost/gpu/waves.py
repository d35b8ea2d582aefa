"""HBM traffic of a parallel spec by waves (`t_model`), and the busiest SM's share of unequal
blocks (`t_bound`), at numeric sizes.

Blocks start in raster order and run `sms x resident` at a time: a wave. Blocks of one wave
that touch the same elements of a global tensor share them through L2, so HBM sees each
wave's distinct elements once, provided what the wave touches in one step of its innermost
sequential loop outside the keeps (k0 in a GEMM), times the pipeline stages, fits in usable
L2. Where it does not, blocks evict each other's tiles before reuse: L2 holds usable / step of
the working set, so that share of the fills beyond the wave's distinct elements still hits and
HBM sees the rest (partial residency, from the wave union at a step that fits to every fill as
the step outgrows L2).
An `inout` tensor the blocks read and write crosses twice: its first contents are read from
HBM and its results written back, so a wave counts the union of its written boxes besides
the union of all it touches (`rope`'s q and k, rotated in place); an `out` tensor's reads get
what the kernel wrote and cross with its writes, once.

The blocks are counted by classes (block_classes, wave_classes): per axis a few runs of equal
or affine blocks, per wave a few products of ranges, so that time and memory do not grow with
the grid. Where the classes do not hold (a triangular grid, a box bound of two grid indices,
a min of curves), grids of at most ENUMERATE_AT_MOST blocks are enumerated block by block
(block_enumeration); larger ones raise Unclassified with the reason, and the caller keeps a
bound."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import sympy

from ..base.kinds import Raster, WaveRule
from ..base.records import record
from ..count.cost import GridCost
from . import block_enumeration, wave_classes
from .block_classes import (
    ENUMERATE_AT_MOST,
    WaveUnions,
    amount_classes,
    busiest_amount,
    fraction_of,
    grid_axes,
    numeric_sizes,
    substituted,
    whole,
)
from .block_enumeration import per_block, raster_order
from .split_grid import unsplit
from .unclassified import TooLarge, Unclassified, Why

__all__ = ["ENUMERATE_AT_MOST", "Unclassified", "WaveEstimate", "busiest_share", "estimate",
           "per_block", "raster_order", "wave_unions"]


@record
class WaveEstimate:
    rule: WaveRule
    waves: int  # ceil(B / (sms * resident))
    wave_blocks: int  # sms * resident
    bytes_by_tensor: dict[str, Fraction]  # estimated HBM bytes per global tensor
    total_B: Fraction
    step_B: Fraction  # largest over waves of the per-step union bytes x stages
    usable_l2_B: float
    blocks: int
    sms: int
    resident: int  # blocks per SM at once
    raster: Raster  # the grid's, as the spec asks it
    group: int  # a grouped raster's rows of blocks per group (0 for the others)
    row_order_used: bool  # a grouped raster on a grid it cannot group: row order instead
    inexact: tuple[str, ...]  # tensors whose tiles are bounding boxes: an upper bound
    stepped: bool  # the working set is one step of a sequential loop's, not the whole
    step_union_B: Fraction  # the largest wave's working set, before the stages
    stages: int


# -- the estimate -------------------------------------------------------------------------

def estimate(grid: GridCost, values: Mapping[sympy.Symbol, object], sms: int,
             resident: int, *, usable_l2_B: float, stages: int,
             fills_B: Fraction | Mapping[str, Fraction],
             step_first: object = 0) -> WaveEstimate:
    """HBM bytes by the wave rule at the given sizes, waves of `sms` x `resident` blocks.
    A wave's step of `stages` pipeline stages fits in `usable_l2_B` or not, and where not the
    answer is `fills_B`: the keep fills' L2 traffic (a total, or per tensor).
    `step_first`: the step iterator's first value (k0 in 0..K: 0), where the fit test looks.
    Unclassified where the classes do not hold and the grid is too large to enumerate."""
    if sms < 1 or resident < 1:
        raise ValueError(f"a wave needs blocks: {sms} SMs x {resident} resident")
    grid = unsplit(grid, dict(values))  # a split of 1: the unsplit grid, as grid_verdict's
    sizes = numeric_sizes(values)
    wave_blocks = sms * resident
    found = wave_unions(grid, sizes, wave_blocks, step_first)
    step_B = found.step_union * stages
    if step_B > Fraction(usable_l2_B):
        rule, by_tensor, total = WaveRule.PARTIAL, *_partial(found.by_tensor, fills_B,
                                                            Fraction(usable_l2_B) / step_B)
    else:
        rule = WaveRule.ONE_WAVE if found.waves <= 1 else WaveRule.WAVE_UNION
        by_tensor, total = found.by_tensor, sum(found.by_tensor.values(), Fraction(0))
    group = int(fraction_of(grid.group, sizes)) if grid.raster == Raster.GROUPED else 0
    return WaveEstimate(rule, found.waves, wave_blocks, by_tensor, total, step_B, usable_l2_B,
                        found.blocks, sms, resident, grid.raster, group,
                        found.raster != grid.raster,
                        tuple(tile.tensor for tile in grid.tiles if not tile.exact),
                        grid.step_iterator is not None, found.step_union, stages)


def _partial(unions: Mapping[str, Fraction], fills_B: Fraction | Mapping[str, Fraction],
             resident: Fraction) -> tuple[dict[str, Fraction], Fraction]:
    """HBM bytes where a wave's step does not fit usable L2: L2 holds `resident` (usable /
    step) of the working set, so that share of the re-reads beyond each wave's distinct
    elements hits there and the rest misses; at a step that just fits, the wave union, and
    the fills as the step outgrows L2. Per tensor where the fills are given per tensor."""
    missed = 1 - resident

    def between(union: Fraction, fills: Fraction) -> Fraction:
        return union + max(fills - union, Fraction(0)) * missed

    if isinstance(fills_B, Mapping):
        by_tensor = {name: between(unions.get(name, Fraction(0)), fills)
                     for name, fills in fills_B.items()}
        return by_tensor, sum(by_tensor.values(), Fraction(0))
    return {}, between(sum(unions.values(), Fraction(0)), Fraction(fills_B))


def wave_unions(grid: GridCost, sizes: Mapping[str, sympy.Rational], wave_blocks: int,
                step_first: object = 0) -> WaveUnions:
    """What the waves touch: by classes, else block by block where the grid is small."""
    try:
        return wave_classes.wave_unions(grid, sizes, wave_blocks, step_first)
    except Unclassified as why:
        _enumerable(grid, sizes, why)
    return block_enumeration.wave_unions(grid, sizes, wave_blocks, step_first)


def busiest_share(grid: GridCost, values: Mapping[sympy.Symbol, object], amount: sympy.Expr,
                  sms: int) -> int | None:
    """The most the busiest SM runs of a per-block amount (at numeric sizes) at least: the
    largest block, or the ceil(B / SMs) smallest blocks together, whichever is more. None
    where some block's amount is not a whole number or there are no blocks. Unclassified
    where the classes do not hold and the grid is too large to enumerate."""
    sizes = numeric_sizes(values)
    try:
        try:
            axes = grid_axes(grid, sizes)
            classes = amount_classes(axes, substituted(amount, sizes, frozenset(grid.iterators)))
            share = busiest_amount(classes, sms)
        except Unclassified as why:
            _enumerable(grid, sizes, why)
            amounts = sorted(int(a) for a in per_block(grid, values, amount))
            if not amounts:
                return None
            return max(amounts[-1], sum(amounts[:-(-len(amounts) // sms)]))
    except ValueError:
        return None
    if share is None or not whole(classes):
        return None
    return int(share)


def _enumerable(grid: GridCost, sizes: Mapping[str, sympy.Rational],
                why: Unclassified) -> None:
    """Nothing where the grid is small enough to enumerate; else Unclassified, saying why
    and how many blocks there are."""
    reason = why.reason
    assert isinstance(reason, Why)  # the class engines give the reason; only here is it sized
    try:
        blocks = fraction_of(substituted(grid.blocks, sizes).doit(), sizes)
    except (TypeError, ValueError):
        raise Unclassified(TooLarge(reason, None, ENUMERATE_AT_MOST)) from why
    if blocks > ENUMERATE_AT_MOST:
        raise Unclassified(TooLarge(reason, int(blocks), ENUMERATE_AT_MOST)) from why

