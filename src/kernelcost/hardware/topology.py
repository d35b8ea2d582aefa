"""Stage: TOML -> Topology. How the GPUs of one system reach each other.

The interconnect is a property of the system, not of the GPU: an H100 sits on an NVSwitch
baseboard, beside one other over an NVLink bridge, or alone on PCIe. A topology file is as
strict as a machine file: every figure has its source beside it, an unknown key is an error
at its line and column.

    name = "NVIDIA HGX H100 8-GPU (NVSwitch)"
    gpu = "h100"                    # the machine file of its GPUs
    gpus = 8
    fabric = "nvswitch"             # nvswitch | bridge | mesh | pcie
    domain = 8                      # GPUs that reach each other over the fabric
    fabric_Bps = 450e9              # a GPU's fabric bandwidth, each way
    host_Bps = 63e9                 # a GPU's PCIe bandwidth, each way, between domains
    nvls_efficiency = 0.85          # optional: the switch reduces (NVLink SHARP) at this
                                    # share of fabric_Bps
    nccl_ll_max_Bps = 141e9         # optional: NCCL's cap of its LL protocol's bandwidth
    custom_allreduce_s = [[2, 3.7e-6], [8, 5.9e-6]]  # optional: one-shot latency by GPUs
"""

from __future__ import annotations

import enum
import math
from pathlib import Path

from ..base.errors import Code, Diagnostic, MachineFileError, did_you_mean, quoted
from ..base.inputs import normalise
from ..base.records import record
from ..base.tomlplaces import refuse_control_characters, shipped_ids, shipped_or_file, toml_data
from .machinefields import MachineFields

PACKAGE = "kernelcost.topologies"
MAX_TOPOLOGY_BYTES = 100_000


class Fabric(enum.StrEnum):
    """What joins the GPUs of a domain."""

    NVSWITCH = "nvswitch"  # every pair at the full NVLink bandwidth, through switches
    BRIDGE = "bridge"      # NVLink bridges between the GPUs of a small group
    MESH = "mesh"          # one direct link between each pair (AMD Infinity Fabric)
    PCIE = "pcie"          # no fabric: PCIe through the host


@record
class Topology:
    """A system of GPUs: `domain` of them share the fabric at `fabric_Bps` each way, a GPU
    reaches another domain over PCIe at `host_Bps`."""

    id: str
    name: str
    path: str
    gpu: str
    gpus: int
    fabric: Fabric
    domain: int
    fabric_Bps: float
    host_Bps: float
    nvls_efficiency: float | None  # where the switch reduces (NVLink SHARP)
    nccl_ll_max_Bps: float | None  # NCCL's cap of the LL protocol's bus bandwidth
    custom_allreduce_s: tuple[tuple[int, float], ...]  # (GPUs, one-shot latency in s)
    sources: tuple[tuple[str, str], ...]

    def bandwidth_Bps(self, gpus: int) -> float:
        """Each way, a GPU's bandwidth to the others of a group of `gpus`: the fabric's
        within a domain, PCIe's where the group spans domains."""
        return self.fabric_Bps if gpus <= self.domain else min(self.fabric_Bps, self.host_Bps)

    def custom_latency_s(self, gpus: int) -> float | None:
        """The measured latency of an engine's one-shot all-reduce on `gpus` GPUs of one
        domain, where the file gives it."""
        return dict(self.custom_allreduce_s).get(gpus) if gpus <= self.domain else None


_REQUIRED = ("name", "gpu", "gpus", "fabric", "domain", "fabric_Bps", "host_Bps")
_OPTIONAL = ("nvls_efficiency", "nccl_ll_max_Bps", "custom_allreduce_s")
_KEYS = (*(k for key in (*_REQUIRED, *_OPTIONAL) for k in (key, f"{key}_source")),)


def builtin_topology_ids() -> list[str]:
    return shipped_ids(PACKAGE)


