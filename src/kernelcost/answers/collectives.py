"""Stage: collectives across GPUs by an alpha-beta model, with the algorithm that wins.

A collective of S bytes on p GPUs takes alpha + S x (bytes a GPU moves per byte of S) /
(bandwidth x the protocol's efficiency). The algorithms and their bytes:

- ring all-reduce, a reduce-scatter then an all-gather: 2(p-1) steps, 2(p-1)/p S each way;
- tree all-reduce (NCCL's double binary tree; one chain inside a node): 2(p-1) steps of
  latency, 2 S at half the algorithm bandwidth;
- NVLS all-reduce (NVLink SHARP, the switch adds): (p-1)/p S each way at the switch's
  reduction efficiency, one latency;
- one-shot all-reduce (vLLM's and TensorRT-LLM's custom kernel: every GPU reads the p-1
  others' buffers): (p-1) S in, one measured latency;
- two-shot all-reduce (the same kernels for larger S: a reduce-scatter and an all-gather by
  direct reads): 2(p-1)/p S, two latencies;
- ring all-gather and reduce-scatter (S the whole gathered tensor): p-1 steps, (p-1)/p S;
- all-to-all, sent directly over the fabric: (p-1)/p S;
- a send from one GPU to the next (a pipeline stage's activations): S.

The latencies and protocol efficiencies are NCCL's own tuning model (NCCL_SOURCE): a base
latency per algorithm and protocol plus a per-step hardware latency per link kind, and the
bus bandwidth of LL (half of each 8-byte line is a flag, and at most the generation's
llMaxBws, the topology's `nccl_ll_max_Bps`), LL128 and Simple. Left out of that model: its
per-channel caps of LL128 and tree (the channel count is NCCL's choice at run time) and the
(channels - 1) / channels of NVLS. The one-shot's
latency is measured (the topology file's `custom_allreduce_s`) and only offered where the
file gives it, for the GPUs of one domain, as the engines only use it over NVLink or a mesh.
The model takes the fastest algorithm and protocol the topology allows, and names it."""

from __future__ import annotations

import enum

from ..base.records import record
from ..hardware.topology import Fabric, Topology

NCCL_SOURCE = ("NVIDIA/nccl src/graph/tuning.cc, commit 5067397c2676d5aed50042fc39e5c8ee96eb0027 "
               "(2026-06-11): ncclTunerConstantsDefaults (baseLatencies, hwLatencies per "
               "NVLINK, PCI and NET), llMaxBws, and ncclTopoTuneModel's bus bandwidth "
               "refinements (ring LL x 0.5, ring LL128 x 0.92, tree x 0.92 then LL / 3.8 and "
               "LL128 x 7/9 inside a node, NVLS x 2 for an all-reduce)")


class Collective(enum.Enum):
    ALL_REDUCE = "all-reduce"
    ALL_GATHER = "all-gather"
    REDUCE_SCATTER = "reduce-scatter"
    ALL_TO_ALL = "all-to-all"
    SEND = "send"  # one GPU to the next: a pipeline stage's hand-off


class Algorithm(enum.Enum):
    RING = "ring"
    TREE = "tree"
    NVLS = "NVLS"
    ONE_SHOT = "one-shot"
    TWO_SHOT = "two-shot"
    DIRECT = "direct"


class Protocol(enum.Enum):
    LL = "LL"
    LL128 = "LL128"
    SIMPLE = "Simple"
    CUSTOM = "custom kernel"  # the engines' own all-reduce: no NCCL protocol


US = 1e-6
# NCCL's baseLatencies (us), by algorithm then protocol (LL, LL128, Simple)
_BASE_US = {Algorithm.TREE: (6.8, 14.0, 8.4), Algorithm.RING: (6.6, 14.0, 8.4)}
# NCCL's hwLatencies (us) a step, NVLink and PCI, by algorithm then protocol
_STEP_US = {
    Fabric.NVSWITCH: {Algorithm.TREE: (0.6, 1.25, 4.0), Algorithm.RING: (0.6, 1.9, 3.4)},
    Fabric.PCIE: {Algorithm.TREE: (1.0, 1.9, 4.0), Algorithm.RING: (1.0, 2.5, 5.7)},
}
_STEP_US[Fabric.BRIDGE] = _STEP_US[Fabric.MESH] = _STEP_US[Fabric.NVSWITCH]
NVLS_LATENCY_US = 25.0  # hwLatencies[NVLINK][NVLS][Simple]: NVLS has no base latency
_PROTOCOLS = (Protocol.LL, Protocol.LL128, Protocol.SIMPLE)
_RING_EFFICIENCY = (0.5, 0.92, 1.0)
_TREE_EFFICIENCY = (0.92 / 3.8, 0.92 * 7 / 9, 0.92)
_LL = 0  # the protocol whose bus bandwidth NCCL caps (llMaxBws, the topology's nccl_ll_max_Bps)


