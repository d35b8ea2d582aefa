"""Stage 5: results -> text. JSON (the stable schema), rich tables for the terminal.
No arithmetic happens here beyond formatting."""

from __future__ import annotations

import math
import sympy

from .analysis import Analysis, Intensity, Quantity
from .jsonout import number
from .report_check import check_tables, verification_error  # noqa: F401 (the CLI's names)
from .report_check import verification_json, verification_markdown, verification_note
from .report_grid import grid_clause, grid_json, misfit_sentence
from .units import plain, si

WORK_UNIT, TRAFFIC_UNIT, INTENSITY_UNIT = "FLOP", "B", "FLOP/B"


def expression(expr: sympy.Expr | None) -> str | None:
    """Expressions travel as sympy strings (parseable by sympy, deterministic)."""
    return None if expr is None else sympy.sstr(expr, order="lex")


def _quantity_json(quantity: Quantity, values=None) -> dict:
    value = quantity.value
    if value is not None and not math.isfinite(value) and values is not None:
        value = number(quantity.expr.subs(values))  # exact text where a double overflows
    return {"expr": expression(quantity.expr), "value": value,
            "leading": expression(quantity.leading)}


def analysis_json(analysis: Analysis) -> dict:
    """The `analyze --json` object (schema in README.md)."""
    cost = analysis.cost
    values = analysis.values
    parameters = {name: value if value is None or math.isfinite(value) else
                  number(values[analysis.spec.parameters[name]])
                  for name, value in analysis.parameters.items()}
    return {
        "kernel": analysis.kernel,
        "spec": analysis.spec.path,
        "reuse": analysis.reuse,
        "parameters": parameters,
        "settings": {str(s): expression(e) for s, e in analysis.settings.items()},
        "precision": cost.precision,
        "exact": cost.exact,
        "closed_form": cost.closed_form,
        "warnings": list(analysis.warnings),
        "verified": verification_json(analysis.verified),
        "work": {
            **_quantity_json(analysis.work, values),
            "by_class": {cls: _quantity_json(q, values)
                         for cls, q in analysis.work_by_class.items()},
        },
        "traffic": {level: _quantity_json(q, values) for level, q in analysis.traffic.items()},
        "intensity": {
            level: {**_quantity_json(i, values), "limit": expression(i.limit),
                    "limits": {p: expression(v) for p, v in i.limits.items()}}
            for level, i in analysis.intensity.items()
        },
        "footprints": {
            name: {"read_elements": expression(f.read_elements),
                   "write_elements": expression(f.write_elements), "exact": f.exact}
            for name, f in cost.footprints.items()
        },
        "scopes": [
            {"index": s.index, "level": s.level, "tensors": list(s.tensors),
             "entries": expression(s.entries), "held_bytes": expression(s.held_bytes),
             "exact": s.exact}
            for s in cost.scopes
        ],
    }


# --- rich --------------------------------------------------------------------------------


def _formula(expr: sympy.Expr | None) -> str:
    return "-" if expr is None else sympy.sstr(expr, order="lex")


