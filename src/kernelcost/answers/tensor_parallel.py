"""Stage: the collectives of a transformer's step under tensor parallelism.

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

The collectives run between the kernels, not under them: a decode step waits for each
all-reduce before the next layer's norm (no engine overlaps them at decode), so the step's
time is its kernels' and its collectives' in sequence."""

from __future__ import annotations

from ..base.records import record
from ..hardware.modelfile import ModelConfig
from ..hardware.topology import Topology
from .collectives import Collective, CollectiveTime, collective_time

ACTIVATION_BYTES = 2  # bf16, as the composed specs count


@record
class CollectiveUse:
    name: str
    collective: Collective
    copies: int
    time: CollectiveTime  # of one copy, with its algorithm

    @property
    def seconds(self) -> float:
        return self.copies * self.time.best.seconds


@record
class StepCollectives:
    phase: str
    batch: int
    uses: tuple[CollectiveUse, ...]

    @property
    def seconds(self) -> float:
        return sum(use.seconds for use in self.uses)

    @property
    def count(self) -> int:
        return sum(use.copies for use in self.uses)


@record
class TensorParallel:
    topology: Topology
    gpus: int
    decode: tuple[StepCollectives, ...]
    prefill: tuple[StepCollectives, ...]


def step_collectives(model: ModelConfig, phase: str, batch: int, tokens: int, gpus: int,
                     topology: Topology) -> StepCollectives:
    """The collectives of one step of `tokens` tokens over `gpus` GPUs (the table above)."""
    activations = tokens * model.hidden * ACTIVATION_BYTES
    logits = batch * model.vocab * ACTIVATION_BYTES

    def use(name: str, collective: Collective, size_B: int, copies: int) -> CollectiveUse:
        return CollectiveUse(name, collective, copies,
                             collective_time(collective, size_B, gpus, topology))

    return StepCollectives(phase, batch, (
        use("attention out", Collective.ALL_REDUCE, activations, model.layers),
        use("MLP out", Collective.ALL_REDUCE, activations, model.layers),
        use("embedding", Collective.ALL_REDUCE, activations, 1),
        use("logits", Collective.ALL_GATHER, logits, 1),
    ))
