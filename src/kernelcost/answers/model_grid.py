"""Stage: ModelConfig x Machine x axes -> ModelGrid. `kernelcost model --grid`: the serving
figures of `model` (answers.wholemodel: a batch's time to first token and time per output
token, their bounds, whether its weights and KV cache fit HBM) at every point of batch x
context x tensor parallelism at once, with numpy.

The composition table is built once a phase and a tp with the batch and the context left as
symbols (composition.kernel_uses), each kernel's sizes and copies compiled to numpy; each
spec's closed forms are compiled once (grid_kernels.NestTimes through search.Evaluator) and
timed over the arrays; the collectives are tensor_parallel's table, each collective's
candidates (collectives.candidate_times) timed as arrays and the least taken at each point;
launches are a number a step; the memory is hbm_fit's at each context.

What the grid gives is `model`'s own figure everywhere but at one kind of point: where a
GEMM's sizes meet gemm_hopper's tiles (wholemodel.tiled_t_model: M a whole number of
256-row clusters, N of 256, K of 64), `model` takes that parallel spec's estimate (its waves,
the wave-union L2 traffic and its effects), which is not vectorised. At such points the
analysis itself is asked, once a distinct shape, where the grid holds at most TILED_SHAPES
of them; past that, t_model there is not given (NaN, `tiled` says where) rather than
estimated another way. t_bound is given everywhere."""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable

import numpy
import sympy

from ..base.errors import Code, Diagnostic, InternalError
from ..base.kinds import LaunchMode
from ..base.records import record
from ..hardware.machine import Machine
from ..hardware.modelfile import ModelConfig
from ..hardware.topology import Topology
from .collectives import Algorithm, Collective, CollectiveTime, Protocol, Timed, candidate_times
from .composition import DECODE, PREFILL, KernelUse, Phase, kernel_uses, shipped_spec
from .grid_kernels import NestTimes
from .grid_shapes import distinct_shapes
from .hbm_fit import DEFAULT_FRACTION, Memory, memory
from .launch_cost import graph_gap
from .quantisation import BF16_ONLY, Quantisation
from .search import numpy_function
from .tensor_parallel import Layout, step_collectives
from .wholemodel import tiled_t_model

BATCH = sympy.Symbol("b", positive=True, integer=True)
CONTEXT = sympy.Symbol("c", positive=True, integer=True)
MAX_POINTS = 1_000_000  # 1.14 GB of process memory measured at 10^6 points, some 40 arrays
# of 8 B a point at the peak; 2 x 10^6 runs past the 60 s budget on 2 cores
TILED_SHAPES = 16  # distinct gemm_hopper shapes the analysis is asked for (~10 ms each)


@record
class GridAxes:
    batches: tuple[int, ...]
    contexts: tuple[int, ...]
    tps: tuple[int, ...]

    @property
    def points(self) -> int:
        return len(self.batches) * len(self.contexts) * len(self.tps)


@record
class PhaseTimes:
    """A phase's step at every point (arrays of the grid's shape: tp x batch x context)."""

    t_bound_s: numpy.ndarray  # the kernels' t_bound, summed
    t_model_s: numpy.ndarray  # the kernels' t_model, summed; NaN where not given (module doc)
    launch_s: float | numpy.ndarray  # a step's launches (eager, or a decode graph)
    collectives_s: numpy.ndarray  # between the kernels, where the topology is known
    tiled: numpy.ndarray  # bool: a GEMM takes gemm_hopper's estimate here

    @property
    def latency_s(self) -> numpy.ndarray:
        """wholemodel.Latency's ttft_s (prefill) or tpot_s (decode)."""
        return self.t_model_s + self.launch_s + self.collectives_s


@record
class ModelGrid:
    model: ModelConfig
    machine: Machine
    axes: GridAxes
    quantisation: Quantisation
    launch: LaunchMode
    stages: int
    fraction: float
    decode: PhaseTimes
    prefill: PhaseTimes
    needed_B: numpy.ndarray  # weights and KV cache a GPU holds, at (tp, batch, context)
    usable_B: float | None  # HBM x fraction a GPU; None: the machine gives no capacity
    most_batch: numpy.ndarray  # hbm_fit's max_batch at (tp, 1, context); inf: no KV cache
    tiled_shapes: int  # distinct gemm_hopper shapes in the grid
    tiled_asked: bool  # whether the analysis gave their t_model (no more than tiled_limit)
    tiled_limit: int  # the most shapes it is asked for

    @property
    def fits(self) -> numpy.ndarray | None:
        # against hbm_fit's exact batch: needed_B <= usable_B in floats missed a batch that
        # fills the room to the byte (thirds of bytes under three stages)
        if self.usable_B is None:
            return None
        return numpy.asarray(self.axes.batches, dtype=float)[None, :, None] <= self.most_batch

    def mesh(self) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """tp, batch and context at every point, in the arrays' shape."""
        tp, batch, context = numpy.meshgrid(self.axes.tps, self.axes.batches,
                                            self.axes.contexts, indexing="ij")
        return tp, batch, context


