"""Stage: WholeModel -> text, JSON and a stacked bar figure (`kernelcost model`).

The tables give, per kernel of a step, W, Q, I, t_bound, t_model and the binding roof; a
summary per batch with tokens/s at the bound and with launch overhead; the memory check; and
the batch at which decode turns compute-bound. The figure (matplotlib, imported only here when
-o is given) stacks each step's time by kernel kind, launch overhead on top."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

from rich.table import Table

from ..answers.wholemodel import KINDS, Crossing, KernelKind, Step, WholeModel
from ..base.units import plain, si
from .roofs import model_roof_name, roof_name

OUT_OF_SCOPE = ("embedding lookup, RoPE, residual adds and sampling are left out; prefill "
                "attention is counted without the causal mask (about twice the work a causal "
                "kernel does)")
T_MODEL_NOTE = ("t_model: a GEMM whose sizes fit gemm_hopper's tiles (M in 256-row clusters, "
                "N in 256, K in 64: prefill, large batches) takes that spec's estimate (waves "
                "of 128 x 256 tiles on the SMs); every other kernel's t_model is its t_min "
                "(sequential specs, no grid: the roofline at the figures as given, t_bound "
                "with the peaks at the maximum clock)")
TP_NOTE = ("--gpus {n}: tensor parallelism, every kernel's W, Q and time split over {n} GPUs, "
           "figures per GPU; the all-reduce after attention and after the MLP (2 per layer) is "
           "out of scope")


def _gb(value: float) -> str:
    return f"{value / 1e9:.1f} GB"


def header_lines(result: WholeModel) -> list[str]:
    model, machine = result.model, result.machine
    moe = (f", {model.experts} experts, top-{model.experts_per_token}" if model.moe else "")
    lines = [f"{model.name} ({model.params() / 1e9:.2f}e9 parameters, {model.layers} layers, "
             f"hidden {model.hidden}, {model.heads} heads / {model.kv_heads} KV heads, "
             f"head dim {model.head_dim}{moe}, {model.dtype}) on {machine.name}, "
             f"context {result.context}" + (f", {result.gpus} GPUs" if result.gpus > 1 else "")]
    return lines


# a kernel's table: (header, justification), the words left, the figures right
KERNEL_COLUMNS: tuple[tuple[str, Literal["left", "right"]], ...] = (
    ("kernel", "left"), ("spec", "left"), ("launches", "right"), ("W", "right"), ("Q", "right"),
    ("I", "right"), ("t_bound", "right"), ("t_model", "right"), ("binding roof", "left"),
    ("share", "right"))


def kernel_table(step: Step) -> Table:
    title = (f"{step.phase}, batch {step.batch}: " +
             ("one token per sequence" if step.phase == "decode"
              else f"{step.context} tokens per sequence"))
    table = Table(title=title, title_justify="left")
    for column, justify in KERNEL_COLUMNS:
        table.add_column(column, justify=justify)
    total = step.t_bound_s
    for kernel in step.kernels:
        table.add_row(kernel.use.name, kernel.use.spec, str(kernel.use.launches),
                      si(kernel.work_FLOP, "FLOP"), si(kernel.traffic_B, "B"),
                      plain(kernel.intensity, "FLOP/B"), si(kernel.t_bound_s, "s"),
                      si(kernel.t_model_s, "s"), model_roof_name(kernel.bound),
                      f"{100 * kernel.t_bound_s / total:.1f} %")
    table.add_section()
    table.add_row("total", "", str(step.launches), si(step.work_FLOP, "FLOP"),
                  si(step.traffic_B, "B"), plain(step.work_FLOP / step.traffic_B, "FLOP/B"),
                  si(step.t_bound_s, "s"), si(step.t_model_s, "s"), model_roof_name(step.binding),
                  "100 %")
    table.add_row("launch overhead", "", "", "", "", "", si(step.launch_s, "s"), "",
                  f"{step.launches} x {si(step.launch_overhead_s, 's')}", "apart")
    return table


def summary_table(result: WholeModel) -> Table:
    table = Table(title="per batch: the step's time at the bound, launch overhead apart",
                  title_justify="left")
    for column in ("batch", "decode t_bound", "+ launches", "tokens/s", "with launches",
                   "decode bound", "prefill t_bound", "prefill tokens/s", "memory / GPU"):
        table.add_column(column, justify="left" if "bound" in column and "t_" not in column
                         else "right")
    for decode, prefill in zip(result.decode, result.prefill):
        needed = result.memory.needed_B(decode.batch)
        fits = result.memory.fits(decode.batch)
        table.add_row(str(decode.batch), si(decode.t_bound_s, "s"), si(decode.launch_s, "s"),
                      f"{decode.tokens_per_s:,.1f}", f"{decode.tokens_per_s_with_launch:,.1f}",
                      model_roof_name(decode.binding), si(prefill.t_bound_s, "s"),
                      f"{prefill.tokens_per_s:,.0f}",
                      _gb(needed) + ("" if fits is not False else " (does not fit)"))
    return table


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


def memory_lines(result: WholeModel) -> list[str]:
    memory, name = result.memory, result.machine.name
    if memory.capacity_B is None:
        return [f"memory: {result.machine.id} gives no HBM capacity: not checked"]
    per = " per GPU" if memory.gpus > 1 else ""
    lines = [f"memory{per} (HBM {_gb(memory.capacity_B)}): weights {_gb(memory.weights_B)}, "
             f"KV cache {_gb(memory.kv_per_sequence_B)} per sequence at context "
             f"{memory.context}"]
    if not memory.fits():
        total = memory.weights_B * memory.gpus
        need = math.ceil(total / memory.capacity_B)
        lines.append(f"WARNING: the weights alone ({_gb(memory.weights_B)}{per}) do not fit "
                     f"one {name} ({_gb(memory.capacity_B)}): they need --gpus {need} or more "
                     f"({_gb(total / need)} per GPU, before any KV cache)")
    else:
        too_big = [s.batch for s in result.decode if not memory.fits(s.batch)]
        if too_big:
            lines.append(f"WARNING: weights + KV cache do not fit{per} at batch "
                         f"{', '.join(map(str, too_big))}: at most {memory.max_batch} "
                         f"sequences of {memory.context} tokens fit")
    return lines


def notes(result: WholeModel) -> list[str]:
    found = [T_MODEL_NOTE, OUT_OF_SCOPE]
    if result.gpus > 1:
        found.append(TP_NOTE.format(n=result.gpus))
    return found


def text_report(result: WholeModel, console) -> None:
    for line in header_lines(result):
        console.print(line)
    for decode in result.decode:
        console.print(kernel_table(decode))
    if result.prefill:
        console.print(kernel_table(result.prefill[0]))
    console.print(summary_table(result))
    console.print(crossing_line(result.crossing, f"decode at context {result.context}"))
    console.print(crossing_line(result.weights_crossing,
                                "decode, weights alone (context 0; activations cross HBM "
                                "between kernels, the chapter's 295.5 counts weights only)"))
    for line in memory_lines(result):
        console.print(line, style="bold red" if line.startswith("WARNING") else None)
    for line in notes(result):
        console.print(f"note: {line}")


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
                     "sizes": {name: str(value) for name, value in k.use.sizes},
                     "copies": float(k.use.copies), "launches": k.use.launches,
                     "W": k.work_FLOP, "Q": k.traffic_B, "I": k.intensity,
                     "t_bound": k.t_bound_s, "t_model": k.t_model_s,
                     "bound": roof_name(k.bound),
                     "t_model_from": k.model_from}
                    for k in step.kernels],
    }


def _crossing_json(crossing: Crossing) -> dict:
    return {"context": crossing.context, "ridge": crossing.ridge, "limit": crossing.limit,
            "batch": crossing.batch if crossing.batch is not None else "never",
            "root": crossing.root}


def model_json(result: WholeModel) -> dict:
    """Numbers in SI base units (FLOP, B, s)."""
    memory = result.memory
    return {
        "model": result.model.name, "params": result.model.params(),
        "machine": result.machine.id, "gpus": result.gpus, "context": result.context,
        "decode": [_step_json(s) for s in result.decode],
        "prefill": [_step_json(s) for s in result.prefill],
        "crossing": _crossing_json(result.crossing),
        "weights_crossing": _crossing_json(result.weights_crossing),
        "memory": {"gpus": memory.gpus, "capacity_B": memory.capacity_B,
                   "weights_B": memory.weights_B,
                   "kv_per_sequence_B": memory.kv_per_sequence_B,
                   "weights_fit": memory.fits(), "max_batch": memory.max_batch,
                   "warnings": [x for x in memory_lines(result) if x.startswith("WARNING")]},
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
