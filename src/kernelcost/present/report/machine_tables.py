"""The machine database as tables and JSON (the layout of the TOML file)."""

from __future__ import annotations

from ...base.kinds import Inputs, Precision, Unit, WorkClass
from ...base.levels import Level
from ...base.units import binary, si
from .cells import PER_WORDS
from .page import Column, fitted_table

# --- machines -------------------------------------------------------------------------------


def machine_json(machine) -> dict:
    """The machine in the layout of its TOML file (tables, keys and sources as written there),
    so that a user's machine file can start from it; absent figures are left out."""

    from ...hardware.machine import UNKNOWN_BANDWIDTH

    def present(table: dict) -> dict:
        return {key: value for key, value in table.items() if value is not None}

    document = {"id": machine.id, "name": machine.name, "vendor": machine.vendor,
                "device": present({"sm_count": machine.sm_count,
                                   "source": machine.sm_count_source,
                                   "max_clock_Hz": machine.max_clock_Hz,
                                   "max_clock_source": machine.max_clock_source,
                                   "architecture": None if machine.architecture is None
                                   else str(machine.architecture),
                                   "architecture_source": machine.architecture_source})}
    if machine.launch_overhead_s is not None:
        document["launch"] = present({"launch_overhead_s": machine.launch_overhead_s,
                                      "mode": machine.launch_mode,
                                      "source": machine.launch_source,
                                      "cold_start_s": machine.cold_start_s,
                                      "cold_start_source": machine.cold_start_source})
    if machine.sfu_OPps is not None:
        document["sfu"] = present({"peak_OPps": machine.sfu_OPps, "source": machine.sfu_source,
                                   "OP_per_clock_per_sm": machine.sfu_per_clock,
                                   "per_clock_source": machine.sfu_per_clock_source})
    document["compute"] = [present(
        {"precision": p.precision, "unit": p.unit, "sparse": p.sparse,
         "peak_FLOPps": p.peak_FLOPps, "source": p.source, "FLOP_per_clock_per_sm": p.per_clock,
         "per_clock_source": p.per_clock_source}) for p in machine.compute]
    document["memory"] = [present({
        "level": m.level, "technology": m.technology,
        "bandwidth_Bps": UNKNOWN_BANDWIDTH if m.bandwidth_unknown else m.bandwidth_Bps,
        "bandwidth_source": m.bandwidth_source, "capacity_B": m.capacity_B,
        "capacity_per": m.capacity_per, "capacity_source": m.capacity_source,
        "B_per_clock_per_sm": m.per_clock, "per_clock_source": m.per_clock_source})
        for m in machine.memory]
    if machine.features.stated:
        document["features"] = {name: item for key, present, source in machine.features.stated
                                for name, item in ((key, present), (f"{key}_source", source))}
    figures = machine.execution.figures()
    if figures:
        from ...hardware.resources import execution_source_key

        document["execution"] = {name: item for key, value, source in figures
                                 for name, item in ((key, value),
                                                    (execution_source_key(key), source))}
    if machine.latencies:
        document["latency"] = [
            {"level": lat.level, "cycles": lat.cycles, "clock_Hz": lat.clock_Hz,
             "measured_on": lat.measured_on, "source": lat.source} for lat in machine.latencies]
    if machine.achievable:
        document["achievable"] = [present(
            {"roof": a.roof, "path": None if a.path is None else str(a.path),
             "inputs": None if a.inputs == Inputs.RANDOM else str(a.inputs),
             "fraction": a.fraction, "source": a.source})
            for a in machine.achievable]
    return document


MACHINES_COLUMNS = [
    Column("id"), Column("name", optional=True), Column("SMs", "right"),
    Column("max clock\nGHz", "right"),
    Column("HBM\nTB/s", "right"), Column("L2\nMiB", "right"), Column("fp32\nTFLOP/s", "right"),
    Column("bf16 tensor\nTFLOP/s", "right"), Column("ridge bf16\nFLOP/B", "right")]


def machines_table(machines, width: int | None = None):
    """The database, one machine a row, each column in the unit of its header (capacities
    binary, rates decimal): a fitted table (report.page)."""
    rows = []
    for machine in machines:
        hbm = machine.bandwidth(Level.GLOBAL)
        bf16 = machine.dense_peak(Precision.BF16, Unit.TENSOR)
        rows.append([machine.id, machine.name, str(machine.sm_count),
                     _scaled(machine.max_clock_Hz, 1e9), _scaled(hbm, 1e12),
                     _scaled(machine.capacity(Level.L2), 2**20),
                     _scaled(machine.peak(Precision.FP32, WorkClass.VECTOR), 1e12),
                     _scaled(bf16.peak_FLOPps if bf16 else None, 1e12),
                     _scaled(bf16.peak_FLOPps / hbm if bf16 and hbm else None, 1)])
    return fitted_table("Machines", MACHINES_COLUMNS, rows, width)