@record
class _Pending:
    """A kernel of one phase and tp that takes gemm_hopper's estimate somewhere: where, and
    its figures there over the (batch, context) mesh."""

    phase: Phase
    index: int  # of its tp in the axes
    use: KernelUse
    sizes: tuple[tuple[str, numpy.ndarray], ...]
    copies: numpy.ndarray
    where: numpy.ndarray  # bool
    t_bound: numpy.ndarray  # s, its copies'
    nest_t_model: numpy.ndarray  # s, its copies' as the ideal spec's (in the step's sum)

    @property
    def key(self) -> tuple:
        return (self.use.model_spec, self.use.precision, tuple(n for n, _ in self.sizes))

    def columns(self) -> list[numpy.ndarray]:
        """Each size at the points where it takes gemm_hopper's estimate."""
        return [numpy.broadcast_to(array, self.where.shape)[self.where]
                for _, array in self.sizes]


# where `assume left REL right` fails, by the sign of left - right
_FAILS: dict[type, Callable[[numpy.ndarray], numpy.ndarray]] = {
    sympy.LessThan: lambda difference: difference > 0,
    sympy.StrictLessThan: lambda difference: difference >= 0,
    sympy.GreaterThan: lambda difference: difference < 0,
    sympy.StrictGreaterThan: lambda difference: difference <= 0,
}


def _broken_bound(relation, symbols: list, defaults: dict,
                  spec: str) -> Callable[..., numpy.ndarray]:
    """Where the sizes break an `assume a <= b` of the tiled spec (split-K's `S <= K/TK`), as
    analysis.api.broken_assumptions finds it at numeric sizes."""
    fails = _FAILS.get(type(relation))
    if fails is None:  # a relation the grid does not evaluate: never a second model
        raise InternalError(Code.UNEXPECTED, Diagnostic(
            None, f"`{spec}` has an `assume` relation the grid cannot read: {relation}"))
    difference = numpy_function(symbols, (relation.lhs - relation.rhs).xreplace(defaults))
    return lambda *arrays: fails(numpy.asarray(difference(*arrays)))