def analysis_tables(analysis: Analysis):
    """Rich renderables for the terminal report."""
    from rich.table import Table
    from rich.text import Text

    header = Text()
    header.append(f"{analysis.kernel}", style="bold")
    header.append(f"  ({analysis.spec.path})  reuse: {analysis.reuse}\n")
    sizes = ", ".join(f"{name} = {_size_text(analysis, name, value)}"
                      for name, value in analysis.parameters.items())
    header.append(f"sizes: {sizes}")
    if not analysis.cost.exact:
        header.append("\nsome footprints are bounding boxes: traffic is an upper bound",
                      style="yellow")
    for warning in analysis.warnings:
        header.append(f"\nwarning: {warning}; the closed forms assume it", style="yellow")
    if analysis.verified is not None:
        header.append(f"\n{verification_note(analysis.verified)}",
                      style="green" if analysis.verified.skipped is None else "yellow")

    table = Table(title="Work, traffic, intensity", title_justify="left", expand=False)
    table.add_column("quantity")
    table.add_column("closed form", overflow="fold")
    table.add_column("as sizes grow", overflow="fold")
    table.add_column("value", justify="right")
    table.add_row("W (work)", _formula(analysis.work.expr), _formula(analysis.work.leading),
                  si(analysis.work.value, WORK_UNIT))
    if len(analysis.work_by_class) > 1:
        for cls, quantity in analysis.work_by_class.items():
            table.add_row(f"  W {cls}", _formula(quantity.expr), _formula(quantity.leading),
                          si(quantity.value, WORK_UNIT))
    for level, quantity in analysis.traffic.items():
        table.add_row(f"Q {level}", _formula(quantity.expr), _formula(quantity.leading),
                      si(quantity.value, TRAFFIC_UNIT))
    for level, intensity in analysis.intensity.items():
        table.add_row(f"I {level}", _formula(intensity.expr), f"→ {_formula(intensity.limit)}",
                      plain(intensity.value, INTENSITY_UNIT))
    return [header, table]


def _size_text(analysis: Analysis, name: str, value) -> str:
    symbol = analysis.spec.parameters[name]
    if symbol in analysis.settings and analysis.settings[symbol].free_symbols:
        return _formula(analysis.settings[symbol])
    if value is None:
        return "symbolic"
    return f"{value:g}"


# --- sweeps (issue 5) --------------------------------------------------------------------

def _sweep_columns(result) -> list[tuple[str, str, object]]:
    """(header, unit, values per size) for each column of a sweep table."""
    columns = [(result.parameter, "", result.sizes), ("W", WORK_UNIT, result.work)]
    columns += [(f"Q {level}", TRAFFIC_UNIT, values) for level, values in result.traffic.items()]
    columns += [(f"I {level}", INTENSITY_UNIT, values)
                for level, values in result.intensity.items()]
    if result.t_min is not None:
        columns += [("t_min", "s", result.t_min), ("bound", "", result.binding),
                    ("of peak", "", result.peak_fraction)]
    return columns


def sweep_table(result):
    """A rich Table: one row per size; the unit in each header, an SI prefix in each cell."""
    from rich.table import Table

    from .units import percent

    where = f" on {result.machine} {result.precision}" if result.machine else ""
    table = Table(title=f"{result.kernel}: sweep over {result.parameter}{where}",
                  title_justify="left")
    columns = _sweep_columns(result)
    for header, unit, _ in columns:
        # a word a line keeps the columns as narrow as their numbers
        lines = header.split(" ") + ([unit] if unit and unit != "s" else [])
        table.add_column("\n".join(lines),
                         justify="left" if header == "bound" else "right", no_wrap=True)
    for row in range(len(result.sizes)):
        table.add_row(*[_sweep_cell(header, unit, values[row], result.parameter, percent)
                        for header, unit, values in columns])
    return table


def _sweep_cell(header: str, unit: str, value, parameter: str, percent) -> str:
    if header == parameter:
        return f"{int(value)}" if value < 1e9 and float(value).is_integer() else (
            f"{value:.4g}".replace("e+", "e"))
    if header == "bound":
        return value.removesuffix(" bandwidth").removesuffix(" peak")
    if header == "of peak":
        return percent(float(value)).replace(" ", "")
    if unit == INTENSITY_UNIT:
        return plain(float(value), "").strip()
    if unit == "s":
        return si(float(value), unit)
    return si(float(value), "").replace(" ", "")


