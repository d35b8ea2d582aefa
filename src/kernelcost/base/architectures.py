"""What a spec's on-chip pattern may need of a machine: its architecture (`target sm_90a`) and
hardware features (`needs wgmma, tma`). One vocabulary for the language, which checks the
names, and the machine files, which state each with its source.

An architecture is NVIDIA's `sm_<major><minor>` with an optional `a` (the arch-specific
instructions, such as wgmma and setmaxnreg on sm_90a or tcgen05 on sm_100a, which run on that
architecture only), or AMD's `gfx<id>` (a code object runs on its own target only)."""

from __future__ import annotations

import re
from enum import StrEnum

from .records import record


class Feature(StrEnum):
    THREAD_BLOCK_CLUSTERS = "thread_block_clusters"
    TMA = "tma"
    WGMMA = "wgmma"
    SETMAXNREG = "setmaxnreg"
    TCGEN05 = "tcgen05"
    TENSOR_MEMORY = "tensor_memory"


class Vendor(StrEnum):
    NVIDIA = "sm"
    AMD = "gfx"


_NVIDIA = re.compile(r"sm_(?P<number>[1-9][0-9]{1,2})(?P<specific>a?)")
_AMD = re.compile(r"gfx(?P<id>[0-9a-f]{3,4})")


@record
class Architecture:
    vendor: Vendor
    number: int  # sm_90a: 90; gfx942: 0x942
    specific: bool  # sm_90a: its arch-specific instructions, not forward compatible
    text: str  # as written: sm_90a, gfx942

    @property
    def forward_compatible(self) -> bool:
        """NVIDIA's without `a`: its code also runs on later architectures."""
        return self.vendor is Vendor.NVIDIA and not self.specific

    def runs_on(self, machine: Architecture) -> bool:
        """Whether code written for this architecture runs on `machine`'s: NVIDIA's without
        `a` on the same or a later one, with `a` on that architecture only; AMD's on its own
        target only."""
        if self.vendor is not machine.vendor:
            return False
        if not self.forward_compatible:
            return self.number == machine.number and (machine.specific or not self.specific)
        return machine.number >= self.number

    def __str__(self) -> str:
        return self.text


# the architectures there are (NVIDIA's compute capabilities, CUDA GPUs, developer.nvidia.com/
# cuda-gpus, and their arch-specific targets in the PTX ISA's `.target`; AMD's LLVM
# processors, llvm.org/docs/AMDGPUUsage.html#processors): another name is a typo
KNOWN = frozenset({
    "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100",
    "sm_100a", "sm_101", "sm_101a", "sm_103", "sm_103a", "sm_110", "sm_110a", "sm_120",
    "sm_120a", "sm_121", "sm_121a", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950",
    "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201"})


def parse_architecture(text: str) -> Architecture | None:
    """The architecture `text` names, or None where it names none."""
    if text not in KNOWN:
        return None
    if match := _NVIDIA.fullmatch(text):
        return Architecture(Vendor.NVIDIA, int(match["number"]), bool(match["specific"]), text)
    if match := _AMD.fullmatch(text):
        return Architecture(Vendor.AMD, int(match["id"], 16), False, text)
    return None


ARCHITECTURE_FORMS = "`sm_80`, `sm_90a`, `sm_100a` (NVIDIA) or `gfx942` (AMD)"


class MmaPath(StrEnum):
    """How a kernel issues its matrix multiply-adds: the warp-synchronous `mma.sync` (sm_80
    style, every NVIDIA architecture since), the warpgroup's asynchronous `wgmma` (sm_90a),
    the single-thread `tcgen05.mma` into tensor memory (sm_100a). Each has its own attainable
    rate on one part: FlashAttention-2 issues mma.sync on a Hopper whose wgmma it leaves
    idle."""

    MMA_SYNC = "mma.sync"
    WGMMA = "wgmma"
    TCGEN05 = "tcgen05"


# the names of the paths in a spec's `mma` line
MMA_WORDS = {"sync": MmaPath.MMA_SYNC, "wgmma": MmaPath.WGMMA, "tcgen05": MmaPath.TCGEN05}
