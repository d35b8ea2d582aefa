"""`solve`: crossings and capacity as tables and JSON."""

from __future__ import annotations

import sympy

from ...algebra.texts import text
from ...analysis.api import Analysis, Counted
from ...base.kinds import Per, Side
from ...base.units import binary, plain
from .cells import (
    MACHINE_NAMES,
    PER_WORDS,
    bound_text,
    condition_json,
    condition_text,
    expression,
    formula,
    limit_fields,
    limit_text,
    machine_label,
    quantities,
    size_text,
    value_of,
)
from .page import Column, noted_table

# --- solve ----------------------------------------------------------------------------------


def _crossing_cells(crossing) -> tuple[str, str]:
    """(where I meets the ridge, the sizes that are compute-bound): `T = 613.2`, `T >= 614`;
    `never: I → 0.5 FLOP/B`, `never` when the limit stays under the ridge."""
    parameter = crossing.parameter
    if crossing.value is None:
        known = crossing.limit if crossing.known_limit is None else crossing.known_limit
        limit, ridge = value_of(known), value_of(crossing.ridge)
        under = limit is not None and ridge is not None and limit < ridge
        if crossing.searched_to is not None:  # a form with Sums, searched numerically
            return (f"none up to {parameter} = {crossing.searched_to:,} (I = "
                    f"{limit_text(known)})", "never" if under else "always")
        return f"never: I → {limit_text(known)}", "never" if under else "always"
    value = value_of(crossing.value)
    shown = size_text(value) if value is not None else formula(crossing.value)
    bound = crossing.integer_bound
    where = crossing.compute_bound_side if bound is None else (
        f"{parameter} {bound_text(bound)}")
    return f"{parameter} = {shown}", where


RIDGE_COLUMNS = [Column("machine"), Column("level"), Column("ridge\nFLOP/B", "right"),
                 Column("crossing"), Column("compute-bound"),
                 Column("closed form", optional=True), Column("valid when", optional=True)]
CAPACITY_COLUMNS = [Column("machine"), Column("what"), Column("level"),
                    Column("capacity", "right"), Column("crossing"), Column("fits"),
                    Column("closed form", optional=True)]


def solve_tables(analysis: Analysis | Counted, parameter: str, solutions,
                 width: int | None = None):
    """The crossings of the ridges, then (when a tile or the working set depends on the
    size) of the capacities, each a fitted table (report.page): (table, headers left out)."""
    ridge_rows, capacity_rows = [], []
    for solution in solutions:
        for crossing, forms in _with_forms(solution.crossings, solution.at_defaults,
                                           lambda c: (c.precision, c.level)):
            ridge_rows.append([machine_label(crossing.machine, crossing.precision),
                               crossing.level, plain(value_of(crossing.ridge), "").strip(),
                               *_crossing_cells(crossing),
                               _joined(forms, lambda c: formula(c.expr)),
                               _joined(forms, lambda c: condition_text(c.condition))])
        for crossing, forms in _with_forms(solution.capacity, solution.capacity_at_defaults,
                                           lambda c: (c.held_by, c.level)):
            capacity_rows.append([MACHINE_NAMES.get(crossing.machine, crossing.machine),
                                  holder_text(crossing, short=True), crossing.level,
                                  _capacity_text(crossing), *_capacity_cells(crossing),
                                  _joined(forms, lambda c: formula(c.expr))])
    defaults = _defaults_text(analysis, parameter, solutions)
    tables = [noted_table(f"{analysis.kernel}: where I(level) = ridge, solving for "
                          f"{parameter}{defaults}", RIDGE_COLUMNS, ridge_rows, width, (3,))]
    if capacity_rows:
        tables.append(noted_table("Capacity: where the bytes held reach the level's size",
                                  CAPACITY_COLUMNS, capacity_rows, width, (4, 1)))
    return tables


def _with_forms(symbolic, at_defaults, key):
    """Each row's crossing (the one at the defaults, where some are left: a tile of T = 128
    that always fits says so) with the closed forms of the same `key` (precision and level, or
    holder and level), in the sizes left unset and the defaults."""
    if not at_defaults:
        return [(crossing, [crossing]) for crossing in symbolic]
    forms: dict[tuple, list] = {}
    for crossing in symbolic:
        forms.setdefault(key(crossing), []).append(crossing)
    return [(crossing, forms.get(key(crossing), [])) for crossing in at_defaults]


