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

The collectives run between the kernels, not under them: a decode step waits for each
all-reduce before the next layer's norm (no engine overlaps them at decode), so the step's
time is its kernels' and its collectives' in sequence."""

from __future__ import annotations

from enum import StrEnum

from ..base.records import record
from ..hardware.modelfile import ModelConfig
from ..hardware.topology import Topology
from .collectives import Collective, CollectiveTime, collective_time
from .composition import Phase

ACTIVATION_BYTES = 2  # bf16, as the composed specs count


class CollectiveName(StrEnum):
    """Where in a step a collective runs: its row in the table and its name in the JSON."""

    ATTENTION_OUT = "attention out"
    MLP_OUT = "MLP out"
    EMBEDDING = "embedding"
    LOGITS = "logits"
    STAGE_HANDOFF = "stage hand-off"


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
    topology joins the machine's GPUs: the collectives are then not timed)."""

    topology: Topology | None
    tp: int
    stages: int

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


def step_collectives(model: ModelConfig, phase: Phase, batch: int, tokens: int,
                     layout: Layout) -> StepCollectives:
    """The collectives of one step of `tokens` tokens (the table above); the tensor-parallel
    ones among a stage's tp GPUs, the hand-offs across the whole group."""
    activations = tokens * model.hidden * ACTIVATION_BYTES
    logits = batch * model.vocab * ACTIVATION_BYTES

    topology = layout.topology
    assert topology is not None  # timed on a topology only

    def use(name: CollectiveName, collective: Collective, size_B: int, copies: int,
            gpus: int) -> CollectiveUse:
        return CollectiveUse(name, collective, copies,
                             collective_time(collective, size_B, gpus, topology))

    uses = []
    if layout.tp > 1:
        uses += [use(CollectiveName.ATTENTION_OUT, Collective.ALL_REDUCE, activations,
                     model.layers, layout.tp),
                 use(CollectiveName.MLP_OUT, Collective.ALL_REDUCE, activations, model.layers,
                     layout.tp),
                 use(CollectiveName.EMBEDDING, Collective.ALL_REDUCE, activations, 1, layout.tp),
                 use(CollectiveName.LOGITS, Collective.ALL_GATHER, logits, 1, layout.tp)]
    if layout.stages > 1:
        uses.append(use(CollectiveName.STAGE_HANDOFF, Collective.SEND, activations,
                        layout.stages - 1, layout.gpus))
    return StepCollectives(phase, batch, tuple(uses))
