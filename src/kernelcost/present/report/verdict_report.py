"""Verdicts and answers: the sentence, the verdict table, the JSON rows."""

from __future__ import annotations

import math

from ...base.kinds import Side, TermKind
from ...base.units import binary, plain, si
from ...count.values import json_value
from ..derate_text import derate_text, efficiency_text
from ..model_text import exp_on_fma_text, warm_json, warm_l2_text
from ..roofs import roof_name, short_roof_name
from .cells import (
    INTENSITY_UNIT,
    bound_text,
    json_number,
    machine_label,
    quantities,
    size_number,
    size_text,
    value_of,
    value_or_formula,
)
from .grid import grid_clause, grid_json, misfit_sentence, transfer_lines
from .ledger_report import ledger_line
from .page import Column, fitted_table
from .precision import mapping_json, mapping_line
from .solve_report import crossing_json
from .times import fill_clause, floor_terms_json, times_line
from .unsupported_report import unsupported_sentence

# --- verdicts and answers ------------------------------------------------------------------

def binding_level(result):
    """The level the sentence and the advice speak of: the one whose bandwidth binds, or,
    when a compute roof binds, the roof level closest to its ridge (the smallest ratio; the
    register file is no roof)."""
    from ...hardware.machine import (
        UNBOUNDING_LEVELS,  # loaded with the verdicts: `analyze` alone has none
    )

    binding = result.binding
    if binding is not None and binding.kind == TermKind.TRAFFIC:
        for level in result.levels:
            if level.level == binding.key:
                return level
    roofs = [level for level in result.levels if level.level not in UNBOUNDING_LEVELS]
    ratios = [(level, value_of(level.ratio)) for level in roofs or result.levels]
    known = [(level, ratio) for level, ratio in ratios if ratio is not None]
    if known:
        return min(known, key=lambda pair: pair[1])[0]
    return result.levels[0] if result.levels else None


def answer_sentence(answer) -> str:
    """The verdict in one sentence, as the chapter would say it."""
    result = answer.verdict
    label = machine_label(result.machine, result.precision)
    if result.unsupported:
        return unsupported_sentence(result, label)
    if result.misfits:
        return misfit_sentence(result, label)
    if answer.crossings:
        return _crossing_sentence(answer, label)
    fill = result.grid.fill if result.grid is not None else None
    if result.regime is not None:
        level = binding_level(result)
        ratio = value_of(level.ratio) if level else None
        parts = [f"{result.regime} on {label}"]
        if fill is not None and fill.binds:  # the grid, not the intensity, sets the time
            parts.append(f": {fill_clause(fill, _name(result.bound))}")
        elif ratio is not None:
            ridge = value_of(level.ridge)
            parts.append(f": I_{level.level} = {plain(value_of(level.intensity), INTENSITY_UNIT)}"
                         f" is {ratio:.3g}× the {level.level} ridge "
                         f"({plain(ridge, INTENSITY_UNIT)})")
        parts.append(f"; t_min = {si(value_of(result.t_min), 's')}, "
                     f"bound by {_name(result.bound)}")
        parts.append(max_clock_clause(result))
        if result.grid is not None:
            parts.append(grid_clause(result))
        if fill is not None and not fill.binds:
            parts.append(f"; {fill_clause(fill, None)}")
        return "".join(parts)
    return (f"symbolic on {label}: set the sizes (--set), or leave one free to find where "
            "it crosses the ridge")


def max_clock_clause(result) -> str:
    """`; t_bound = 1.06 ms with the peaks at the maximum clock`: where the bound differs from
    the chapter's t_min as printed (module clocks), and what binds it there when that
    differs too."""
    t_min, t_bound = value_of(result.t_min), value_of(result.t_bound)
    if t_bound is None or t_min is None or si(t_bound, "s") == si(t_min, "s"):
        return ""  # the same as printed: the data sheet quotes the peaks at that clock
    clause = f"; t_bound = {si(t_bound, 's')} with the peaks at the maximum clock"
    if result.bound_at_max_clock not in (None, result.bound):
        clause += f", bound by {_name(result.bound_at_max_clock)}"
    return clause


def unknown_bandwidth_line(result) -> str | None:
    """`l2 bandwidth unknown on rtx4090: ...`: levels with traffic whose bandwidth the
    machine file gives as unknown (or not at all) set no roof; the answer says so."""
    absent = {item.needed for item in result.unsupported}  # said by the refusal already
    unmodelled = [level for level in result.unmodelled_levels if level not in absent]
    if not unmodelled:
        return None
    levels = ", ".join(unmodelled)
    name = machine_label(result.machine, "").strip()
    return (f"  {levels} bandwidth unknown on {name}: no public figure in the machine file, "
            "so that traffic sets no roof of t_min or t_bound.")


