"""Stage `tune`: every combination of the varied parameters (tile sizes, each with its own
values) and schedule settings (stages, threads, registers, cluster, group: lang.schedule
opens them as parameters; the raster order), evaluated with numpy over arrays of candidates
a chunk at a time (module search: t_bound and whether each fits, no sympy per candidate;
module search_chunks: what is kept of each chunk), then ranked by t_model with t_bound
beside it. A space is as large as the time budget allows: its memory is a chunk's.

t_model is not vectorised: its effects (the waves' L2 union under the raster order, the
achievable fractions, latency, overlap, fill and drain, ...) are the analysis's own, and
re-implementing them over arrays would make a second model that could disagree with the
first. The search therefore re-scores a shortlist with the analysis itself
(answers.model.verdict, as `analyze` computes it at that configuration, sympy at each): the
`rescore` best candidates by t_bound, and the spec's own configuration wherever it ranks.
Since t_model >= t_bound at every candidate, the ranking is proven to be the top by t_model
of every fitting candidate (`proven`) when the last t_model shown is at most the best
t_bound left out of the shortlist; otherwise it is the top of the shortlist, and says so.
With several shapes, a candidate must fit each, and its times are the sums over them.

Candidates are rejected, in this order, for: breaking one of the spec's `assume` facts
(`a | b`, or a bound such as `n <= 4096`: outside them the spec's counts are not the kernel's, so
such a candidate is not one, as a tile that does not fit is not), a count of its parallel
header that is not a positive whole number there, shared memory, registers, threads, tensor
memory (as occupancy), a cluster, or an occupancy of 0 (module search). Ties in t_bound
(equal to 1e-9 relative) go to fewer bytes on chip, then the squarer tile (smaller max/min
of the varied sizes, schedule settings aside), then the smaller values in the order given;
ties in t_model to the smaller t_bound, then as t_bound's. The raster order changes no
t_bound: each raster is a candidate of its own, evaluated once with the others, and told
apart in the re-scoring."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy

from ..analysis.api import Spec, load
from ..base.errors import Code, Diagnostic, SizeError, option_span
from ..base.kinds import Raster, Reuse
from ..base.records import record
from ..base.tree import Span
from ..base.watchdog import BUDGET_VARIABLE, budget_seconds, stage
from ..lang.schedule import Schedule
from ..lang.settings import GRID_SIZES, MAX_FLOAT_SIZE, Settings
from ..lang.sizes import refuse_large_numbers
from ..lang.varied import RASTER, Varied
from .not_run import refuse_not_run
from .rejections import REJECTED, Rejected, Rejection
from .search import ROOF_LEVELS, Evaluator, fixed_values, shape_evaluators
from .search_chunks import CHUNK, Searched, Wanted, open_mesh, search
from .search_results import Pareto
from .tune_rescore import Row, Scoring, Space, rescored

__all__ = ["ROOF_LEVELS", "Evaluator", "Ranking", "Row", "fixed_values", "own_rank", "tune"]

# the most numeric combinations (a raster order adds none) times shapes a second the search
# may reach on any machine: some 15 times the fastest measured (6 x 10^7 a second of CPU,
# bench/tune_chunks.py), so that a space refused for the time budget could not have finished
# in it; a space under it is searched, and the budget's watchdog ends it where it runs out
MAX_RATE = 1e9
RESCORE = 48  # candidates the analysis re-scores by default: some 7 ms each (gemm_hopper)


@record
class Ranking:
    kernel: str
    machine: str
    parameters: tuple[str, ...]  # as given: sizes, schedule words
    fixed: tuple[tuple[str, float], ...]  # the other parameters' values
    candidates: int  # every combination, each raster order one
    fitting: int
    seconds: float  # the vectorised evaluation and ranking alone
    top: tuple[Row, ...]
    rejected: tuple[Rejection, ...]  # the first ones, in candidate order
    rejected_by: tuple[tuple[Rejected, int], ...]  # reason -> how many
    parallel: bool = True  # False: no grid, flat roofs (no blocks, occupancy or waves)
    points: int = 0  # numeric combinations the arrays held (candidates / raster orders)
    rasters: tuple[Raster, ...] = ()
    rescored: int = 0  # candidates the analysis re-scored for t_model
    rescore_seconds: float = 0.0
    proven: bool = False  # the top by t_model of every fitting candidate (module doc)
    own: tuple[int, ...] | None = None  # the spec's own values of the varied parameters
    own_raster: Raster | None = None
    own_place: int | None = None  # its place among the re-scored, from 1 (None: not one)
    own_row: Row | None = None
    pareto: tuple[Pareto, ...] = ()  # t_bound against bytes on chip, fewest bytes first
    values: tuple[tuple[int, ...], ...] = ()  # each varied parameter's values
    shapes: tuple[tuple[tuple[str, float], ...], ...] = ()  # with several: each one's sizes


def tune(spec_path: str | Spec, machine, varied: Sequence[str | Varied],
         values: numpy.ndarray | None = None, raw: dict | None = None, *, top: int = 10,
         show_rejected: int = 2, places: dict | None = None, rescore: int = RESCORE,
         pareto_set: bool = False, shapes: Sequence[dict] = (), chunk: int = CHUNK) -> Ranking:
    """Every combination of `varied` (names, taking `values`, or Varied with their own),
    ranked (module doc). `raw`: --set; `places`: name -> (span, text) of the option that
    varies it; `rescore`: how many candidates the analysis re-scores for t_model (0: rank
    by t_bound alone); `pareto_set`: also the fitting candidates no other beats on both
    t_bound and bytes on chip; `shapes`: several sizes at once, each added to `raw`: a
    candidate fits where it fits every shape, and is ranked by the sum of its times (one
    configuration run once at each shape); `chunk`: candidates evaluated at a time."""
    spec = load(spec_path) if not isinstance(spec_path, Spec) else spec_path
    space, spec = _space(spec, varied, values, places or {})
    cost = spec.cost(Reuse.SPEC)
    refuse_not_run(spec.kernel, cost, machine, "tune")
    if cost.grid is not None:  # its blocks counted in 64-bit integers
        refuse_large_numbers(spec.kernel, MAX_FLOAT_SIZE, GRID_SIZES)
    fixes = _fixed_at_each_shape(spec, space, raw or {}, shapes, places or {})
    points = math.prod(len(axis) for axis in space.axes)
    many = max(len(space.rasters), 1)
    _refuse_past_budget(space, points, len(fixes), places or {})
    evaluators = shape_evaluators(spec, machine, list(space.symbols), fixes)
    own, own_raster = _own_values(spec, space, cost)
    wanted = Wanted(max(rescore // many, top, 1), show_rejected, pareto_set,
                    _own_index(space, own, own_raster))
    searched, order, seconds = _evaluated(evaluators, space, wanted, chunk)
    started = time.perf_counter()
    picked = None if searched.own is None else (searched.own, own_raster)
    ranked = rescored(Scoring(spec, machine, fixes, space, searched), order, rescore, picked)
    rescore_seconds = time.perf_counter() - started
    counts = searched.counts * many
    by = tuple((reason, int(counts[code])) for code, reason in enumerate(REJECTED, 1)
               if counts[code])
    numbers = [tuple((str(s), float(v)) for s, v in fixed.items() if not _varied(v))
               for fixed in fixes]
    bounds = cost.grid is None or cost.grid.equal_blocks  # t_bound under t_model
    return Ranking(
        kernel=spec.name, machine=machine.id, parameters=space.names, fixed=numbers[0],
        candidates=points * many, fitting=int(counts[0]), seconds=seconds,
        top=ranked.rows[:top], rejected=searched.rejected, rejected_by=by,
        parallel=cost.grid is not None, points=points, rasters=space.rasters,
        rescored=len(ranked.rows) if rescore > 0 else 0, rescore_seconds=rescore_seconds,
        proven=ranked.proven_for(top, searched, bounds), own=own, own_raster=own_raster,
        own_place=ranked.own_place, own_row=ranked.own_row, pareto=searched.front,
        values=tuple(tuple(int(v) for v in axis) for axis in space.axes),
        shapes=tuple(numbers) if len(numbers) > 1 else ())


def _fixed_at_each_shape(spec: Spec, space: Space, raw: dict, shapes: Sequence[dict],
                         places: dict) -> list[dict]:
    """The parameters not varied at each shape (one where no shapes are given)."""
    named = dict(zip(space.names, space.symbols))
    where = {named[name]: place for name, place in places.items() if name in named}
    _refuse_overlapping_shapes(raw, shapes)
    sized = [_with_shape(raw, shape) for shape in shapes] or [_with_shape(raw, {})]
    return [fixed_values(spec, list(space.symbols), each, places=where) for each in sized]


def _refuse_past_budget(space: Space, points: int, shapes: int, places: dict) -> None:
    """Refuse a space that could not be searched within the time budget even at MAX_RATE:
    memory does not bound a space (a chunk at a time), the time does."""
    budget = budget_seconds()
    least = points * shapes / MAX_RATE
    if least <= budget:
        return
    span, text = next(iter(places.values()), (None, None))  # the whole --vary
    counted = " x ".join(f"{len(a):,} {n}" for n, a in zip(space.names, space.axes))
    raise SizeError(Code.TOO_MANY_POINTS, Diagnostic(
        None if span is None or text is None else option_span(span.file, text), counted
        + (f" x {shapes} shapes" if shapes > 1 else "")
        + f" make {points * shapes:,} combinations: at {MAX_RATE:,.0f} a second, faster than "
        f"the search runs anywhere, some {least:,.0f} s, more than the time budget of "
        f"{budget:g} s", "give fewer values (a larger STEP, or --pow2), vary fewer "
        "parameters, or give fewer shapes; or a longer budget, KERNELCOST_BUDGET_S=SECONDS"),
        text)


def _evaluated(evaluators: list[Evaluator], space: Space, wanted: Wanted, chunk: int
               ) -> tuple[Searched, numpy.ndarray, float]:
    """Every candidate at each shape, a chunk at a time (search_chunks), the pool's best by
    t_bound, and the seconds that took (each evaluator compiled before, at one candidate)."""
    first = open_mesh([axis[:1] for axis in space.axes])
    for evaluator in evaluators:
        evaluator(first)
    stage(f"searching {math.prod(map(len, space.axes)) * len(evaluators):,} combinations",
          hint="search fewer combinations (fewer values in --vary, fewer --shape) or give it "
          f"longer with {BUDGET_VARIABLE}=SECONDS")
    started = time.perf_counter()
    searched = search(evaluators, space.axes, wanted, chunk)
    order = rank(searched, space, wanted.pool)
    return searched, order, time.perf_counter() - started


def _own_values(spec: Spec, space: Space, cost) -> tuple[tuple[int, ...] | None,
                                                         Raster | None]:
    """The spec's own values of the varied parameters (None where one has no default) and
    its raster order, where rasters are varied."""
    defaults = {str(p): v for p, v in spec.checked.defaults.items()}
    own = (tuple(defaults[s] for s in space.symbols)
           if all(s in defaults for s in space.symbols) else None)
    own_raster = cost.grid.raster if space.rasters and cost.grid is not None else None
    return own, own_raster


def _refuse_overlapping_shapes(raw: dict, shapes: Sequence[dict]) -> None:
    """A shape's size that --set also gives replaced it without a word (`--set N=4096
    --shape N=8192` ranked at N = 8192 alone), and a shape given twice counted its times
    twice in every sum."""
    for index, shape in enumerate(shapes):
        for name, value in shape.items():
            argument, start = getattr(shape, "places", {}).get(name, (f"{name}={value}", 1))
            if name in raw and str(raw[name]) != str(value):
                raise SizeError(Code.UNREADABLE_SETTING, Diagnostic(
                    Span("--shape", 1, start, 1, start + len(name)),
                    f"`{name}` is set in --set (to {raw[name]}) and in --shape (to {value})",
                    f"give `{name}` in each --shape, or in --set alone"), argument)
        if dict(shape) in [dict(earlier) for earlier in shapes[:index]]:
            text = next(iter(getattr(shape, "places", {}).values()), ("",))[0]
            raise SizeError(Code.UNREADABLE_SETTING, Diagnostic(
                option_span("--shape", text), "this shape is given twice, and its times "
                "would count twice in every sum", "give each shape once"), text)


def _with_shape(raw: dict, shape: dict) -> Settings:
    """--set with one shape's sizes over it, each with the place it was written."""
    return Settings({**raw, **shape}, {**getattr(raw, "places", {}),
                                       **getattr(shape, "places", {})},
                    {**getattr(raw, "options", {}), **getattr(shape, "options", {})})


def _varied(value) -> bool:
    return bool(getattr(value, "free_symbols", None))


def _space(spec: Spec, varied: Sequence[str | Varied], values: numpy.ndarray | None,
           places: dict) -> tuple[Space, Spec]:
    """What is varied, and the spec with the schedule settings among it opened."""
    names, symbols, axes, sizes, settings = [], [], [], [], []
    rasters: tuple[Raster, ...] = ()
    for each in varied:
        name = each if isinstance(each, str) else each.name
        given = None if isinstance(each, str) else each.values
        if not isinstance(each, str) and name == RASTER and RASTER not in spec.parameters:
            rasters = each.rasters
            continue
        if name not in spec.parameters and name in tuple(Schedule):
            settings.append(Schedule(name))
            symbols.append(Schedule(name).parameter)
        else:
            symbols.append(name)
        names.append(name)
        sizes.append(name not in tuple(Schedule) or name in spec.parameters)
        if given is None and values is None:
            span, text = places.get(name, (None, None))
            raise SizeError(Code.BAD_RANGE, Diagnostic(
                span, f"`{name}` is given no values", f"write {name}=16..512:16, or give "
                "--values"), text)
        axes.append(numpy.asarray(values if given is None else given, dtype=numpy.float64))
    if settings:
        spec = spec.with_schedule(settings, {Schedule(n): places.get(n, (None, None))
                                             for n in settings})
    if rasters and spec.checked.grid is None:
        span, text = places.get(RASTER, (None, None))
        raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
            span, f"{spec.name} has no grid: its blocks have no raster order",
            "vary `raster` for a spec with a `parallel(...)` header"), text)
    return Space(tuple(names), tuple(symbols), tuple(axes), rasters, tuple(sizes)), spec


def rank(searched: Searched, space: Space, pool: int) -> numpy.ndarray:
    """Flat indices of at least the `pool` best fitting candidates by t_bound then the tie
    rule (module doc), best first: every candidate tied with the last of them too."""
    kept = searched.kept.where(searched.shortlist)
    fits, t, on_chip = kept.index, kept.t_bound, kept.on_chip
    if fits.size == 0:
        return fits
    least = t.min()
    level = numpy.round(t / least, 9)  # equal to 1e-9 relative: a tie
    if pool < fits.size:
        keep = level <= numpy.partition(level, pool - 1)[pool - 1]
        fits, level, on_chip = fits[keep], level[keep], on_chip[keep]
    coordinates = numpy.unravel_index(fits, searched.shape)
    chosen = [axis[c] for axis, c in zip(space.axes, coordinates)]
    tiles = [values for values, size in zip(chosen, space.sizes) if size] or [
        numpy.ones(fits.shape)]
    squareness = numpy.maximum.reduce(tiles) / numpy.minimum.reduce(tiles)
    keys = [*chosen[::-1], squareness, on_chip, level]
    return fits[numpy.lexsort(keys)]  # lexsort: the last key is the first


def _own_index(space: Space, own: tuple[int, ...] | None, raster: Raster | None) -> int | None:
    """The flat index of the spec's own configuration, or None where it is not a candidate."""
    if own is None or (space.rasters and raster not in space.rasters):
        return None
    index = 0
    for axis, value in zip(space.axes, own):
        found = numpy.flatnonzero(axis == value)
        if not found.size:
            return None
        index = index * len(axis) + int(found[0])
    return index


def own_rank(ranking: Ranking) -> int | None:
    """Where the spec's own values of the varied parameters (and its raster) rank among the
    rows shown, from 1."""
    if ranking.own is None:
        return None
    for position, row in enumerate(ranking.top):
        if row.values == ranking.own and row.raster == ranking.own_raster:
            return position + 1
    return None
