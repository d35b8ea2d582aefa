"""Stage: the time to the first token of a request that a benchmark client sends into a server
already decoding others, and its time per output token, as a closed loop at a fixed
concurrency measures them (`vllm bench serve --max-concurrency c` at its default request rate
inf: c requests in flight, the next sent as one finishes).

vLLM's benchmark client (vllm-project/vllm, vllm/benchmarks/lib/endpoint_request_func.py,
`async_request_openai_chat_completions`, read at commit 02cfb534df5674737558730b10f23d1b7aef9b7c):
`st = time.perf_counter()` before the POST, and `output.ttft = timestamp - st` at the first
streamed message that carries `choices`; vLLM's server sends it on the engine's first output,
which carries the first sampled token (vllm/entrypoints/openai/serving_chat.py at commit
003fe5932dc9e1b331347894d3cbc5ddfe89e9eb, `chat_completion_stream_generator`, its
`first_iteration` branch; SGLang's and TensorRT-LLM's servers taken to do the same).
vllm/benchmarks/serve.py (read at commit 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1) gives every
request a delay of 0 at request rate inf and holds at most `max_concurrency` in flight; it
reports `np.median(ttfts)` and the median of a request's
`latency_minus_ttft / (output_len - 1)`. (Both commits are later than vLLM v0.11.0; the
rule is the same in the file's older copies.)

What is composed, for the new request, with the c - 1 others in the middle of their decode
(the context input + output / 2, as a row's TPOT):
1. The wait for the step in flight: the engine takes a new request at a step boundary, and
   the request reaches it at no particular point of the others' decode step, so the wait is
   uniform over that step and its median is half of it: a decode step of c - 1 sequences,
   launched as the row says (eager, or replayed from a graph). An engine whose scheduler
   runs one step ahead of the GPU (Scheduler.OVERLAP) has already launched the next decode
   step of the c - 1 when it takes the request, so the prompt waits that whole step too.
2. The step that holds its prompt, launched eager as every prefill (launch_cost.py), ending
   with the first token sampled. How the engine builds it (PromptStep):
   - WITH_DECODES: the prompt and the others' c - 1 decode tokens in one forward pass, the
     GEMMs at M = P + c - 1, each decode its own attention segment (one new token after its
     context: chunked.py's `model_attention_chunk`), the LM head a row per sequence. vLLM's V1
     scheduler (docs/configuration/optimization.md, "Chunked Prefill": "It batches all pending
     decode requests before scheduling any prefill operations. When there are available
     tokens in the `max_num_batched_tokens` budget, it schedules pending prefills.") and
     TensorRT-LLM's in-flight batching
     (https://nvidia.github.io/TensorRT-LLM/features/paged-attention-ifb-scheduler.html,
     "In-flight Batching": "sequences in the context phase can be processed together with
     sequences in the generation phase").
   - ALONE: the prompt in a step of its own, the others waiting: SGLang unless started with
     `--enable-mixed-chunk` (SGLang's server arguments, docs/backend/server_arguments.md,
     https://docs.sglang.ai/backend/server_arguments.html: "`--enable-mixed-chunk` |
     Enabling mixing prefill and decode in a batch when using chunked prefill. | False").
How the engine's scheduler meets the GPU (Scheduler):
   - SYNC: a step is scheduled after the previous one's outputs are back: vLLM V1 before
     async scheduling became its default (vllm-project/vllm pull request #19970 'Implement
     Async Scheduling', WoosukKwon, 2025-06-23: "an experimental feature and can be enabled
     using the `--async-scheduling` flag"; SchedulerConfig `async_scheduling: bool = False`
     in stored copies of that era, not the v0.11.0 tag's; pull request #27614 '[Core] Enable
     async scheduling by default', njhill, 2025-10-27, after v0.11.0).
   - OVERLAP: the scheduler launches step n + 1 and then processes step n's outputs, and
     takes new requests at the top of its loop, when step n has finished and n + 1 is on the
     GPU: SGLang (the SGLang v0.4 post, lmsys.org/blog/2024-12-04-sglang-v0-4, "Zero-Overhead
     Batch Scheduler": "The scheduler runs one batch ahead"; python/sglang/srt/managers/
     scheduler.py, `event_loop_overlap`: recv_requests, get_next_batch_to_run, run_batch,
     then the last batch's process_batch_result; off only with `--disable-overlap-schedule`)
     and TensorRT-LLM's PyExecutor (NVIDIA/TensorRT-LLM docs/source/features/
     overlap-scheduler.md at commit 081661b76c54f3516a894b682f1f15ceb7d3a03c: "At step n,
     the system launches GPU computation for step n+1 without waiting for CPU tasks",
     `_schedule`, `_forward_step`, then "if self.previous_batch is not None:
     self._process_previous_batch()"; "Enabled by default"). Both engines' loops were read in
     stored copies later than the versions GPUStack ran (UNCERTAIN).
The TPOT (ClosedLoopTpot): (latency - TTFT) / (output - 1) a request, its decode steps of
the c sequences and the steps that admit the others' prompts while it decodes, spread over
its tokens.
Not composed (no kernel spec, and the project holds no sourced figure for them): the HTTP
request and the streamed response, the chat template, tokenisation and detokenisation, the
engine's scheduling between steps and the sampler beyond its LM head. On one GPU only: the
collectives of tensor parallelism are not timed here."""

