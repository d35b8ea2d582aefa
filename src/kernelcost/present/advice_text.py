"""The chapter's advice in words: what each zone of I / I_crit urges, and the compute-bound
zone's lever on one machine (answers.regimes gives the zone and the lever as data)."""

from __future__ import annotations

from ..answers.regimes import ComputeAdvice, Lever, Zone

ZONE_ADVICE = {
    Zone.CLEARLY_MEMORY_BOUND: "bytes are the limit: cut traffic (fuse, tile for reuse, "
                               "narrower types); do not touch compute",
    Zone.MIXED: "both levers count: fewer bytes and faster arithmetic",
}
LEVER_TEXT = {
    Lever.FASTER_UNIT: "fewer operations or a faster unit",
    Lever.NARROWER_ON_TENSOR: "a narrower precision on the tensor units, or fewer operations",
    Lever.FEWER_OPERATIONS: "fewer operations (element-wise work: the tensor units cannot "
                            "run it)",
    Lever.NO_TENSOR_UNITS: "fewer operations or a narrower precision (no tensor units on "
                           "this machine)",
}


def compute_advice_text(advice: ComputeAdvice) -> str:
    """The compute-bound zone's advice: `arithmetic is the limit: <lever>; bytes no longer
    matter`, the tensor units named by their precisions."""
    if advice.lever == Lever.TO_TENSOR_UNITS:
        lever = (f"move the work to the tensor units ({', '.join(advice.tensor_precisions)}) "
                 "or cut operations")
    else:
        lever = LEVER_TEXT[advice.lever]
    return f"arithmetic is the limit: {lever}; bytes no longer matter"


def zone_advice(zone: Zone, advice: ComputeAdvice) -> str:
    """What `zone` urges; the compute-bound zone in the machine's own terms (`advice`)."""
    if zone == Zone.CLEARLY_COMPUTE_BOUND:
        return compute_advice_text(advice)
    return ZONE_ADVICE[zone]
