"""The fill-and-drain effect: what a block moves outside its streaming loop, which nothing of
its own hides.

A block of a streaming kernel (a GEMM's k0 loop, an attention's loop over key tiles) loads
some tiles once before the loop (an attention's query tile) and stores its output tile once
after it (the epilogue). Inside the loop one stage's copies hide behind another's work; before
the first stage and after the last there is no work of the block's to hide them. Blocks of
equal work started together reach those edges together, so each SM moves its edge bytes at
its share of the global bandwidth while its units wait:

    t_edge = (blocks on the busiest SM) x (edge bytes a block) x SMs sharing / (global rate)
    t      = max(t_before, t_loop + t_edge)

with t_loop the largest term once the edge bytes leave the global term, and the global rate
the one the effects before this one left. A memory-bound kernel's global term already holds
its edges, so t_loop + t_edge is its own time and nothing changes; a kernel bound by its
units waits t_edge more. No figure is fitted: bytes, SMs and the bandwidth the machine file
gives. The edge tensors are read off the block's tiles (GridCost.tiles): a tensor whose box in
one step of the streaming loop is its whole box (read once, before the loop), or that no step
touches (written after it). Only a pipelined loop has edges: a keep filled at each of its
steps.

factor = (the largest term's time before any derate) / t, on that term (Derate.whole: it
holds the earlier derates). It acts at numeric sizes on grids with a streaming loop."""

from __future__ import annotations

import functools
from typing import ClassVar

import sympy

from ...base.kinds import EffectCause
from ...base.levels import Level
from ...base.records import record
from ...base.sentences import Sentence
from ...count.cost import GridCost, TileBox
from ..derates import NEGLIGIBLE, Derate, Term, derated
from .context import ROOFS, EffectContext

FILL_DRAIN = EffectCause("fill_drain")


@record
class FillDrainFinding:
    """The bytes each block moves before and after its streaming loop, and what they cost."""

    sentence: ClassVar[Sentence] = Sentence(
        "each block moves {edge_B:B} ({tensors}) before or after its streaming loop ({step}), "
        "with no work of its own to hide it: {blocks:#block} on the busiest SM at 1/{sharing} "
        "of {rate_Bps:B/s} (blocks started together reach their edges together), {edge_s:s} "
        "after the loop's {loop_s:s}")

    tensors: tuple[str, ...]  # the edge tensors: read before the loop or written after it
    step: str  # the streaming loop's iterator
    edge_B: sympy.Expr  # a block's edge bytes (its first block's, the largest tile)
    blocks: int  # on the busiest SM
    sharing: int  # SMs at their edges together
    rate_Bps: sympy.Expr  # the global rate the earlier effects left
    edge_s: sympy.Expr  # t_edge
    loop_s: sympy.Expr  # t_loop
    together: sympy.Expr  # t_loop + t_edge (s)


class FillDrain:
    """Each block's loads before its streaming loop and stores after it, at its SM's share of
    the global bandwidth, added to the loop's time."""

    name = FILL_DRAIN
    stage = ROOFS
    findings = (FillDrainFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        grid = context.cost.grid
        if grid is None or context.occupancy is None or not pipelined(context):
            return ()
        edges = [tile for tile in grid.tiles if is_edge(tile)]
        global_term = next((term for term in context.terms if term.key == Level.GLOBAL), None)
        if not edges or global_term is None:
            return ()
        blocks = context.at(grid.blocks)
        edge_B = context.at(sympy.Add(*(tile_bytes(tile, grid) for tile in edges)))
        timed = [(term, sympy.sympify(derated(term, context.earlier).seconds))
                 for term in context.terms]
        if not (blocks.is_Integer and blocks > 0 and edge_B.is_number
                and all(time.is_number for _, time in timed)):
            return ()  # an unset size: the effects act at the verdict's sizes
        sms = context.machine.sm_count
        busiest, sharing = -(-int(blocks) // sms), min(int(blocks), sms)
        rate = sympy.sympify(derated(global_term, context.earlier).rate)
        edge_s = busiest * edge_B * sharing / rate
        largest, before = max(timed, key=lambda pair: pair[1])
        loop_s = max(_without_edges(term, time, blocks * edge_B) if term.key == Level.GLOBAL
                     else time for term, time in timed)
        together = loop_s + edge_s
        if together <= before * (1 + NEGLIGIBLE):
            return ()  # a memory-bound kernel: its global term holds its edges already
        finding = FillDrainFinding(tuple(tile.tensor for tile in edges), str(grid.step_iterator),
                                   edge_B, busiest, sharing, rate, edge_s, loop_s, together)
        return (Derate(FILL_DRAIN, sympy.sympify(largest.seconds) / together,
                       finding, largest.key, whole=True),)


def pipelined(context: EffectContext) -> bool:
    """The block streams its loop through a keep filled at each step (a GEMM's k0, an
    attention's key tiles): a pipeline with a first stage to fill and a last to drain. A
    loop of lanes copying through a shared array (a tiled transpose) has none."""
    grid = context.cost.grid
    step = None if grid is None else grid.step_iterator
    return step is not None and any(step in scope.outer_iterators
                                    for scope in context.cost.scopes)


def is_edge(tile: TileBox) -> bool:
    """A tensor the block moves outside its streaming loop: one step touches its whole box
    (read before the loop) or none of it (written after the loop)."""
    return not tile.per_step or tile.per_step == tile.whole


def tile_bytes(tile: TileBox, grid: GridCost) -> sympy.Expr:
    """The bytes of the tile's boxes at the grid's first block (a clipped edge block's tile
    is no larger): its reads or writes, and an `inout` tensor's writes besides."""
    return _first_block_bytes(tile, tuple(zip(grid.iterators, grid.lower_bounds, strict=True)))


# kept: every machine's verdict asks the same tiles of the same grid (subs rebuilds each box)
@functools.lru_cache(maxsize=256)
def _first_block_bytes(tile: TileBox, first_block: tuple[tuple[sympy.Symbol, sympy.Expr], ...]
                       ) -> sympy.Expr:
    first = dict(first_block)
    elements = sympy.Integer(0)
    for box in (tile.whole, tile.written):
        if box:
            elements += sympy.Mul(*(hi - lo + 1 for lo, hi in box)).subs(first)
    return elements * tile.element_bytes


def _without_edges(term: Term, time: sympy.Expr, edge_total_B: sympy.Expr) -> sympy.Expr:
    """The global term's time once the grid's edge bytes leave it (never below zero)."""
    amount = sympy.sympify(term.amount)
    return time * max(amount - edge_total_B, sympy.Integer(0)) / amount
