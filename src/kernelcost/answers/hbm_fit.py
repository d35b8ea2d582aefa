"""Stage: ModelConfig x Quantisation x Machine -> Memory. The weights and the KV cache against
one GPU's HBM, and the largest batch that fits (`kernelcost model`).

As vLLM sizes its KV cache, a fraction of the HBM is usable (`--gpu-memory-utilization`,
`gpu_memory_utilization: float = 0.90` in vLLM's EngineArgs, vllm-project/vllm,
vllm/engine/arg_utils.py at commit 001999d2f360c2c5da23a916510c273b1a73d06c); the weights
take their bytes of it, and every sequence of `context` tokens takes its KV cache of the
rest:

    largest batch = floor((fraction x capacity - weights) / (KV bytes a token x context))

Activations and the framework's workspace are not counted (vLLM measures them in a profile
run and takes them from the same fraction): the batch is an upper bound on what fits."""

from __future__ import annotations

import math
from fractions import Fraction

from ..base.levels import Level
from ..base.records import record
from ..hardware.machine import Machine
from ..hardware.modelfile import ModelConfig
from .quantisation import BF16_ONLY, Quantisation

DEFAULT_FRACTION = 0.9  # vLLM's gpu_memory_utilization default


@record
class Memory:
    """Weights and KV cache against one GPU's HBM, per GPU under tensor parallelism."""

    gpus: int
    capacity_B: float | None  # HBM per GPU; None: the machine file gives none
    fraction: float  # of the capacity the weights and the KV cache may take
    weights: Fraction  # bytes per GPU, exact: a third of them under three stages
    kv_per_sequence: Fraction  # bytes per GPU, at the context
    context: int

    @property
    def weights_B(self) -> float:
        return float(self.weights)

    @property
    def kv_per_sequence_B(self) -> float:
        return float(self.kv_per_sequence)

    @property
    def usable_B(self) -> float | None:
        return None if self.capacity_B is None else self.capacity_B * self.fraction

    def needed_B(self, batch: int) -> float:
        return float(self.weights + batch * self.kv_per_sequence)

    def fits(self, batch: int = 0) -> bool | None:
        """Compared exactly: in floats, a batch whose KV cache fills the room to the byte
        (thirds of bytes under three stages) came out a rounding over it."""
        usable = self.usable_B
        return None if usable is None else self.weights + batch * self.kv_per_sequence \
            <= Fraction(usable)

    @property
    def max_batch(self) -> int | None:
        """The most sequences whose KV cache fits beside the weights in the usable HBM; 0
        when none does; None without a capacity (or with no KV cache to bound it)."""
        usable = self.usable_B
        if usable is None or not self.kv_per_sequence:
            return None
        room = Fraction(usable) - self.weights
        return 0 if room < 0 else math.floor(room / self.kv_per_sequence)


def memory(model: ModelConfig, machine: Machine, context: int, gpus: int, stages: int = 1, *,
           quantisation: Quantisation = BF16_ONLY,
           fraction: float = DEFAULT_FRACTION) -> Memory:
    """Weights split evenly over the GPUs of each of the pipeline's stages and over the
    stages; KV heads too, up to one KV head per GPU of a stage (past that, each GPU keeps a
    copy of its head), and the layers' KV cache over the stages."""
    kv = (quantisation.kv_bytes_per_token(model) * context / min(gpus, model.kv_heads)
          / stages)
    return Memory(gpus * stages, machine.capacity(Level.GLOBAL), fraction,
                  Fraction(quantisation.weight_bytes(model)) / (gpus * stages), Fraction(kv),
                  context)
