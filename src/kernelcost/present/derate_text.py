"""What lowers the roof, in words: the sentence of a derate from the figures its finding
(gpu.effects) holds. A finding that declares its sentence as data (`sentence`, a
base.sentences.Sentence) is filled here by `filled`, its places by field and unit; a finding
whose words depend on its figures has its function in TEXTS, picked by the finding's type
(tests/test_effects.py checks every registered effect's finding has one or the other). The
terminal line (`what lowers the roof here: ...`) and the JSON key `detail` of a verdict's
derates are both this text. Beside them, how far a measured run is from its roof
(`efficiency_text`)."""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sympy

from ..base.kinds import TermKind
from ..base.levels import Level
from ..base.sentences import COUNT, UNITS, Sentence, is_place_unit
from ..base.units import counted, percent, si
from ..gpu.derates import Derate
from ..gpu.effects.achievable import AchievableFinding
from ..gpu.effects.banks import BankFinding
from ..gpu.effects.dispatch import DispatchFinding
from ..gpu.effects.latency import BlockLoads, LatencyFinding
from ..gpu.effects.overlap import OverlapFinding
from ..gpu.effects.sectors import DramSectorFinding, SectorFinding, TensorSeen
from ..gpu.effects.serial import SerialFinding

if TYPE_CHECKING:  # a measurement's module loads only where a measurement is given
    from ..answers.efficiency import Efficiency

# the load latency a machine file cites at each level Little's law checks
LATENCY_WORDS: dict[str, str] = {Level.GLOBAL: "DRAM", Level.L2: "L2 hit",
                                 Level.SHARED: "shared-memory"}


def derate_text(derate: Derate) -> str:
    """The derate's reasoning, with its figures."""
    return finding_text(derate.finding)


def finding_text(finding: object) -> str:
    text = TEXTS.get(type(finding))
    if text is not None:
        return text(finding)
    sentence = declared_sentence(type(finding))
    if sentence is None:
        raise TypeError(f"no text for a {type(finding).__name__}: declare its `sentence` "
                        "or add a function to TEXTS")
    return filled(sentence, finding)


def declared_sentence(kind: type) -> Sentence | None:
    """The sentence a finding's type declares as data, if it does."""
    sentence = getattr(kind, "sentence", None)
    return sentence if isinstance(sentence, Sentence) else None


def filled(sentence: Sentence, finding: object) -> str:
    """The sentence's words with each place filled from the finding's field of its name."""
    parts = []
    for words, field, unit, _ in string.Formatter().parse(sentence.template):
        parts.append(words)
        if field is not None:
            parts.append(_place(getattr(finding, field), unit or ""))
    return "".join(parts)


def _place(value: Any, unit: str) -> str:
    """A field's value in its place: a count with its noun, in SI with its unit, as a
    percentage, or as it prints (a tuple's items joined)."""
    if unit and not is_place_unit(unit):
        raise ValueError(f"a sentence's place has unit {unit!r}, none of {sorted(UNITS)} "
                         f"nor a count's {COUNT}noun")
    if unit.startswith(COUNT):
        return counted(int(value), unit[len(COUNT):])
    if unit == "%":
        return percent(float(value))
    if unit:
        return si(float(value), unit)
    if isinstance(value, tuple):
        return ", ".join(str(item) for item in value)
    return str(value)


def achievable_text(finding: AchievableFinding) -> str:
    if finding.path is not None:
        on = f" on {finding.path}"
    elif finding.unfigured is not None:
        on = f" (the part's: no figure on {finding.unfigured})"
    else:
        on = ""
    return f"{finding.fraction:.1%} of the {finding.roof} figure{on}, as the machine file's " \
        "[[achievable]] states it with its source"


def latency_text(finding: LatencyFinding) -> str:
    flight = finding.flight
    where = " per SM" if flight.per_sm else ""
    text = (f"latency-bound at {flight.level}: {si(float(flight.available_B), 'B')} in flight"
            f"{where} ({counted(flight.blocks_at_once, 'block')} at once x "
            f"{_loads_text(flight.how)}) "
            f"against {si(float(flight.needed_B), 'B')} needed "
            f"({si(float(flight.bandwidth_Bps), 'B/s')} x {si(float(flight.latency_s), 's')}, "
            f"the machine file's unloaded {LATENCY_WORDS[flight.level]} latency; loaded "
            f"latencies are longer): attainable {flight.level} bandwidth "
            f"{si(float(finding.attainable_Bps), 'B/s')}{where}; "
            f"{counted(finding.lift, 'resident block')} per SM (and blocks enough to fill them) "
            "would lift it")
    if finding.allowed is not None:
        text += (f", more than the {finding.allowed} this block allows: larger blocks, more "
                 "loads in flight per thread or asynchronous copies")
    return text


