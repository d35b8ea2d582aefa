"""Peaks at the maximum clock: the figures of a time that promises a bound.

A data sheet may quote a peak at a clock below the highest the part runs: NVIDIA quotes the
H100 SXM5's tensor peaks at 1.83 GHz, while its SMs run up to 1.98 GHz. A bound taken at the
lower clock can be beaten (by 8 % there). A machine file therefore gives, in [device], the
maximum SM clock (`max_clock_Hz`) and, beside a data-sheet figure, its rate per clock per SM
(`FLOP_per_clock_per_sm`, `OP_per_clock_per_sm`, `B_per_clock_per_sm`), each with its source;
one place, here, derives

    figure at the maximum clock = max(data-sheet figure, per clock per SM x SMs x max clock)

so that a bound never uses less than the vendor's own figure. A derivation more than
`BELOW_DATA_SHEET` under the data-sheet figure is refused: the per-clock figure, the SM count
or the clock is wrong. A figure without a per-clock rate is taken at the maximum clock as it
stands (its source says so). Global memory (HBM, GDDR) does not scale with the SM clock: its
data-sheet bandwidth is the bound's too, and a per-clock rate there is refused.

Who uses which: the ridge points, regimes, zones and crossings, and the chapter's `t_min`,
keep the data-sheet figures (the roofline chapter's worked examples stay exact); `t_bound`
(and `t_floor`) take `Machine.at_max_clock`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import sympy

from ..base.kinds import TermKind
from ..base.levels import Level
from ..count.values import exact

# A derivation this far under the data-sheet figure means a wrong per-clock figure or clock;
# within it, data sheets round (H100 SXM5 fp64: 128 x 132 x 1.98e9 = 33.45e12 against 33.5e12).
BELOW_DATA_SHEET = 0.02


def at_clock(per_clock: float, sm_count: int, clock_Hz: float) -> float:
    """The rate of the whole part: per clock per SM x SMs x clock."""
    return per_clock * sm_count * clock_Hz


def max_clock_figure(data_sheet: float | None, per_clock: float | None, sm_count: int,
                     clock_Hz: float | None) -> float | None:
    """The figure at the maximum clock, or None where the file gives no per-clock rate (the
    data-sheet figure then stands). Raises ValueError with the reason when the derivation is
    refused."""
    if per_clock is None:
        return None
    if clock_Hz is None:
        raise ValueError("a per-clock rate needs the maximum clock, device.max_clock_Hz")
    derived = at_clock(per_clock, sm_count, clock_Hz)
    if data_sheet is None:
        return derived
    if derived < data_sheet * (1 - BELOW_DATA_SHEET):
        raise ValueError(
            f"{per_clock:g} per clock per SM x {sm_count} SMs x {clock_Hz / 1e9:g} GHz = "
            f"{derived:.4g}, under the data-sheet figure {data_sheet:.4g}: the per-clock "
            "figure, the SM count or the clock is wrong")
    return max(derived, data_sheet)


def derive(machine, refuse: Callable[[str, str], Exception]):
    """The machine with its figures at the maximum clock filled in; `refuse(where, message)`
    makes the exception for a refused derivation (`compute[4].FLOP_per_clock_per_sm`)."""
    sms, clock = machine.sm_count, machine.max_clock_Hz

    def figure(data_sheet, per_clock, where):
        try:
            return max_clock_figure(data_sheet, per_clock, sms, clock)
        except ValueError as refused:
            raise refuse(where, str(refused)) from None

    compute = tuple(dataclasses.replace(peak, max_clock_FLOPps=figure(
        peak.peak_FLOPps, peak.per_clock, f"compute[{index}].FLOP_per_clock_per_sm"))
        for index, peak in enumerate(machine.compute))
    memory = []
    for index, level in enumerate(machine.memory):
        where = f"memory[{index}].B_per_clock_per_sm"
        if level.per_clock is not None and level.level == Level.GLOBAL:
            raise refuse(where, "global memory's bandwidth does not scale with the SM clock: "
                               "give its data-sheet figure alone")
        memory.append(dataclasses.replace(level, max_clock_Bps=figure(
            level.bandwidth_Bps, level.per_clock, where)))
    sfu = figure(machine.sfu_OPps, machine.sfu_per_clock, "sfu.OP_per_clock_per_sm")
    return dataclasses.replace(machine, compute=compute, memory=tuple(memory),
                               sfu_max_clock_OPps=sfu)


def derivation(per_clock: float, unit: str, per_clock_source: str | None, machine,
               data_sheet: float | None, data_sheet_source: str | None) -> str:
    """The source of a figure at the maximum clock: the product, and the sources of its
    factors and of the data-sheet figure beside it."""
    clock = machine.max_clock_Hz
    product = at_clock(per_clock, machine.sm_count, clock)
    text = (f"at the maximum clock: {per_clock:g} {unit} per clock per SM "
            f"x {machine.sm_count} SMs x {clock / 1e9:g} GHz = {product:.4g} "
            f"({per_clock_source}; the clock: {machine.max_clock_source})")
    if data_sheet is not None:
        text += f"; the data-sheet figure {data_sheet:.4g} ({data_sheet_source})"
        if data_sheet > product:
            text += ", higher, is kept"
    return text


def max_clock_view(machine):
    """The machine with its figures at the maximum clock in place of the data-sheet ones,
    each with the derivation as its source; figures without a per-clock rate unchanged."""
    compute = tuple(peak if peak.max_clock_FLOPps is None else dataclasses.replace(
        peak, peak_FLOPps=peak.max_clock_FLOPps, source=derivation(
            peak.per_clock, "FLOP", peak.per_clock_source, machine, peak.peak_FLOPps,
            peak.source)) for peak in machine.compute)
    memory = tuple(level if level.max_clock_Bps is None else dataclasses.replace(
        level, bandwidth_Bps=level.max_clock_Bps, bandwidth_source=derivation(
            level.per_clock, "B", level.per_clock_source, machine, level.bandwidth_Bps,
            level.bandwidth_source)) for level in machine.memory)
    sfu, sfu_source = machine.sfu_OPps, machine.sfu_source
    if machine.sfu_max_clock_OPps is not None:
        sfu, sfu_source = machine.sfu_max_clock_OPps, derivation(
            machine.sfu_per_clock, "OP", machine.sfu_per_clock_source, machine,
            machine.sfu_OPps, machine.sfu_source)
    return dataclasses.replace(machine, compute=compute, memory=memory, sfu_OPps=sfu,
                               sfu_source=sfu_source)


def max_clock_factor(machine, precision: str, kind: TermKind, key: str) -> sympy.Rational:
    """How much faster a time term's roof is at the maximum clock (>= 1, exact): the work
    class's ceiling (kind `work`) or the level's bandwidth (kind `traffic`), at the maximum
    clock over the data sheet's."""
    fast = machine.at_max_clock
    if kind == TermKind.WORK:
        slow_rate = machine.ceiling(precision, key).peak_FLOPps
        fast_rate = fast.ceiling(precision, key).peak_FLOPps
    else:
        slow_rate, fast_rate = machine.bandwidth(key), fast.bandwidth(key)
    if slow_rate is None or fast_rate is None or slow_rate == fast_rate:
        return sympy.Integer(1)
    return exact(fast_rate) / exact(slow_rate)


def at_max_clock_terms(terms, machine, precision: str) -> list:
    """Time terms (records with kind, key, rate, seconds) with their roofs at the maximum
    clock: each rate times `max_clock_factor`, each time divided by it."""
    found = []
    for term in terms:
        factor = max_clock_factor(machine, precision, term.kind, term.key)
        found.append(term if factor == 1 else dataclasses.replace(
            term, rate=term.rate * factor, seconds=term.seconds / factor))
    return found
