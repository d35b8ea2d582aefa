"""`tune`'s search a chunk of the space at a time: each chunk's candidates evaluated at once
(module search), and only what `tune` shows kept of it: how many each reason left out, the
first candidates each reason left out with their figures, the candidates that may still
rank among the best by t_bound (with the figures a row shows), the spec's own configuration,
and the Pareto set so far. The memory a search holds is then a chunk's arrays whatever the
size of the space, and its time grows with the candidates.

A chunk is a run of consecutive candidates of the whole space in its order (the last axes
whole, one axis cut into pieces, the axes before it at one value each), so that a
candidate's flat index is its chunk's start plus its index in the chunk, and the answers
are those of the whole space evaluated at once:
- the shortlist: `rank` keeps the best by t_bound with every candidate tied with the last
  of them, a tie being equal to 1e-9 relative to the least t_bound of every fitting
  candidate, which is known only once every chunk is seen. A candidate is kept while its
  t_bound is at most (1 + 4e-9) times the pool-th least kept so far: a candidate past that
  is past the pool-th by more than 2e-9 of the least, and so in no tie with it.
- the Pareto set of the whole space is that of the chunks' Pareto sets (a candidate one
  chunk's front leaves out is beaten by one that front keeps), ties (equal t_bound and
  bytes) to the first candidate, as over the whole space.
- the first rejected candidates of each reason are those of the first chunks that hold
  some, in order."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Sequence

import numpy

from ..base.records import record
from .rejections import REJECTED, Rejection, first_rejected
from .search import Evaluation, Evaluator, summed
from .search_results import Pareto, front, point_at, rejection_figures

# candidates a chunk holds, measured (bench/tune_chunks.py, CPU): at 2^18 the search of
# TM x TN x TK in 256 values each is at its fastest (25 MiB at the peak: every array holds
# every axis), and the 33.6 M combinations of tiles, schedule and split-K within 14 % of
# theirs (2^20); smaller chunks pay numpy's cost a call more often, larger ones leave the
# caches
CHUNK = 1 << 18
TIE_MARGIN = 4e-9  # past the pool-th least by more than this: in no tie with it (module doc)


@record
class Chunk:
    start: int  # the flat index of its first candidate in the whole space
    axes: tuple[numpy.ndarray, ...]  # each varied parameter's values in it


def chunks(axes: Sequence[numpy.ndarray], size: int = CHUNK) -> Iterator[Chunk]:
    """The whole space of `axes` (every combination, the last axis fastest) in runs of at
    most `size` consecutive candidates (size >= 1)."""
    lengths = [len(axis) for axis in axes]
    split, tail = len(axes), 1  # axes[split:] are whole in every chunk, tail candidates
    while split > 0 and tail * lengths[split - 1] <= size:
        split -= 1
        tail *= lengths[split]
    if split == 0:
        yield Chunk(0, tuple(axes))
        return
    split -= 1  # the axis cut into pieces of `step` values
    step = max(size // tail, 1)
    for prefix in itertools.product(*(range(n) for n in lengths[:split])):
        ahead = tuple(axis[i:i + 1] for axis, i in zip(axes, prefix))
        base = 0
        for i, n in zip(prefix, lengths):
            base = base * n + i
        for low in range(0, lengths[split], step):
            yield Chunk((base * lengths[split] + low) * tail,
                        (*ahead, axes[split][low:low + step], *axes[split + 1:]))


def open_mesh(axes: Sequence[numpy.ndarray]) -> list[numpy.ndarray]:
    """Each axis's values along a dimension of its own."""
    return [axis.reshape([-1 if i == k else 1 for i in range(len(axes))])
            for k, axis in enumerate(axes)]


