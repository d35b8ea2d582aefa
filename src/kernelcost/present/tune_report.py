"""`tune`: a ranking of tiles and schedules as text and as JSON. No arithmetic: the figures
are the ranking's."""

from __future__ import annotations

import itertools

from ..answers.rejections import (
    BrokenBound,
    BrokenFact,
    EmptyGrid,
    HeaderCount,
    RegistersOver,
    Rejected,
    Rejection,
    SharedHeld,
    SharedOver,
)
from ..answers.tune import Ranking, Row, own_rank
from ..base.units import counted, si
from .roofs import device_word, model_roof_name

TIE_RULE = ("equal t_model (to 1e-9): the smaller t_bound; equal t_bound: fewer bytes on "
            "chip, then the squarer tile (smaller max/min of the varied sizes), then smaller "
            "values in the order given")
REJECTED_TEXT = {Rejected.ASSUMPTION: "breaks an `assume` fact",
                 Rejected.HEADER: "a count of its parallel header is not a positive whole "
                                  "number",
                 Rejected.GRID: "the grid holds no block",
                 Rejected.SHARED: "does not fit in shared memory",
                 Rejected.REGISTERS: "does not fit in registers",
                 Rejected.OCCUPANCY: "occupancy 0",
                 Rejected.THREADS: "more threads or warps than a block or an SM may have",
                 Rejected.CLUSTER: "a cluster the machine does not form or the grid does "
                                   "not divide into"}


def _values_text(values: tuple[int, ...]) -> str:
    """`16..512:16 (32 values)` for evenly spaced values, else the values."""
    if len(values) > 3:
        step = values[1] - values[0]
        if all(b - a == step for a, b in itertools.pairwise(values)):
            return f"{values[0]}..{values[-1]}:{step} ({len(values)} values)"
    return ",".join(map(str, values))


def text_lines(ranking: Ranking) -> list[str]:
    """The ranking as `kernelcost tune` prints it: the candidates, the table of the best, the
    rejected ones, where the spec's own configuration ranks, and the Pareto set if asked."""
    names = ranking.parameters
    fixed = ", ".join(f"{name}={value:g}" for name, value in ranking.fixed)
    pieces = [f"{name} {_values_text(values)}" for name, values in zip(names, ranking.values)]
    if ranking.rasters:
        pieces.append("raster " + ",".join(ranking.rasters))
    varied = "; ".join(pieces)
    rate = ranking.candidates / ranking.seconds if ranking.seconds > 0 else float("inf")
    if ranking.shapes:
        fixed = "; ".join(", ".join(f"{name}={value:g}" for name, value in shape)
                          for shape in ranking.shapes)
        fixed = f"{len(ranking.shapes)} shapes, t_model and t_bound their sums: {fixed}"
    lines = [f"tune: {ranking.kernel} on {ranking.machine}, varying {varied}: "
             f"{counted(ranking.candidates, 'candidate', grouped=True)}, "
             f"{ranking.fitting:,} fit" + (f"; with {fixed}" if fixed else ""),
             f"evaluated and ranked by t_bound in {ranking.seconds * 1e3:.1f} ms"
             + (f" ({rate:,.0f} candidates/s)" if ranking.candidates >= 10_000 else "")]
    if ranking.rescored:  # a line of its own: its time's width never moves another's wrap
        lines.append(f"the best {ranking.rescored:,} re-scored by the analysis for t_model in "
                     f"{ranking.rescore_seconds * 1e3:.0f} ms")
    lines.append("")
    raster = ["raster"] if ranking.rasters else []
    header = ["rank", *names, *raster, "t_model", "t_bound", "binding (model)", "blocks",
              "per SM", "waves", "on chip"]
    table = [header]
    for position, row in enumerate(ranking.top, 1):
        table.append([str(position), *_cells(row, ranking)])
    widths = [max(len(r[c]) for r in table) for c in range(len(header))]
    lines += ["  ".join(cell.rjust(w) for cell, w in zip(r, widths)) for r in table]
    lines.append(f"ties: {TIE_RULE}")
    if not ranking.top:
        lines.append("no candidate fits")
    elif ranking.rescored:
        lines.append(_proof_line(ranking))
    counts = ", ".join(f"{REJECTED_TEXT[reason]} {count:,}"
                       for reason, count in ranking.rejected_by)
    if ranking.rejected:
        lines.append(f"rejected ({counts}); the first of each reason:")
        for rejection in ranking.rejected:
            where = " ".join(f"{n}={v}" for n, v in zip(names, rejection.values))
            lines.append(f"  {where}: {rejection_text(rejection)}")
    lines += _own_lines(ranking)
    lines += _pareto_lines(ranking)
    return lines


