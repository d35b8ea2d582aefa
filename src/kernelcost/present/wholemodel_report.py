"""Stage: WholeModel -> text, JSON and a stacked bar figure (`kernelcost model`).

The tables give, per kernel of a step, W, Q, I, t_bound, t_model and the binding roof; a
summary per batch with tokens/s at the bound and with launch overhead; the memory check; and
the batch at which decode turns compute-bound. The figure (matplotlib, imported only here when
-o is given) stacks each step's time by kernel kind, launch overhead on top."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

from ..answers.composition import KINDS, KernelKind, Phase
from ..answers.wholemodel import Crossing, Step, WholeModel
from ..base.units import counted, plain, si
from .collectives_report import decode_table, parallel_json, step_lines
from .report.cells import json_count
from .report.page import Column, noted_table
from .roofs import model_roof_name, roof_name
from .serving_modes import (
    chunk_json,
    chunk_line,
    launch_cell,
    launch_each,
    launch_figures,
    launch_json,
    launch_line,
)

OUT_OF_SCOPE = ("embedding lookup, RoPE, residual adds and sampling are left out; a prefill's "
                "attention is causal, each token against the keys up to its own (the exact "
                "triangle, without the masked part of a tile on the diagonal)")
T_MODEL_NOTE = ("t_model: a GEMM whose sizes fit gemm_hopper's tiles (M in 256-row clusters, "
                "N in 256, K in 64: prefill, large batches) takes that spec's estimate (waves "
                "of 128 x 256 tiles on the SMs); every other kernel's t_model is its t_min "
                "(sequential specs, no grid: the roofline at the figures as given, t_bound "
                "with the peaks at the maximum clock)")
TP_NOTE = ("--tp {n}: tensor parallelism, every kernel's W, Q and time split over {n} GPUs, "
           "figures per GPU; the all-reduces after attention and after the MLP (2 a layer), "
           "the embedding's and the logits' gather timed on the topology's fastest algorithm, "
           "in sequence with the kernels")
PP_NOTE = ("--pp {s}: the layers in {s} pipeline stages, each GPU holding 1/{g} of the "
           "weights and of its KV heads' cache; one batch in flight runs the stages one "
           "after the other, with a send of the activations between each (more batches in "
           "flight fill the pipeline: throughput, not a step's latency)")
EP_NOTE = ("--tp {n} --ep {n}: expert parallelism over the tensor-parallel GPUs (vLLM's "
           "--enable-expert-parallel): attention's kernels split over {n} GPUs, figures per "
           "GPU; each GPU holds {local} whole experts of {experts} (the weight bytes of --tp {n} "
           "alone) and runs the MoE block on its ceil(T/{n}) of the step's T tokens: it routes "
           "them, sends each routed copy to its expert's GPU (all-to-all dispatch) and back "
           "(combine), then gathers every token for the next attention (all-gather), in place "
           "of the MLP's all-reduce; uniform routing assumed: {leave} of the routed copies "
           "leave their GPU, and each GPU's experts get T x {k} / {n} rows on average; {timed}")
EP_TIMED = ("the all-reduce after attention, the MoE block's three collectives, the embedding's "
            "all-reduce and the logits' gather timed on the topology's fastest algorithm, in "
            "sequence with the kernels")
EP_UNTIMED = ("no shipped topology joins {machine} GPUs, so the collectives are not timed "
              "(give --topology FILE)")
TP_UNTIMED_NOTE = ("--tp {n}: tensor parallelism, every kernel's W, Q and time split over {n} "
                   "GPUs, figures per GPU; no shipped topology joins {machine} GPUs, so the "
                   "collectives are not timed (give --topology FILE)")


def _gb(value: float) -> str:
    """Bytes in GB, a digit after the point; past 10^6 GB (a model file's figures run to
    10^9 layers of width 10^9) in powers of ten, not twenty digits; under 0.1 GB (a small
    model of a user's, whose 0.8 MB read "0.0 GB") with an SI prefix."""
    if 0 < value < 1:  # a share of HBM under a byte (--memory-fraction 1e-300)
        return "under 1 B"
    if 0 < value < 1e8:
        return si(value, "B")
    if value < 1e15:
        return f"{value / 1e9:.1f} GB"
    exponent = math.floor(math.log10(value / 1e9))
    return f"{value / 1e9 / 10**exponent:.2f}e{exponent} GB"


def parameter_count(count: int) -> str:
    """A model's parameters in units of 10^9 where that keeps three digits, else whole;
    past 10^12, in their own power of ten."""
    if count < 10**8:
        return f"{count:,}"
    exponent = 9 if count < 10**12 else len(str(count)) - 1
    return f"{count / 10**exponent:.2f}e{exponent}"


def header_lines(result: WholeModel) -> list[str]:
    model, machine = result.model, result.machine
    moe = (f", {counted(model.experts, 'expert')}, top-{model.experts_per_token}"
           if model.moe else "")
    words = result.quantisation.words()
    served = (f"weights {words['weights']}, activations {words['activations']}, KV cache "
              f"{words['kv_cache']}")
    if result.quantisation.grouped:
        served += f", a scale per {result.quantisation.group} weights"
    lines = [f"{model.name} ({parameter_count(model.params())} parameters, "
             f"{counted(model.layers, 'layer')}, hidden {model.hidden}, "
             f"{counted(model.heads, 'head')} / {counted(model.kv_heads, 'KV head')}, "
             f"head dim {model.head_dim}{moe}; {served}) on {machine.name}, "
             f"context {result.context}"
             + (f", {result.memory.gpus} GPUs" if result.memory.gpus > 1 else "")]
    return lines


# a kernel's table: the words left, the figures right; what a narrow page leaves out last
KERNEL_COLUMNS = [Column("kernel"), Column("launches", "right"), Column("I\nFLOP/B", "right"),
                  Column("t_bound", "right"), Column("t_model", "right"),
                  Column("bound by"), Column("share", "right"),
                  Column("spec", optional=True), Column("W", "right", optional=True),
                  Column("Q", "right", optional=True)]


def kernel_table(step: Step, width: int | None):
    """A step's kernels, one a row, with its total and the launch overhead apart: a fitted
    table (report.page)."""
    title = (f"{step.phase}, batch {step.batch}: " +
             ("one token per sequence" if step.phase is Phase.DECODE
              else f"{step.context} tokens per sequence"))
    total = step.t_bound_s
    rows = [[kernel.use.name, str(kernel.use.launches), plain(kernel.intensity, ""),
             si(kernel.t_bound_s, "s"), si(kernel.t_model_s, "s"), model_roof_name(kernel.bound),
             f"{100 * kernel.t_bound_s / total:.1f} %", kernel.use.spec,
             si(kernel.work_FLOP, "FLOP"), si(kernel.traffic_B, "B")] for kernel in step.kernels]
    rows.append(["total", str(step.launches), plain(step.work_FLOP / step.traffic_B, ""),
                 si(step.t_bound_s, "s"), si(step.t_model_s, "s"), model_roof_name(step.binding),
                 "100 %", "", si(step.work_FLOP, "FLOP"), si(step.traffic_B, "B")])
    rows.append(["launch overhead", launch_cell(step), "", si(step.launch_s, "s"), "",
                 launch_each(step), "apart", "", "", ""])
    return noted_table(title, KERNEL_COLUMNS, [[cell.strip() for cell in row] for row in rows],
                       width, (5, 0))


SUMMARY_COLUMNS = [Column("batch", "right"), Column("decode\nt_bound", "right"),
                   Column("decode\nt_model", "right"), Column("tokens/s", "right"),
                   Column("decode\nbound by"), Column("prefill\nt_bound", "right"),
                   Column("memory\nper GPU", "right"), Column("fits"),
                   Column("launches", "right", optional=True),
                   Column("tokens/s with\nlaunches", "right", optional=True),
                   Column("prefill\ntokens/s", "right", optional=True)]


def summary_table(result: WholeModel, width: int | None):
    """Per batch: the decode step's times at the bound and estimated, tokens/s, what binds,
    the prefill's time and the memory it needs: a fitted table (report.page)."""
    rows = []
    for decode, prefill in zip(result.decode, result.prefill):
        fits = result.memory.fits(decode.batch)
        rows.append([str(decode.batch), si(decode.t_bound_s, "s"), si(decode.t_model_s, "s"),
                     _rate(decode.tokens_per_s, 1), model_roof_name(decode.binding),
                     si(prefill.t_bound_s, "s"), _gb(result.memory.needed_B(decode.batch)),
                     "-" if fits is None else "yes" if fits else "no",
                     si(decode.launch_s, "s"), _rate(decode.tokens_per_s_with_launch, 1),
                     _rate(prefill.tokens_per_s, 0)])
    return noted_table("per batch: the step's time, launch overhead apart", SUMMARY_COLUMNS,
                       rows, width, (4,))


def _rate(value: float, digits: int) -> str:
    """Tokens a second with `digits` after the point; a rate that would round to 0 (a step
    of petaseconds) in two significant digits, not as none."""
    if 0 < value < 0.5 * 10**-digits:
        return f"{value:.2g}"
    return f"{value:,.{digits}f}"


def crossing_line(crossing: Crossing, what: str) -> str:
    if crossing.batch is None and crossing.limit > crossing.ridge:  # past the search
        return (f"{what}: not compute-bound below batch 1e9, though W/Q tends to "
                f"{crossing.limit:.1f} FLOP/B, over the ridge {crossing.ridge:.1f} FLOP/B")
    if crossing.batch is None:
        return (f"{what}: never compute-bound: W/Q rises with the batch towards "
                f"{crossing.limit:.1f} FLOP/B, under the ridge {crossing.ridge:.1f} FLOP/B "
                "(each sequence reads its own KV cache)")
    return (f"{what}: compute-bound from batch {crossing.batch} (W/Q = ridge "
            f"{crossing.ridge:.1f} FLOP/B at b = {crossing.root:.1f}; limit "
            f"{crossing.limit:.1f} FLOP/B as b grows)")


def latency_line(result: WholeModel) -> str:
    """Per batch, the time to the first token and the time per output token."""
    figures = "; ".join(f"batch {latency.batch}: {si(latency.ttft_s, 's')} and "
                        f"{si(latency.tpot_s, 's')}" for latency in result.latencies())
    return ("time to first token (the batch's prompts prefilled together) and time per output "
            "token (a decode step): t_model with the launches and the collectives where timed, "
            f"queueing not counted: {figures}; of which the launches: {launch_figures(result)}")


def memory_lines(result: WholeModel) -> list[str]:
    memory, name = result.memory, result.machine.name
    if memory.capacity_B is None:
        return [f"memory: {result.machine.id} gives no HBM capacity: not checked"]
    per = " per GPU" if memory.gpus > 1 else ""
    usable = memory.usable_B
    assert usable is not None  # a capacity, so a usable share of it
    lines = [f"memory{per} (HBM {_gb(memory.capacity_B)}, {100 * memory.fraction:g} % usable: "
             f"{_gb(usable)}): weights {_gb(memory.weights_B)}, KV cache "
             f"{_gb(memory.kv_per_sequence_B)} per sequence at context {memory.context}; "
             f"the largest batch that fits: {memory.max_batch} sequences (activations not "
             "counted)"]
    if not memory.fits():
        total = memory.weights_B * memory.gpus
        need = math.ceil(memory.weights * memory.gpus / Fraction(usable))  # exact: no float
        heads = result.model.heads
        tp = _least_divisor_from(heads, need)
        needed = (f"they need --tp {tp} or more ({_gb(total / tp)} per GPU, before any KV "
                  "cache)" if tp is not None else f"they need {need:.3g} GPUs, more than "
                  f"--tp splits them over (at most the {heads} attention heads, one a GPU)")
        lines.append(f"WARNING: the weights alone ({_gb(memory.weights_B)}{per}) do not fit "
                     f"the usable {_gb(usable)} of one {name}: {needed}")
    else:
        too_big = [s.batch for s in result.decode if not memory.fits(s.batch)]
        if too_big:
            lines.append(f"WARNING: weights + KV cache do not fit{per} at batch "
                         f"{', '.join(map(str, too_big))}: at most {memory.max_batch} "
                         f"sequences of {memory.context} tokens fit")
    return lines


def _least_divisor_from(count: int, least: int) -> int | None:
    """The least divisor of `count` from `least` up, the least --tp that holds the weights
    and splits the heads evenly (a --tp of 3 over 32 heads is refused, KC507); None past
    `count`. By pairs up to the square root: a model file's heads run to 10^12."""
    if least > count:
        return None
    divisors: set[int] = set()
    for small in range(1, math.isqrt(count) + 1):
        if count % small == 0:
            divisors.update((small, count // small))
    return min(d for d in divisors if d >= least)


def notes(result: WholeModel) -> list[str]:
    found = [T_MODEL_NOTE, OUT_OF_SCOPE]
    stages = result.memory.gpus // result.gpus
    if result.ep > 1:
        found.append(_ep_note(result))
    elif result.gpus > 1:
        note = TP_NOTE if result.parallel is not None else TP_UNTIMED_NOTE
        found.append(note.format(n=result.gpus, machine=result.machine.id))
    if stages > 1:
        found.append(PP_NOTE.format(s=stages, g=result.memory.gpus))
    return found


def _ep_note(result: WholeModel) -> str:
    model, n = result.model, result.ep
    timed = EP_TIMED if result.parallel is not None else EP_UNTIMED.format(
        machine=result.machine.id)
    return EP_NOTE.format(n=n, local=model.experts // n, experts=model.experts,
                          k=model.experts_per_token, leave=f"{n - 1}/{n}", timed=timed)


def text_report(result: WholeModel, kernels: bool, width: int | None):
    """What `model` prints, in order: each item a fitted table (report.page) or a list of
    sentences to wrap; the kernels' tables of each step only when asked (`--kernels`)."""
    yield header_lines(result)
    if kernels:
        for step in (*result.decode, *result.prefill[:1]):
            yield kernel_table(step, width)
    yield summary_table(result, width)
    if result.parallel is not None:
        yield decode_table(result.parallel, width)
        yield step_lines(result.parallel, {(s.phase, s.batch): s.t_model_s
                                           for s in (*result.decode, *result.prefill)})
    lines = [latency_line(result), launch_line(result),
             *filter(None, [chunk_line(result)]),
             crossing_line(result.crossing, f"decode at context {result.context}"),
             crossing_line(result.weights_crossing,
                           "decode, weights alone (context 0; activations cross HBM between "
                           "kernels, the chapter's 295.5 counts weights only)"),
             *memory_lines(result), *(f"note: {line}" for line in notes(result))]
    if not kernels:
        lines.append("(--kernels adds each step's kernels: W, Q, I, t_bound, t_model, the roof "
                     "that binds)")
    yield lines


# ---------------------------------------------------------------------------------- JSON

def _step_json(step: Step) -> dict:
    return {
        "phase": step.phase, "batch": step.batch, "context": step.context,
        "tokens": step.tokens, "W": step.work_FLOP, "Q": step.traffic_B,
        "t_bound": step.t_bound_s, "t_model": step.t_model_s,
        "binding": roof_name(step.binding),
        "launches": step.launches, "launch_overhead": step.launch_s,
        "tokens_per_s": step.tokens_per_s,
        "tokens_per_s_with_launch": step.tokens_per_s_with_launch,
        "kernels": [{"kernel": k.use.name, "kind": k.use.kind, "spec": k.use.spec,
                     "sizes": {name: json_count(value) for name, value in k.use.sizes},
                     "copies": float(k.use.copies), "launches": k.use.launches,
                     "W": k.work_FLOP, "Q": k.traffic_B, "I": k.intensity,
                     "t_bound": k.t_bound_s, "t_model": k.t_model_s,
                     "bound": roof_name(k.bound),
                     "t_model_from": k.model_from}
                    for k in step.kernels],
    }


def _crossing_json(crossing: Crossing) -> dict:
    """`batch`: the smallest batch at or past the ridge, an integer; null with `batch_never`
    true where no batch reaches it (a key's type never varies: not the word "never")."""
    return {"context": crossing.context, "ridge": crossing.ridge, "limit": crossing.limit,
            "batch": crossing.batch, "batch_never": crossing.batch is None,
            "root": crossing.root}


def model_json(result: WholeModel) -> dict:
    """Numbers in SI base units (FLOP, B, s)."""
    memory = result.memory
    return {
        "model": result.model.name, "params": result.model.params(),
        "machine": result.machine.id, "gpus": result.gpus, "context": result.context,
        "decode": [_step_json(s) for s in result.decode],
        "latency": [{"batch": x.batch, "ttft_bound": x.ttft_bound_s, "ttft": x.ttft_s,
                     "tpot_bound": x.tpot_bound_s, "tpot": x.tpot_s,
                     "ttft_launch": x.ttft_launch_s, "tpot_launch": x.tpot_launch_s}
                    for x in result.latencies()],
        "prefill": [_step_json(s) for s in result.prefill],
        "crossing": _crossing_json(result.crossing),
        "weights_crossing": _crossing_json(result.weights_crossing),
        "quantisation": {**result.quantisation.words(),
                         "group_size": result.quantisation.group},
        "memory": {"gpus": memory.gpus, "capacity_B": memory.capacity_B,
                   "fraction": memory.fraction, "usable_B": memory.usable_B,
                   "weights_B": memory.weights_B,
                   "kv_per_sequence_B": memory.kv_per_sequence_B,
                   "weights_fit": memory.fits(), "max_batch": memory.max_batch,
                   "warnings": [x for x in memory_lines(result) if x.startswith("WARNING")]},
        "collectives": None if result.parallel is None else parallel_json(result.parallel),
        "launch": launch_json(result),
        "chunk": chunk_json(result.chunked),
        "notes": notes(result),
    }


# -------------------------------------------------------------------------------- figure

def time_by_kind(step: Step) -> dict[KernelKind, float]:
    times = {kind: 0.0 for kind in KINDS}
    for kernel in step.kernels:
        times[kernel.use.kind] += kernel.t_bound_s
    return times


def stack_figure(result: WholeModel):
    """Two panels: the decode step per batch, and the prefill per sequence (a batch of b
    prefills takes b times as long: per sequence the bars compare), stacked by kernel kind,
    launch overhead hatched on top."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    panels = figure.subplots(1, 2)
    for axes, steps, per_sequence in ((panels[0], result.decode, False),
                                      (panels[1], result.prefill, True)):
        labels = [str(s.batch) for s in steps]
        bottom = [0.0] * len(steps)
        bars: list[tuple[str, list[float], str | None]] = [
            (str(kind), [time_by_kind(s)[kind] for s in steps], None) for kind in KINDS]
        bars.append(("launch overhead", [s.launch_s for s in steps], "//"))
        for label, times, hatch in bars:
            heights = [1e3 * time / (s.batch if per_sequence else 1)
                       for time, s in zip(times, steps)]
            axes.bar(labels, heights, bottom=bottom, label=label, hatch=hatch)
            bottom = [b + h for b, h in zip(bottom, heights)]
        axes.set_xlabel("batch (sequences)")
        axes.set_ylabel("ms per sequence, t_bound" if per_sequence else "ms per step, t_bound")
    panels[0].set_title(f"{result.model.name} decode step on {result.machine.id}, "
                        f"context {result.context}", fontsize="medium")
    panels[1].set_title(f"prefill of {result.context} tokens, per sequence",
                        fontsize="medium")
    panels[0].legend(fontsize="small")
    return figure


def save_stack(result: WholeModel, path: str | Path) -> Path:
    from .plot import save

    return save(stack_figure(result), path)