@record
class Shortlist:
    """Candidates kept from the chunks, at their flat indices in the whole space, with the
    figures a row shows (the first shape's, t_bound summed over the shapes)."""

    index: numpy.ndarray  # int64
    t_bound: numpy.ndarray  # s
    binding: numpy.ndarray  # into the evaluation's roofs
    resident: numpy.ndarray
    waves: numpy.ndarray
    blocks: numpy.ndarray
    on_chip: numpy.ndarray  # B
    shape_bounds: numpy.ndarray  # (shapes, candidates): each shape's t_bound, s

    @classmethod
    def of(cls, each: list[Evaluation], result: Evaluation, local: numpy.ndarray,
           start: int) -> Shortlist:
        """The candidates at flat indices `local` of one chunk starting at `start`."""
        return cls(local.astype(numpy.int64) + start, result.full(result.t_bound, local),
                   result.full(result.binding, local), result.full(result.resident, local),
                   result.full(result.waves, local), result.full(result.blocks, local),
                   result.full(result.on_chip, local),
                   numpy.array([found.full(found.t_bound, local) for found in each]))

    @classmethod
    def joined(cls, lists: Sequence[Shortlist]) -> Shortlist:
        return cls(*(numpy.concatenate([getattr(one, f.name) for one in lists], axis=-1)
                     for f in dataclasses.fields(cls)))

    def where(self, keep: numpy.ndarray) -> Shortlist:
        return Shortlist(*(getattr(self, f.name)[..., keep] for f in dataclasses.fields(self)))

    def at(self, index: int) -> int:
        """The position of flat index `index` among the kept."""
        return int(numpy.flatnonzero(self.index == index)[0])


@record
class Wanted:
    """What `tune` shows of a space, and so what its search keeps."""

    pool: int  # the best by t_bound, with every candidate tied with the last of them
    rejected: int  # the first candidates each reason leaves out
    pareto: bool  # the Pareto set of t_bound against bytes on chip
    own: int | None  # the flat index of the spec's own configuration (None: not one)


@record
class Searched:
    """What `tune` reads of the whole space, chunk by chunk (module doc)."""

    shape: tuple[int, ...]  # the whole space's
    roofs: tuple  # what each binding index runs against
    counts: numpy.ndarray  # candidates of each code (0: fitting), raster orders aside
    kept: Shortlist  # every fitting candidate that may rank in the pool, and the own one
    shortlist: numpy.ndarray  # positions in `kept` of those that may rank (not the own)
    dropped_best: float  # the least t_bound of the fitting candidates not kept
    rejected: tuple[Rejection, ...]  # the first of each reason, in candidate order
    front: tuple[Pareto, ...]  # the Pareto set, where asked for
    own: int | None  # the flat index of the spec's own configuration where it fits


@record(frozen=False)
class _Fold:
    """The answers over the chunks seen so far."""

    wanted: Wanted
    counts: numpy.ndarray
    firsts: dict[int, list[tuple[int, Rejection]]]  # code -> (flat index, rejection)
    kept: Shortlist | None = None
    dropped_best: float = numpy.inf
    front: tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray] | None = None  # index, t, B
    own: Shortlist | None = None


