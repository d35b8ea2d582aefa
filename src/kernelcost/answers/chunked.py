"""Stage: a batch's prefill in chunks of at most C tokens a step (`kernelcost model --chunk C`),
as vLLM's scheduler runs it under chunked prefill with `max_num_batched_tokens` = C.

vLLM, docs/configuration/optimization.md, section "Chunked Prefill"
(https://docs.vllm.ai/en/latest/configuration/optimization.html): "Chunked prefill allows
vLLM to process large prefills in smaller chunks and batch them together with decode
requests. [...] In V1, chunked prefill is enabled by default whenever possible. With chunked
prefill enabled, the scheduling policy prioritizes decode requests. It batches all pending
decode requests before scheduling any prefill operations. When there are available tokens in
the `max_num_batched_tokens` budget, it schedules pending prefills. If a pending prefill
request cannot fit into `max_num_batched_tokens`, it automatically chunks it."

What is composed: the batch's b prompts of P tokens, submitted together, are taken in order,
C tokens a step (the last step takes the rest): one prompt's P tokens take ceil(P / C) steps,
the batch's b P tokens ceil(b P / C), a step crossing from one prompt to the next where C
does not divide P. Each step is one forward pass at T = its tokens: every GEMM at M = T (the
weights read again each step: a small C pays the weight traffic b P / C times), the norms and
the SwiGLU at T; the attention of each prompt's part of the step, `model_attention_chunk`:
its new tokens against the KV cache of its earlier chunks (causal across chunks) and against
each other up to their own (causal inside the chunk); the LM head at one row a prompt the
step holds (vLLM computes the logits of each scheduled request's last position, and drops
the sample of a prompt not yet complete). The time to the first token is the sum of the
steps' times. Not composed: the decode tokens of other requests that the engine puts in the
same step (the budget they take, their attention), and a prompt's own first decode token
joining the steps after its prefill ends; the prefill steps run eager (launch_cost.py)."""

from __future__ import annotations

import dataclasses
from collections import Counter

import sympy

from ..hardware.machine import Machine
from ..hardware.modelfile import ModelConfig
from .chunk_plan import Chunk, ChunkedPrefill, ChunkShape, Segment, plan
from .composition import PREFILL, KernelKind, KernelUse, kernel_uses
from .quantisation import BF16_ONLY, Quantisation
from .tensor_parallel import CollectiveUse, Layout, StepCollectives, step_collectives
from .wholemodel import KernelCost, Step, WholeModel, kernel_cost


def chunk_uses(model: ModelConfig, chunk: Chunk, gpus: int = 1, *,
               quantisation: Quantisation = BF16_ONLY) -> tuple[KernelUse, ...]:
    """The composition table of one step: wholemodel's prefill rows at T = the step's tokens,
    the attention one row a distinct segment, the LM head one row a prompt."""
    composed: list[KernelUse] = []
    for use in kernel_uses(model, PREFILL, 1, chunk.tokens, gpus, quantisation=quantisation):
        if use.kind == KernelKind.ATTENTION:
            composed += _attention_uses(use, chunk)
        elif use.kind == KernelKind.LM_HEAD:
            rows = len(chunk.segments)
            composed.append(dataclasses.replace(
                use, sizes=tuple((name, value * rows if name == "M" else value)
                                 for name, value in use.sizes)))
        else:
            composed.append(use)
    return tuple(composed)


def _attention_uses(causal: KernelUse, chunk: Chunk) -> list[KernelUse]:
    """One attention launch a layer (a varlen kernel serves every prompt of the step): its
    launches on the first row, each segment shape's copies on its own."""
    sizes = dict(causal.sizes)
    return [dataclasses.replace(
        causal, spec="model_attention_chunk",
        sizes=(("C", sympy.Integer(segment.tokens)), ("L", sympy.Integer(segment.prefix)),
               ("g", sizes["g"]), ("d", sizes["d"])),
        # the causal row's copies are layers x kv heads x 1 prompt (x 1/tp)
        copies=causal.copies * count, launches=causal.launches if index == 0 else 0)
        for index, (segment, count) in enumerate(chunk.shape())]


