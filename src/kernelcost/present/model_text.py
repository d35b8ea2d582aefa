"""The model's records that are not derates, in words: a warm L2 (which bandwidth serves the
warm reads, and why; its JSON too, whose `detail` is that sentence) and exponentials on the
FMA units. Each function writes one record's sentence from the figures it holds."""

from __future__ import annotations

import sympy

from ..base.units import binary, si
from ..gpu.polyexp import RANGE_REDUCTION_OPS, ExpOnFma
from ..gpu.warm import WarmL2
from .report.cells import json_number


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
    return {"tensors": list(warm.tensors), "read_B": json_number(warm.read_B),
            "capacity_B": json_number(warm.capacity_B), "usable_B": json_number(warm.usable_B),
            "fits": warm.fits, "t_bound_from_l2_B": json_number(warm.bound_B),
            "t_model_from_l2_B": json_number(warm.model_B),
            "l2_bandwidth_Bps": json_number(warm.l2_bandwidth_Bps),
            "global_bandwidth_Bps": json_number(warm.global_bandwidth_Bps),
            "detail": warm_l2_text(warm)}


def exp_on_fma_text(option: ExpOnFma) -> str:
    return (f"{float(option.fraction):.3g} of the exponentials as a degree-{option.k} "
            f"polynomial on the FP32 vector units ({option.k} FMA + {RANGE_REDUCTION_OPS} "
            f"range-reduction operations = {option.vector_FLOP_per_exp} FLOP each)")


def _value(expr: sympy.Expr) -> float | None:
    expr = sympy.sympify(expr)
    return float(expr) if expr.is_number else None