def search(evaluators: list[Evaluator], axes: Sequence[numpy.ndarray], wanted: Wanted,
           size: int = CHUNK) -> Searched:
    """Every candidate of the open mesh of `axes` at each evaluator's shape, `size` at a
    time, and what is `wanted` of them (module doc)."""
    shape = tuple(len(axis) for axis in axes) or (1,)
    own = wanted.own
    fold = _Fold(wanted, numpy.zeros(len(REJECTED) + 1, dtype=numpy.int64),
                 {code: [] for code in range(1, len(REJECTED) + 1)})
    roofs: tuple = ()
    for chunk in chunks(axes, size):
        each = [evaluator(open_mesh(chunk.axes)) for evaluator in evaluators]
        result = summed(each)
        roofs = result.roofs
        codes = result.reject.ravel()
        counts = numpy.bincount(codes, minlength=len(REJECTED) + 1)
        fold.counts += counts
        fits = numpy.flatnonzero(codes == 0)
        _keep(fold, Shortlist.of(each, result, fits, chunk.start))
        if (counts[1:] > 0).any():
            _first_rejections(fold, evaluators, each, result, chunk)
        if wanted.pareto:
            _pareto(fold, chunk.start + fits, result.full(result.t_bound, fits),
                    result.full(result.on_chip, fits))
        at = -1 if own is None else own - chunk.start
        if 0 <= at < codes.size and codes[at] == 0:
            fold.own = Shortlist.of(each, result, numpy.array([at]), chunk.start)
    kept = fold.kept if fold.kept is not None else _nothing(len(evaluators))
    shortlist = numpy.arange(kept.index.size)
    if fold.own is not None:
        kept = Shortlist.joined([kept, fold.own])
    rejected = tuple(found for code in sorted(fold.firsts) for _, found in fold.firsts[code])
    return Searched(shape, roofs, fold.counts, kept, shortlist, fold.dropped_best, rejected,
                    _front(fold, axes, shape), own if fold.own is not None else None)


def _keep(fold: _Fold, found: Shortlist) -> None:
    """Add a chunk's fitting candidates to the shortlist, and drop every kept one that can
    no longer rank in the pool (module doc)."""
    joined = found if fold.kept is None else Shortlist.joined([fold.kept, found])
    t = joined.t_bound
    pool = fold.wanted.pool
    if t.size > pool:
        pooled = float(numpy.partition(t, pool - 1)[pool - 1])
        if 0 < pooled < numpy.inf:
            keep = ~(t > pooled * (1 + TIE_MARGIN))  # a nan t_bound kept, as rank holds it
            if not keep.all():
                fold.dropped_best = min(fold.dropped_best, float(t[~keep].min()))
                joined = joined.where(keep)
    fold.kept = joined


def _first_rejections(fold: _Fold, evaluators: list[Evaluator], each: list[Evaluation],
                      result: Evaluation, chunk: Chunk) -> None:
    """The first candidates of each reason, those of this chunk where earlier ones held
    fewer, each with its figures from the first shape that left it out."""
    show, codes = fold.wanted.rejected, result.reject.ravel()
    wanted = numpy.array([show - len(fold.firsts.get(code, ())) if code else 0
                          for code in range(len(fold.counts))])
    if not wanted.any():
        return
    counts = numpy.minimum(numpy.bincount(codes, minlength=len(fold.counts)), wanted)
    for code, found in first_rejected(codes, counts, show).items():
        for i in found:
            k = next(k for k, one in enumerate(each) if one.reject.ravel()[i] == code)
            values = point_at(chunk.axes, result.t_bound.shape, i)
            figures = rejection_figures(evaluators[k], each[k], i, chunk.axes)
            fold.firsts[code].append((chunk.start + i, Rejection(values, REJECTED[code - 1],
                                                                 figures)))


def _pareto(fold: _Fold, index: numpy.ndarray, t: numpy.ndarray, held: numpy.ndarray) -> None:
    """The Pareto set of the candidates so far and a chunk's fitting ones."""
    if fold.front is not None:
        index, t, held = (numpy.concatenate(pair) for pair in zip(fold.front, (index, t, held)))
    chosen = front(index, t, held)
    fold.front = (index[chosen], t[chosen], held[chosen])


def _front(fold: _Fold, axes, shape) -> tuple[Pareto, ...]:
    if fold.front is None:
        return ()
    index, t, held = fold.front
    return tuple(Pareto(point_at(axes, shape, int(i)), float(ti), float(bi))
                 for i, ti, bi in zip(index, t, held))


def _nothing(shapes: int) -> Shortlist:
    """A shortlist of no candidate."""
    empty = numpy.zeros(0)
    return Shortlist(empty.astype(numpy.int64), empty, empty.astype(numpy.int8), empty, empty,
                     empty, empty, numpy.zeros((shapes, 0)))
