"""The memory levels by name, one type for all of them: the levels a spec places tensors in
and a machine file gives figures for, slowest first, and the latency levels a machine file
may cite. Values are the names the language, the machine files and the JSON use."""

from __future__ import annotations

from enum import StrEnum


class Level(StrEnum):
    GLOBAL = "global"
    L2 = "l2"
    SHARED = "shared"
    REGISTERS = "registers"
    L1 = "l1"  # latency levels only
    L2_FAR = "l2_far"
    DSMEM = "dsmem"
