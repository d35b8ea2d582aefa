"""What a machine does not run of a spec (gpu.support): the sentence and the JSON rows."""

from __future__ import annotations

from ...base.architectures import Architecture
from ...base.levels import Level
from ...gpu.support import Lack, Unsupported

_LEVEL_WORDS = {Level.TMEM: "tensor memory (`tmem`)",
                Level.MALL: "a memory-side cache (`mall`)"}


def unsupported_sentence(verdict, label: str) -> str:
    """`not run on B200 BF16: the spec is written for sm_90a, and the B200 runs sm_100a; it
    needs wgmma, which the machine file says the B200 lacks (no t_bound, no t_model)`."""
    machine = label.rsplit(" ", 1)[0]  # the label less its precision: `RTX 4090 BF16`
    parts = [_clause(lack, machine) for lack in verdict.unsupported]
    return (f"not run on {label}: " + "; ".join(parts)
            + " (no t_bound, no t_model: t_floor only)")


def _clause(unsupported: Unsupported, machine: str) -> str:
    needed, lack = unsupported.needed, unsupported.lack
    if isinstance(needed, Architecture):
        if lack is Lack.UNSTATED_ARCHITECTURE:
            return (f"the spec is written for {needed}, and the {machine} machine file names "
                    "no architecture (device.architecture)")
        only = " or later" if needed.forward_compatible else " only"
        return (f"the spec is written for {needed}, which runs on {needed}{only}, and the "
                f"{machine} runs {unsupported.machine_architecture}")
    if isinstance(needed, Level):
        return f"it keeps data in {_LEVEL_WORDS[needed]}, which the {machine} does not have"
    if lack is Lack.FEATURE_UNSTATED:
        return (f"it needs {needed}, which the {machine} machine file does not state "
                f"(features.{needed}: unknown, never assumed)")
    return f"it needs {needed}, which the {machine} lacks"


def unsupported_json(verdict) -> list[dict[str, object]]:
    return [{"needs": str(item.needed), "lack": item.lack.value,
             "machine_architecture": None if item.machine_architecture is None
             else str(item.machine_architecture), "source": item.source}
            for item in verdict.unsupported]