def _loads_text(how: BlockLoads) -> str:
    if how.tiles and how.declared:
        return "the arrays it declares in shared memory, filled by independent copies"
    if how.tiles:
        return "its shared tiles (stages x tile bytes), filled by independent copies"
    if how.passes:
        return f"{how.threads} threads x one load each, in {len(how.passes)} passes one " \
            "after another weighted by their bytes: " + ", then ".join(
                f"{' and '.join(names)} {si(float(flight), 'B')} of {si(float(box), 'B')}"
                for names, flight, box in how.passes)
    return f"{how.threads} threads x one load each of " + ", ".join(
        f"{tensor} {size} B" for tensor, size in how.loads)


def sector_text(finding: SectorFinding) -> str:
    worst = finding.worst
    moved = (f"L1<->L2 moves whole 32-byte sectors: L2 serves {si(float(finding.served_B), 'B')}"
             f" where the spec counts {si(float(finding.counted_B), 'B')} (worst: "
             f"{worst.access.text}, {times(worst.ratio)} its useful bytes)")
    return f"{moved}; HBM: {_seen_text(finding.hbm)}" if finding.hbm else moved


def dram_sector_text(finding: DramSectorFinding) -> str:
    return (f"HBM sees whole sectors through L2: {_seen_text(finding.tensors)}: "
            f"{si(float(finding.seen_B), 'B')} where t_model counted "
            f"{si(float(finding.counted_B), 'B')}")


def _seen_text(tensors: tuple[TensorSeen, ...]) -> str:
    return ", ".join(
        f"{seen.tensor} each byte once ({si(float(seen.distinct_B), 'B')}): the rest of each "
        "sector is used by neighbouring warps while the sector is in L2" if seen.shared else
        f"{seen.tensor} {si(float(seen.seen_B), 'B')} of sectors for "
        f"{si(float(seen.distinct_B), 'B')} used: nobody uses the rest" for seen in tensors)


def bank_text(finding: BankFinding) -> str:
    worst = finding.worst
    return (f"shared-memory bank conflicts (32 banks of 4 B): the shared bandwidth serves "
            f"{si(float(finding.served_B), 'B')} of wavefronts for "
            f"{si(float(finding.counted_B), 'B')} (worst: {worst.access.text}, "
            f"{way(worst.ratio)})")


def dispatch_text(finding: DispatchFinding) -> str:
    unit = "FLOP" if finding.kind == TermKind.WORK else "B"
    return (f"the {finding.blocks} unequal blocks started in launch order, {finding.resident} "
            f"at once on an SM: the busiest SM runs {si(float(finding.dispatched), unit)} of "
            f"{finding.key}, {float(finding.dispatched / finding.share):.3g}x the "
            f"{si(float(finding.share), unit)} every schedule gives it at least (the last "
            "blocks launched end alone)")


def serial_text(finding: SerialFinding) -> str:
    parts = [f"{key} {si(float(time), 's')}" for key, time in finding.times]
    return f"the spec's `serial` line: {' + '.join(parts)}, issued one after another"


def overlap_text(finding: OverlapFinding) -> str:
    parts = [f"{key} {si(float(time), 's')}" for key, time in finding.work]
    text = parts[0] if len(parts) == 1 else (
        f"{', '.join(parts)} share the SM's issue slots: {si(float(finding.units_s), 's')} "
        f"together (their {float(finding.units):g}-norm)")
    if finding.traffic is not None:
        level, time = finding.traffic
        text += (f"; {level} {si(float(time), 's')}, which the computing warps wait on, hides "
                 f"behind it in part: {si(float(finding.together), 's')} (their "
                 f"{float(finding.exponent):g}-norm)")
    return text + "; exponents fitted on calibration rows"


def way(degree: sympy.Expr) -> str:
    """A bank-conflict degree: `32-way` or `conflict-free`."""
    return "conflict-free" if degree == 1 else f"{float(degree):.3g}-way"


def times(ratio: sympy.Expr) -> str:
    """Sector bytes over useful bytes: `8x`."""
    return f"{float(ratio):.3g}x"


# each finding type of the registered effects whose words depend on its figures -> its
# sentence (the others declare theirs: `declared_sentence`)
TEXTS: dict[type, Callable[[Any], str]] = {
    AchievableFinding: achievable_text, LatencyFinding: latency_text,
    SectorFinding: sector_text, DramSectorFinding: dram_sector_text, BankFinding: bank_text,
    DispatchFinding: dispatch_text, SerialFinding: serial_text, OverlapFinding: overlap_text,
}


def efficiency_text(efficiency: Efficiency) -> str:
    """'3.1 TB/s of 3.35 TB/s (93 %)' or '400 TFLOP/s of 990 TFLOP/s (40 %)'."""
    return (f"{si(efficiency.achieved, efficiency.metric)} of "
            f"{si(efficiency.roof, efficiency.metric)} ({100 * efficiency.fraction:.0f} %)")
