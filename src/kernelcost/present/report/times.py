"""The three times of a verdict (t_floor <= t_bound <= t_model) and a grid that leaves SMs
idle, in words and as JSON. No arithmetic: the figures are the verdict's."""

from __future__ import annotations

from ...base.kinds import TermKind
from ...base.units import si
from ..roofs import roof_name
from .cells import quantities, value_of


def floor_terms_json(verdict) -> list[dict]:
    """The terms of t_floor: a work class on the units it may use, or compulsory bytes on a
    level's bandwidth."""
    floor = verdict.floor
    return [] if floor is None else [
        {"kind": term.kind, "key": term.key, "units": [roof_name(unit) for unit in term.units],
         **quantities(amount=term.amount, rate=term.rate, seconds=term.seconds)}
        for term in floor.terms]


def fill_json(fill) -> dict | None:
    """A grid of fewer blocks than SMs, or None."""
    if fill is None:
        return None
    return {"blocks": fill.blocks, "sm_count": fill.sm_count, "share": float(fill.share),
            "fill_factor": fill.fill_factor, "binds": fill.binds,
            "split_iterator": fill.split_iterator, "tile_iterators": list(fill.tile_iterators)}


def floor_binding(verdict):
    """The term of t_floor that sets it, or None while symbolic."""
    floor = verdict.floor
    if floor is None or floor.seconds is None:
        return None
    return next((term for term in floor.terms if term.seconds == floor.seconds), None)


def _floor_cause(term) -> str:
    if term.kind == TermKind.TRAFFIC:
        return f"compulsory bytes at {roof_name(term.units[0])}"
    return " + ".join(roof_name(unit) for unit in term.units)


def times_line(verdict) -> str | None:
    """`  three times: t_floor 470 ns (compulsory bytes at global bandwidth) <= t_bound
    4.47 µs <= t_model 4.47 µs.`: what no implementation beats, this schedule's bound, the
    estimate."""
    floor = value_of(verdict.t_floor)
    if floor is None:
        return None
    binding = floor_binding(verdict)
    cause = "" if binding is None else f" ({_floor_cause(binding)})"
    parts = [f"t_floor {si(floor, 's')}{cause}"]
    bound, model = value_of(verdict.t_bound), value_of(verdict.t_model)
    if bound is not None:
        parts.append(f"t_bound {si(bound, 's')}")
    if model is not None and bound is not None:
        parts.append(f"t_model {si(model, 's')}")
    if bound is None and verdict.runs:
        return None
    tail = ("" if bound is not None else
            "; this machine does not run the spec: no t_bound, no t_model"
            if verdict.unsupported else "; this schedule does not fit: no t_bound, no t_model")
    return "  three times: " + " <= ".join(parts) + tail + "."


def fill_clause(fill, bound: str | None) -> str:
    """`8 blocks for 132 SMs leave 124 idle (the grid fills 6 % of the machine), so the bf16
    tensor peak binds on the busiest SM alone; split-K along k0 (17 ways) or smaller tiles
    along i0, j0 (17x the blocks) would fill it`."""
    idle = fill.sm_count - fill.blocks
    clause = (f"{fill.blocks} block{'s' if fill.blocks != 1 else ''} for {fill.sm_count} SMs "
              f"leave {idle} idle (the grid fills {100 * float(fill.share):.0f} % of the "
              "machine)")
    if fill.binds and bound is not None:
        clause += f", so the {bound} binds on the busiest SM alone"
    remedies = []
    if fill.split_iterator is not None:
        ways = fill.fill_factor * fill.split
        now = "" if fill.split == 1 else f", where the spec splits {fill.split}"
        remedies.append(f"split-K along {fill.split_iterator} ({ways} ways{now})")
    if fill.tile_iterators:
        remedies.append(f"smaller tiles along {', '.join(fill.tile_iterators)} "
                        f"({fill.fill_factor}x the blocks)")
    if remedies:
        clause += f"; {' or '.join(remedies)} would fill it"
    return clause