from __future__ import annotations

import dataclasses
from enum import StrEnum

from ..base.errors import Code, Diagnostic, SizeError
from ..base.kinds import LaunchMode
from ..base.records import record
from ..hardware.machine import Machine
from ..hardware.modelfile import ModelConfig
from .chunk_plan import Chunk, Segment
from .chunked import chunk_uses
from .composition import DECODE, PREFILL
from .launch_cost import graph_gap
from .quantisation import BF16_ONLY, Quantisation
from .wholemodel import Step, kernel_cost, step


class PromptStep(StrEnum):
    """How a serving engine runs a newly arrived prompt while other requests decode."""

    WITH_DECODES = "with_decodes"  # in one step with the others' decode tokens
    ALONE = "alone"  # in a step of its own


class Scheduler(StrEnum):
    """Where an engine's scheduler stands against the GPU when it takes a new request."""

    SYNC = "sync"  # between steps: the next step starts after this one's outputs are back
    OVERLAP = "overlap"  # one step ahead: the next step is already launched


@record
class Loop:
    """A closed loop: `concurrency` requests in flight, each of `prompt` tokens in and
    `output` out, the others at `decode_context` while a new one arrives, and how the
    engine runs a new prompt and whether its scheduler runs a step ahead."""

    concurrency: int
    prompt: int
    output: int
    decode_context: int
    how: PromptStep
    scheduler: Scheduler = Scheduler.SYNC

    def __post_init__(self) -> None:
        if min(self.concurrency, self.prompt, self.output, self.decode_context) < 1:
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                None, f"a closed loop needs a concurrency, a prompt, an output and a context "
                      f"of at least 1 (got {self.concurrency}, {self.prompt}, {self.output}, "
                      f"{self.decode_context})"))

    @property
    def others(self) -> int:
        return self.concurrency - 1

    def prompt_chunk(self) -> Chunk:
        """The step that holds the prompt: its P tokens from the start, and under
        WITH_DECODES a one-token segment after decode_context for each other request."""
        decodes = ((Segment(self.decode_context, 1),) * self.others
                   if self.how == PromptStep.WITH_DECODES else ())
        return Chunk((Segment(0, self.prompt), *decodes))


@record
class ClosedLoopTtft:
    """The median time to the first token of a request joining c - 1 decoding ones."""

    loop: Loop
    wait_s: float  # half the others' decode step: the median wait for the step in flight
    in_flight_step_s: float  # that decode step, kernels and launches
    queued_s: float  # the step an OVERLAP scheduler launched ahead (the same decode step); 0
    prompt_step_s: float  # the step that holds the prompt, kernels and launches
    prompt_step_launch_s: float  # of prompt_step_s, the launches'

    @property
    def ttft_s(self) -> float:
        return self.wait_s + self.queued_s + self.prompt_step_s


