"""Stage: one sequential spec (no grid) of the whole-model composition, timed over arrays of
its sizes: t_bound and t_model of one copy at every point at once (`model --grid`).

The closed forms (W per class, each contraction's tile and work, Q per level) are compiled
once through search.Evaluator; what `answers.model.verdict` then does at one size is done
here over arrays, step for step:
- the units (count.mma.on_units): a contraction the spec does not name moves from the tensor
  units to the FMA units where its tile, whole numbers, is under MMA_MINIMUM;
- t_bound: the largest of W_c / P_c and Q_l / B_l with each roof at the maximum clock
  (hardware.clocks.max_clock_factor);
- t_model: the same terms at the figures as given, under the only two effects that act on a
  nest without lanes accesses or `serial` groups (gpu.effects: latency, fill and drain and
  dispatch read a grid, sectors and bank conflicts lanes accesses, serial its groups): the
  achievable fraction of each roof (effects.achievable, a constant a roof) and the partial
  overlap of the units and the traffic they wait on (effects.overlap, its two p-norms, with
  its threshold NEGLIGIBLE below which it names no cause).
A spec outside that reach (a grid, `serial`, a stage count that is not a number, the tile
of a contraction that does not name its units moving with the loop iterators) is refused when
compiled: a second model that could disagree with the analysis is never made."""

from __future__ import annotations

import functools
import operator

import numpy
import sympy

from ..analysis.api import Spec
from ..base.errors import Code, Diagnostic, InternalError
from ..base.kinds import Reuse, TermKind, WorkClass
from ..count.values import exact
from ..gpu.derates import NEGLIGIBLE
from ..gpu.effects.achievable import figure_for, mma_path
from ..gpu.effects.context import EffectContext
from ..gpu.effects.overlap import TRAFFIC, UNITS, waited_levels
from ..hardware.clocks import max_clock_factor
from ..hardware.machine import UNBOUNDING_LEVELS, Machine
from ..lang.work import MMA_MINIMUM
from .search import Evaluator


