"""A spec's closed forms at numeric sizes, for the tests that count a kernel by hand."""

from __future__ import annotations

from pathlib import Path

import kernelcost


def counts_at(spec: Path, sizes: dict[str, int]):
    """(the Cost, the sizes given as its symbols, work by class, traffic by level) of the spec
    with its defaults and the sizes given put in."""
    cost = kernelcost.load(spec).cost()
    values = {symbol: sizes[symbol.name] for symbol in cost.parameters if symbol.name in sizes}
    work = {cls.value: int(expr.subs(cost.defaults).subs(values))
            for cls, expr in cost.work.items()}
    traffic = {level.value: int(expr.subs(cost.defaults).subs(values))
               for level, expr in cost.traffic.items()}
    return cost, values, work, traffic