def _cells(row: Row, ranking: Ranking) -> list[str]:
    grid = ([f"{row.blocks:,}", str(row.resident), str(row.waves)] if ranking.parallel
            else ["-", "-", "-"])  # a spec without a grid has no blocks
    model = "-" if row.t_model is None else _time(row.t_model)
    binding = (device_word(row.binding) if row.model_binding is None
               else model_roof_name(row.model_binding))
    raster = [str(row.raster)] if ranking.rasters else []
    return [*map(str, row.values), *raster, model, _time(row.t_bound), binding,
            *grid, f"{row.on_chip_B / 1024:g} KiB"]


def _time(seconds: float) -> str:
    """A time in ms to 4 decimals (the tables' common unit) from 0.1 ms up; under it, with
    its own prefix to 4 digits: copy's t_bound of 2.4 ns printed `0.0000 ms`, and 746 ns and
    748 ns both `0.0007 ms`."""
    return f"{seconds * 1e3:.4f} ms" if seconds >= 1e-4 else si(seconds, "s", 4)


def _proof_line(ranking: Ranking) -> str:
    if ranking.proven:
        return ("proven: no candidate left out of the re-scoring has a t_bound under the last "
                "t_model shown, and t_model >= t_bound")
    return (f"the top by t_model of the {ranking.rescored:,} re-scored (the best by t_bound); "
            "others whose t_bound is under the last t_model shown were not re-scored "
            "(--rescore N re-scores more)")


def _own_lines(ranking: Ranking) -> list[str]:
    if ranking.own is None:
        return []
    pieces = [f"{n}={v}" for n, v in zip(ranking.parameters, ranking.own)]
    if ranking.own_raster is not None:
        pieces.append(f"raster={ranking.own_raster}")
    spelled = ", ".join(pieces)
    row, first = ranking.own_row, ranking.top[0] if ranking.top else None
    position = own_rank(ranking)
    if not ranking.rescored and ranking.top:  # --rescore 0: no t_model to place it by
        where = (f"ranks #{position} by t_bound" if position is not None
                 else "is not among the rows shown")
        return [f"the spec's own configuration ({spelled}) {where} (--rescore 0: ranked by "
                "t_bound alone, none re-scored)"]
    if row is None or first is None or row.t_model is None or first.t_model is None:
        return [f"the spec's own configuration ({spelled}) is not among the fitting "
                "candidates"]
    line = (f"the spec's own configuration ({spelled}) ranks #{ranking.own_place} of the "
            f"{ranking.rescored:,} re-scored: t_model {_time(row.t_model)}, t_bound "
            f"{_time(row.t_bound)}")
    if position is not None:
        return [line]
    if row.t_model > first.t_model * (1 + 1e-9):
        return [line + f"; #1's t_model is {_time(first.t_model)}"]
    if row.t_bound > first.t_bound * (1 + 1e-9):
        return [line + f"; it ties #1 on t_model, and #1's t_bound is "
                       f"{_time(first.t_bound)}"]
    return [line + f"; it ties #1 on t_model and t_bound, and is placed below by the tie "
                   f"rule: {row.on_chip_B / 1024:g} KiB on chip against "
                   f"{first.on_chip_B / 1024:g} KiB"]