def sweep_csv(result, header: bool = True) -> str:
    """CSV in SI base units, the unit in each header: N,W_FLOP,Q_global_B,... Built a column
    at a time (repr of each float, as csv would write it): a row loop costs minutes at 10^8
    sizes. header=False gives the rows alone, for the chunks after the first."""
    columns = _sweep_columns(result)
    lines = []
    if header:
        lines.append(",".join(name.replace(" ", "_") + (
            f"_{unit.replace('/', 'per')}" if unit else "") for name, unit, _ in columns))
    texts = [list(values) if isinstance(values, list) else
             list(map(repr, numpy_floats(values))) for _, _, values in columns]
    lines.extend(map(",".join, zip(*texts)))
    return "\n".join(lines) + "\n" if lines else ""


def numpy_floats(values) -> list[float]:
    return values.tolist() if hasattr(values, "tolist") else [float(v) for v in values]


# --- verdicts and answers ------------------------------------------------------------------

MACHINE_NAMES = {"a100": "A100", "h100": "H100", "h200": "H200", "b200": "B200",
                 "mi300x": "MI300X", "mi250x": "MI250X", "l40s": "L40S", "rtx4090": "RTX 4090"}


def _number(expr) -> float | None:
    expr = sympy.sympify(expr)
    if not expr.is_number:
        return None
    return float(expr) if expr.is_finite is not False else float("inf")


def machine_label(machine_id: str, precision: str) -> str:
    return f"{MACHINE_NAMES.get(machine_id, machine_id)} {precision.upper()}"


def _size_value(value: float) -> str:
    return f"{value:.1f}" if abs(value - round(value)) > 1e-9 else f"{value:.0f}"


def binding_level(result):
    """The level the sentence and the advice speak of: the one whose bandwidth binds, or,
    when a compute roof binds, the level closest to its ridge (the smallest ratio)."""
    binding = result.binding_term()
    if binding is not None and binding.kind == "traffic":
        for level in result.levels:
            if level.level == binding.key:
                return level
    ratios = [(level, _number(level.ratio)) for level in result.levels]
    known = [(level, ratio) for level, ratio in ratios if ratio is not None]
    if known:
        return min(known, key=lambda pair: pair[1])[0]
    return result.levels[0] if result.levels else None


def answer_sentence(answer) -> str:
    """The verdict in one sentence, as the chapter would say it."""
    result = answer.verdict
    label = machine_label(result.machine, result.precision)
    if result.misfits:
        return misfit_sentence(result, label)
    if answer.crossings:
        return _crossing_sentence(answer, label)
    if result.regime is not None:
        level = binding_level(result)
        ratio = _number(level.ratio) if level else None
        parts = [f"{result.regime} on {label}"]
        if ratio is not None:
            ridge = _number(level.ridge)
            parts.append(f": I_{level.level} = {plain(_number(level.intensity), INTENSITY_UNIT)}"
                         f" is {ratio:.3g}× the {level.level} ridge "
                         f"({plain(ridge, INTENSITY_UNIT)})")
        parts.append(f"; t_min = {si(_number(result.t_min), 's')}, bound by {result.bound}")
        if result.grid is not None:
            parts.append(grid_clause(result))
        return "".join(parts)
    return (f"symbolic on {label}: set the sizes (--set), or leave one free to find where "
            "it crosses the ridge")


def _crossing_sentence(answer, label: str) -> str:
    """One clause per level, then the size from which every roof is compute-bound."""
    parameter = str(answer.free_parameter)
    clauses, last, never_compute = [], 0.0, False
    for crossing in answer.crossings:
        clause, start = _level_clause(crossing, parameter)
        clauses.append(clause)
        if start is None:
            never_compute = True
        else:
            last = max(last, start)
    if len(clauses) == 1:
        return f"{clauses[0][:1].upper()}{clauses[0][1:]} on {label}"
    if never_compute:
        verdict = f"memory-bound on {label} at every {parameter}"
    elif last > 0:
        verdict = f"compute-bound on {label} from {parameter} = {_size_value(last)}"
    else:
        verdict = f"compute-bound on {label} at every {parameter}"
    return verdict + " (" + "; ".join(clauses) + ")"


