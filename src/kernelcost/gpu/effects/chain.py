"""The chain effect: a block whose streaming loop is too short to overlap its loads with its
work runs them one after the other.

Inside a long streaming loop one step's loads hide behind another step's work, as the overlap
effect takes them. A block whose loop runs once or twice has no such steady state: its first
tile's load waits one global latency with nothing earlier to hide it behind, its work waits
for the tile's bytes, and its last step's work and output have no later load to hide behind
(FlashAttention-2's decode at L <= 256: the first K tile, then the MMAs, the softmax and the
output store). Blocks of equal work started together run that chain together (as fill and
drain takes them), so each round of resident blocks on the busiest SM exposes it once:

    t = t_before + rounds x latency + max(0, t_traffic + t_work - t_before) / steps

t_before the time the effects before this one left (the overlap's norm), t_traffic the largest
off-chip term (global memory, L2, a memory-side cache) and t_work the on-chip side as the
overlap effect takes it (the work terms' norm, with the shared traffic the computing warps
wait on), both before the overlap and the fill and drain. The first step's bytes and the last
step's work are 1/steps of those; what lies between them overlaps as before. At one step the
phases add: rounds x latency + t_traffic + t_work.

The loop is too short where it runs no more steps than its keep holds stages, plus one: the
prologue issues every load but the last before any work (a single buffer: one or two steps).
Beyond that the loop's own steady state is the overlap effect's, whose exponents were fitted
with longer loops. It acts on grids that run tensor work (a tile's MMAs) at numeric sizes.
No figure is fitted: the latency is the machine file's unloaded global one, the rest is the
roofs' times. What the spec does not state is left out: loads the first tile's address
depends on (a paged cache's block table), and the latencies of the last MMA, the softmax's
reductions and exponentials and the store, which no machine file states."""

from __future__ import annotations

from typing import ClassVar

import sympy

from ...base.kinds import EffectCause, TermKind, WorkClass
from ...base.levels import Level
from ...base.records import record
from ...base.sentences import Sentence
from ...count.values import exact
from ..derates import NEGLIGIBLE, Derate, Term, derated
from . import fill_drain, overlap
from .context import ROOFS, EffectContext

CHAIN = EffectCause("chain")

OFF_CHIP = frozenset({Level.GLOBAL, Level.L2, Level.MALL})
# the most steps a loop of single-buffered tiles runs with no step whose load hides behind
# another step's work: the first load waits on nothing earlier, the second is issued after
# the first step's tile arrived and before its last MMAs (FlashAttention-2's K, then V)
SHORT = 2


@record
class ChainFinding:
    """The rounds of resident blocks, each running its short loop's chain."""

    sentence: ClassVar[Sentence] = Sentence(
        "each block's streaming loop runs {steps:#step}, too few to hide its loads behind its "
        "work: {rounds:#round} on the busiest SM, each waiting {latency_s:s} for its first "
        "tile, then 1/{steps} of {traffic_s:s} of traffic and of {work_s:s} of work with "
        "nothing to overlap (blocks started together run the chain together), {chain_s:s} "
        "after the overlapped {before_s:s}")

    steps: int  # trips of the streaming loop
    rounds: sympy.Expr  # rounds of resident blocks on the busiest SM
    latency_s: sympy.Expr  # the global load latency
    traffic_s: sympy.Expr  # the largest off-chip term
    work_s: sympy.Expr  # the on-chip side: work and the shared traffic it waits on
    before_s: sympy.Expr  # t_before
    chain_s: sympy.Expr  # what the chain adds
    total_s: sympy.Expr  # t


class Chain:
    """Each round's exposed chain, where the streaming loop is too short to overlap it."""

    name = CHAIN
    stage = ROOFS
    findings = (ChainFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        occ, grid, machine = context.occupancy, context.cost.grid, context.machine
        load_latency = machine.latency(Level.GLOBAL)
        if (occ is None or occ.resident is None or grid is None or load_latency is None
                or grid.stream_steps is None or WorkClass.TENSOR not in context.cost.work):
            return ()
        steps, blocks = context.at(grid.stream_steps), context.at(grid.blocks)
        if not (steps.is_Integer and blocks.is_Integer and occ.resident.is_number
                and 1 <= steps <= SHORT and blocks > 0 and occ.resident >= 1
                and Level.GLOBAL in overlap.waited_levels(context)):
            return ()
        sides = _sides(context)
        if sides is None:
            return ()
        largest, before, traffic_s, work_s = sides
        busiest = -(-int(blocks) // machine.sm_count)
        rounds = sympy.ceiling(sympy.Rational(busiest) / sympy.Min(occ.resident, busiest))
        latency_s = exact(load_latency.cycles) / exact(load_latency.clock_Hz)
        chain_s = rounds * latency_s + sympy.Max(0, traffic_s + work_s - before) / steps
        total = before + chain_s
        if not total > before * (1 + NEGLIGIBLE):
            return ()
        finding = ChainFinding(int(steps), rounds, latency_s, traffic_s, work_s, before,
                               chain_s, total)
        return (Derate(CHAIN, sympy.sympify(largest.seconds) / total, finding, largest.key,
                       whole=True),)


def _sides(context: EffectContext
           ) -> tuple[Term, sympy.Expr, sympy.Expr, sympy.Expr] | None:
    """(the largest term, t_before, t_traffic, t_work), or None at symbolic sizes or where
    no off-chip term or no work term runs."""
    timed = [(term, sympy.sympify(derated(term, context.earlier).seconds))
             for term in context.terms]
    unmixed = [derate for derate in context.earlier
               if derate.cause not in (overlap.OVERLAP, fill_drain.FILL_DRAIN)]
    summed = overlap.serial_followers(context)
    alone = [(term, sympy.sympify(derated(term, unmixed).seconds)) for term in context.terms
             if term.key not in summed]
    if not all(time.is_number for _, time in [*timed, *alone]):
        return None  # an unset size: the effects act at the verdict's sizes
    off_chip = [time for term, time in alone if term.key in OFF_CHIP and time > 0]
    work = [time for term, time in alone if term.roof.kind == TermKind.WORK and time > 0]
    if not off_chip or not work:
        return None
    waited = overlap.waited_levels(context) - OFF_CHIP
    on_chip = [time for term, time in alone if term.key in waited and time > 0]
    units = overlap.norm(work, overlap.UNITS)
    work_s = overlap.norm([units, max(on_chip)], overlap.TRAFFIC) if on_chip else units
    largest, before = max(timed, key=lambda pair: pair[1])
    return largest, before, max(off_chip), work_s