class NestTimes:
    """t_bound and t_model of one copy of a sequential spec over arrays of its sizes."""

    def __init__(self, spec: Spec, machine: Machine, names: tuple[str, ...]):
        cost = spec.cost(Reuse.SPEC)
        parameters = spec.parameters
        fixed = {symbol: sympy.Integer(value) for symbol, value in
                 spec.checked.defaults.items() if str(symbol) not in names}
        self.names = names
        self.evaluator = Evaluator(spec, machine, list(names), fixed)
        _refuse_outside(spec, cost, set(parameters[n] for n in names) | set(fixed))
        precision = spec.checked.precision
        path = mma_path(cost.requirements)
        compiled = self.evaluator.compiled

        def rates(kind: TermKind, key: str, rate) -> tuple[float, float, float]:
            """The term's rate as given, at the maximum clock, and its achievable fraction."""
            entry = figure_for(machine, key, path)
            fraction = 1.0 if entry is None else float(exact(entry.fraction))
            return (float(exact(rate)),
                    float(exact(rate) * max_clock_factor(machine, precision, kind, key)),
                    fraction)

        self.work = {work_class: (compiled(amount), rates(
            TermKind.WORK, work_class, machine.ceiling(precision, work_class).peak_FLOPps))
            for work_class, amount in cost.work.items()}
        if cost.contractions and WorkClass.FMA not in self.work:
            self.work[WorkClass.FMA] = (compiled(0), rates(
                TermKind.WORK, WorkClass.FMA,
                machine.ceiling(precision, WorkClass.FMA).peak_FLOPps))
        self.moves = [(tuple(tuple(compiled(trip) for trip in trips) for trips in c.trips),
                       compiled(c.work)) for c in cost.contractions
                      if c.unit == WorkClass.TENSOR and c.named is None]
        self.levels = [(level, compiled(cost.traffic[level]),
                        rates(TermKind.TRAFFIC, level, machine.bandwidth(level)))
                       for level in cost.levels
                       if level not in UNBOUNDING_LEVELS and machine.bandwidth(level)]
        waited = waited_levels(EffectContext(cost, machine, lambda expr: expr))
        self.waited = [level in waited for level, _, _ in self.levels]

    def __call__(self, arrays: list[numpy.ndarray]) -> tuple[numpy.ndarray, numpy.ndarray]:
        """(t_bound, t_model) of one copy, s, at the sizes `arrays` (in the order of
        `names`, broadcast together)."""
        with numpy.errstate(divide="ignore", invalid="ignore", over="ignore"):
            amounts = {key: function(arrays) for key, (function, _) in self.work.items()}
            for tile, work in self.moves:  # count.mma.on_units
                under = _under_minimum([[trip(arrays) for trip in trips] for trips in tile])
                moved = numpy.where(under, work(arrays), 0.0)
                amounts[WorkClass.TENSOR] = amounts[WorkClass.TENSOR] - moved
                amounts[WorkClass.FMA] = amounts[WorkClass.FMA] + moved
            work_terms = [(amounts[key], rates) for key, (_, rates) in self.work.items()]
            traffic = [(function(arrays), rates) for _, function, rates in self.levels]
            t_bound = _largest([amount / fast for amount, (_, fast, _) in
                                work_terms + traffic])
            slow = [amount / (rate * fraction) for amount, (rate, _, fraction) in
                    work_terms + traffic]
            return t_bound, self._overlapped(slow[:len(work_terms)], slow[len(work_terms):])

    def _overlapped(self, work: list, traffic: list) -> numpy.ndarray:
        """effects.overlap at every point: the work terms' norm, then with the largest waited
        traffic term's, where that exceeds the largest time by more than NEGLIGIBLE."""
        # a term constant over the grid (no FMA work beside a contraction) is a scalar
        shaped = list(numpy.broadcast_arrays(*work, *traffic))
        work, traffic = shaped[:len(work)], shaped[len(work):]
        largest = _largest(work + traffic)
        waited = [t for t, is_waited in zip(traffic, self.waited) if is_waited]
        busiest = _largest(work)
        positive = numpy.sum([numpy.asarray(t) > 0 for t in work], axis=0)
        units = busiest * numpy.maximum(1.0, numpy.sum(
            [numpy.where(busiest > 0, t / busiest, 0.0) ** float(UNITS) for t in work],
            axis=0) ** (1 / float(UNITS)))
        if not waited:
            together, counted = units, positive >= 2
        else:
            queue = _largest(waited)
            top = numpy.maximum(units, queue)
            low = numpy.minimum(units, queue)
            together = numpy.where(queue > 0, top * numpy.maximum(1.0, (
                1 + numpy.where(top > 0, low / top, 0.0) ** float(TRAFFIC))
                ** (1 / float(TRAFFIC))), units)
            counted = (positive >= 2) | ((positive >= 1) & (queue > 0))
        binds = counted & (together > largest * float(1 + NEGLIGIBLE))
        return numpy.where(binds, together, largest)


def _under_minimum(tile: list[list[numpy.ndarray]]) -> numpy.ndarray:
    """count.mma._under_minimum over arrays: every trip a whole number, and the m x n x k
    tile under lang.work.MMA_MINIMUM (m and n in either order)."""
    whole = functools.reduce(operator.and_, [numpy.floor(t) == t for trips in tile
                                             for t in trips])
    m, n, k = (numpy.multiply.reduce(numpy.broadcast_arrays(*trips)) for trips in tile)
    longer, shorter, depth = MMA_MINIMUM
    meets = (numpy.maximum(m, n) >= longer) & (numpy.minimum(m, n) >= shorter) & (k >= depth)
    return whole & ~meets


def _largest(terms: list) -> numpy.ndarray:
    return numpy.maximum.reduce(numpy.broadcast_arrays(*terms)) if len(terms) > 1 else \
        numpy.asarray(terms[0], dtype=numpy.float64)


def _refuse_outside(spec: Spec, cost, known: set) -> None:
    """What the vectorised times do not model is refused, not approximated (module doc)."""
    reason = None
    if cost.grid is not None:
        reason = "a parallel spec (its waves and effects are the analysis's)"
    elif cost.serial:
        reason = "`serial` groups"
    elif any(not sympy.sympify(scope.stages).is_number for scope in cost.scopes):
        reason = "a keep whose stages are not a number"
    elif any(trip.free_symbols - known for c in cost.contractions if c.named is None
             for trips in c.trips for trip in trips):
        reason = "a contraction whose tile moves with the loop iterators"
    if reason is not None:
        raise InternalError(Code.UNEXPECTED, Diagnostic(
            None, f"`{spec.name}` cannot be timed over a grid: {reason}",
            "time it with the ordinary `model` path"))