def _level_clause(crossing, parameter: str) -> tuple[str, float | None]:
    """What one level does as the size grows, and the size from which it is compute-bound
    (0: always; None: never)."""
    ridge = plain(_number(crossing.ridge), INTENSITY_UNIT)
    level = crossing.level
    if crossing.value is None:
        limit = _number(crossing.limit)
        if limit is not None and limit < _number(crossing.ridge):
            return (f"{level}: memory-bound at every {parameter}, I → "
                    f"{plain(limit, INTENSITY_UNIT)} stays under the ridge ({ridge})"), None
        return f"{level}: compute-bound at every {parameter} (ridge {ridge})", 0.0
    value = _number(crossing.value)
    if crossing.compute_bound_side == "above":
        return (f"{level}: memory-bound below {parameter} = {_size_value(value)}, "
                f"compute-bound above (ridge {ridge})"), value
    return (f"{level}: compute-bound below {parameter} = {_size_value(value)}, memory-bound "
            f"above (ridge {ridge})"), None


def answers_json(answers) -> dict:
    """The `verdicts` rows (one per machine x precision x level) and one sentence each."""
    return {
        "verdicts": [{**row, **grid_json(answer.verdict)} for answer in answers
                     for row in answer.verdict.as_json()],
        "answers": [{
            "machine": a.verdict.machine, "precision": a.verdict.precision,
            "sentence": answer_sentence(a),
            "t_min": json_number(a.verdict.t_bound),
            "terms": [{"name": t.name, "kind": t.kind, "key": t.key,
                       "seconds": json_number(t.seconds)} for t in a.verdict.terms],
            "t_model": json_number(a.verdict.t_model),
            "t_min_with_launch": json_number(a.verdict.t_min_with_launch),
            "bound": a.verdict.bound, "regime": a.verdict.regime,
            "crossings": [c.as_json() for c in a.crossings],
            "fits": [{"scope": f.scope_index, "level": f.level, "held_B": json_number(f.held_B),
                      "capacity_B": json_number(f.capacity_B), "per": f.capacity_per,
                      "fits": f.fits} for f in a.verdict.fits],
            "efficiency": None if a.efficiency is None else {
                "regime": a.efficiency.regime, "metric": a.efficiency.metric,
                "achieved": a.efficiency.achieved, "roof": a.efficiency.roof,
                "fraction": a.efficiency.fraction, "text": a.efficiency.describe()},
        } for a in answers],
    }


def json_number(expr):
    if expr is None:
        return None
    value = _number(expr)
    if value is not None and not math.isfinite(value):
        return number(expr)  # exact text where a double overflows
    return value if value is not None else expression(sympy.sympify(expr))


def verdict_table(answers):
    """One row per machine x precision x level; the zone and advice follow as sentences."""
    from rich.table import Table

    table = Table(title="Roofline verdicts", title_justify="left")
    for column, justify in (("machine", "left"), ("level", "left"), ("I", "right"),
                            ("ridge", "right"), ("I/ridge", "right"), ("attainable", "right"),
                            ("t_min", "right"), ("bound", "left")):
        table.add_column(column, justify=justify)
    for answer in answers:
        result = answer.verdict
        for position, level in enumerate(result.levels):
            ratio = _number(level.ratio)
            first = position == 0
            table.add_row(
                machine_label(result.machine, result.precision) if first else "",
                level.level,
                _value_or_formula(level.intensity, INTENSITY_UNIT),
                plain(_number(level.ridge), INTENSITY_UNIT),
                "-" if ratio is None else f"{ratio:.3g}",
                _value_or_formula(level.performance, "FLOP/s", prefixed=True),
                _time_cell(result) if first else "",
                (result.bound or "-") if first else "")
    return table


def _time_cell(result) -> str:
    return "does not fit" if result.misfits else si(_number(result.t_bound), "s")


def _value_or_formula(expr, unit: str, prefixed: bool = False) -> str:
    """The value with its unit, a short formula while symbolic, else `symbolic`."""
    value = _number(expr)
    if value is None:
        text = _formula(sympy.sympify(expr))
        return text if len(text) <= 16 else "symbolic"
    return (si(value, unit) if prefixed else plain(value, unit)).strip()