def _crossing_sentence(answer, label: str) -> str:
    """One clause per level, then the size from which every roof is compute-bound."""
    parameter = str(answer.free_parameter)
    clauses: list[str] = []
    # a level ends on its last crossing's side (an l2 that crosses back to compute-bound
    # made the headline `memory-bound at every S`)
    ends: dict[str, tuple[float, float | None, tuple | None]] = {}
    for crossing in answer.crossings:
        clause, start, bound = _level_clause(crossing, parameter)
        clauses.append(clause)
        at = -math.inf if crossing.value is None else value_of(crossing.value) or 0.0
        if at >= ends.get(crossing.level, (-math.inf,))[0]:
            ends[crossing.level] = (at, start, bound)
    never_compute = any(start is None for _, start, _ in ends.values())
    last, last_bound = max(((start, bound) for _, start, bound in ends.values()
                            if start is not None), key=lambda pair: pair[0],
                           default=(0.0, None))
    if len(clauses) == 1:
        return f"{clauses[0][:1].upper()}{clauses[0][1:]} on {label}"
    searched = [c.searched_to for c in answer.crossings if c.searched_to is not None]
    every = f"up to {parameter} = {min(searched):,}" if searched else f"at every {parameter}"
    if never_compute:
        verdict = f"memory-bound on {label} {every}"
    elif last > 0:
        verdict = f"compute-bound on {label} from {parameter} = {size_text(last)}"
        if last_bound is not None:
            verdict += f", so at {parameter} {bound_text(last_bound)}"
    else:
        verdict = f"compute-bound on {label} {every}"
    return verdict + " (" + "; ".join(clauses) + ")"


def _level_clause(crossing, parameter: str) -> tuple[str, float | None, tuple | None]:
    """What one level does as the size grows, the size from which it is compute-bound
    (0: always; None: never) and the integer sizes that are (crossing.integer_bound, found
    once: an algebraic root takes its floor exactly)."""
    ridge_value = value_of(crossing.ridge)
    assert ridge_value is not None  # a machine's ridge is a number
    ridge = plain(ridge_value, INTENSITY_UNIT)
    level = crossing.level
    if crossing.value is None:
        limit = value_of(crossing.limit)
        if crossing.searched_to is not None:  # a form with Sums: as far as it was searched
            where = f"up to {parameter} = {crossing.searched_to:,}"
            if limit is not None and limit < ridge_value:
                return (f"{level}: memory-bound {where}, where I = "
                        f"{plain(limit, INTENSITY_UNIT)} (ridge {ridge})"), None, None
            return f"{level}: compute-bound {where} (ridge {ridge})", 0.0, None
        if limit is not None and limit < ridge_value:
            return ((f"{level}: memory-bound at every {parameter}, I → "
                    f"{plain(limit, INTENSITY_UNIT)} stays under the ridge ({ridge})"),
                    None, None)
        return f"{level}: compute-bound at every {parameter} (ridge {ridge})", 0.0, None
    value = value_of(crossing.value)
    assert value is not None  # one size free, the others set: the root is a number
    bound = crossing.integer_bound  # the integer sizes that are compute-bound
    crossed = f"(the ridge, {ridge}, at {parameter} = {size_text(value)})"
    if crossing.compute_bound_side == Side.ABOVE:
        if bound is None:
            return (f"{level}: memory-bound below {parameter} = {size_text(value)}, "
                    f"compute-bound above (ridge {ridge})"), value, bound
        # sizes are whole: the integers on each side, the root between them
        return (f"{level}: memory-bound at {parameter} <= {size_number(bound[1] - 1)}, "
                f"compute-bound at {parameter} {bound_text(bound)} {crossed}"), value, bound
    if bound is None:
        return (f"{level}: compute-bound below {parameter} = {size_text(value)}, "
                f"memory-bound above (ridge {ridge})"), None, bound
    return (f"{level}: compute-bound at {parameter} {bound_text(bound)}, memory-bound at "
            f"{parameter} >= {size_number(bound[1] + 1)} {crossed}"), None, bound


def _name(roof) -> str | None:
    return None if roof is None else roof_name(roof)


def verdict_rows(verdict) -> list[dict]:
    """The documented `verdicts` rows, one per level: numbers as floats in SI base units,
    expressions as sympy strings. `regime` and `performance` are the level's own; `t_min`
    (without launch overhead) and `bound` are the kernel's."""
    return [{
        "machine": verdict.machine, "precision": verdict.precision, "level": level.level,
        **quantities(ridge=level.ridge, ratio=level.ratio, t_min=verdict.t_min,
                     performance=level.performance),
        "regime": level.regime, "bound": _name(verdict.bound),
        "derates": [{"cause": d.cause, "key": d.key, "factor": json_value(d.factor),
                     "detail": derate_text(d)} for d in verdict.derates],
    } for level in verdict.levels]


