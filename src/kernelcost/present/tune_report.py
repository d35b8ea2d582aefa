"""`tune`: a ranking of tile sizes as text. No arithmetic: the figures are the ranking's."""

from __future__ import annotations

import numpy

from ..analysis.api import Spec
from ..answers.rejections import (
    BrokenFact,
    RegistersOver,
    Rejected,
    Rejection,
    SharedHeld,
    SharedOver,
)
from ..answers.tune import Ranking, own_rank
from .roofs import device_word

TIE_RULE = ("equal t_bound (to 1e-9): fewer bytes on chip, then the squarer tile "
            "(smaller max/min of the varied values), then smaller values in the order given")
REJECTED_TEXT = {Rejected.ASSUMPTION: "breaks an `assume` fact",
                 Rejected.SHARED: "does not fit in shared memory",
                 Rejected.REGISTERS: "does not fit in registers",
                 Rejected.OCCUPANCY: "occupancy 0"}


def text_lines(ranking: Ranking, values: numpy.ndarray, spec: Spec) -> list[str]:
    """The ranking as `kernelcost tune` prints it: the candidates, the table of the best, the
    rejected ones, and where the spec's own values rank."""
    names = ranking.parameters
    fixed = ", ".join(f"{name}={value:g}" for name, value in ranking.fixed)
    rate = ranking.candidates / ranking.seconds if ranking.seconds > 0 else float("inf")
    lines = [f"tune: {ranking.kernel} on {ranking.machine}, varying {', '.join(names)} over "
             f"{' '.join(f'{v:g}' for v in values)}: {ranking.candidates:,} candidates, "
             f"{ranking.fitting:,} fit; with {fixed}",
             f"evaluated and ranked in {ranking.seconds * 1e3:.1f} ms"
             + (f" ({rate:,.0f} candidates/s)" if ranking.candidates >= 10_000 else ""), ""]
    header = ["rank", *names, "t_bound", "binding", "blocks", "per SM", "waves", "on chip"]
    table = [header]
    for position, row in enumerate(ranking.top, 1):
        grid = ([f"{row.blocks:,}", str(row.resident), str(row.waves)] if ranking.parallel
                else ["-", "-", "-"])  # a spec without a grid has no blocks
        table.append([str(position), *map(str, row.values), f"{row.t_bound * 1e3:.4f} ms",
                      device_word(row.binding), *grid, f"{row.on_chip_B / 1024:g} KiB"])
    widths = [max(len(r[c]) for r in table) for c in range(len(header))]
    lines += ["  ".join(cell.rjust(w) for cell, w in zip(r, widths)) for r in table]
    lines.append(f"ties: {TIE_RULE}")
    if not ranking.top:
        lines.append("no candidate fits")
    counts = ", ".join(f"{REJECTED_TEXT[reason]} {count:,}"
                       for reason, count in ranking.rejected_by)
    if ranking.rejected:
        lines.append(f"rejected ({counts}); the first of each reason:")
        for rejection in ranking.rejected:
            where = " ".join(f"{n}={v}" for n, v in zip(names, rejection.values))
            lines.append(f"  {where}: {rejection_text(rejection)}")
    own = own_rank(ranking, spec)
    defaults = {str(p): v for p, v in spec.checked.defaults.items()}
    if all(n in defaults for n in names):
        spelled = ", ".join(f"{n}={defaults[n]}" for n in names)
        lines.append(f"the spec's own values ({spelled}) rank "
                     + (f"#{own}" if own else f"below the top {len(ranking.top)}")
                     + f" of {ranking.fitting:,}")
    lines.append("not seen by t_bound: latency (pipeline stages, bytes in flight), so a deeper "
                 "k tile only costs bytes here; sectors and bank conflicts")
    return lines


def rejection_text(rejection: Rejection) -> str:
    """Why a candidate is left out, with its figures where it has some."""
    figures = rejection.figures
    if isinstance(figures, BrokenFact):
        return (f"breaks `assume {figures.divisor} | {figures.dividend}` "
                f"({figures.divisor_value:g} does not divide {figures.dividend_value:g})")
    if isinstance(figures, SharedOver):
        return (f"does not fit in shared memory: {figures.needed_B / 1024:g} KiB per block, "
                f"{figures.allowed_B / 1024:g} KiB allowed")
    if isinstance(figures, SharedHeld):
        return f"does not fit in shared memory: {figures.held_B / 1024:g} KiB held"
    if isinstance(figures, RegistersOver):
        return (f"does not fit in registers: its register arrays need {figures.needed:g} "
                f"registers per block, {figures.allowed:g} allowed")
    return REJECTED_TEXT[rejection.reason]
