"""Stage: ModelConfig x Machine -> WholeModel. One decode step and one prefill of a transformer,
composed from shipped specs, kernel by kernel (`kernelcost model`): the kernels of each step
from the composition table (composition.py), each timed on the machine; the collectives of
tensor, pipeline and expert parallelism between them (tensor_parallel.py); the batch from
which decode turns compute-bound; the weights and KV cache against HBM (hbm_fit.py). Launch
overhead is kept apart: launches x the machine's figure (eager), or a decode step's one
graph launch and its gaps (launch_cost.py)."""

from __future__ import annotations

import dataclasses
import functools
import math

import sympy

from ..algebra.numeric_sums import ExactRatios
from ..analysis.api import broken_assumptions
from ..base.errors import Code, Diagnostic, MachineFileError, ModelFileError
from ..base.kinds import LaunchMode, Reuse, WorkClass
from ..base.levels import Level
from ..base.records import record
from ..base.watchdog import stage
from ..count.values import exact
from ..hardware.machine import Machine, Roof
from ..hardware.modelfile import ModelConfig
from .chunk_plan import ChunkedPrefill
from .composition import DECODE, PREFILL, KernelUse, Phase, kernel_uses, shipped_spec
from .hbm_fit import DEFAULT_FRACTION, Memory, memory
from .launch_cost import graph_gap
from .model import verdict
from .quantisation import BF16_ONLY, Quantisation, check_groups
from .tensor_parallel import Layout, TensorParallel, check_expert_parallel, step_collectives

BATCH = sympy.Symbol("b", positive=True)  # the batch, left free to find the crossing
MAX_CROSSING_BATCH = 10**9


@record
class KernelCost:
    use: KernelUse
    work_FLOP: float
    traffic_B: float  # global (HBM) bytes
    t_bound_s: float  # no run is faster: the roofline bound of the spec, times the copies
    t_model_s: float  # the estimate: the tiled spec's where it applies, else t_bound
    bound: Roof  # the binding roof: the global bandwidth, the bf16 tensor peak, ...
    model_from: str  # the spec t_model comes from

    @property
    def intensity(self) -> float:
        return self.work_FLOP / self.traffic_B if self.traffic_B else math.inf


@record
class Step:
    """One decode step (a token for each of `batch` sequences) or one prefill (`context`
    tokens for each), on one GPU."""

    phase: Phase
    batch: int
    context: int
    kernels: tuple[KernelCost, ...]
    launch_overhead_s: float  # per launch; 0 when the machine has no figure
    # replayed from a CUDA graph: one launch, and this gap a kernel (launch_cost.py); None: eager
    graph_gap_s: float | None = None

    @property
    def tokens(self) -> int:
        return self.batch if self.phase == DECODE else self.batch * self.context

    @property
    def work_FLOP(self) -> float:
        return sum(k.work_FLOP for k in self.kernels)

    @property
    def traffic_B(self) -> float:
        return sum(k.traffic_B for k in self.kernels)

    @property
    def t_bound_s(self) -> float:
        return sum(k.t_bound_s for k in self.kernels)

    @property
    def t_model_s(self) -> float:
        return sum(k.t_model_s for k in self.kernels)

    @property
    def launches(self) -> int:
        return sum(k.use.launches for k in self.kernels)

    @property
    def launch_s(self) -> float:
        if self.graph_gap_s is None:
            return self.launches * self.launch_overhead_s
        return self.launch_overhead_s + self.launches * self.graph_gap_s

    @property
    def tokens_per_s(self) -> float:
        """At the bound, launch overhead left out (CUDA graphs hide most of it)."""
        return self.tokens / self.t_bound_s

    @property
    def tokens_per_s_with_launch(self) -> float:
        return self.tokens / (self.t_bound_s + self.launch_s)

    def time_by_roof(self) -> dict[Roof, float]:
        times: dict[Roof, float] = {}
        for kernel in self.kernels:
            times[kernel.bound] = times.get(kernel.bound, 0.0) + kernel.t_bound_s
        return times

    @property
    def binding(self) -> Roof:
        """The roof under which most of the step's time is spent."""
        times = self.time_by_roof()
        return max(times, key=lambda roof: times[roof])


@record
class Crossing:
    """Where a decode step's intensity W/Q meets the ridge P/B as the batch grows."""

    context: int
    ridge: float  # FLOP/B
    limit: float  # W/Q as b -> oo: the KV cache read per sequence keeps it finite
    batch: int | None  # smallest batch at or past the ridge; None: never
    root: float | None  # the real b where W/Q = ridge


