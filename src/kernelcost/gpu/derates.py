"""Stage: what lowers the roof. The chapter ends its roofline with what the model does not
capture; each such caveat kernelcost can put a number on becomes a Derate: a cause, a factor
(the fraction of the roof's rate the kernel keeps, 0 < factor <= 1) and the reasoning.

Derates are estimates. They enter t_model (the estimate), never t_bound (the lower bound no run
can beat): a derate may be wrong, a bound may not. Each comes from an effect, one module each
(package effects), the launch overhead among them."""

from __future__ import annotations

from collections.abc import Callable

import sympy

from ..base.records import record

At = Callable[[sympy.Expr], sympy.Expr]  # an expression at the sizes of a verdict


@record
class Derate:
    cause: str  # an effect's: latency | sectors | dram_sectors | bank_conflicts | launch
    factor: sympy.Expr  # the fraction of the roof's rate kept, in (0, 1]
    detail: str  # the reasoning, with its figures
    level: str | None = None  # the memory level whose bandwidth the derate scales