class _Composer:
    """The composition over the (batch, context) mesh: the spec evaluators and the tiled
    spec's facts are compiled once and shared by every phase and tp."""

    def __init__(self, model: ModelConfig, machine: Machine, axes: GridAxes,
                 quantisation: Quantisation, launch: LaunchMode):
        self.model, self.machine = model, machine
        self.quantisation, self.launch = quantisation, launch
        self.b = numpy.asarray(axes.batches, dtype=numpy.float64)[:, None]
        self.c = numpy.asarray(axes.contexts, dtype=numpy.float64)[None, :]
        self.shape = (len(axes.batches), len(axes.contexts))
        self.nests: dict[tuple, NestTimes] = {}
        self.facts: dict[tuple, Callable[[list], numpy.ndarray]] = {}
        self.pending: list[_Pending] = []
        self.runs: dict[tuple, bool] = {}  # (tiled spec, precision) -> whether it runs

    def nest(self, use: KernelUse) -> NestTimes:
        key = (use.spec, use.precision, tuple(name for name, _ in use.sizes))
        if key not in self.nests:
            spec = shipped_spec(use.spec).at_precision(use.precision)
            self.nests[key] = NestTimes(spec, self.machine, key[2])
        return self.nests[key]

    def tiled_facts(self, use: KernelUse) -> Callable[[list], numpy.ndarray]:
        """Where the sizes break one of the tiled spec's `assume d | n` facts, as
        analysis.api.broken_assumptions finds them (the sizes whole numbers): n mod d != 0.
        Its cost is not counted: only its facts are read."""
        assert use.model_spec is not None
        names = tuple(name for name, _ in use.sizes)
        key = (use.model_spec, names)
        if key not in self.facts:
            spec = shipped_spec(use.model_spec)
            checked = spec.checked
            defaults = {s: sympy.Integer(v) for s, v in checked.defaults.items()
                        if str(s) not in names}
            symbols = [spec.parameters[name] for name in names]
            pairs = [(numpy_function(symbols, d.xreplace(defaults)),
                      numpy_function(symbols, n.xreplace(defaults)))
                     for d, n in checked.divisibility]
            bounds = [_broken_bound(relation, symbols, defaults, use.model_spec)
                      for relation in checked.bounds]
            self.facts[key] = lambda arrays: functools.reduce(operator.or_, [
                *(numpy.mod(n(*arrays), d(*arrays)) != 0 for d, n in pairs),
                *(broken(*arrays) for broken in bounds)], numpy.asarray(False))
        return self.facts[key]

    def tiled_runs(self, use: KernelUse, sizes, where: numpy.ndarray) -> bool:
        """Whether the machine runs the tiled spec (its architecture and features, its
        block fitting an SM: wholemodel.tiled_t_model gives None where not, and the ideal
        spec's t_model stands). Neither depends on the sizes: the analysis is asked once a
        spec and precision, at the first point where the facts hold."""
        key = (use.model_spec, use.precision)
        if key not in self.runs:
            first = tuple((name, sympy.Integer(int(numpy.broadcast_to(array, where.shape)[
                where][0]))) for name, array in sizes)
            found = tiled_t_model(dataclasses.replace(use, sizes=first), self.machine)
            self.runs[key] = found is not None
        return self.runs[key]

    def phase(self, phase: Phase, layout: Layout, index: int) -> PhaseTimes:
        """One phase at one tp over the mesh (shape: batch x context); the kernels that
        take gemm_hopper's estimate somewhere go into `pending`."""
        b, c = self.b, self.c
        uses = kernel_uses(self.model, phase, BATCH, CONTEXT, layout.tp,
                           quantisation=self.quantisation)
        t_bound = t_model = numpy.zeros(())
        tiled = numpy.zeros((), dtype=bool)
        for use in uses:
            sizes = tuple((name, _numeric(sympy.sympify(value))(b, c)) for name, value in
                          use.sizes)
            arrays = [array for _, array in sizes]
            copies = _numeric(sympy.sympify(use.copies))(b, c)
            bound, model_s = (t * copies for t in self.nest(use)(arrays))
            t_bound, t_model = t_bound + bound, t_model + model_s
            if use.model_spec is None:
                continue
            whole = functools.reduce(operator.and_, [numpy.floor(a) == a for a in arrays])
            where = numpy.broadcast_to(whole & ~self.tiled_facts(use)(arrays), self.shape)
            if where.any() and self.tiled_runs(use, sizes, where):
                tiled = tiled | where
                self.pending.append(_Pending(phase, index, use, sizes, copies, where, bound,
                                             model_s))
        overhead = self.machine.launch_overhead_s or 0.0
        launches = sum(use.launches for use in uses)
        gap = graph_gap(self.launch) if phase == DECODE else None
        launch_s = launches * overhead if gap is None else overhead + launches * gap
        collectives: numpy.ndarray | float = 0.0
        if layout.topology is not None and layout.gpus > 1:
            tokens = b if phase == DECODE else b * c
            collectives = step_collectives(self.model, phase, b, tokens, layout,
                                           _array_timer).seconds
        return PhaseTimes(numpy.broadcast_to(t_bound, self.shape),
                          numpy.array(numpy.broadcast_to(t_model, self.shape)), launch_s,
                          numpy.broadcast_to(collectives, self.shape),
                          numpy.broadcast_to(tiled, self.shape))


@functools.lru_cache(maxsize=1024)
def _numeric(expr: sympy.Expr) -> Callable[[numpy.ndarray, numpy.ndarray], numpy.ndarray]:
    """A size or a copy count of the composition table as a numpy function of the batch and
    the context (a number as itself: most sizes are the model's)."""
    if expr.is_number:
        value = numpy.asarray(float(expr))
        return lambda b, c: value
    function = numpy_function((BATCH, CONTEXT), expr)
    return lambda b, c: numpy.asarray(function(b, c), dtype=numpy.float64)


