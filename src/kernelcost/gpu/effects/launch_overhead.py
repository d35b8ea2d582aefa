"""The launch effect: the launch overhead on the kernel's time.

- launch: factor = t / (t + launch), the share of the call the kernel computes in. t_model
  stays the kernel's time; the launch is added in t_min_with_launch, and this entry says what
  it costs. It reads the kernel's time, so it runs after t_model (stage CALL).
"""

from __future__ import annotations

from typing import ClassVar

import sympy

from ...algebra.quotients import cancel
from ...base.kinds import EffectCause
from ...base.records import record
from ...base.sentences import Sentence
from ...count.values import exact
from ..derates import Derate
from .context import CALL, EffectContext

LAUNCH = EffectCause("launch")


@record
class LaunchFinding:
    """The launch overhead against the kernel's time."""

    sentence: ClassVar[Sentence] = Sentence(
        "launch overhead {overhead_s:s} on a {kernel_s:s} kernel: {of_kernel:%} of the "
        "kernel's time, {of_total:%} of the total (t_min_with_launch; t_model is the kernel's "
        "time alone)")

    overhead_s: sympy.Expr
    kernel_s: sympy.Expr
    of_kernel: sympy.Expr  # overhead / kernel time
    of_total: sympy.Expr  # overhead / (kernel time + overhead)


class Launch:
    """The machine's launch overhead against the kernel's time."""

    name = LAUNCH
    stage = CALL
    findings = (LaunchFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        found = launch_derate(context.t_kernel, context.machine.launch_overhead_s)
        return (found,) if found is not None else ()


def launch_derate(t_kernel: sympy.Expr | None, overhead: float | None) -> Derate | None:
    """The launch overhead against the kernel's time: the chapter's 5 us on a 20 us kernel is
    25 % of the kernel's time and 20 % of the total (factor 0.8)."""
    if overhead is None or t_kernel is None:
        return None
    t_kernel, overhead = sympy.sympify(t_kernel), exact(overhead)
    if not t_kernel.is_number or t_kernel <= 0:
        return None
    of_kernel = overhead / t_kernel
    of_total = overhead / (t_kernel + overhead)
    return Derate(LAUNCH, cancel(1 - of_total),
                  LaunchFinding(overhead, t_kernel, of_kernel, of_total))
