"""`solve`: crossings and capacity as tables and JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy

from ..analysis import Analysis
from ..units import plain, si
from .common import (
    INTENSITY_UNIT,
    MACHINE_NAMES,
    bound_text,
    condition_text,
    expression,
    formula,
    limit_text,
    machine_label,
    size_text,
    value_of,
)

if TYPE_CHECKING:
    pass


# --- solve ----------------------------------------------------------------------------------


def _crossing_text(crossing) -> str:
    if crossing.value is None:
        known = crossing.limit if crossing.known_limit is None else crossing.known_limit
        limit = value_of(known)
        ridge = value_of(crossing.ridge)
        side = "under" if limit is not None and ridge is not None and limit < ridge else "over"
        return f"never: I → {limit_text(known)} stays {side} the ridge"
    value = value_of(crossing.value)
    shown = size_text(value) if value is not None else formula(crossing.value)
    bound = crossing.integer_bound
    if bound is None:
        return f"{crossing.parameter} = {shown}, compute-bound {crossing.compute_bound_side}"
    return f"{crossing.parameter} = {shown}: compute-bound at {crossing.parameter} {bound_text(bound)}"


def solve_tables(analysis: Analysis, parameter: str, solutions):
    from rich.table import Table

    ridges = Table(title=f"{analysis.kernel}: where I(level) = ridge, solving for {parameter}",
                   title_justify="left")
    for column in ("machine", "level", "ridge", "crossing", "closed form", "valid when"):
        ridges.add_column(column, overflow="fold")
    capacity = Table(title="Capacity: where the bytes held reach the level's size",
                     title_justify="left")
    for column in ("machine", "what", "level", "capacity", "crossing", "closed form"):
        capacity.add_column(column, overflow="fold")
    for solution in solutions:
        for crossing in solution.crossings:
            ridges.add_row(machine_label(crossing.machine, crossing.precision), crossing.level,
                           plain(value_of(crossing.ridge), INTENSITY_UNIT),
                           _crossing_text(crossing), formula(crossing.expr),
                           "-" if crossing.expr is None else condition_text(crossing.condition))
        for crossing in solution.capacity:
            capacity.add_row(MACHINE_NAMES.get(crossing.machine, crossing.machine),
                             crossing.what, crossing.level,
                             f"{si(value_of(crossing.capacity_B), 'B')} per "
                             f"{crossing.capacity_per}", _capacity_text(crossing),
                             formula(crossing.expr))
    return [ridges, capacity] if any(s.capacity for s in solutions) else [ridges]


def _capacity_text(crossing) -> str:
    if crossing.value is None:
        if crossing.fits_everywhere is True:
            return "fits at every size"
        if crossing.fits_everywhere is False:
            return "never fits"
        if crossing.parameter not in {str(s) for s in crossing.held_B.free_symbols}:
            return f"does not depend on {crossing.parameter}"
        if crossing.condition is sympy.false:
            return "no crossing"
        return f"no closed form: {condition_text(crossing.condition)}"
    value = value_of(crossing.value)
    shown = size_text(value) if value is not None else formula(crossing.value)
    bound = crossing.integer_bound
    if bound is None:
        return f"{crossing.parameter} = {shown}, exceeds {crossing.exceeds_side}"
    return f"{crossing.parameter} = {shown}: fits at {crossing.parameter} {bound_text(bound)}"


def solve_json(analysis: Analysis, parameter: str, solutions) -> dict:
    return {
        "kernel": analysis.kernel,
        "parameter": parameter,
        "settings": {str(s): expression(e) for s, e in analysis.settings.items()},
        "crossings": [c.as_json() for s in solutions for c in s.crossings],
        "capacity": [c.as_json() for s in solutions for c in s.capacity],
    }