def load_topology(name_or_path: str | Path, machine_id: str | None = None,
                  gpus: int = 1) -> Topology:
    """A shipped topology by id (`hgx_h100`), or a topology file by path; one whose GPUs are
    not `machine_id`'s, or fewer than `gpus`, refused at its `gpu` or `gpus` key."""
    found = shipped_or_file(name_or_path, PACKAGE, MAX_TOPOLOGY_BYTES, "topology file")
    if found is None:
        name = str(name_or_path)
        raise MachineFileError(Code.UNKNOWN_TOPOLOGY, Diagnostic(
            None, f"unknown topology `{name}`",
            did_you_mean(name.lower(), builtin_topology_ids())
            or f"shipped topologies: {', '.join(builtin_topology_ids())}; or give a .toml "
               "path"))
    text, path = found
    text = normalise(text)
    data = toml_data(text, path, "topology file", Code.MACHINE_NOT_TOML)
    refuse_control_characters(data, text, path, "topology file", Code.MACHINE_BAD_VALUE)
    reader = _Reader(path, text)
    topology = reader.topology(data, Path(path).stem)
    if machine_id is not None and topology.gpu != machine_id:
        raise reader.error(Code.MACHINE_INCONSISTENT, "gpu",
                           f"the topology joins {topology.gpu} GPUs, not {machine_id}",
                           f"--machine {topology.gpu}, or a topology of {machine_id} GPUs")
    if gpus > topology.gpus:
        raise reader.error(Code.MACHINE_INCONSISTENT, "gpus",
                           f"{topology.gpus} GPUs, fewer than the {gpus} asked for (--tp x "
                           "--pp)", f"--tp x --pp of {topology.gpus} or fewer")
    return topology


def default_topology(machine_id: str) -> Topology | None:
    """The shipped system of eight GPUs of this machine joined by a switch or a mesh."""
    for name in builtin_topology_ids():
        topology = load_topology(name)
        if topology.gpu == machine_id and topology.fabric in (Fabric.NVSWITCH, Fabric.MESH):
            return topology
    return None


class _Reader(MachineFields):
    """A topology file's fields, read as a machine file's are (typed, ranged, placed)."""

    def topology(self, data: dict, stem: str) -> Topology:
        self.known_keys(data, _KEYS, "")
        sources = tuple((key, self.string(data, f"{key}_source", "", required=True))
                        for key in (*_REQUIRED, *_OPTIONAL) if key in data and key != "name")
        for key in _REQUIRED:
            if key not in data:
                raise self.error(Code.MACHINE_MISSING_KEY, key, "missing",
                                 f"add `{key} = ...` and `{key}_source = \"...\"`")
        gpus, domain = self.count(data, "gpus", ""), self.count(data, "domain", "")
        if domain > gpus:
            raise self.error(Code.MACHINE_INCONSISTENT, "domain",
                             f"{domain} GPUs a domain, more than the system's {gpus}")
        fabric = self.choice(data, "fabric", tuple(Fabric), "")
        nvls = (self.fraction(data, "nvls_efficiency", "") if "nvls_efficiency" in data
                else None)
        if nvls is not None and fabric is not Fabric.NVSWITCH:
            raise self.error(Code.MACHINE_INCONSISTENT, "nvls_efficiency",
                             "NVLink SHARP reduces in a switch: `fabric = \"nvswitch\"` only")
        return Topology(
            id=stem, name=self.name(data), path=self.path,
            gpu=self.string(data, "gpu", "", required=True), gpus=gpus, fabric=fabric,
            domain=domain, fabric_Bps=self.number(data, "fabric_Bps", "", required=True),
            host_Bps=self.number(data, "host_Bps", "", required=True), nvls_efficiency=nvls,
            nccl_ll_max_Bps=self.number(data, "nccl_ll_max_Bps", ""),
            custom_allreduce_s=self.latencies(data, domain), sources=sources)

    def latencies(self, data: dict, domain: int) -> tuple[tuple[int, float], ...]:
        rows = data.get("custom_allreduce_s", [])
        hint = "custom_allreduce_s = [[2, 3.7e-6], [8, 5.9e-6]] (GPUs, seconds)"
        if not isinstance(rows, list):
            raise self.error(Code.MACHINE_BAD_VALUE, "custom_allreduce_s",
                             "expected a list of [GPUs, seconds] pairs", hint)
        pairs: list[tuple[int, float]] = []
        for row in rows:
            if not (isinstance(row, list) and len(row) == 2
                    and isinstance(row[0], int) and not isinstance(row[0], bool)
                    and 2 <= row[0] <= domain
                    and isinstance(row[1], (int, float)) and not isinstance(row[1], bool)
                    and math.isfinite(row[1]) and 0 < row[1] < 1):
                raise self.error(Code.MACHINE_BAD_VALUE, "custom_allreduce_s",
                                 f"expected [GPUs from 2 to the domain's {domain}, a latency "
                                 f"in seconds under 1], got {quoted(row, 40)}", hint)
            if any(gpus == row[0] for gpus, _ in pairs):  # dict() kept the last unsaid
                raise self.error(Code.MACHINE_BAD_VALUE, "custom_allreduce_s",
                                 f"a second latency for {row[0]} GPUs, {quoted(row, 40)}",
                                 "give each number of GPUs one latency")
            pairs.append((row[0], float(row[1])))
        return tuple(sorted(pairs))