def _joined(forms, cell) -> str:
    """A cell of the closed forms a row stands for (those with a root), `; ` between them."""
    return "; ".join(cell(form) for form in forms if form.expr is not None) or "-"


def _defaults_text(analysis, parameter: str, solutions) -> str:
    """A title's second line, `values at the defaults d = 128, Bc = 64`, where the crossings
    put some in."""
    if not any(solution.at_defaults or solution.capacity_at_defaults
               for solution in solutions):
        return ""
    shown = ", ".join(f"{symbol} = {value}" for symbol, value in analysis.cost.defaults.items()
                      if str(symbol) != parameter and symbol not in analysis.settings)
    return f"\nvalues at the defaults {shown}"


def _capacity_text(crossing) -> str:
    """`228 KiB/SM`; a device's capacity without a `per`."""
    capacity = binary(value_of(crossing.capacity_B))
    per = crossing.capacity_per
    return capacity if per == Per.DEVICE else f"{capacity}/{PER_WORDS.get(per, per)}"


def _capacity_cells(crossing) -> tuple[str, str]:
    """(where the bytes held reach the capacity, the sizes that fit)."""
    if crossing.value is None:
        if crossing.fits_everywhere is True:
            return "none", "always"
        if crossing.fits_everywhere is False:
            return "none", "never"
        if crossing.parameter not in {str(s) for s in crossing.held_B.free_symbols}:
            return f"independent of {crossing.parameter}", "-"
        if crossing.condition is sympy.false:
            return "no crossing", "-"
        return f"no closed form: {condition_text(crossing.condition)}", "-"
    value = value_of(crossing.value)
    shown = size_text(value) if value is not None else formula(crossing.value)
    bound = crossing.integer_bound
    if bound is None:
        return (f"{crossing.parameter} = {shown}",
                Side.BELOW if crossing.exceeds_side == Side.ABOVE else Side.ABOVE)
    return f"{crossing.parameter} = {shown}", f"{crossing.parameter} {bound_text(bound)}"


def solve_json(analysis: Analysis | Counted, parameter: str, solutions) -> dict:
    return {
        "kernel": analysis.kernel,
        "parameter": parameter,
        "settings": {str(s): expression(e) for s, e in analysis.settings.items()},
        "crossings": [crossing_json(c) for s in solutions for c in s.crossings],
        "crossings_at_defaults": [crossing_json(c) for s in solutions for c in s.at_defaults],
        "capacity": [capacity_json(c) for s in solutions for c in s.capacity],
        "capacity_at_defaults": [capacity_json(c) for s in solutions
                                 for c in s.capacity_at_defaults],
    }


def crossing_json(crossing) -> dict[str, object]:
    """A ridge crossing's documented JSON keys; numbers as floats, expressions as sympy
    strings."""
    return {
        "machine": crossing.machine, "precision": crossing.precision, "level": crossing.level,
        "parameter": crossing.parameter, **quantities(value=crossing.value),
        "expr": None if crossing.expr is None else text(crossing.expr),
        **condition_json(crossing.condition), **limit_fields("limit", crossing.limit),
        "compute_bound_side": crossing.compute_bound_side,
        "searched_to": crossing.searched_to,
    }


def holder_text(crossing, short: bool = False) -> str:
    """What holds the bytes: `keep scope 0 (A, B)` (`scope 0 (A, B)` in a table's cell),
    `tensors in shared`, `working set`."""
    from ...answers.capacity import Held

    holder = crossing.held_by
    if holder.held == Held.KEEP_SCOPE:
        scope = f"scope {holder.scope} ({', '.join(holder.tensors)})"
        return scope if short else f"keep {scope}"
    if holder.held == Held.TENSORS:
        return f"tensors in {crossing.level}"
    return "working set"


def capacity_json(crossing) -> dict[str, object]:
    return {
        "machine": crossing.machine, "what": holder_text(crossing), "level": crossing.level,
        "parameter": crossing.parameter, "held_B": text(crossing.held_B),
        "capacity_B": float(crossing.capacity_B), "capacity_per": crossing.capacity_per,
        **quantities(value=crossing.value),
        "expr": None if crossing.expr is None else text(crossing.expr),
        **condition_json(crossing.condition), "exceeds_side": crossing.exceeds_side,
        "fits_everywhere": crossing.fits_everywhere,
    }