def answers_json(answers) -> dict:
    """The `verdicts` rows (one per machine x precision x level) and one sentence each."""
    return {
        "verdicts": [{**row, **grid} for answer in answers  # the grid's keys once a verdict
                     for rows in [verdict_rows(answer.verdict)]
                     for grid in [grid_json(answer.verdict)] for row in rows],
        "answers": [{
            "machine": a.verdict.machine, "precision": a.verdict.precision,
            "sentence": answer_sentence(a),
            **quantities(t_min=a.verdict.t_min if a.verdict.runs else None,
                         t_bound=a.verdict.t_bound, t_floor=a.verdict.t_floor,
                         t_model=a.verdict.t_model,
                         t_min_with_launch=a.verdict.t_min_with_launch),
            "bound_at_max_clock": _name(a.verdict.bound_at_max_clock),
            "terms": [{"name": roof_name(t.roof), "kind": t.kind, "key": t.key,
                       **quantities(seconds=t.seconds)} for t in a.verdict.terms],
            "floor_terms": floor_terms_json(a.verdict),
            "exp_on_fma": None if a.exp_on_fma is None else {
                "fraction": float(a.exp_on_fma.fraction), "k": a.exp_on_fma.k,
                "vector_FLOP_per_exp": a.exp_on_fma.vector_FLOP_per_exp},
            "warm_l2": warm_json(a.verdict.warm_l2),
            "rate": _rate_json(a.rate),
            "element_types": mapping_json(a.mapping),
            "bound": _name(a.verdict.bound), "regime": a.verdict.regime,
            "crossings": [crossing_json(c) for c in a.crossings],
            "fits": [{"scope": f.scope_index, "level": f.level,
                      **quantities(held_B=f.held_B), "capacity_B": json_number(f.capacity_B),
                      "per": f.capacity_per,
                      "fits": f.fits} for f in a.verdict.fits],
            "efficiency": None if a.efficiency is None else {
                "regime": a.efficiency.regime, "metric": a.efficiency.metric,
                "achieved": a.efficiency.achieved, "roof": a.efficiency.roof,
                "fraction": a.efficiency.fraction, "text": efficiency_text(a.efficiency)},
        } for a in answers],
    }


def _rate_json(rate) -> dict | None:
    """Items per second at t_min and with the launch overhead (`per token = b`)."""
    if rate is None:
        return None
    return {"item": rate.item, "unit": rate.unit,
            **quantities(count=rate.count, per_s=rate.per_s,
                         per_s_with_launch=rate.per_s_with_launch)}


def rate_line(answer) -> str | None:
    """`tokens/s: 25 k at t_min, 20 k with the 10 µs launch overhead (1 token a run)`."""
    rate, result = answer.rate, answer.verdict
    if rate is None or not result.runs:
        return None
    count, per_s = value_of(rate.count), value_of(rate.per_s)
    if count is None or per_s is None:
        return None
    line = f"  {rate.unit}: {_count_text(per_s)} at t_min"
    launch = value_of(result.launch_overhead_s)
    if launch:
        with_launch = value_of(rate.per_s_with_launch)
        assert with_launch is not None  # a number, as per_s and the overhead are
        line += (f", {_count_text(with_launch)} with the "
                 f"{si(launch, 's')} launch overhead")
    item = rate.item if count == 1 else rate.unit.removesuffix("/s")
    return line + f" ({size_text(count)} {item} a run)."


def _count_text(value: float) -> str:
    return si(value, "").strip()


VERDICT_COLUMNS = [
    Column("machine"), Column("level"), Column("I\nFLOP/B", "right"),
    Column("ridge\nFLOP/B", "right"), Column("I/ridge", "right"),
    Column("attainable\nFLOP/s", "right", optional=True), Column("t_min", "right"),
    Column("bound by")]


def verdict_table(answers, width: int | None = None):
    """One row per machine x precision x level, the units in the headers; a page narrower
    than every column leaves out the attainable rate. Returns the table and the headers left
    out; the zone and advice follow as sentences."""
    rows = []
    for answer in answers:
        result = answer.verdict
        for position, level in enumerate(result.levels):
            ratio = value_of(level.ratio)
            first = position == 0
            rows.append([
                machine_label(result.machine, result.precision) if first else "",
                level.level,
                value_or_formula(level.intensity, ""),
                plain(value_of(level.ridge), "").strip(),
                "-" if ratio is None else f"{ratio:.3g}",
                _compact(level.performance),
                _time_cell(result) if first else "",
                short_bound(result.bound) if first else ""])
    return fitted_table("Roofline verdicts", VERDICT_COLUMNS, rows, width)


def short_bound(bound) -> str:
    """`bf16 tensor`, `shared`: the column says what binds (a Roof; `-` while undecided)."""
    return "-" if bound is None else short_roof_name(bound)