@record
class Timed:
    """One way to run a collective, and its time: alpha + the bytes' share."""

    algorithm: Algorithm
    protocol: Protocol
    latency_s: float
    transfer_s: float

    @property
    def seconds(self) -> float:
        return self.latency_s + self.transfer_s


@record
class CollectiveTime:
    """A collective of `bytes` on `gpus` GPUs of a topology: the fastest way and the others."""

    collective: Collective
    bytes: float
    gpus: int
    bandwidth_Bps: float  # a GPU's, each way
    best: Timed
    candidates: tuple[Timed, ...]  # every algorithm and protocol the topology allows


def collective_time(collective: Collective, size_B: float, gpus: int,
                    topology: Topology) -> CollectiveTime:
    """The fastest algorithm for a collective of size_B bytes (for all-gather and
    reduce-scatter: the whole gathered tensor) on `gpus` GPUs."""
    if gpus < 2:
        none = Timed(Algorithm.DIRECT, Protocol.SIMPLE, 0.0, 0.0)
        return CollectiveTime(collective, size_B, gpus, 0.0, none, (none,))
    candidates = candidate_times(collective, size_B, gpus, topology)
    best = min(candidates, key=lambda timed: timed.seconds)
    return CollectiveTime(collective, size_B, gpus, topology.bandwidth_Bps(gpus), best,
                          candidates)


def candidate_times(collective: Collective, size_B, gpus: int,
                    topology: Topology) -> tuple[Timed, ...]:
    """Every algorithm and protocol the topology allows for the collective on gpus >= 2
    GPUs, each timed; `size_B` a number, or an array of sizes (`model --grid` takes the
    least of these at every point at once)."""
    bandwidth = topology.bandwidth_Bps(gpus)
    return tuple(_candidates(collective, size_B, gpus, bandwidth, topology)) + tuple(
        _switch_and_custom(collective, size_B, gpus, topology))


def _bus(bandwidth: float, efficiency: float, protocol: int, ll_max: float | None) -> float:
    """A protocol's bus bandwidth: NCCL's share of the link, LL's capped (llMaxBws)."""
    bus = bandwidth * efficiency
    return min(bus, ll_max) if protocol == _LL and ll_max is not None else bus


def _candidates(collective: Collective, size_B: float, p: int, bandwidth: float,
                topology: Topology):
    fabric = topology.fabric if p <= topology.domain else Fabric.PCIE
    ll_max = topology.nccl_ll_max_Bps
    steps = _STEP_US[fabric]
    if collective in (Collective.ALL_TO_ALL, Collective.SEND):
        # NCCL's tuning has no model of sends and receives (all-to-all runs as them): one
        # step of the ring's Simple latency stands in for their alpha
        alpha = (_BASE_US[Algorithm.RING][2] + steps[Algorithm.RING][2]) * US
        share = 1 if collective is Collective.SEND else (p - 1) / p
        yield Timed(Algorithm.DIRECT, Protocol.SIMPLE, alpha, share * size_B / bandwidth)
        return
    reduce_all = collective is Collective.ALL_REDUCE
    ring_steps = 2 * (p - 1) if reduce_all else p - 1
    for index, protocol in enumerate(_PROTOCOLS):
        alpha = (_BASE_US[Algorithm.RING][index] + ring_steps * steps[Algorithm.RING][index])
        moved = ring_steps / p * size_B
        yield Timed(Algorithm.RING, protocol, alpha * US,
                    moved / _bus(bandwidth, _RING_EFFICIENCY[index], index, ll_max))
        if reduce_all:
            alpha = _BASE_US[Algorithm.TREE][index] + 2 * (p - 1) * steps[Algorithm.TREE][index]
            yield Timed(Algorithm.TREE, protocol, alpha * US,
                        2 * size_B / _bus(bandwidth, _TREE_EFFICIENCY[index], index, ll_max))


def _switch_and_custom(collective: Collective, size_B: float, p: int, topology: Topology):
    if collective is not Collective.ALL_REDUCE or p > topology.domain:
        return
    bandwidth = topology.fabric_Bps
    if topology.nvls_efficiency is not None:
        yield Timed(Algorithm.NVLS, Protocol.SIMPLE, NVLS_LATENCY_US * US,
                    (p - 1) / p * size_B / (bandwidth * topology.nvls_efficiency))
    latency = topology.custom_latency_s(p)
    if latency is not None:
        yield Timed(Algorithm.ONE_SHOT, Protocol.CUSTOM, latency, (p - 1) * size_B / bandwidth)
        yield Timed(Algorithm.TWO_SHOT, Protocol.CUSTOM, 2 * latency,
                    2 * (p - 1) / p * size_B / bandwidth)
