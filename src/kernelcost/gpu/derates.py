"""Stage: what lowers the roof. The chapter ends its roofline with what the model does not
capture; each such caveat kernelcost can put a number on becomes a Derate: a cause, a factor
(the fraction of the roof's rate the kernel keeps, 0 < factor <= 1) and the reasoning.

Derates are estimates. They enter t_model (the estimate), never t_bound (the lower bound no run
can beat): a derate may be wrong, a bound may not.

- launch: the launch overhead on the kernel's time. factor = t / (t + launch): the share of
  the call the kernel computes in. t_model stays the kernel's time; the launch is added in
  t_min_with_launch, and this entry says what it costs.

The other derates are effects, one module each (package effects)."""

from __future__ import annotations

from collections.abc import Callable

import sympy

from ..algebra.quotients import cancel
from ..base.records import record
from ..base.units import si
from ..count.values import exact

At = Callable[[sympy.Expr], sympy.Expr]  # an expression at the sizes of a verdict

LAUNCH = "launch"


@record
class Derate:
    cause: str  # launch, or an effect's: latency | sectors | dram_sectors | bank_conflicts
    factor: sympy.Expr  # the fraction of the roof's rate kept, in (0, 1]
    detail: str  # the reasoning, with its figures
    level: str | None = None  # the memory level whose bandwidth the derate scales


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
    detail = (f"launch overhead {si(float(overhead), 's')} on a {si(float(t_kernel), 's')} "
              f"kernel: {_percent(of_kernel)} of the kernel's time, {_percent(of_total)} of the "
              "total (t_min_with_launch; t_model is the kernel's time alone)")
    return Derate(LAUNCH, cancel(1 - of_total), detail)


def _percent(value: sympy.Expr) -> str:
    return f"{float(value) * 100:.3g} %"
