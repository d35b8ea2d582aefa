"""Presentation of the execution model: the grid's figures for JSON, terminal and Markdown,
and the clauses the answer sentence gains for a parallel spec or a kernel that does not fit."""

from __future__ import annotations

from ...base.kinds import Per, Quantity, Resource
from ...base.levels import Level
from ...base.units import binary, counted, si
from ..derate_text import way
from ..model_text import fallback_text, model_detail_text, model_rule_text
from ..roofs import roof_name
from .cells import PER_WORDS, formula, json_count, json_quantity, value_of
from .ledger_report import ledger_json
from .times import fill_json
from .unsupported_report import unsupported_json

LEVEL_WORDS: dict[Level | Resource, str] = {
    Level.SHARED: "shared memory", Level.REGISTERS: Level.REGISTERS, Level.TMEM: "tensor memory",
    Resource.THREADS: "threads", Resource.CLUSTER: "a thread-block cluster"}


def grid_json(verdict) -> dict:
    """The keys each verdict row gains: `grid` (null without one), `t_floor`, `t_bound`,
    `t_model`, `misfits`."""
    grid = verdict.grid
    fields: dict[str, object] = {
        "t_floor": json_quantity(verdict.t_floor), "t_bound": json_quantity(verdict.t_bound),
        "t_model": json_quantity(verdict.t_model),
        "t_min": json_quantity(verdict.t_min) if verdict.runs else None,
        "misfits": [misfit_json(m) for m in verdict.misfits],
        "unsupported": unsupported_json(verdict), "ledger": ledger_json(verdict),
        "grid": None}
    if grid is None:
        return fields
    occupancy = grid.occupancy
    grid_fields: dict[str, object] = {
        "blocks": json_count(occupancy.blocks), "sm_count": occupancy.sm_count,
        "resident_per_sm": json_count(occupancy.resident), "limited_by": occupancy.limited_by,
        "busiest_sm_blocks": json_count(occupancy.busiest_sm_blocks),
        "waves": json_count(occupancy.waves),
        "wave_efficiency": value_of(occupancy.wave_efficiency),
        "tail_share": value_of(grid.numeric_tail_share), "equal_blocks": grid.equal_blocks,
        "bound": None if grid.bound is None else roof_name(grid.bound),
        "model_bound": None if grid.model_bound is None else roof_name(grid.model_bound),
        "model_rule": model_rule_text(grid.global_count),
        "model_detail": model_detail_text(grid.global_count),
        "missing_figures": list(occupancy.missing),
        "latency_unknown": list(grid.latency_unknown),
        "transfers": [transfer_json(found) for found in grid.transfers],
        "compulsory_floor": grid.compulsory_floor, "fill": fill_json(grid.fill),
    }
    if grid.fallbacks:  # figures bounded where the blocks fall into no classes
        grid_fields["fallbacks"] = [fallback_text(each) for each in grid.fallbacks]
    if grid.stream_k is not None:  # only a stream-K grid has the key
        split = grid.stream_k
        grid_fields["stream_k"] = {
            "tiles": split.tiles, "k_steps_per_tile": split.iterations,
            "workers": split.workers, "busiest_worker_k_steps": split.busiest,
            "partial_tiles": split.peers, "fixup_B": split.fixup_B}
    fields["grid"] = grid_fields
    return fields


def transfer_json(found) -> dict:
    """One `lanes` access: at global, the sector bytes the L1<->L2 link moves and their ratio
    to the useful bytes; at shared, the wavefronts and the bank-conflict degree."""
    access = found.access
    row = {"access": access.text, "tensor": access.tensor, "write": access.is_write,
           "level": access.level, "warp_instructions": json_quantity(found.instructions),
           "useful_B": json_quantity(found.useful_B)}
    if access.level == Level.GLOBAL:
        return {**row, "sectors_per_warp": found.per_warp,
                "l1_l2_B": json_quantity(found.cost_B),
                "ratio": value_of(found.ratio)}
    return {**row, "wavefronts_per_warp": found.per_warp,
            "bank_conflict_degree": value_of(found.ratio)}


def transfer_lines(verdict) -> list[str]:
    """`b[j, i] (write): 32 sectors a warp instruction, 2.15 GB between L1 and L2 for 268 MB
    useful (8x)`, one line a `lanes` access."""
    if verdict.grid is None:
        return []
    lines = []
    for found in verdict.grid.transfers:
        access = found.access
        kind = "write" if access.is_write else "read"
        if access.level == Level.GLOBAL:
            lines.append(f"  lanes: {access.text} ({kind}) {found.per_warp} sectors a warp "
                         f"instruction: {si(value_of(found.cost_B), 'B')} between L1 and L2 "
                         f"for {si(value_of(found.useful_B), 'B')} useful "
                         f"({value_of(found.ratio):.3g}x).")
        else:
            lines.append(f"  lanes: {access.text} ({kind}) in shared memory: {way(found.ratio)}"
                         f", {found.per_warp} wavefront{'s' if found.per_warp != 1 else ''} a "
                         f"warp instruction.")
    return lines


