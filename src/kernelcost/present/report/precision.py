"""`--precision`: the element types a precision gave the spec, and the machines `--machine all`
left out for lacking it, as JSON and as lines of text."""

from __future__ import annotations

from ...lang.precisions import PrecisionMap
from .cells import json_number


def mapping_json(mapping: PrecisionMap | None) -> dict | None:
    """`element_types`: null at the spec's own precision."""
    if mapping is None:
        return None
    form = mapping.format
    return {
        "precision": form.precision, "from": mapping.own, "format": form.name,
        "operand": form.operand, "output": form.output, "accumulator": form.accumulator,
        "scale_block": form.block, "source": form.source or None,
        "changes": [{"name": c.name, "role": c.role, "from": c.before, "to": c.after,
                     "bytes_from": json_number(c.bytes_before),
                     "bytes_to": json_number(c.bytes_after)} for c in mapping.changes],
    }


def mapping_line(mapping: PrecisionMap | None) -> str | None:
    """`element types at FP4 (NVFP4 ...): A, B bf16 -> fp4 (0.5625 B with the scale), ...`"""
    if mapping is None:
        return None
    form = mapping.format
    groups: dict[tuple, list[str]] = {}
    for change in mapping.changes:
        key = (change.before, change.after, change.bytes_after)
        groups.setdefault(key, []).append(change.name)
    parts = []
    for (before, after, size), names in groups.items():
        scaled = " with its block scale" if form.block and after == form.operand else ""
        parts.append(f"{', '.join(names)} {before} -> {after} ({float(size):g} B{scaled})")
    changed = "; ".join(parts) if parts else "no tensor changes type"
    return (f"  element types at {form.precision.upper()} ({form.name}; from the spec's "
            f"{mapping.own}): {changed}.")


def dropped_json(dropped) -> list[dict]:
    """`dropped_machines`: the built-in machines `--machine all` left out."""
    return [{"machine": d.machine, "name": d.name, "missing": list(d.missing)}
            for d in dropped]


def dropped_line(dropped) -> str | None:
    """`not compared: NVIDIA A100 ... (no fp8 peak), ...`, or None when none was left out."""
    if not dropped:
        return None
    named = ", ".join(f"{d.name} ({d.machine}: no {' or '.join(d.missing)} peak)"
                      for d in dropped)
    return f"not compared: {named}."
