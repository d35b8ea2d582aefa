"""Whether a machine runs a spec's on-chip pattern at all: the architecture the spec is written
for (`target`), the hardware features it uses (`needs`) and the memory levels only some
machines have, against what the machine file states. A spec the machine does not run has
no t_bound and no t_model there: its schedule is not one the machine can execute, so its
times would bound nothing (t_floor, which depends on the computation only, still holds)."""

from __future__ import annotations

from enum import Enum

from ..base.architectures import Architecture, Feature
from ..base.levels import Level
from ..base.records import record
from ..base.symbols import MACHINE_LEVELS
from ..count.cost import Cost
from ..hardware.machine import Machine


class Lack(Enum):
    OTHER_ARCHITECTURE = "other architecture"  # the machine runs another architecture's code
    UNSTATED_ARCHITECTURE = "unstated architecture"  # the machine file names none
    FEATURE_ABSENT = "feature absent"  # the file states the machine lacks it
    FEATURE_UNSTATED = "feature unstated"  # the file is silent: unknown, never assumed
    LEVEL_ABSENT = "level absent"  # a memory level only some machines have, not this one


@record
class Unsupported:
    """One requirement of the spec the machine does not meet, with what the file states."""

    needed: Architecture | Feature | Level
    lack: Lack
    machine_architecture: Architecture | None
    source: str | None  # the machine file's source for what it states


def unsupported(cost: Cost, machine: Machine) -> tuple[Unsupported, ...]:
    """Each requirement the machine does not meet: the target, the features, then the
    memory levels only some machines have (tensor memory, a memory-side cache) that the spec
    keeps data in and the machine file does not define."""
    found: list[Unsupported] = []
    requirements = cost.requirements
    target, architecture = requirements.target, machine.architecture
    if target is not None:
        if architecture is None:
            found.append(Unsupported(target, Lack.UNSTATED_ARCHITECTURE, None, None))
        elif not target.runs_on(architecture):
            found.append(Unsupported(target, Lack.OTHER_ARCHITECTURE, architecture,
                                     machine.architecture_source))
    for feature in requirements.features:
        has = machine.features.has(feature)
        if has is not True:
            lack = Lack.FEATURE_UNSTATED if has is None else Lack.FEATURE_ABSENT
            found.append(Unsupported(feature, lack, architecture,
                                     machine.features.source(feature)))
    used = {*cost.traffic, *(scope.level for scope in cost.scopes), *cost.homed}
    found += [Unsupported(Level(level), Lack.LEVEL_ABSENT, architecture, None)
              for level in MACHINE_LEVELS if level in used and machine.memory_level(level) is None]
    return tuple(found)