@record
class WholeModel:
    model: ModelConfig
    machine: Machine
    gpus: int
    context: int
    decode: tuple[Step, ...]
    prefill: tuple[Step, ...]
    crossing: Crossing  # with the KV cache at the context
    weights_crossing: Crossing  # context 0: the weights alone, the chapter's b*
    memory: Memory
    parallel: TensorParallel | None  # the collectives, where the GPUs' topology is known
    quantisation: Quantisation = BF16_ONLY
    launch: LaunchMode = LaunchMode.EAGER
    chunked: tuple[ChunkedPrefill, ...] | None = None  # per batch: chunked.chunked_model
    ep: int = 1  # GPUs the experts are split over (expert parallelism; 1: none)

    def latencies(self) -> tuple[Latency, ...]:
        """Per batch, the serving figures of its steps (Latency), the collectives between
        the kernels in each where the topology is known."""
        decode_comm = self.parallel.decode if self.parallel else (None,) * len(self.decode)
        prefill_comm = self.parallel.prefill if self.parallel else (None,) * len(self.prefill)
        return tuple(
            Latency(decode.batch, prefill.t_bound_s,
                    prefill.t_model_s + prefill.launch_s + (p.seconds if p else 0.0),
                    decode.t_bound_s,
                    decode.t_model_s + decode.launch_s + (d.seconds if d else 0.0),
                    prefill.launch_s, decode.launch_s)
            for decode, prefill, d, p in zip(self.decode, self.prefill, decode_comm,
                                             prefill_comm))


@record
class Latency:
    """A batch's prompts prefilled together, then decoded together: the time to the first
    token (the prefill, whose LM head gives it) and the time per output token (a decode step
    at the context). The bound is t_bound; the estimate t_model with the launches (eager, or
    a decode step's graph: launch_cost.py) and the collectives of tensor parallelism; queueing,
    scheduling and sampling are not counted. The launches' share is kept apart as well."""

    batch: int
    ttft_bound_s: float
    ttft_s: float
    tpot_bound_s: float
    tpot_s: float
    ttft_launch_s: float = 0.0  # of ttft_s, the launches'
    tpot_launch_s: float = 0.0  # of tpot_s, the launches'


# ------------------------------------------------------------------------- composition



def kernel_cost(use: KernelUse, machine: Machine) -> KernelCost:
    spec = shipped_spec(use.spec).at_precision(use.precision)
    cost = spec.cost(Reuse.SPEC)
    stage(f"modelling the {use.name} on {machine.id}", spec.kernel.span)
    result = verdict(cost, machine, values=dict(use.sizes))
    if result.t_bound is None:  # an on-chip tile too large: no time to add up
        raise ModelFileError(Code.MODEL_KERNEL_DOES_NOT_FIT, Diagnostic(
            None,
            f"`{use.spec}` for the {use.name} does not fit {machine.id} at "
            + ", ".join(f"{name} = {value}" for name, value in dict(use.sizes).items()),
            "a tile the spec keeps on chip outgrows the machine's level: choose another "
            "machine"))
    copies = use.copies

    def scaled(expr) -> float:
        return float((expr * copies).evalf(20))

    t_bound = scaled(result.t_bound)
    t_model, model_from = scaled(result.t_model), use.spec
    tiled = tiled_t_model(use, machine)
    if tiled is not None:  # never under the ideal kernel's bound: that no run beats
        assert use.model_spec is not None  # what tiled_t_model counted
        t_model, model_from = max(scaled(tiled), t_bound), use.model_spec
    assert result.bound is not None  # every size a number: one roof binds
    return KernelCost(use, scaled(result.work_FLOP), scaled(result.level(Level.GLOBAL).traffic_B),
                      t_bound, t_model, result.bound_at_max_clock or result.bound, model_from)


def tiled_t_model(use: KernelUse, machine: Machine) -> sympy.Expr | None:
    """t_model of one copy from the tiled spec, when the sizes are whole numbers that meet its
    `assume` facts (gemm_hopper: M in whole 256-row clusters, N in 256, K in 64); a decode
    GEMM of a few rows, or an MoE expert's fractional share of tokens, keeps the bound."""
    if use.model_spec is None:
        return None
    spec = shipped_spec(use.model_spec).at_precision(use.precision)
    values = {spec.parameters[name]: value for name, value in use.sizes}
    if not all(value.is_Integer for value in values.values()):
        return None
    values.update({symbol: sympy.Integer(default)
                   for symbol, default in spec.checked.defaults.items()})
    if broken_assumptions(spec.checked, values):
        return None
    result = verdict(spec.cost(Reuse.SPEC), machine, values={str(k): v for k, v in values.items()})
    return result.t_model


def step(model: ModelConfig, machine: Machine, phase: Phase, batch: int, context: int,
         gpus: int = 1, *, quantisation: Quantisation = BF16_ONLY, ep: int = 1) -> Step:
    kernels = tuple(kernel_cost(use, machine) for use in kernel_uses(
        model, phase, batch, context, gpus, quantisation=quantisation, ep=ep))
    return Step(phase, batch, context, kernels, machine.launch_overhead_s or 0.0)


# ------------------------------------------------------------------ crossing and memory

def step_amounts(model: ModelConfig, context: int, batch=BATCH,
                 quantisation: Quantisation = BF16_ONLY) -> tuple[sympy.Expr, sympy.Expr]:
    """W and global Q of a decode step as closed forms in the batch, from the specs' own."""
    work, traffic = sympy.Integer(0), sympy.Integer(0)
    for use in kernel_uses(model, DECODE, batch, context, quantisation=quantisation):
        spec = shipped_spec(use.spec).at_precision(use.precision)
        cost = spec.cost(Reuse.SPEC)
        values = {symbol: exact(value) for symbol, value in cost.defaults.items()}
        values.update({spec.parameters[name]: value for name, value in use.sizes})
        work += cost.total_work.subs(values) * use.copies
        traffic += cost.traffic[Level.GLOBAL].subs(values) * use.copies
    return work, traffic