def model_grid(model: ModelConfig, machine: Machine, axes: GridAxes, *,
               topology: Callable[[int], Topology | None] = lambda tp: None, stages: int = 1,
               quantisation: Quantisation = BF16_ONLY, fraction: float = DEFAULT_FRACTION,
               launch: LaunchMode = LaunchMode.EAGER,
               tiled_shapes: int = TILED_SHAPES) -> ModelGrid:
    """Every point of `axes` at once (module doc); `topology(tp)`: the GPUs' system for the
    collectives at that tp (None: not timed, as `model` without one); `tiled_shapes`: the
    most distinct gemm_hopper shapes the analysis is asked for (module doc). The options are
    `whole_model`'s, checked as it checks them before (wholemodel.check_served)."""
    composer = _Composer(model, machine, axes, quantisation, launch)
    phases: dict[Phase, list[PhaseTimes]] = {DECODE: [], PREFILL: []}
    needed, most = [], []
    usable = None
    for index, tp in enumerate(axes.tps):
        layout = Layout(topology(tp), tp, stages)
        for phase in (DECODE, PREFILL):
            phases[phase].append(composer.phase(phase, layout, index))
        for context in axes.contexts:  # hbm_fit's own figures, a context at a time
            held = memory(model, machine, context, tp, stages, quantisation=quantisation,
                          fraction=fraction)
            usable = held.usable_B
            needed.append(held.weights_B + composer.b[:, 0] * held.kv_per_sequence_B)
            most.append(_most_batch(held))
    shapes = _tiled_estimates(composer.pending, phases, machine, tiled_shapes)
    def stacked(rows: list[PhaseTimes]) -> PhaseTimes:  # (tp, batch, context)
        def stack(name: str) -> numpy.ndarray:
            return numpy.stack([getattr(row, name) for row in rows])

        return PhaseTimes(stack("t_bound_s"), stack("t_model_s"), rows[0].launch_s,
                          stack("collectives_s"), stack("tiled"))

    results = {phase: stacked(rows) for phase, rows in phases.items()}
    rows, columns = composer.shape
    needed_B = numpy.stack(needed, axis=1).reshape(rows, len(axes.tps), columns)
    return ModelGrid(model, machine, axes, quantisation, launch, stages, fraction,
                     results[DECODE], results[PREFILL], needed_B.transpose(1, 0, 2), usable,
                     numpy.reshape(most, (len(axes.tps), 1, len(axes.contexts))),
                     shapes, shapes <= tiled_shapes, tiled_shapes)


def _most_batch(held: Memory) -> float:
    """The largest batch that fits, as a float to compare batches with; inf where any batch
    fits (no KV cache), -inf where none does, nan without a capacity."""
    most = held.max_batch
    if most is not None:
        return float(most)
    fits = held.fits()
    return numpy.nan if fits is None else numpy.inf if fits else -numpy.inf


def _tiled_estimates(pending: list[_Pending], phases: dict[Phase, list[PhaseTimes]],
                     machine: Machine, limit: int) -> int:
    """The distinct gemm_hopper shapes of the pending kernels; where they are at most
    `limit`, each kernel's t_model there becomes wholemodel's (the tiled estimate of its
    copies, never under its t_bound), else NaN. Returns their count."""
    groups: dict[tuple, list[_Pending]] = {}
    for entry in pending:
        groups.setdefault(entry.key, []).append(entry)
    distinct = {key: distinct_shapes([entry.columns() for entry in entries])
                for key, entries in groups.items()}
    count = sum(len(shapes.firsts) for shapes in distinct.values())
    found: dict[tuple, float] = {}
    for entry in pending:
        t_model = phases[entry.phase][entry.index].t_model_s
        if count > limit:
            t_model[entry.where] = numpy.nan
            continue
        columns = distinct[entry.key].columns
        for values in (tuple(int(column[i]) for column in columns)
                       for i in distinct[entry.key].firsts):
            if (entry.key, values) not in found:
                found[entry.key, values] = _tiled_seconds(entry, values, machine)
            here = functools.reduce(operator.and_, [
                array == value for (_, array), value in zip(entry.sizes, values)], entry.where)
            t_model += numpy.where(here, numpy.maximum(
                found[entry.key, values] * entry.copies, entry.t_bound) - entry.nest_t_model,
                0.0)
    return count


def _array_timer(collective: Collective, size_B, gpus: int,
                 topology: Topology) -> CollectiveTime:
    """collectives.collective_time over an array of sizes: the least candidate at each."""
    if gpus < 2:
        none = Timed(Algorithm.DIRECT, Protocol.SIMPLE, 0.0, 0.0)
        return CollectiveTime(collective, size_B, gpus, 0.0, none, (none,))
    candidates = candidate_times(collective, size_B, gpus, topology)
    least = numpy.minimum.reduce([numpy.asarray(t.latency_s + t.transfer_s)
                                  for t in candidates])
    best = dataclasses.replace(candidates[0], latency_s=0.0, transfer_s=least)
    return CollectiveTime(collective, size_B, gpus, topology.bandwidth_Bps(gpus), best,
                          candidates)


def _tiled_seconds(entry: _Pending, values: tuple[int, ...], machine: Machine) -> float:
    """wholemodel.tiled_t_model of one copy at these sizes, the analysis's own."""
    sizes = tuple((name, sympy.Integer(v)) for (name, _), v in zip(entry.sizes, values))
    found = tiled_t_model(dataclasses.replace(entry.use, sizes=sizes), machine)
    assert found is not None  # the grid's mask is tiled_t_model's condition
    return float(found.evalf(20))