def _term_order(term) -> float:
    seconds = _number(term.seconds)
    return -seconds if seconds is not None else 0.0


def answer_lines(answers) -> list[str]:
    lines = []
    for answer in answers:
        lines.append(answer_sentence(answer) + ".")
        result = answer.verdict
        level = binding_level(result)
        zone = level.zone if level is not None else None
        if zone is not None and not result.misfits:
            lines.append(f"  {zone.name} at {level.level}: {zone.advice}.")
        if not result.misfits and len(result.terms) > 1:
            lines.append("  time terms: " + ", ".join(
                f"{term.name} {si(_number(term.seconds), 's')}"
                for term in sorted(result.terms, key=_term_order)) + ".")
        for fit in result.fits:
            if fit.fits is False:
                lines.append(f"  keep scope {fit.scope_index} ({', '.join(fit.tensors)}) holds "
                             f"{si(_number(fit.held_B), 'B')}, more than the "
                             f"{si(_number(fit.capacity_B), 'B')} of {fit.level} per "
                             f"{fit.capacity_per}.")
        if result.working_set_fits_l2:
            lines.append(f"  the working set ({si(_number(result.working_set_B), 'B')}) fits in "
                         f"L2 ({si(_number(result.l2_capacity_B), 'B')}): the L2 slope may "
                         "bind rather than HBM's.")
        if answer.efficiency is not None:
            above = (" — above the roof: check the measurement, the sizes or the spec"
                     if answer.efficiency.fraction > 1 else "")
            lines.append(f"  measured: {answer.efficiency.describe()} "
                         f"({answer.efficiency.regime}, so measured in "
                         f"{answer.efficiency.metric}){above}.")
    return lines


# --- markdown and LaTeX: the same content --------------------------------------------------


def analysis_markdown(analysis: Analysis, answers=()) -> str:
    lines = [f"# {analysis.kernel}", "", f"Spec `{analysis.spec.path}`, reuse {analysis.reuse}.",
             *verification_markdown(analysis.verified),
             "", "| quantity | closed form | as sizes grow | value |", "|---|---|---|---|"]
    for name, quantity, unit in _rows(analysis):
        lines.append(f"| {name} | `{_formula(quantity.expr)}` | `{_formula(_grown(quantity))}` "
                     f"| {_value_text(quantity, unit)} |")
    if answers:
        lines += ["", "| machine | level | I (FLOP/B) | ridge (FLOP/B) | I / ridge | t_min |",
                  "|---|---|---|---|---|---|"]
        for answer in answers:
            for level in answer.verdict.levels:
                lines.append(
                    f"| {machine_label(answer.verdict.machine, answer.verdict.precision)} "
                    f"| {level.level} | {_value_or_formula(level.intensity, '')} "
                    f"| {plain(_number(level.ridge), '').strip()} "
                    f"| {_value_or_formula(level.ratio, '')} "
                    f"| {si(_number(answer.verdict.t_min), 's')} |")
        lines += [""] + [f"- {line.strip()}" for line in answer_lines(answers)]
    return "\n".join(lines) + "\n"


def analysis_latex(analysis: Analysis, answers=()) -> str:
    lines = [r"\begin{tabular}{llll}", r"\hline",
             r"quantity & closed form & as sizes grow & value \\", r"\hline"]
    for name, quantity, unit in _rows(analysis):
        grown = _grown(quantity)
        lines.append(f"{_latex_text(name)} & ${sympy.latex(quantity.expr)}$ & "
                     f"${sympy.latex(grown) if grown is not None else '-'}$ & "
                     f"{_latex_text(_value_text(quantity, unit))} \\\\")
    lines += [r"\hline", r"\end{tabular}"]
    if answers:
        lines += ["", r"\begin{itemize}"]
        lines += [rf"\item {_latex_text(line.strip())}" for line in answer_lines(answers)]
        lines.append(r"\end{itemize}")
    return "\n".join(lines) + "\n"