def closed_loop_ttft(model: ModelConfig, machine: Machine, loop: Loop, *,
                     quantisation: Quantisation = BF16_ONLY,
                     launch: LaunchMode = LaunchMode.EAGER) -> ClosedLoopTtft:
    """The median TTFT of a request sent into the loop: half the others' decode step
    (launched as `launch` says), the one launched ahead under an OVERLAP scheduler, then the
    step with its prompt."""
    in_flight = _decode_s(model, machine, loop.others, loop.decode_context, quantisation,
                          launch)
    queued = in_flight if loop.scheduler == Scheduler.OVERLAP else 0.0
    held = _prompt_step(model, machine, loop, quantisation)
    return ClosedLoopTtft(loop, in_flight / 2, in_flight, queued,
                          held.t_model_s + held.launch_s, held.launch_s)


@record
class ClosedLoopTpot:
    """A request's time per output token in the loop, as the benchmark takes it: (its
    latency - its TTFT) / (output tokens - 1), which holds its decode steps and the steps
    that admit the other requests' prompts while it decodes. Each of the other c - 1 slots
    turns over about once in a request's life (the requests are alike on average), so about
    c - 1 such steps fall among a request's output - 1 tokens, whatever its own length."""

    loop: Loop
    decode_step_s: float  # one decode step of the c sequences, kernels and launches
    prompt_step_extra_s: float  # what a step that admits a prompt adds to the others' decode

    @property
    def tpot_s(self) -> float:
        spread = self.loop.others * self.prompt_step_extra_s / (self.loop.output - 1)
        return self.decode_step_s + spread


def closed_loop_tpot(model: ModelConfig, machine: Machine, loop: Loop, *,
                     quantisation: Quantisation = BF16_ONLY,
                     launch: LaunchMode = LaunchMode.EAGER) -> ClosedLoopTpot:
    """The TPOT of a request in the loop: a decode step of all of them, and the other
    requests' prompt steps spread over its output - 1 tokens. A prompt alone is a step the
    decoding requests wait out; with their decodes it replaces a decode step of the c - 1
    sequences it holds, and adds the difference. Left out: the steps of c - 1 sequences
    while a finished request's slot waits for the next (a shorter step)."""
    if loop.output < 2:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            None, f"a time per output token needs at least 2 output tokens (got {loop.output})"))
    held = _prompt_step(model, machine, loop, quantisation)
    replaced = 0.0
    if loop.how == PromptStep.WITH_DECODES:
        replaced = _decode_s(model, machine, loop.others, loop.decode_context, quantisation,
                             launch)
    decode = _decode_s(model, machine, loop.concurrency, loop.decode_context, quantisation,
                       launch)
    return ClosedLoopTpot(loop, decode, held.t_model_s + held.launch_s - replaced)


def _decode_s(model: ModelConfig, machine: Machine, batch: int, context: int,
              quantisation: Quantisation, launch: LaunchMode) -> float:
    """A decode step of `batch` sequences, kernels and launches; 0 for no sequence."""
    if batch == 0:
        return 0.0
    decode = dataclasses.replace(
        step(model, machine, DECODE, batch, context, quantisation=quantisation),
        graph_gap_s=graph_gap(launch))
    return decode.t_model_s + decode.launch_s


def _prompt_step(model: ModelConfig, machine: Machine, loop: Loop,
                 quantisation: Quantisation) -> Step:
    """The step that holds the prompt, launched eager."""
    kernels = tuple(kernel_cost(use, machine)
                    for use in chunk_uses(model, loop.prompt_chunk(), quantisation=quantisation))
    return Step(PREFILL, 1, loop.prompt, kernels, machine.launch_overhead_s or 0.0)
