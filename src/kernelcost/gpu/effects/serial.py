"""The serial effect: roofs whose times add, as the spec's `serial` lines declare them (module
lang.serial_groups). Where a kernel's warps issue the softmax between their two MMAs with nothing to
hide it (FlashAttention-2: Shah et al. 2024, FlashAttention-3, §3), the tensor units wait for
the special-function and vector units, and the other way round: the group's time is the sum of
its terms, each at the rate the effects before this one left it.

factor = (the group's first term's time before any derate) / (the group's sum), on that term:
its time becomes the sum exactly, the others stay under it. It holds the earlier derates of
its term (Derate.whole), so it alone applies there. As every effect, it acts at the verdict's
sizes: a group whose times an unset size leaves symbolic gets none."""

from __future__ import annotations

import sympy

from ...algebra.quotients import cancel
from ...base.kinds import EffectCause, TermKey
from ...base.records import record
from ..derates import Derate, derated
from .context import ROOFS, EffectContext

SERIAL = EffectCause("serial")


@record
class SerialFinding:
    """A `serial` group: its terms' times, issued one after another."""

    times: tuple[tuple[TermKey, sympy.Expr], ...]  # (the term's key, its time after the earlier
    # derates), in the group's order


class Serial:
    """Each `serial` group's terms added, on the group's first term."""

    name = SERIAL
    stage = ROOFS
    findings = (SerialFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        found = []
        for group in context.cost.serial:
            members = [term for key in group for term in context.terms if term.key == key]
            if len(members) < 2:
                continue
            times = [sympy.sympify(derated(term, context.earlier).seconds) for term in members]
            if not all(time.is_number for time in times):
                continue  # an unset size: the effects act at the verdict's sizes
            total = sympy.Add(*times)
            first = members[0]
            finding = SerialFinding(tuple(
                (term.key, time) for term, time in zip(members, times, strict=True)))
            found.append(Derate(SERIAL, cancel(first.seconds / total), finding,
                                first.key, whole=True))
        return tuple(found)