def _rows(analysis: Analysis):
    yield "W", analysis.work, WORK_UNIT
    for level, quantity in analysis.traffic.items():
        yield f"Q {level}", quantity, TRAFFIC_UNIT
    for level, intensity in analysis.intensity.items():
        yield f"I {level}", intensity, INTENSITY_UNIT


def _grown(quantity):
    """What a row shows as the sizes grow: an intensity's limit, another quantity's leading
    term."""
    return quantity.limit if isinstance(quantity, Intensity) else quantity.leading


def _value_text(quantity, unit: str) -> str:
    if unit == INTENSITY_UNIT:
        return plain(quantity.value, unit)
    return si(quantity.value, unit)


def _latex_text(text: str) -> str:
    for char, escaped in (("\\", r"\textbackslash{}"), ("%", r"\%"), ("_", r"\_"),
                          ("&", r"\&"), ("#", r"\#"), ("µ", r"$\mu$"), ("→", r"$\to$"),
                          ("×", r"$\times$"), ("∞", r"$\infty$")):
        text = text.replace(char, escaped)
    return text


# --- solve ----------------------------------------------------------------------------------


def _crossing_text(crossing) -> str:
    if crossing.value is None:
        limit = _number(crossing.limit)
        ridge = _number(crossing.ridge)
        limit_text = plain(limit, INTENSITY_UNIT) if limit is not None else _formula(
            crossing.limit)
        side = "under" if limit is not None and ridge is not None and limit < ridge else "over"
        return f"never: I → {limit_text} stays {side} the ridge"
    value = _number(crossing.value)
    shown = _size_value(value) if value is not None else _formula(crossing.value)
    return f"{crossing.parameter} = {shown}, compute-bound {crossing.compute_bound_side}"


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
                           plain(_number(crossing.ridge), INTENSITY_UNIT),
                           _crossing_text(crossing), _formula(crossing.expr),
                           "-" if crossing.expr is None else str(crossing.condition))
        for crossing in solution.capacity:
            capacity.add_row(MACHINE_NAMES.get(crossing.machine, crossing.machine),
                             crossing.what, crossing.level,
                             f"{si(_number(crossing.capacity_B), 'B')} per "
                             f"{crossing.capacity_per}", _capacity_text(crossing),
                             _formula(crossing.expr))
    return [ridges, capacity] if any(s.capacity for s in solutions) else [ridges]


def _capacity_text(crossing) -> str:
    if crossing.value is None:
        if crossing.fits_everywhere is True:
            return "fits at every size"
        if crossing.fits_everywhere is False:
            return "never fits"
        return f"unsolved: {crossing.condition}"
    value = _number(crossing.value)
    shown = _size_value(value) if value is not None else _formula(crossing.value)
    return f"{crossing.parameter} = {shown}, exceeds {crossing.exceeds_side}"


def solve_json(analysis: Analysis, parameter: str, solutions) -> dict:
    return {
        "kernel": analysis.kernel,
        "parameter": parameter,
        "settings": {str(s): expression(e) for s, e in analysis.settings.items()},
        "crossings": [c.as_json() for s in solutions for c in s.crossings],
        "capacity": [c.as_json() for s in solutions for c in s.capacity],
    }


# --- machines -------------------------------------------------------------------------------


