"""The memory levels by name, one type for all of them: the levels a spec places tensors in
and a machine file gives figures for, slowest first, and the latency levels a machine file
may cite. `mall` and `tmem` exist on some machines only: a machine file that lists them
defines them, and a spec that keeps data in one is not run on a machine without it. Values
are the names the language, the machine files and the JSON use."""

from __future__ import annotations

from enum import StrEnum


class Level(StrEnum):
    GLOBAL = "global"
    MALL = "mall"  # a memory-side cache before global memory (MI300X's Infinity Cache)
    L2 = "l2"
    SHARED = "shared"
    TMEM = "tmem"  # tensor memory, per SM, read and written by the tensor cores (sm_100)
    REGISTERS = "registers"
    L1 = "l1"  # latency levels only
    L2_FAR = "l2_far"
    DSMEM = "dsmem"
