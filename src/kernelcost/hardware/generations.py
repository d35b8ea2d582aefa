"""The ridge by architecture generation, read off the machine database: the chapter (§1.2)
says each generation raises the peak faster than the bandwidth, so that the ridge rises; this
says, per vendor, where the database agrees and where it does not."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ..base.architectures import Vendor
from ..base.kinds import Precision, Unit
from ..base.levels import Level
from ..base.records import record
from .machine import Machine


@record
class Ridge:
    machine: str  # its id
    architecture: str  # as written: sm_90a
    flop_per_byte: float  # the precision's dense tensor peak over the global bandwidth


@record
class Fall:
    """A later generation's ridge under an earlier one's."""

    later: Ridge
    earlier: Ridge  # the highest ridge of the generation before


@record
class VendorRidges:
    vendor: Vendor
    precision: Precision
    generations: tuple[tuple[Ridge, ...], ...]  # oldest first, each highest ridge first
    falls: tuple[Fall, ...]  # empty: the ridge rises with every generation here


def generation(machine: Machine) -> int | None:
    """The architecture's generation: the major compute capability (sm_89: 8, sm_90a: 9),
    the family of an AMD target (gfx90a: 0x90, gfx942: 0x94)."""
    architecture = machine.architecture
    if architecture is None:
        return None
    if architecture.vendor is Vendor.NVIDIA:
        return architecture.number // 10
    return architecture.number >> 4


def ridges_by_generation(machines: Sequence[Machine],
                         precision: Precision = Precision.BF16) -> list[VendorRidges]:
    """Per vendor with machines of two generations or more, the ridges by generation and
    each later ridge under the highest of the generation before it."""
    by_vendor: dict[Vendor, dict[int, list[Ridge]]] = {}
    for machine in machines:
        peak = machine.dense_peak(precision, Unit.TENSOR)
        bandwidth = machine.bandwidth(Level.GLOBAL)
        step = generation(machine)
        if peak is None or not bandwidth or step is None or machine.architecture is None:
            continue
        ridge = Ridge(machine.id, machine.architecture.text, peak.peak_FLOPps / bandwidth)
        by_vendor.setdefault(machine.architecture.vendor, {}).setdefault(step, []).append(ridge)
    found = []
    for vendor, steps in sorted(by_vendor.items(), key=lambda item: item[0].value):
        if len(steps) < 2:
            continue
        generations = tuple(tuple(sorted(steps[step], key=lambda r: -r.flop_per_byte))
                            for step in sorted(steps))
        falls = tuple(Fall(later, earlier[0])
                      for earlier, current in itertools.pairwise(generations)
                      for later in current if later.flop_per_byte < earlier[0].flop_per_byte)
        found.append(VendorRidges(vendor, precision, generations, falls))
    return found