def _pareto_lines(ranking: Ranking) -> list[str]:
    if not ranking.pareto:
        return []
    lines = [f"Pareto set of t_bound against bytes on chip "
             f"({counted(len(ranking.pareto), 'candidate', grouped=True)}, fewest bytes first):"]
    for point in ranking.pareto:
        where = " ".join(f"{n}={v}" for n, v in zip(ranking.parameters, point.values))
        lines.append(f"  {where}: t_bound {_time(point.t_bound)}, "
                     f"{point.on_chip_B / 1024:g} KiB on chip")
    return lines


_NEGATED = {"<=": ">", "<": ">=", ">=": "<", ">": "<="}


def rejection_text(rejection: Rejection) -> str:
    """Why a candidate is left out, with its figures where it has some."""
    figures = rejection.figures
    if isinstance(figures, BrokenFact):
        return (f"breaks `assume {figures.divisor} | {figures.dividend}` "
                f"({figures.divisor_value:g} does not divide {figures.dividend_value:g})")
    if isinstance(figures, BrokenBound):
        relation = figures.relation
        return (f"breaks `assume {relation.lhs} {relation.rel_op} {relation.rhs}` "
                f"({figures.left_value:g} {_NEGATED[relation.rel_op]} "
                f"{figures.right_value:g})")
    if isinstance(figures, HeaderCount):
        return f"{figures.what} is {figures.value:g}, not a positive whole number"
    if isinstance(figures, EmptyGrid):
        return f"the grid holds {figures.blocks:g} blocks: a launch needs at least one"
    if isinstance(figures, SharedOver):
        return (f"does not fit in shared memory: {figures.needed_B / 1024:g} KiB per block, "
                f"{figures.allowed_B / 1024:g} KiB allowed")
    if isinstance(figures, SharedHeld):
        return f"does not fit in shared memory: {figures.held_B / 1024:g} KiB held"
    if isinstance(figures, RegistersOver):
        return (f"does not fit in registers: a block needs {figures.needed:g} registers, "
                f"{figures.allowed:g} allowed")
    return REJECTED_TEXT[rejection.reason]


def json_object(ranking: Ranking) -> dict:
    """`tune --json`: the ranking in SI base units (s, B)."""
    def row_object(row: Row) -> dict:
        return {"values": dict(zip(ranking.parameters, row.values)),
                "raster": None if row.raster is None else str(row.raster),
                "t_model_s": row.t_model, "t_bound_s": row.t_bound,
                "analysis_t_bound_s": row.analysis_t_bound,
                "bound_by": device_word(row.binding),
                "model_bound_by": (None if row.model_binding is None
                                   else model_roof_name(row.model_binding)),
                "blocks": row.blocks, "resident_per_sm": row.resident, "waves": row.waves,
                "on_chip_B": row.on_chip_B,
                "shapes": [{"t_model_s": times.t_model, "t_bound_s": times.t_bound,
                            "analysis_t_bound_s": times.analysis_t_bound}
                           for times in row.shapes]}

    return {
        "kernel": ranking.kernel,
        "machine": ranking.machine,
        "parameters": list(ranking.parameters),
        "values": {name: list(values) for name, values in zip(ranking.parameters,
                                                              ranking.values)},
        "rasters": [str(raster) for raster in ranking.rasters],
        "fixed": dict(ranking.fixed),
        "shapes": [dict(shape) for shape in ranking.shapes],
        "candidates": ranking.candidates,
        "points": ranking.points,
        "fitting": ranking.fitting,
        "rejected": {str(reason): count for reason, count in ranking.rejected_by},
        "search_s": ranking.seconds,
        "rescored": ranking.rescored,
        "rescore_s": ranking.rescore_seconds,
        "proven": ranking.proven,
        "top": [row_object(row) for row in ranking.top],
        "own": None if ranking.own_row is None else {
            "place": ranking.own_place, **row_object(ranking.own_row)},
        "pareto": [{"values": dict(zip(ranking.parameters, point.values)),
                    "t_bound_s": point.t_bound, "on_chip_B": point.on_chip_B}
                   for point in ranking.pareto],
    }
