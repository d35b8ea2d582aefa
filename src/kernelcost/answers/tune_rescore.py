"""The shortlist of `tune` re-scored by the analysis itself (answers.model.verdict at each
candidate's configuration, sympy at each), ranked by t_model: the rows `tune` shows and
whether they are proven the top of every fitting candidate (answers.tune's module doc)."""

from __future__ import annotations

import dataclasses

import numpy
import sympy

from ..algebra.sympy_scope import patched
from ..analysis.api import Spec
from ..base.kinds import Raster, Reuse
from ..base.records import record
from ..base.watchdog import BUDGET_VARIABLE, stage
from ..hardware.machine import Machine, Roof
from ..lang.sizes import refuse_header_sizes
from .model import verdict
from .search_chunks import Searched
from .search_results import point_at

GROUP = 8  # rows of blocks a group where a spec without one is given `raster=grouped`
# (Triton's GROUP_SIZE_M in its matmul tutorial)


@record
class ShapeTimes:
    t_bound: float  # s, the vectorised search's
    t_model: float | None  # s, the analysis's
    analysis_t_bound: float | None  # s


@record
class Row:
    values: tuple[int, ...]  # the varied parameters, in the order given
    raster: Raster | None  # the raster order, where it is varied
    t_bound: float  # s, the vectorised search's
    binding: Roof  # a level's bandwidth (HBM, L2, shared) or a ceiling (tensor, vector, SFU)
    t_model: float | None  # s, the analysis's at this configuration (None: no time)
    model_binding: Roof | None
    analysis_t_bound: float | None  # s, the analysis's t_bound, which t_bound must equal
    resident: int
    waves: int
    blocks: int
    on_chip_B: float  # shared + registers one block holds
    shapes: tuple[ShapeTimes, ...] = ()  # with several shapes: each one's (the times above
    # are their sums; blocks, residency, waves and binding are the first shape's)


@record
class Space:
    """What is varied: names as given, the parameters they are, the values of each."""

    names: tuple[str, ...]
    symbols: tuple[str, ...]  # parameter names (a schedule word's capitals)
    axes: tuple[numpy.ndarray, ...]
    rasters: tuple[Raster, ...]
    sizes: tuple[bool, ...]  # a size of the spec (True) or a schedule setting


def candidate_point(space: Space, searched: Searched, index: int) -> tuple[int, ...]:
    return point_at(space.axes, searched.shape, index)


@record
class Ranked:
    rows: tuple[Row, ...]  # every candidate re-scored, best first
    scored: numpy.ndarray  # the candidates re-scored with every raster order
    own_place: int | None = None  # the spec's own configuration among `rows`, from 1
    own_row: Row | None = None

    def proven_for(self, top: int, searched: Searched, bounds: bool) -> bool:
        """Whether the first `top` rows are the top by t_model of every fitting candidate:
        the best t_bound of those not re-scored is no less than the last t_model shown (or
        none is left). `bounds`: whether the search's t_bound bounds t_model from below,
        which it does where blocks are equal (the first block stands for all)."""
        shown = self.rows[:top]
        if not bounds or not shown or any(row.t_model is None for row in shown):
            return False
        kept = searched.kept.where(searched.shortlist)
        left = kept.t_bound[~numpy.isin(kept.index, self.scored)]
        best_left = min(float(left.min(initial=numpy.inf)), searched.dropped_best)
        if best_left == numpy.inf:
            return True
        return len(shown) == top and shown[-1].t_model is not None and \
            shown[-1].t_model <= best_left


@record
class Scoring:
    """What re-scoring a candidate reads: the opened spec, the machine, the values not
    varied, the space and what the search kept of it."""

    spec: Spec
    machine: Machine
    fixes: list[dict]  # each shape's values not varied
    space: Space
    searched: Searched

    def shape_bounds(self, index: int) -> list[float]:
        kept = self.searched.kept
        return [float(t) for t in kept.shape_bounds[:, kept.at(index)]]


