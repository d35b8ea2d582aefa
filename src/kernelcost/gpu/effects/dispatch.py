"""The dispatch effect: a grid of unequal blocks as the hardware hands them to the SMs, in
launch order (module gpu.launch_order), where the bound takes what every schedule gives the
busiest SM at least.

The blocks' durations are their amounts on the per-SM term that takes the longest; each
per-SM term (a work class or an on-chip level) is then what the busiest SM runs of it under
that assignment, against the bound's share of it (the mean, where the bound took the whole
grid on the whole machine). factor = (the
term's time before any derate) / (its time after the earlier derates x dispatched / bound's
share), on the term (Derate.whole: it holds the earlier derates). It acts at numeric sizes on
grids of at most BLOCKS_AT_MOST blocks (one by one in Python: a causal attention's few
thousand take milliseconds); a larger grid keeps the bound's share, whose tail is the smaller
the more blocks there are."""

from __future__ import annotations

import sympy

from ...base.kinds import EffectCause, TermKey, TermKind
from ...base.records import record
from ..derates import NEGLIGIBLE, Derate, derated
from .context import ROOFS, EffectContext

DISPATCH = EffectCause("dispatch")

BLOCKS_AT_MOST = 1 << 14


@record
class DispatchFinding:
    """What the busiest SM runs of a per-SM term when the blocks start in launch order."""

    key: TermKey  # the per-SM term: a work class or an on-chip level
    kind: TermKind  # work (FLOP) or traffic (B)
    blocks: int
    resident: int  # blocks an SM holds at once
    share: sympy.Expr  # what the bound gives the busiest SM (FLOP or B)
    dispatched: sympy.Expr  # what it runs in launch order (FLOP or B)


class Dispatch:
    """Each per-SM term at the busiest SM's amount in launch order."""

    name = DISPATCH
    stage = ROOFS
    findings = (DispatchFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        grid, occupancy, values = context.cost.grid, context.occupancy, context.values
        if grid is None or grid.equal_blocks or occupancy is None or values is None:
            return ()
        blocks = context.at(grid.blocks)
        if not blocks.is_Integer:  # an unset size: no launch order to follow
            return ()
        resident = context.at(occupancy.resident or 0)
        per_block_of = {**grid.work, **grid.traffic}  # the SM's work classes and on-chip levels
        per_sm = [term for term in context.terms if term.key in per_block_of]
        if not (per_sm and blocks.is_Integer and resident.is_Integer
                and 0 < blocks <= BLOCKS_AT_MOST and resident > 0):
            return ()
        # numpy: loaded only where a grid of unequal blocks meets a machine at numeric sizes
        from ..block_enumeration import launch_amounts
        from ..launch_order import assignment, busiest_sum

        keys = [term.key for term in per_sm]
        try:
            each = launch_amounts(grid, values, [per_block_of[key] for key in keys])
        except ValueError:  # an amount no whole number at some block
            return ()
        amounts = {key: amount.tolist() for key, amount in zip(keys, each, strict=True)}
        longest = max(per_sm, key=lambda term: sympy.sympify(term.seconds))
        sms = context.machine.sm_count
        placed = assignment(amounts[longest.key], sms, int(resident))
        found = []
        for term in per_sm:
            dispatched = sympy.Integer(busiest_sum(amounts[term.key], placed, sms))
            share = term.amount if getattr(term, "per_sm", False) else term.amount / sms
            if share == 0:  # a term of no work (fma beside a contraction on tensor units)
                continue
            ratio = dispatched / share
            if ratio <= 1 + NEGLIGIBLE:
                continue
            slower = sympy.sympify(derated(term, context.earlier).seconds) * ratio
            finding = DispatchFinding(term.key, term.roof.kind, int(blocks), int(resident),
                                      share, dispatched)
            found.append(Derate(DISPATCH, term.seconds / slower, finding, term.key,
                                whole=True))
        return tuple(found)
