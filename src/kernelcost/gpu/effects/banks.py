"""The bank-conflict effect on shared memory.

- bank_conflicts: a shared access of conflict degree d takes d times the wavefronts of a
  conflict-free one; factor = shared bytes / (those bytes + each access's bytes x (d - 1)).
"""

from __future__ import annotations

import sympy

from ...base.kinds import EffectCause
from ...base.levels import Level
from ...base.records import record
from ...count.cost import Cost
from ..derates import At, Derate
from ..transfer import Transfer
from .context import ROOFS, EffectContext

BANK_CONFLICTS = EffectCause("bank_conflicts")


@record
class BankFinding:
    """Shared memory serving more wavefronts than the bytes the spec counts need."""

    served_B: sympy.Expr  # the bytes of wavefronts: counted + each access's bytes x (d - 1)
    counted_B: sympy.Expr  # the shared bytes the spec counts
    worst: Transfer  # the access of the highest conflict degree (its `ratio`)


class BankConflicts:
    """Shared memory at the share of its wavefronts the accesses need."""

    name = BANK_CONFLICTS
    stage = ROOFS
    findings = (BankFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        found = bank_derate(context.transfers, context.cost, context.at)
        return (found,) if found is not None else ()


def bank_derate(found: tuple[Transfer, ...], cost: Cost, at: At) -> Derate | None:
    """The shared bandwidth kept under the bank conflicts of the lanes accesses."""
    at_shared = [t for t in found if t.access.level == Level.SHARED]
    waste = sum((t.waste_B for t in at_shared), sympy.Integer(0))
    if waste == 0:
        return None
    counted = at(cost.traffic.get(Level.SHARED, 0))
    if not counted.is_number or counted <= 0:
        return None
    worst = max(at_shared, key=lambda t: t.ratio)
    return Derate(BANK_CONFLICTS, counted / (counted + waste),
                  BankFinding(counted + waste, counted, worst), Level.SHARED)