def chunked_steps(model: ModelConfig, machine: Machine, batch: int, context: int,
                  budget: int, gpus: int = 1, *, quantisation: Quantisation = BF16_ONLY
                  ) -> tuple[ChunkedPrefill, Step]:
    """The plan with each shape's step timed, and the prefill as one Step whose kernels are
    summed over the steps (one row a kernel of the table)."""
    chunks = plan(batch, context, budget)
    overhead = machine.launch_overhead_s or 0.0
    costs: dict[KernelUse, KernelCost] = {}  # a GEMM at T = C recurs in every full step
    counts = Counter(chunk.shape() for chunk in chunks)
    first: dict[tuple[tuple[Segment, int], ...], Chunk] = {}
    for chunk in chunks:
        first.setdefault(chunk.shape(), chunk)
    steps: list[tuple[Chunk, Step, int]] = []
    for shape, count in counts.items():
        kernels = []
        for use in chunk_uses(model, first[shape], gpus, quantisation=quantisation):
            if use not in costs:
                costs[use] = kernel_cost(use, machine)
            kernels.append(costs[use])
        steps.append((first[shape], Step(PREFILL, batch, context, tuple(kernels), overhead),
                      count))
    shapes = tuple(ChunkShape(chunk, count, step.t_bound_s, step.t_model_s, step.launch_s)
                   for chunk, step, count in steps)
    total = Step(PREFILL, batch, context, summed_kernels(steps), overhead)
    return ChunkedPrefill(batch, budget, chunks, shapes), total


def summed_kernels(steps: list[tuple[Chunk, Step, int]]) -> tuple[KernelCost, ...]:
    """Each kernel of the table summed over the steps: W, Q, times, copies and launches; its
    binding roof the one of the shape where it spends the most time. The sizes differ from
    step to step: the sum keeps none."""
    rows: dict[str, list[tuple[KernelCost, int]]] = {}
    for _, step, count in steps:
        for kernel in step.kernels:
            rows.setdefault(kernel.use.name, []).append((kernel, count))
    return tuple(_summed(parts) for parts in rows.values())


def _summed(parts: list[tuple[KernelCost, int]]) -> KernelCost:
    first = parts[0][0]
    slowest = max(parts, key=lambda part: part[0].t_bound_s * part[1])[0]
    use = dataclasses.replace(
        first.use, sizes=(), copies=sum((k.use.copies * n for k, n in parts), sympy.Integer(0)),
        launches=sum(k.use.launches * n for k, n in parts))
    return KernelCost(use, sum(k.work_FLOP * n for k, n in parts),
                      sum(k.traffic_B * n for k, n in parts),
                      sum(k.t_bound_s * n for k, n in parts),
                      sum(k.t_model_s * n for k, n in parts), slowest.bound, slowest.model_from)


def chunked_collectives(model: ModelConfig, prefill: ChunkedPrefill,
                        layout: Layout) -> StepCollectives:
    """The collectives of every step, each at its own tokens and prompts (the logits'
    gather one row a prompt the step holds)."""
    uses: list[CollectiveUse] = []
    for shape in prefill.shapes:
        each = step_collectives(model, PREFILL, len(shape.chunk.segments), shape.chunk.tokens,
                                layout)
        uses += [dataclasses.replace(use, copies=use.copies * shape.count)
                 for use in each.uses]
    return StepCollectives(PREFILL, prefill.batch, tuple(uses))


def chunked_model(result: WholeModel, budget: int) -> WholeModel:
    """`result` with each batch's prefill in steps of at most `budget` tokens: the prefill's
    kernels, its collectives where they are timed, and the plan (WholeModel.chunked)."""
    planned = [chunked_steps(result.model, result.machine, step.batch, result.context, budget,
                             result.gpus, quantisation=result.quantisation)
               for step in result.prefill]
    parallel = result.parallel
    if parallel is not None:
        parallel = dataclasses.replace(parallel, prefill=tuple(
            chunked_collectives(result.model, prefill, parallel.layout)
            for prefill, _ in planned))
    return dataclasses.replace(result, prefill=tuple(total for _, total in planned),
                               parallel=parallel,
                               chunked=tuple(prefill for prefill, _ in planned))
