"""The model's records that are not derates, in words: a warm L2 (which bandwidth serves the
warm reads, and why; its JSON too, whose `detail` is that sentence), exponentials on the FMA
units, and how t_model counted a grid's global traffic (the rule in a few words, the wave
estimate's reasoning with its figures, why the blocks fell into no classes and what was
bounded instead). Each function writes one record's sentence from the
figures it holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import sympy

from ..base.kinds import Compulsory, Raster, WaveRule
from ..base.units import binary, counted, si
from ..gpu.polyexp import RANGE_REDUCTION_OPS, ExpOnFma
from ..gpu.unclassified import Fallback, Reason, Unclassed, Why
from ..gpu.warm import WarmL2
from .report.cells import json_number, quantities

if TYPE_CHECKING:  # numpy: the waves load only where a grid meets a machine
    from ..gpu.execution import GlobalCount
    from ..gpu.waves import WaveEstimate

# why t_model took compulsory global traffic, in a few words
COMPULSORY_WORDS = {Compulsory.SIZES: "the wave estimate needs every size",
                    Compulsory.CLASSES: "the wave estimate needs blocks in classes",
                    Compulsory.TILES: "the blocks' tiles are no whole numbers at these sizes"}


def warm_l2_text(warm: WarmL2) -> str:
    """Which bandwidth serves the warm reads, and why."""
    names = ", ".join(warm.tensors)
    read = _value(warm.read_B)
    usable, capacity = binary(float(warm.usable_B)), binary(float(warm.capacity_B))
    l2, hbm = si(float(warm.l2_bandwidth_Bps), "B/s"), si(float(warm.global_bandwidth_Bps),
                                                          "B/s")
    if read is None:
        return (f"{names} left in L2 by the previous kernel: whether it fits the usable "
                f"{usable} of {warm.machine}'s {capacity} L2 depends on the sizes; give them "
                f"(t_bound takes what L2 can hold at {l2}, t_model reads from HBM at {hbm})")
    held = f"{names} ({binary(read)}) left in L2 by the previous kernel"
    if warm.fits:
        return (f"{held} fits the usable {usable} of {warm.machine}'s {capacity} L2: its "
                f"reads are served at the L2 bandwidth ({l2}) instead of HBM's ({hbm}), in "
                "t_bound and t_model")
    limit = ("the whole of it" if read <= float(warm.capacity_B)
             else f"{capacity} of it (all the L2 holds)")
    return (f"{held} does not fit the usable {usable} of {warm.machine}'s {capacity} L2: "
            f"t_model reads it from HBM ({hbm}), since this kernel's own lines evict it "
            f"before it is reached; t_bound takes {limit} from L2 ({l2}), so that it stays "
            "a lower bound under the stated state")


def warm_json(warm: WarmL2 | None) -> dict | None:
    """The stated initial state of L2 and what each time took from it (module warm)."""
    if warm is None:
        return None
    return {"tensors": list(warm.tensors), **quantities(read_B=warm.read_B),
            "capacity_B": json_number(warm.capacity_B), "usable_B": json_number(warm.usable_B),
            "fits": warm.fits,
            **quantities(t_bound_from_l2_B=warm.bound_B, t_model_from_l2_B=warm.model_B),
            "l2_bandwidth_Bps": json_number(warm.l2_bandwidth_Bps),
            "global_bandwidth_Bps": json_number(warm.global_bandwidth_Bps),
            "detail": warm_l2_text(warm)}


def exp_on_fma_text(option: ExpOnFma) -> str:
    return (f"{float(option.fraction):.3g} of the exponentials as a degree-{option.k} "
            f"polynomial on the FP32 vector units ({option.k} FMA + {RANGE_REDUCTION_OPS} "
            f"range-reduction operations = {option.vector_FLOP_per_exp} FLOP each)")


def model_rule_text(count: GlobalCount) -> str:
    """How t_model counted global traffic, in a few words."""
    if count.estimate is None:
        assert count.compulsory is not None  # without an estimate, the reason for none
        why = COMPULSORY_WORDS[count.compulsory]
        if count.compulsory == Compulsory.CLASSES:
            assert count.unclassified is not None  # the classes' reason goes with them
            why += f" ({unclassified_text(count.unclassified)})"
        return f"compulsory: {why}"
    rule = str(count.estimate.rule)
    if count.warm_tensors:
        rule += f" less the warm L2 reads of {', '.join(count.warm_tensors)}"
    return f"{rule}, {si(float(count.global_B), 'B')} from global memory"


def _names(why: Why) -> str:
    return ", ".join(why.names)


# each reason's clause, from the figures its Why holds
REASON_TEXTS: dict[Reason, Callable[[Why], str]] = {
    Reason.AXIS_PIECES: lambda why: f"more than {why.limit} classes along one grid axis",
    Reason.HIGH_DEGREE: lambda why: f"a polynomial of degree {why.degree} over {why.blocks} "
                                    "blocks",
    Reason.NO_VALUE: lambda why: f"`{why.subject}` has no value here",
    Reason.OF_INDEX: lambda why: f"`{why.subject}` of a grid index",
    Reason.CURVES: lambda why: f"`{why.subject}` compares curves over {why.blocks} blocks",
    Reason.NO_EXTREME: lambda why: f"`{why.subject}` has no single extreme over a run",
    Reason.UNEVEN_STEPS: lambda why: f"`{why.subject}` steps unevenly over {why.blocks} blocks",
    Reason.NOT_RECTANGLE: lambda why: (f"the grid is not a rectangle (`{why.subject}` runs by "
                                       f"{_names(why)})"),
    Reason.OPEN_SUM: lambda why: f"`{why.subject}` holds a sum left open",
    Reason.NEEDS_VALUES: lambda why: f"`{why.subject}` needs a value for {_names(why)}",
    Reason.MANY_CELLS: lambda why: (f"`{why.subject}` splits the grid into more than "
                                    f"{why.limit} cells"),
    Reason.BEYOND_DIAGONAL: lambda why: f"`{why.subject}` mixes grid indices beyond one "
                                        "diagonal",
    Reason.DIAGONAL_STEPS: lambda why: f"`{why.subject}` runs along a diagonal of two steps",
    Reason.OFF_DIAGONAL: lambda why: (f"`{why.subject}` is not a function of "
                                      f"`{why.names[0]} - {why.names[1]}`"),
    Reason.NOT_POLYNOMIAL: lambda why: f"`{why.subject}` is not a polynomial in the block index",
    Reason.DIAGONAL_VARIES: lambda why: f"`{why.subject}` varies along a diagonal over many "
                                        "blocks",
    Reason.CELL_DEGREE: lambda why: (f"`{why.subject}` is of degree {why.degree} over "
                                     f"{why.blocks} blocks"),
    Reason.SUM_OVERFLOW: lambda why: f"`{why.subject}` sums past 64-bit integers",
    Reason.BOX_INDICES: lambda why: (f"a bound of {why.subject}'s box holds {why.count} grid "
                                     "indices"),
    Reason.BOX_SHAPE: lambda why: f"{why.subject}'s boxes neither tile nor grow along a grid "
                                  "axis",
    Reason.BOX_REVERSED: lambda why: f"{why.subject}'s box is reversed at some block",
    Reason.WAVE_BYTES_OVERFLOW: lambda why: "a wave's bytes pass 64-bit integers",
    Reason.WAVE_UNION_OVERFLOW: lambda why: "a wave's union passes 64-bit integers",
}


def unclassified_text(reason: Unclassed) -> str:
    """Why the blocks fall into no classes, a clause ("`floor(x/3)` steps unevenly over 900
    blocks"), and where they are too many to enumerate, how many."""
    if isinstance(reason, Why):
        return REASON_TEXTS[reason.reason](reason)
    why = REASON_TEXTS[reason.why.reason](reason.why)
    if reason.blocks is None:
        return f"{why}, and the number of blocks is unknown"
    return f"{why}, over {reason.blocks} blocks (more than {reason.at_most} to enumerate)"


def fallback_text(fallback: Fallback) -> str:
    """Which figure was bounded, not counted, and why ("busiest SM: ...")."""
    return f"{fallback.stage}: {unclassified_text(fallback.why)}"


def model_detail_text(count: GlobalCount) -> str:
    """The wave estimate's reasoning, with its figures ("" without one)."""
    return "" if count.estimate is None else wave_reason_text(count.estimate)


def wave_reason_text(estimate: WaveEstimate) -> str:
    """One sentence: which rule and why."""
    note = (" (grouped raster needs a rectangular grid: row order used)"
            if estimate.row_order_used else "")
    if estimate.inexact:
        note += f" ({', '.join(estimate.inexact)}: bounding boxes, an upper bound)"
    raster = (f"grouped({estimate.group})" if estimate.raster == Raster.GROUPED
              else estimate.raster)
    waves = estimate.waves
    launch = (f"{counted(estimate.blocks, 'block')} in {counted(waves, 'wave')} of "
              f"{estimate.wave_blocks} ({estimate.sms} SMs x {estimate.resident} resident, "
              f"{raster} raster){note}")
    fit = (f"the largest wave's {'step ' if estimate.stepped else ''}working set, "
           f"{si(float(estimate.step_union_B), 'B')} x {counted(estimate.stages, 'stage')} = "
           f"{si(float(estimate.step_B), 'B')}")
    l2, total = si(estimate.usable_l2_B, "B"), si(float(estimate.total_B), "B")
    if estimate.rule == WaveRule.PARTIAL:
        held = float(estimate.usable_l2_B / estimate.step_B)
        return (f"partial residency: {launch}; {fit}, exceeds usable L2 {l2}, which holds "
                f"{held:.0%} of it, so HBM sees each wave's distinct elements and the other "
                f"{1 - held:.0%} of the blocks' re-reads, {total}.")
    what = ("the whole footprint" if estimate.rule == WaveRule.ONE_WAVE
            else "each wave's distinct elements")
    return (f"{estimate.rule}: {launch}; {fit}, fits usable L2 {l2}, so HBM sees {what} "
            f"once, {total}.")


def _value(expr: sympy.Expr) -> float | None:
    expr = sympy.sympify(expr)
    return float(expr) if expr.is_number else None
