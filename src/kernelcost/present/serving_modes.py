"""Stage: how `kernelcost model` launches and chunks its steps (--launch, --chunk) -> the
sentences of the text report and the JSON objects (answers/launch_cost.py, answers/chunked.py)."""

from __future__ import annotations

from ..answers.chunk_plan import ChunkedPrefill
from ..answers.launch_cost import GRAPH_KERNEL_GAP_S, GRAPH_KERNEL_GAP_SOURCE, WORD_OF
from ..answers.wholemodel import Step, WholeModel
from ..base.kinds import LaunchMode
from ..base.units import si


def launch_cell(step: Step) -> str:
    """The kernel table's launch row: `258 x` eager, `1 graph + 258 x` replayed."""
    if step.graph_gap_s is None:
        return f"{step.launches} x"
    return f"1 graph + {step.launches} x"


def launch_each(step: Step) -> str:
    if step.graph_gap_s is None:
        return si(step.launch_overhead_s, "s") + " each"
    return si(step.graph_gap_s, "s") + " a kernel"


def launch_line(result: WholeModel) -> str:
    """What a step pays to launch its kernels, apart from their time."""
    machine = result.machine
    overhead = si(machine.launch_overhead_s or 0.0, "s")
    if result.launch == LaunchMode.EAGER:
        return (f"launches (--launch eager): every kernel launched on its own at {machine.id}'s "
                f"{overhead} (launch_overhead_s), kept apart from the kernels' time; no "
                "framework (Python, PyTorch dispatch) overhead is counted")
    return (f"launches (--launch graphs): a decode step replayed from a CUDA graph, one "
            f"{overhead} launch and {si(GRAPH_KERNEL_GAP_S, 's')} a kernel inside the graph "
            "(a decode step of 401 kernels measured with a 490 us gap, pegainfer, RTX 5070 "
            "Ti: UNCERTAIN); the prefill launched eager; kept apart from the kernels' time")


def launch_figures(result: WholeModel) -> str:
    """`batch 1: 1.03 ms and 1.03 ms` per batch: the launches' share of TTFT and TPOT."""
    return "; ".join(f"batch {latency.batch}: {si(latency.ttft_launch_s, 's')} and "
                     f"{si(latency.tpot_launch_s, 's')}" for latency in result.latencies())


def chunk_line(result: WholeModel) -> str | None:
    if result.chunked is None:
        return None
    budget = result.chunked[0].budget
    steps = "; ".join(f"batch {c.batch}: {len(c.chunks)} steps, {si(c.t_model_s, 's')}"
                      for c in result.chunked)
    return (f"prefill in chunks of {budget:,} tokens (--chunk, vLLM's max_num_batched_tokens): "
            "each step reads the weights again and its attention the KV cache of the steps "
            f"before it; the time to first token is the steps' times summed: {steps} "
            "(t_model); other requests' decode tokens in the same steps are not composed")


def launch_json(result: WholeModel) -> dict:
    graphs = result.launch == LaunchMode.GRAPH
    return {"mode": WORD_OF[result.launch],
            "launch_overhead_s": result.machine.launch_overhead_s,
            "launch_source": result.machine.launch_source,
            "graph_kernel_gap_s": GRAPH_KERNEL_GAP_S if graphs else None,
            "graph_kernel_gap_source": GRAPH_KERNEL_GAP_SOURCE if graphs else None}


def chunk_json(chunked: tuple[ChunkedPrefill, ...] | None) -> dict | None:
    if chunked is None:
        return None
    return {"tokens": chunked[0].budget,
            "batches": [{"batch": c.batch, "steps": len(c.chunks),
                         "shapes": [{"count": shape.count, "tokens": shape.chunk.tokens,
                                     "segments": [{"prefix": s.prefix, "tokens": s.tokens}
                                                  for s in shape.chunk.segments],
                                     "t_bound": shape.t_bound_s,
                                     "t_model": shape.t_model_s,
                                     "launch": shape.launch_s}
                                    for shape in c.shapes]}
                        for c in chunked]}
