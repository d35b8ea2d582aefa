"""Whether a machine runs a spec's on-chip pattern at all: the architecture the spec is written
for (`target`) and the hardware features it uses (`needs`), against what the machine file
states. A spec the machine does not run has no t_bound and no t_model there: its schedule
is not one the machine can execute, so its times would bound nothing (t_floor, which depends
on the computation only, still holds)."""

from __future__ import annotations

from enum import Enum

from ..base.architectures import Architecture, Feature
from ..base.records import record
from ..hardware.machine import Machine
from ..lang.requirements import Requirements


class Lack(Enum):
    OTHER_ARCHITECTURE = "other architecture"  # the machine runs another architecture's code
    UNSTATED_ARCHITECTURE = "unstated architecture"  # the machine file names none
    FEATURE_ABSENT = "feature absent"  # the file states the machine lacks it
    FEATURE_UNSTATED = "feature unstated"  # the file is silent: unknown, never assumed


@record
class Unsupported:
    """One requirement of the spec the machine does not meet, with what the file states."""

    needed: Architecture | Feature
    lack: Lack
    machine_architecture: Architecture | None
    source: str | None  # the machine file's source for what it states


def unsupported(requirements: Requirements, machine: Machine) -> tuple[Unsupported, ...]:
    """Each requirement the machine does not meet, the target first."""
    found: list[Unsupported] = []
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
    return tuple(found)