def misfit_json(misfit) -> dict:
    return {"level": misfit.level, "needed": json_quantity(misfit.needed),
            "capacity": json_quantity(misfit.capacity), "per": misfit.per, "unit": misfit.unit}


def misfit_sentence(verdict, label: str) -> str:
    """`does not fit on H100 BF16: shared memory needs 64 MiB per SM, 294x the 228 KiB`;
    `each thread needs 344 registers, 1.35x the 255 a thread may have`."""
    parts = []
    for misfit in verdict.misfits:
        needed, capacity = value_of(misfit.needed), value_of(misfit.capacity)
        what = LEVEL_WORDS.get(misfit.level, misfit.level)
        if misfit.unit == Quantity.BYTES and needed is None:  # over the capacity at every size
            parts.append(f"{what} needs {formula(misfit.needed)} B per "
                         f"{PER_WORDS[misfit.per]}, over the {binary(capacity)}")
        elif misfit.unit == Quantity.BYTES:
            assert needed is not None and capacity is not None  # a number, and a machine's
            parts.append(f"{what} needs {binary(needed)} per {PER_WORDS[misfit.per]}, "
                         f"{needed / capacity:.3g}x the {binary(capacity)}")
        else:
            parts.append(_count_misfit(misfit, needed, capacity))
    return f"does not fit on {label}: " + "; ".join(parts) + " (no time)"


# who needs a counted resource, and who may have it, by what the capacity is counted per
_NEEDS = {Per.THREAD: "each thread", Per.BLOCK: "a block", Per.CLUSTER: "a cluster",
          Per.SM: "a block"}
_HAS = {Per.THREAD: "a thread may have", Per.BLOCK: "a block may have",
        Per.CLUSTER: "a cluster may have", Per.SM: "an SM has"}


def _count_misfit(misfit, needed: float | None, capacity: float | None) -> str:
    """A misfit counted in registers, threads or blocks, with the factor over the limit."""
    if misfit.per == Per.CLUSTER and capacity == 1:
        return (f"a thread-block cluster of {_count(needed, misfit.needed)} blocks, which "
                "this machine does not form (every block is its own cluster)")
    amount = f"{_NEEDS[misfit.per]} needs {_count(needed, misfit.needed)} {misfit.unit}"
    if needed is None or capacity is None:
        return f"{amount}, over the {_count(capacity, misfit.capacity)} {_HAS[misfit.per]}"
    return f"{amount}, {needed / capacity:.3g}x the {capacity:,.0f} {_HAS[misfit.per]}"


def _count(value: float | None, expr) -> str:
    return formula(expr) if value is None else f"{value:,.0f}"


def stream_k_text(split) -> str:
    """`stream-K: 132 workers, the busiest 1986 k-steps (15.5 tiles of 128), 130 partial
    tiles fixed up (34.1 MB)`."""
    tiles = split.busiest / split.iterations  # one tile at most: "1 k-step (1 tile of 1)"
    return (f"stream-K: {counted(split.workers, 'worker')}, the busiest "
            f"{split.busiest:,} k-step{'s' * (split.busiest != 1)} ({tiles:.3g} "
            f"tile{'s' * (tiles != 1)} of {split.iterations:,}), "
            f"{counted(split.peers, 'partial tile')} fixed up ({si(split.fixup_B, 'B')})")


def grid_clause(verdict) -> str:
    """`; 16 of 2048 blocks on the busiest of 132 SMs, 1 resident per SM (shared), 16 waves
    97 % full; t_model = 1.2 ms`: what quantisation does to the bound."""
    grid = verdict.grid
    occupancy = grid.occupancy
    blocks, busiest = value_of(occupancy.blocks), value_of(occupancy.busiest_sm_blocks)
    if blocks is None or busiest is None:
        return ""
    clause = (f"; {busiest:.0f} of {counted(round(blocks), 'block')} on the busiest of "
              f"{counted(occupancy.sm_count, 'SM')}")
    resident = value_of(occupancy.resident)
    if resident is not None:
        clause += f", {resident:.0f} resident per SM ({occupancy.limited_by})"
        waves, efficiency = value_of(occupancy.waves), value_of(occupancy.wave_efficiency)
        if waves is not None and efficiency is not None:
            clause += (f", {counted(round(waves), 'wave')} "
                       f"{100 * efficiency:.0f} % full")
    if grid.stream_k is not None:
        clause += "; " + stream_k_text(grid.stream_k)
    t_model = value_of(verdict.t_model)
    if t_model is not None:
        raised = ", raised to the compulsory bytes" if grid.compulsory_floor else ""
        clause += f"; t_model = {si(t_model, 's')} ({model_rule_text(grid.global_count)}{raised})"
    return clause