def _compact(expr) -> str:
    """A rate under a header that holds its unit: `990T`."""
    value = value_of(expr)
    if value is None:
        return value_or_formula(expr, "")
    return si(value, "").replace(" ", "")


def _time_cell(result) -> str:
    if result.unsupported:
        return "not run"
    return "does not fit" if result.misfits else si(value_of(result.t_min), "s")


def _advice_line(level, result) -> str:
    """The regime (a side of the ridge) and the chapter's zone (under 0.1x, 0.1x to 10x,
    over 10x) in one clause, so that `compute-bound` beside `mixed` reads as a position, not
    a contradiction."""
    from ...answers.regimes import CLEARLY_COMPUTE_BOUND_ABOVE, CLEARLY_MEMORY_BOUND_BELOW, Zone
    from ..advice_text import zone_advice

    ratio = value_of(level.ratio)
    advice = zone_advice(level.zone, result.compute_advice)
    low, high = float(CLEARLY_MEMORY_BOUND_BELOW), float(CLEARLY_COMPUTE_BOUND_ABOVE)
    span = {Zone.CLEARLY_MEMORY_BOUND: f"under {low:g}×", Zone.MIXED: f"{low:g}× to {high:g}×",
            Zone.CLEARLY_COMPUTE_BOUND: f"over {high:g}×"}[level.zone]
    # a symbolic ratio has a zone only where it stays inside one at every size
    position = " at every size" if ratio is None else f", {ratio:.3g}× the ridge"
    # one regime a verdict: the level's own side of its ridge is named only where it is the
    # verdict's (a compute roof may bind while this level's intensity is under its ridge)
    agrees = result.regime is None or level.regime == result.regime
    regime = f"{level.regime} " if agrees else ""
    return (f"  {regime}at {level.level}{position}: in the "
            f"{level.zone} zone ({span}), {advice}.")


def _term_order(term) -> float:
    seconds = value_of(term.seconds)
    return -seconds if seconds is not None else 0.0


def answer_lines(answers) -> list[str]:
    lines = []
    for answer in answers:
        lines.append(answer_sentence(answer) + ".")
        result = answer.verdict
        level = binding_level(result)
        underfilled = result.grid is not None and result.grid.fill is not None \
            and result.grid.fill.binds  # the sentence gave the lever: fill the grid
        if level is not None and level.zone is not None and result.runs \
                and not underfilled:
            lines.append(_advice_line(level, result))
        times = times_line(result)
        if times is not None:
            lines.append(times)
        steps = ledger_line(result)
        if steps is not None:
            lines.append(steps)
        if result.runs and len(result.terms) > 1:
            lines.append("  time terms: " + ", ".join(
                f"{roof_name(term.roof)} {si(value_of(term.seconds), 's')}"
                for term in sorted(result.terms, key=_term_order)) + ".")
        unknown_bandwidth = unknown_bandwidth_line(result)
        if unknown_bandwidth is not None:
            lines.append(unknown_bandwidth)
        mapped = mapping_line(answer.mapping)
        if mapped is not None:
            lines.append(mapped)
        rate = rate_line(answer)
        if rate is not None:
            lines.append(rate)
        if answer.exp_on_fma is not None:
            lines.append(f"  exponentials: {exp_on_fma_text(answer.exp_on_fma)}.")
        if result.warm_l2 is not None:
            lines.append(f"  warm L2: {warm_l2_text(result.warm_l2)}.")
        lines += transfer_lines(result)
        for derate in result.derates:
            lines.append(f"  what lowers the roof here: {derate.cause}, x{float(derate.factor):.4f}"
                         f" ({derate_text(derate)}).")
        unknown = result.grid.latency_unknown if result.grid is not None else ()
        if unknown and result.runs:
            lines.append(f"  latency unknown at {', '.join(unknown)}: the machine file cites no "
                         "load latency there, so Little's law is not checked (no latency "
                         "derate).")
        for fit in result.fits:
            if fit.fits is False:
                lines.append(f"  keep scope {fit.scope_index} ({', '.join(fit.tensors)}) holds "
                             f"{binary(value_of(fit.held_B))}, more than the "
                             f"{binary(value_of(fit.capacity_B))} of {fit.level} per "
                             f"{fit.capacity_per}.")
        if result.working_set_fits_l2:
            lines.append(f"  the working set ({binary(value_of(result.working_set_B))}) fits in "
                         f"L2 ({binary(value_of(result.l2_capacity_B))}): the L2 slope may "
                         "bind rather than global memory's.")
        if answer.efficiency is not None:
            above = (" — above the roof: check the measurement, the sizes or the spec"
                     if answer.efficiency.fraction > 1 else "")
            lines.append(f"  measured: {efficiency_text(answer.efficiency)} "
                         f"({answer.efficiency.regime}, so measured in "
                         f"{answer.efficiency.metric}){above}.")
    return lines