def machine_json(machine) -> dict:
    """The machine in the layout of its TOML file (tables, keys and sources as written there),
    so that a user's machine file can start from it; absent figures are left out."""

    def present(table: dict) -> dict:
        return {key: value for key, value in table.items() if value is not None}

    document = {"id": machine.id, "name": machine.name, "vendor": machine.vendor,
                "device": {"sm_count": machine.sm_count, "source": machine.sm_count_source}}
    if machine.launch_overhead_s is not None:
        document["launch"] = present({"launch_overhead_s": machine.launch_overhead_s,
                                      "mode": machine.launch_mode,
                                      "source": machine.launch_source})
    if machine.sfu_OPps is not None:
        document["sfu"] = {"peak_OPps": machine.sfu_OPps, "source": machine.sfu_source}
    document["compute"] = [
        {"precision": p.precision, "unit": p.unit, "sparse": p.sparse,
         "peak_FLOPps": p.peak_FLOPps, "source": p.source} for p in machine.compute]
    document["memory"] = [present({
        "level": m.level, "technology": m.technology, "bandwidth_Bps": m.bandwidth_Bps,
        "bandwidth_source": m.bandwidth_source, "capacity_B": m.capacity_B,
        "capacity_per": m.capacity_per, "capacity_source": m.capacity_source})
        for m in machine.memory]
    figures = machine.execution.figures()
    if figures:
        from .hardware import execution_source_key

        document["execution"] = {name: item for key, value, source in figures
                                 for name, item in ((key, value),
                                                    (execution_source_key(key), source))}
    if machine.latencies:
        document["latency"] = [
            {"level": lat.level, "cycles": lat.cycles, "clock_Hz": lat.clock_Hz,
             "measured_on": lat.measured_on, "source": lat.source} for lat in machine.latencies]
    return document


def machines_table(machines):
    from rich.table import Table

    table = Table(title="Machines", title_justify="left")
    for column in ("id", "name", "SMs", "HBM", "L2", "fp32", "bf16 tensor", "ridge bf16"):
        table.add_column(column)
    for machine in machines:
        hbm = machine.bandwidth("global")
        bf16 = machine.dense_peak("bf16", "tensor")
        table.add_row(machine.id, machine.name, str(machine.sm_count), si(hbm, "B/s"),
                      si(machine.capacity("l2"), "B"), si(machine.peak("fp32", "vector"),
                                                          "FLOP/s"),
                      si(bf16.peak_FLOPps if bf16 else None, "FLOP/s"),
                      plain(bf16.peak_FLOPps / hbm if bf16 and hbm else None, INTENSITY_UNIT))
    return table


def machine_table(machine):
    from rich.table import Table

    table = Table(title=f"{machine.name} ({machine.id}, {machine.sm_count} SMs)",
                  title_justify="left")
    for column in ("what", "figure", "source"):
        table.add_column(column, overflow="fold")
    for peak in machine.compute:
        kind = f"{peak.precision} {peak.unit}" + (" (sparse)" if peak.sparse else "")
        table.add_row(kind, si(peak.peak_FLOPps, "FLOP/s"), peak.source)
    if machine.sfu_OPps:
        table.add_row("sfu", si(machine.sfu_OPps, "OP/s"), machine.sfu_source or "")
    for memory in machine.memory:
        if memory.bandwidth_Bps is not None:
            table.add_row(f"{memory.level} bandwidth", si(memory.bandwidth_Bps, "B/s"),
                          memory.bandwidth_source or "")
        if memory.capacity_B is not None:
            table.add_row(f"{memory.level} capacity",
                          f"{si(memory.capacity_B, 'B')} per {memory.capacity_per}",
                          memory.capacity_source or "")
    if machine.launch_overhead_s is not None:
        table.add_row(f"launch overhead ({machine.launch_mode})",
                      si(machine.launch_overhead_s, "s"), machine.launch_source or "")
    for key, value, source in machine.execution.figures():
        shown = f"{value} B" if key.endswith("_B") else f"{value:g}"
        table.add_row(key.removesuffix("_B").replace("_", " "), shown, source)
    for latency in machine.latencies:
        table.add_row(f"{latency.level} latency", f"{latency.cycles:g} cycles",
                      f"{latency.seconds * 1e9:.3g} ns at {latency.clock_Hz / 1e9:g} GHz on "
                      f"{latency.measured_on}: {latency.source}")
    return table