def _scaled(value: float | None, scale: float) -> str:
    return "-" if value is None else f"{value / scale:.4g}"


def machine_table(machine, width: int | None = None):
    """Every figure of one machine with its unit, and a reference to its source; the
    sources follow as numbered notes (one note for the figures that share it). Returns the
    fitted table and the notes."""
    sources: dict[str, int] = {}

    def cite(source: str | None) -> str:
        if not source:
            return "-"
        return f"[{sources.setdefault(source, len(sources) + 1)}]"

    rows = [[what, figure, cite(source)] for what, figure, source in _figures(machine)]
    title = f"{machine.name} ({machine.id}, {machine.sm_count} SMs)"
    notes = [f"[{number}]  {source}" for source, number in sources.items()]
    return fitted_table(title, MACHINE_COLUMNS, rows, width), notes


MACHINE_COLUMNS = [Column("what"), Column("figure", "right"), Column("source")]


def _figures(machine):
    """(what, figure with its unit, source) of every figure of the machine file, and beside
    each figure a per-clock rate gives, the same at the maximum clock (module clocks)."""
    fast = machine.at_max_clock
    if machine.max_clock_Hz is not None:
        yield "max clock", si(machine.max_clock_Hz, "Hz"), machine.max_clock_source
    for peak, at_max in zip(machine.compute, fast.compute, strict=True):
        kind = f"{peak.precision} {peak.unit}" + (" (sparse)" if peak.sparse else "")
        yield kind, si(peak.peak_FLOPps, "FLOP/s"), peak.source
        if peak.max_clock_FLOPps is not None:
            yield f"{kind} at max clock", si(at_max.peak_FLOPps, "FLOP/s"), at_max.source
    if machine.sfu_OPps:
        yield "sfu", si(machine.sfu_OPps, "OP/s"), machine.sfu_source
        if machine.sfu_max_clock_OPps is not None:
            yield "sfu at max clock", si(fast.sfu_OPps, "OP/s"), fast.sfu_source
    for memory, at_max in zip(machine.memory, fast.memory, strict=True):
        if memory.bandwidth_unknown:
            yield f"{memory.level} bandwidth", "unknown", memory.bandwidth_source
        if memory.bandwidth_Bps is not None:
            yield f"{memory.level} bandwidth", si(memory.bandwidth_Bps, "B/s"), \
                memory.bandwidth_source
        if memory.max_clock_Bps is not None:
            yield (f"{memory.level} bandwidth at max clock", si(at_max.bandwidth_Bps, "B/s"),
                   at_max.bandwidth_source)
        if memory.capacity_B is not None:
            per = PER_WORDS.get(memory.capacity_per, memory.capacity_per)
            yield (f"{memory.level} capacity", f"{binary(memory.capacity_B)} per {per}",
                   memory.capacity_source)
    if machine.launch_overhead_s is not None:
        yield (f"launch overhead ({machine.launch_mode})", si(machine.launch_overhead_s, "s"),
               machine.launch_source)
    for key, value, source in machine.execution.figures():
        shown = binary(value) if key.endswith("_B") else f"{value:g}"
        yield key.removesuffix("_B").replace("_", " "), shown, source
    if machine.architecture is not None:
        yield "architecture", str(machine.architecture), machine.architecture_source
    for key, present, source in machine.features.stated:
        yield key.replace("_", " "), "yes" if present else "no", source
    for latency in machine.latencies:
        measured = (f"{latency.seconds * 1e9:.3g} ns at {latency.clock_Hz / 1e9:g} GHz on "
                    f"{latency.measured_on}: {latency.source}")
        yield f"{latency.level} latency", f"{latency.cycles:g} cycles", measured


# --- the chapter's claim against the database ----------------------------------------------


def generation_lines(found) -> list[str]:
    """hardware.generations' ridges, one sentence a vendor: the chapter says the ridge rises
    with every generation; where the database has one under the generation before, the
    sentence names both."""
    lines = []
    for vendor in found:
        steps = "; ".join("/".join(sorted({r.architecture for r in ridges})) + " "
                          + ", ".join(f"{r.machine} {r.flop_per_byte:.4g}" for r in ridges)
                          for ridges in vendor.generations)
        if vendor.falls:
            verdict = "not rising with every generation, as the chapter has it (§1.2): " + \
                "; ".join(f"{f.later.machine} {f.later.flop_per_byte:.4g} under "
                          f"{f.earlier.machine} {f.earlier.flop_per_byte:.4g}"
                          for f in vendor.falls)
        else:
            verdict = "rising with every generation, as the chapter has it (§1.2)"
        lines.append(f"{vendor.vendor.name} {vendor.precision} tensor ridge by generation "
                     f"(FLOP/B): {steps}: {verdict}.")
    return lines