def rescored(scoring: Scoring, order: numpy.ndarray, rescore: int,
            own: tuple[int, Raster | None] | None) -> Ranked:
    """The candidates re-scored (the `rescore` best by t_bound, and the spec's own
    configuration), ranked by t_model, then by their place in `order` (module doc)."""
    rasters = scoring.space.rasters or (None,)
    chosen = list(order[:max(rescore // len(rasters), 1)] if rescore > 0 else order)
    costs = {raster: _with_raster(scoring.spec.cost(Reuse.SPEC), raster)
             for raster in rasters}
    picked = [(int(index), raster) for index in chosen for raster in rasters]
    if own is not None and own not in picked and rescore > 0:
        picked.append(own)
    if rescore > 0:  # what a budget that runs out here names: the analyses asked for
        shapes = len(scoring.fixes)
        stage(f"re-scoring {len(picked)} candidates by the analysis"
              + (f" at each of {shapes} shapes" if shapes > 1 else ""),
              hint="re-score fewer candidates (a smaller --rescore"
              + (", fewer --shape" if shapes > 1 else "")
              + f") or give it longer with {BUDGET_VARIABLE}=SECONDS")
    else:
        stage(f"reading {len(picked)} candidates' rows off the search")
    with patched():
        rows = [_row(scoring, index, raster, costs[raster] if rescore > 0 else None)
                for index, raster in picked]
    scored = numpy.asarray(chosen, dtype=numpy.int64) if rescore > 0 else order[:0]
    if rescore <= 0:
        return Ranked(tuple(rows), scored)
    least = min((r.t_model for r in rows if r.t_model is not None), default=1.0)
    places = sorted(range(len(rows)), key=lambda p: (
        rows[p].t_model is None, round((rows[p].t_model or 0) / least, 9), p))
    own_place = places.index(picked.index(own)) + 1 if own in picked else None
    own_row = rows[picked.index(own)] if own in picked else None
    return Ranked(tuple(rows[p] for p in places), scored, own_place, own_row)


def _with_raster(cost, raster: Raster | None):
    """The counted spec with its blocks started in `raster` order (None: its own)."""
    if raster is None or cost.grid is None:
        return cost
    group = cost.grid.group
    if raster == Raster.GROUPED and group is None:
        group = sympy.Integer(GROUP)
    return dataclasses.replace(cost, grid=dataclasses.replace(cost.grid, raster=raster,
                                                              group=group))


def _row(scoring: Scoring, index: int, raster: Raster | None, cost) -> Row:
    """Candidate `index` as a row, re-scored by the analysis on `cost` (None: not)."""
    spec, space, searched = scoring.spec, scoring.space, scoring.searched
    chosen = candidate_point(space, searched, index)
    times: list[tuple[float, float] | None] = []  # (t_model, t_bound) a shape
    model_binding = None
    at = {spec.parameters[s]: sympy.Integer(v) for s, v in zip(space.symbols, chosen)}
    for fixed in scoring.fixes if cost is not None else ():
        values = {**{s: sympy.sympify(v).xreplace(at) for s, v in fixed.items()}, **at}
        refuse_header_sizes(spec.checked, values)
        found = verdict(cost, scoring.machine, values=values)
        model, bound = found.t_model, found.t_bound
        times.append(None if model is None or bound is None else (float(model), float(bound)))
        if times[-1] is not None and model_binding is None:  # the first shape's
            model_binding = found.grid.model_bound if found.grid is not None else found.bound
    t_model = analysis_t_bound = None
    known = [pair for pair in times if pair is not None]
    if known and len(known) == len(times):
        t_model = sum(pair[0] for pair in known)
        analysis_t_bound = sum(pair[1] for pair in known)
    kept, place = searched.kept, searched.kept.at(index)
    return Row(chosen, raster, float(kept.t_bound[place]),
               searched.roofs[int(kept.binding[place])], t_model, model_binding,
               analysis_t_bound, int(kept.resident[place]), int(kept.waves[place]),
               int(kept.blocks[place]), float(kept.on_chip[place]),
               _shape_times(scoring, index, times))


def _shape_times(scoring: Scoring, index: int,
                 times: list[tuple[float, float] | None]) -> tuple[ShapeTimes, ...]:
    """Each shape's times of candidate `index`, where there are several shapes."""
    if len(scoring.fixes) < 2:
        return ()
    searched = scoring.shape_bounds(index)
    return tuple(ShapeTimes(bound, *(times[k] or (None, None) if times else (None, None)))
                 for k, bound in enumerate(searched))


