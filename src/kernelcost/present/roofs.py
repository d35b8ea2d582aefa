"""What the reports call a roof, built from the roof's data (hardware.machine.Roof) here
alone: `bf16 tensor peak`, `fp32 vector FMA peak`, `sfu`, `fp32 vector peak (no sfu figure)`,
`global bandwidth`, `l2 bandwidth (latency-bound, sectors)`, and the shorter words of a
narrow column (`bf16 tensor`, `HBM`). Nothing reads a name back: what binds is compared as
a Roof (tests/test_display_strings.py holds the source to it)."""

from __future__ import annotations

from ..base.kinds import EffectCause, TermKind, Unit
from ..base.levels import Level
from ..gpu.effects.latency import LATENCY
from ..hardware.machine import Roof

# tune's and phase's words for the levels whose bandwidth is a roof there
DEVICE_WORDS: dict[str, str] = {Level.GLOBAL: "HBM", Level.L2: "L2", Level.SHARED: Level.SHARED}


def roof_name(roof: Roof) -> str:
    """The roof as the sentences, the tables of terms and the JSON name it."""
    base, word, notes = _parts(roof)
    return f"{base}{word}" + (f" ({', '.join(notes)})" if notes else "")


def short_roof_name(roof: Roof) -> str:
    """`bf16 tensor`, `shared`: the name without its ` peak` or ` bandwidth` where nothing
    follows that word (a column whose header says what binds)."""
    base, _, notes = _parts(roof)
    return roof_name(roof) if notes else base


def model_roof_name(roof: Roof) -> str:
    """A transformer model's tables: global memory's bandwidth is `HBM`, a peak its short
    name, any other bandwidth its whole name."""
    if roof.kind == TermKind.TRAFFIC:
        return "HBM" if roof.level == Level.GLOBAL and not roof.derated_by else roof_name(roof)
    return short_roof_name(roof)


def device_word(roof: Roof) -> str:
    """tune's and phase's word for what binds: HBM, L2, shared, tensor, vector or SFU."""
    if roof.kind == TermKind.TRAFFIC:
        assert roof.level is not None  # a bandwidth is a level's
        return DEVICE_WORDS[roof.level]
    if roof.unit == Unit.SFU or roof.sfu_stand_in:
        return "SFU"
    return "tensor" if roof.unit == Unit.TENSOR else "vector"


def derate_word(cause: EffectCause) -> str:
    """What a derate's cause is called beside the bandwidth it lowers."""
    return "latency-bound" if cause == LATENCY else cause.replace("_", " ")


def _parts(roof: Roof) -> tuple[str, str, list[str]]:
    """(what, ` peak` or ` bandwidth`, the notes in parentheses); `sfu` alone for the sfu
    rate."""
    if roof.kind == TermKind.TRAFFIC:
        return str(roof.level), " bandwidth", [derate_word(cause) for cause in roof.derated_by]
    if roof.unit == Unit.SFU:
        return "sfu", "", []
    fma = " FMA" if roof.fma else ""
    notes = ["no sfu figure"] if roof.sfu_stand_in else []
    return f"{roof.precision} {roof.unit}{fma}", " peak", notes
