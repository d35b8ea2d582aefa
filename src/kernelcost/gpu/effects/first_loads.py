"""The first-loads effect: a block that states its instructions waits for its first loads
before it issues past them, and the blocks resident on an SM wait together.

A block of a row kernel (torch's softmax: load the row, reduce its max across the block, sum
its exponentials, reduce again, write) can do nothing with its data until its first pass's
loads arrive: its first reduction waits on every thread's loads, and a barrier holds each warp
there. Blocks of equal work started together reach that wait together (as fill and drain takes
them), so the SM's resident blocks run in rounds, and in each round nothing issues while the
round's first loads move: one global load latency, then the bytes every SM's resident blocks
read in that pass at the global rate the effects before this one left, less the caps of
Little's law and of the issue effect (the wait holds the latency, t_issue the instructions):

    rounds = ceil(blocks on the busiest SM / resident blocks)
    t_wait = global latency + min(blocks, SMs x resident) x first-pass bytes a block / rate
    t      = t_issue + rounds x t_wait

t_issue is the issue effect's time of the instructions the spec states (`instructions`), on
the busiest SM. The first pass is the first loop right inside the grid (GridCost.passes) that
reads global tensors, its bytes those tensors' boxes in one block. Later passes are not
counted: their loads either re-read registers or overlap other warps' issue. No figure is
fitted: the latency is the machine file's unloaded one (an under-estimate of a loaded wait).

factor = (the global term's time before any derate) / t, on the global term; it binds where it
caps the global rate below the issue effect's cap (derated takes the smallest). It acts at
numeric sizes on specs that state their instructions."""

from __future__ import annotations

from typing import ClassVar

import sympy

from ...base.kinds import EffectCause
from ...base.levels import Level
from ...base.records import record
from ...base.sentences import Sentence
from ...count.cost import Cost
from ...count.values import exact
from ..derates import At, Derate, derated, outlasts
from . import issue, latency
from .context import ROOFS, EffectContext

FIRST_LOADS = EffectCause("first_loads")


@record
class FirstLoadsFinding:
    """The rounds of resident blocks, each waiting for its first pass's loads."""

    sentence: ClassVar[Sentence] = Sentence(
        "each round of resident blocks waits for its first loads ({tensors}) before it "
        "issues past them: {rounds:#round} on the busiest SM, each {latency_s:s} of latency "
        "and {round_B:B} at {rate_Bps:B/s} ({wait_s:s}), after the instructions' {issue_s:s}")

    tensors: tuple[str, ...]  # what the first pass reads
    rounds: sympy.Expr  # rounds of resident blocks on the busiest SM
    latency_s: sympy.Expr  # the global load latency
    round_B: sympy.Expr  # what a round's blocks read in the first pass, over the device
    rate_Bps: sympy.Expr  # the global rate the earlier effects left
    wait_s: sympy.Expr  # t_wait
    issue_s: sympy.Expr  # t_issue
    total_s: sympy.Expr  # t_issue + rounds x t_wait


class FirstLoads:
    """The waits of each round of resident blocks for their first loads, after the issue."""

    name = FIRST_LOADS
    stage = ROOFS
    findings = (FirstLoadsFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        occ, cost, machine = context.occupancy, context.cost, context.machine
        global_term = next((term for term in context.terms if term.key == Level.GLOBAL), None)
        stated = issue.stated_issue(cost, machine, context.at)
        load_latency = machine.latency(Level.GLOBAL)
        if (occ is None or occ.resident is None or global_term is None or stated is None
                or load_latency is None or cost.grid is None or not occ.resident.is_number
                or occ.resident < 1):
            return ()
        first = first_pass(cost, context.at)
        if first is None:
            return ()
        tensors, block_B = first
        busiest, issue_s = stated
        resident = sympy.Min(occ.resident, busiest)
        rounds = sympy.ceiling(busiest / resident)
        at_once = sympy.Min(context.at(cost.grid.blocks), machine.sm_count * resident)
        # the achievable rate: Little's law and the issue cap are what this replaces
        rate = derated(global_term, [derate for derate in context.earlier
                                     if derate.cause not in (latency.LATENCY, issue.ISSUE)]).rate
        latency_s = exact(load_latency.cycles) / exact(load_latency.clock_Hz)
        round_B = at_once * block_B
        wait_s = latency_s + round_B / rate
        total = issue_s + rounds * wait_s
        global_s = context.at(global_term.seconds)
        if not outlasts(total, global_s):
            return ()
        return (Derate(FIRST_LOADS, global_s / total,
                       FirstLoadsFinding(tensors, rounds, latency_s, round_B, rate, wait_s,
                                         issue_s, total), Level.GLOBAL),)


def first_pass(cost: Cost, at: At) -> tuple[tuple[str, ...], sympy.Expr] | None:
    """(the tensors, their bytes in one block) of the first pass that reads global tensors;
    None where no pass does or the sizes leave them symbolic."""
    grid = cost.grid
    if grid is None or not grid.passes:
        return None
    boxes = {tile.tensor: at(sympy.Mul(*(last - first + 1 for first, last in tile.whole))
                             * tile.element_bytes) for tile in grid.tiles}
    tensors = next((names for names in grid.passes if all(name in boxes for name in names)),
                   None)
    if tensors is None:
        return None
    total = sum((boxes[name] for name in tensors), sympy.Integer(0))
    return (tensors, total) if total.is_number else None