def decode_crossing(model: ModelConfig, machine: Machine, context: int,
                    quantisation: Quantisation = BF16_ONLY) -> Crossing:
    """The batch from which the step's W/Q is at or past the ridge P/B (the GEMMs' tensor
    peak, bf16 or fp8 as the activations are, over HBM bandwidth), or never, with the limit
    of W/Q as the batch grows. W/Q rises with the batch (more tokens share each weight)
    towards a limit set by what every sequence reads alone: its KV cache."""
    ridge = (exact(machine.peak(quantisation.activations, WorkClass.TENSOR))
             / exact(machine.bandwidth(Level.GLOBAL)))
    work, traffic = step_amounts(model, context, quantisation=quantisation)
    limit = sympy.limit(work / traffic, BATCH, sympy.oo)
    # >= 0: compute-bound. Its fractions as one division of integers: at a whole batch a
    # polynomial's sign is then exact (a gap of 0 in floats was -1.5e-11: a batch too many)
    gap = sympy.lambdify(BATCH, work - ridge * traffic, "math", printer=_exact_printer())
    found = root = None
    if limit > ridge or gap(1) >= 0:
        low, high = 1, 1
        while gap(high) < 0 and high < MAX_CROSSING_BATCH:
            low, high = high, high * 2
        if gap(high) >= 0:
            while high - low > 1:  # smallest whole batch past the ridge
                middle = (low + high) // 2
                low, high = (low, middle) if gap(middle) >= 0 else (middle, high)
            found = 1 if gap(1) >= 0 else high
            root = _real_root(gap, max(found - 1, 0), found)
    return Crossing(context, float(ridge), float(limit), found, root)


@functools.cache
def _exact_printer() -> type:
    """Python's printer (lambdify's for "math") with numeric_sums.ExactRatios."""
    from sympy.printing.pycode import PythonCodePrinter

    return type("ExactPrinter", (ExactRatios, PythonCodePrinter), {})


def _real_root(gap, low: float, high: float) -> float:
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (low, middle) if gap(middle) >= 0 else (middle, high)
    return high


def check_served(model: ModelConfig, machine: Machine, quantisation: Quantisation) -> None:
    """What the machine must have to serve the model so quantised (module doc)."""
    if machine.bandwidth(Level.GLOBAL) is None:
        raise MachineFileError(Code.MACHINE_LACKS_FIGURE, Diagnostic(
            None, f"machine `{machine.id}` has no global bandwidth"))
    for precision in quantisation.compute_precisions():
        machine.require_precision(precision)  # an fp8 GEMM on an A100 is refused here
    check_groups(model, quantisation)


def whole_model(model: ModelConfig, machine: Machine, batches: list[int], context: int,
                gpus: int = 1, layout: Layout | None = None, *,
                quantisation: Quantisation = BF16_ONLY,
                fraction: float = DEFAULT_FRACTION,
                launch: LaunchMode = LaunchMode.EAGER) -> WholeModel:
    """The steps at each batch over `gpus` GPUs of tensor parallelism; with a layout (the
    topology, pipeline stages, expert parallelism), the collectives between the kernels
    (tensor_parallel.py). `quantisation` chooses the specs and the bytes, `fraction` the
    share of HBM the weights and KV cache may take (hbm_fit.py), `launch` how a decode step
    launches its kernels (launch_cost.py). Expert parallelism leaves the weights a GPU holds
    as tensor parallelism's: E/N whole experts are 1/N of them."""
    check_served(model, machine, quantisation)
    ep = 1 if layout is None else layout.ep
    check_expert_parallel(model, gpus, ep)
    parallel = None
    if layout is not None and layout.topology is not None and layout.gpus > 1:
        parallel = TensorParallel(
            layout,
            decode=tuple(step_collectives(model, DECODE, b, b, layout) for b in batches),
            prefill=tuple(step_collectives(model, PREFILL, b, b * context, layout)
                          for b in batches))
    stages = 1 if layout is None else layout.stages

    def steps(phase: Phase) -> tuple[Step, ...]:
        return tuple(step(model, machine, phase, b, context, gpus, quantisation=quantisation,
                          ep=ep) for b in batches)

    decode = tuple(dataclasses.replace(s, graph_gap_s=graph_gap(launch)) for s in steps(DECODE))
    return WholeModel(
        model, machine, gpus, context, decode=decode, prefill=steps(PREFILL),
        crossing=decode_crossing(model, machine, context, quantisation),
        weights_crossing=decode_crossing(model, machine, 0, quantisation),
        memory=memory(model, machine, context, gpus, stages, quantisation=quantisation,
                      fraction=fraction),
        parallel=parallel, quantisation=quantisation, launch=launch, ep=ep,
    )
