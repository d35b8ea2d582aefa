"""The machine database as tables and JSON (the layout of the TOML file)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..units import plain, si
from .common import INTENSITY_UNIT

if TYPE_CHECKING:
    pass


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
        from ..hardware import execution_source_key

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
