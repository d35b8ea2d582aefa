"""Stage: the collectives of a transformer's step under tensor and pipeline parallelism.

Tensor parallelism as Megatron-LM lays it out and vLLM runs it: the QKV and gate/up
projections split by columns, the output and down projections by rows, so each of those
two ends in an all-reduce of the step's activations; the embedding table split by vocabulary
rows ends in one more; the LM head's vocabulary-split logits are gathered (vLLM's
VocabParallelEmbedding, RowParallelLinear with reduce_results, LogitsProcessor's gather:
vllm-project/vllm, vllm/model_executor/layers/vocab_parallel_embedding.py, linear.py and
logits_processor.py). Per step of T tokens (decode: b; prefill: b x context) and bf16
activations:

    collective        kind            bytes each             copies a step
    attention out     all-reduce      T x hidden x 2         layers
    MLP out           all-reduce      T x hidden x 2         layers
    embedding         all-reduce      T x hidden x 2         1
    logits            all-gather      b x vocab x 2          1   (the last token's)
    stage hand-off    send            T x hidden x 2         stages - 1

Tensor parallelism (tp GPUs) splits every kernel; pipeline parallelism (`stages` groups of tp
GPUs) splits the layers, and a step passes its activations from one stage to the next: for
one batch the stages run one after the other, so a step takes every layer's kernels (at 1/tp
each) and every hand-off in sequence (more batches in flight would fill the pipeline; one
step's latency does not shrink).

Expert parallelism (`ep` GPUs, a mixture of experts only) splits the experts over the
tensor-parallel group, as vLLM's `--enable-expert-parallel` does (with data parallelism 1,
EP_SIZE = TP_SIZE x DP_SIZE = tp, and each GPU owns NUM_TOTAL_EXPERTS / NUM_EP_RANKS whole
experts: vllm-project/vllm, docs/serving/expert_parallel_deployment.md at commit
017025691b3006ed548f763fd394a846affa6064; FusedMoEParallelConfig.make's "TP = 2, DP(PCP) =
1 and EP = True ... The experts are split between the 2 devices",
vllm/model_executor/layers/fused_moe/config.py at 002d6073aa034d4f5545d45021b0e56d1f3c3593),
so here `ep` must equal `tp` and divide the experts. Attention stays under tensor
parallelism; the MoE block runs sequence-parallel, as vLLM runs it when the tokens reaching
it are replicated over the group (ParallelConfig.use_sequence_parallel_moe, "replicated
tokens results in useless duplicate computation and communication",
vllm/config/parallel.py at 00193b82b0e2d4faea5d3b4ea4f6c4c2bd9d057a;
Qwen3MoeSparseMoeBlock.forward, vllm/model_executor/models/qwen3_moe.py at
2e0831b0ab951c8896d4dd5d6cb9c3350a4574de): each GPU takes its r = ceil(T / ep) of the
step's tokens (sequence_parallel_chunk pads to it), routes them, sends each of the k routed
copies to the GPU that holds its expert and back, then gathers every token for the next
layer's attention. Per step, in place of the MLP's all-reduce:

    MoE dispatch      all-to-all      r x k x hidden x 2     layers  ((ep-1)/ep of it leaves)
    MoE combine       all-to-all      r x k x hidden x 2     layers
    MoE gather        all-gather      ep x r x hidden x 2    layers

An all-to-all's bytes are what one GPU holds (collectives.py: (p-1)/p of them cross the
fabric): under uniform routing a routed copy's expert is on another GPU with probability
(ep-1)/ep. Skewed routing (a hot expert) is not modelled: the busiest GPU would send and
compute more.

The collectives run between the kernels, not under them: a decode step waits for each
all-reduce before the next layer's norm (no engine overlaps them at decode), so the step's
time is its kernels' and its collectives' in sequence."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

from ..base.errors import Code, Diagnostic, SizeError
from ..base.records import record
from ..hardware.modelfile import ModelConfig
from ..hardware.topology import Topology
from .collectives import Collective, CollectiveTime, collective_time
from .composition import Phase

ACTIVATION_BYTES = 2  # bf16, as the composed specs count
Count = Any  # a whole number, or (model --grid) an array of them


class CollectiveName(StrEnum):
    """Where in a step a collective runs: its row in the table and its name in the JSON."""

    ATTENTION_OUT = "attention out"
    MLP_OUT = "MLP out"
    EMBEDDING = "embedding"
    LOGITS = "logits"
    STAGE_HANDOFF = "stage hand-off"
    MOE_DISPATCH = "MoE dispatch"
    MOE_COMBINE = "MoE combine"
    MOE_GATHER = "MoE gather"


@record
class CollectiveUse:
    name: CollectiveName
    collective: Collective
    copies: int
    time: CollectiveTime  # of one copy, with its algorithm

    @property
    def seconds(self) -> float:
        return self.copies * self.time.best.seconds


@record
class StepCollectives:
    phase: Phase
    batch: int
    uses: tuple[CollectiveUse, ...]

    @property
    def seconds(self) -> float:
        return sum(use.seconds for use in self.uses)

    @property
    def count(self) -> int:
        return sum(use.copies for use in self.uses)


@record
class Layout:
    """tp GPUs a stage, `stages` stages: tp x stages GPUs of the topology (None where no
    topology joins the machine's GPUs: the collectives are then not timed); ep > 1: the
    experts split over each stage's tp GPUs (ep == tp, check_expert_parallel)."""

    topology: Topology | None
    tp: int
    stages: int
    ep: int = 1

    @property
    def gpus(self) -> int:
        return self.tp * self.stages


@record
class TensorParallel:
    layout: Layout
    decode: tuple[StepCollectives, ...]
    prefill: tuple[StepCollectives, ...]

    @property
    def topology(self) -> Topology:
        assert self.layout.topology is not None  # timed on a topology only
        return self.layout.topology


def step_collectives(model: ModelConfig, phase: Phase, batch: Count, tokens: Count,
                     layout: Layout, timer=collective_time) -> StepCollectives:
    """The collectives of one step of `tokens` tokens (the tables above); the tensor- and
    expert-parallel ones among a stage's tp GPUs, the hand-offs across the whole group.
    `timer` times one collective (`model --grid` passes batch and tokens as arrays and a
    timer of arrays)."""
    activations = tokens * model.hidden * ACTIVATION_BYTES
    logits = batch * model.vocab * ACTIVATION_BYTES

    topology = layout.topology
    assert topology is not None  # timed on a topology only

    def use(name: CollectiveName, collective: Collective, size_B: int, copies: int,
            gpus: int) -> CollectiveUse:
        return CollectiveUse(name, collective, copies, timer(collective, size_B, gpus, topology))

    uses = []
    if layout.tp > 1:
        uses.append(use(CollectiveName.ATTENTION_OUT, Collective.ALL_REDUCE, activations,
                        model.layers, layout.tp))
        if layout.ep > 1:
            routed = dispatch_bytes(model, tokens, layout.ep)
            gathered = layout.ep * tokens_a_gpu(tokens, layout.ep) * model.hidden * ACTIVATION_BYTES
            uses += [use(CollectiveName.MOE_DISPATCH, Collective.ALL_TO_ALL, routed,
                         model.layers, layout.ep),
                     use(CollectiveName.MOE_COMBINE, Collective.ALL_TO_ALL, routed,
                         model.layers, layout.ep),
                     use(CollectiveName.MOE_GATHER, Collective.ALL_GATHER, gathered,
                         model.layers, layout.ep)]
        else:
            uses.append(use(CollectiveName.MLP_OUT, Collective.ALL_REDUCE, activations,
                            model.layers, layout.tp))
        uses += [use(CollectiveName.EMBEDDING, Collective.ALL_REDUCE, activations, 1, layout.tp),
                 use(CollectiveName.LOGITS, Collective.ALL_GATHER, logits, 1, layout.tp)]
    if layout.stages > 1:
        uses.append(use(CollectiveName.STAGE_HANDOFF, Collective.SEND, activations,
                        layout.stages - 1, layout.gpus))
    return StepCollectives(phase, batch, tuple(uses))


def tokens_a_gpu(tokens: int, ep: int) -> int:
    """The tokens a GPU routes in a sequence-parallel MoE block: its share, padded up."""
    return math.ceil(tokens / ep)


def dispatch_bytes(model: ModelConfig, tokens: int, ep: int) -> int:
    """What one GPU's all-to-all dispatch (or combine) holds: its tokens' k routed copies."""
    return (tokens_a_gpu(tokens, ep) * model.experts_per_token * model.hidden
            * ACTIVATION_BYTES)


def check_expert_parallel(model: ModelConfig, tp: int, ep: int) -> None:
    """Expert parallelism as composed here: a mixture of experts, ep dividing its experts and
    equal to tp (the experts split over the tensor-parallel group, vLLM's
    --enable-expert-parallel). Refused otherwise, unplaced: the command line places it."""
    if ep == 1:
        return
    if not model.moe:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            None, f"--ep {ep}: {model.name} has no experts to split (a dense MLP)",
            "expert parallelism splits a mixture of experts (Mixtral, Qwen3-MoE); drop --ep"))
    if model.experts % ep:
        divisors = [n for n in range(2, model.experts + 1) if model.experts % n == 0]
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            None, f"--ep {ep} does not divide the {model.experts} experts of {model.name}",
            f"--ep and --tp one of {', '.join(map(str, divisors))}: whole experts a GPU"))
    if ep != tp:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            None, f"--ep {ep} with --tp {tp}: the experts are split over the tensor-parallel "
                  "GPUs (vLLM's --enable-expert-parallel), so --ep must equal --tp",
            f"--tp {ep} --ep {ep}, or --tp {tp} --ep {tp}"))
