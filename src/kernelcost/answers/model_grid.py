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
import time
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
from .hbm_fit import DEFAULT_FRACTION, memory
from .launch_cost import graph_gap
from .quantisation import BF16_ONLY, Quantisation
from .search import numpy_function
from .tensor_parallel import Layout, step_collectives
from .wholemodel import tiled_t_model

BATCH = sympy.Symbol("b", positive=True, integer=True)
CONTEXT = sympy.Symbol("c", positive=True, integer=True)
MAX_POINTS = 4_000_000  # some 40 arrays of 8 B a point at the peak: about 1.3 GB
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
    tiled_shapes: int  # distinct gemm_hopper shapes in the grid
    tiled_asked: bool  # whether the analysis gave their t_model (no more than tiled_limit)
    tiled_limit: int  # the most shapes it is asked for
    seconds: float  # the evaluation's wall time, compiling included

    @property
    def fits(self) -> numpy.ndarray | None:
        return None if self.usable_B is None else self.needed_B <= self.usable_B

    def mesh(self) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """tp, batch and context at every point, in the arrays' shape."""
        tp, batch, context = numpy.meshgrid(self.axes.tps, self.axes.batches,
                                            self.axes.contexts, indexing="ij")
        return tp, batch, context


class _Compiled:
    """The spec evaluators and the tiled spec's facts, shared by every phase and tp."""

    def __init__(self, machine: Machine):
        self.machine = machine
        self.nests: dict[tuple, NestTimes] = {}
        self.facts: dict[tuple, Callable[[list], numpy.ndarray]] = {}

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
            if checked.bounds:  # relations the grid does not evaluate: never a second model
                raise InternalError(Code.UNEXPECTED, Diagnostic(
                    None, f"`{use.model_spec}` has `assume` relations the grid cannot read"))
            defaults = {s: sympy.Integer(v) for s, v in checked.defaults.items()
                        if str(s) not in names}
            symbols = [spec.parameters[name] for name in names]
            pairs = [(numpy_function(symbols, d.xreplace(defaults)),
                      numpy_function(symbols, n.xreplace(defaults)))
                     for d, n in checked.divisibility]
            self.facts[key] = lambda arrays: functools.reduce(operator.or_, [
                numpy.mod(n(*arrays), d(*arrays)) != 0 for d, n in pairs], numpy.asarray(False))
        return self.facts[key]


def _numeric(expr) -> Callable[[numpy.ndarray, numpy.ndarray], numpy.ndarray]:
    function = numpy_function((BATCH, CONTEXT), sympy.sympify(expr))
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
    started = time.perf_counter()
    compiled = _Compiled(machine)
    b = numpy.asarray(axes.batches, dtype=numpy.float64)[:, None]
    c = numpy.asarray(axes.contexts, dtype=numpy.float64)[None, :]
    phases: dict[Phase, list] = {DECODE: [], PREFILL: []}
    # the kernels where gemm_hopper's estimate stands: (phase, tp index, use, sizes, copies,
    # where, their t_bound, their nest t_model), over the (batch, context) mesh
    pending: list = []
    needed = []
    usable = None
    for index, tp in enumerate(axes.tps):
        layout = Layout(topology(tp), tp, stages)
        for phase in (DECODE, PREFILL):
            phases[phase].append(_phase(model, machine, phase, tp, layout, b, c, compiled,
                                        quantisation, launch, pending, index))
        for context in axes.contexts:  # hbm_fit's own figures, a context at a time
            held = memory(model, machine, context, tp, stages, quantisation=quantisation,
                          fraction=fraction)
            usable = held.usable_B
            needed.append(held.weights_B + b[:, 0] * held.kv_per_sequence_B)
    shapes = _count_shapes(pending)
    asked = shapes <= tiled_shapes
    found: dict[tuple, float] = {}
    for phase, index, use, sizes, copies, mask, bound, own in pending:
        t_model = phases[phase][index][1]
        if not asked:
            t_model[mask] = numpy.nan
            continue
        for shape in _shapes((phase, index, use, sizes, copies, mask, bound, own)):
            if shape not in found:
                found[shape] = _tiled_seconds(shape, machine)
            seconds = found[shape]
            here = functools.reduce(operator.and_, [
                array == value for (_, array), (_, value) in zip(sizes, shape[2])], mask)
            t_model += numpy.where(here, numpy.maximum(seconds * copies, bound) - own, 0.0)
    shape = (len(axes.batches), len(axes.contexts))

    def stacked(rows: list, k: int) -> numpy.ndarray:  # (tp, batch, context)
        return numpy.stack([numpy.broadcast_to(row[k], shape) for row in rows])

    results = {phase: PhaseTimes(stacked(rows, 0), stacked(rows, 1), rows[0][2],
                                 stacked(rows, 3), stacked(rows, 4))
               for phase, rows in phases.items()}
    needed_B = numpy.stack(needed, axis=1).reshape(shape[0], len(axes.tps), shape[1])
    return ModelGrid(model, machine, axes, quantisation, launch, stages, fraction,
                     results[DECODE], results[PREFILL], needed_B.transpose(1, 0, 2), usable,
                     shapes, asked, tiled_shapes, time.perf_counter() - started)


def _phase(model, machine, phase, tp, layout, b, c, compiled, quantisation, launch,
           pending, index) -> list:
    """[t_bound, t_model, launch_s, collectives_s, tiled] of one phase at one tp over the
    (batch, context) mesh; the kernels that take gemm_hopper's estimate somewhere go into
    `pending`."""
    uses = kernel_uses(model, phase, BATCH, CONTEXT, tp, quantisation=quantisation)
    t_bound = t_model = numpy.zeros(())
    tiled = numpy.zeros((), dtype=bool)
    for use in uses:
        sizes = [(name, _numeric(value)(b, c)) for name, value in use.sizes]
        copies = _numeric(use.copies)(b, c)
        bound, model_s = compiled.nest(use)([array for _, array in sizes])
        bound, model_s = bound * copies, model_s * copies
        t_bound, t_model = t_bound + bound, t_model + model_s
        if use.model_spec is not None:
            arrays = [array for _, array in sizes]
            whole = functools.reduce(operator.and_, [numpy.floor(a) == a for a in arrays])
            mask = numpy.broadcast_to(
                whole & ~compiled.tiled_facts(use)(arrays),
                numpy.broadcast_shapes(b.shape, c.shape, *(a.shape for a in arrays)))
            if mask.any():
                tiled = tiled | mask
                pending.append((phase, index, use, sizes, copies, mask, bound, model_s))
    overhead = machine.launch_overhead_s or 0.0
    launches = sum(use.launches for use in uses)
    gap = graph_gap(launch) if phase == DECODE else None
    launch_s = launches * overhead if gap is None else overhead + launches * gap
    collectives: numpy.ndarray | float = 0.0
    if layout.topology is not None and layout.gpus > 1:
        tokens = b if phase == DECODE else b * c
        collectives = step_collectives(model, phase, b, tokens, layout, _array_timer).seconds
    shape = numpy.broadcast_shapes(b.shape, c.shape)
    return [numpy.broadcast_to(t_bound, shape), numpy.array(numpy.broadcast_to(
        t_model, shape)), launch_s, collectives, numpy.broadcast_to(tiled, shape)]


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


def _codes(entry) -> numpy.ndarray:
    """One integer a distinct shape of one pending kernel, at each point where it takes
    gemm_hopper's estimate (its sizes' ranks among their distinct values, in mixed radix)."""
    _, _, _, sizes, _, mask, _, _ = entry
    key = numpy.zeros(int(mask.sum()), dtype=numpy.int64)
    for _, array in sizes:
        values, ranks = numpy.unique(numpy.broadcast_to(array, mask.shape)[mask],
                                     return_inverse=True)
        key = key * len(values) + ranks.ravel()
    return key


def _count_shapes(pending: list) -> int:
    """The distinct (spec, precision, sizes) of the pending kernels."""
    return sum(len(numpy.unique(_codes(entry))) for entry in pending)


def _shapes(entry) -> list[tuple]:
    """The distinct (spec, precision, sizes) where one pending kernel takes gemm_hopper's
    estimate."""
    _, _, use, sizes, _, mask, _, _ = entry
    _, first = numpy.unique(_codes(entry), return_index=True)
    rows = [numpy.broadcast_to(array, mask.shape)[mask][first] for _, array in sizes]
    return [(use.model_spec, use.precision,
             tuple((name, int(value)) for (name, _), value in zip(sizes, row)))
            for row in zip(*rows)]


def _tiled_seconds(shape, machine: Machine) -> float:
    """wholemodel.tiled_t_model of one copy at a shape, the analysis's own."""
    model_spec, precision, sizes = shape
    use = KernelUse("", None, "gemm", tuple((n, sympy.Integer(v)) for n, v in sizes),  # type: ignore[arg-type]
                    sympy.Integer(1), 1, model_spec, precision)
    found = tiled_t_model(use, machine)
    assert found is not None  # the grid's mask is tiled_t_model's condition
    return float(found.evalf(20))
