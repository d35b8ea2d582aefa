"""`model --grid`: a ModelGrid as CSV (a row a point, SI base units), as a JSON summary and as
a few lines of text. No arithmetic beyond dividing the batch by the time per output token."""

from __future__ import annotations

import numpy

from ..answers.launch_cost import WORD_OF
from ..answers.model_grid import ModelGrid
from ..base.units import si
from .report.csvtext import csv_rows, figure_field

# the CSV's columns, in order, with what each holds
COLUMNS = (
    ("tp", "GPUs of tensor parallelism"),
    ("batch", "sequences a step"),
    ("context", "tokens in the KV cache, and of each prompt"),
    ("fits", "1: weights and KV cache fit the usable HBM a GPU; 0: not; empty: no capacity"),
    ("memory_B", "weights and KV cache a GPU holds (activations not counted)"),
    ("tpot_bound_s", "a decode step's t_bound"),
    ("tpot_s", "a decode step's t_model, launches and collectives (model's tpot)"),
    ("ttft_bound_s", "the batch's prefill's t_bound"),
    ("ttft_s", "the prefill's t_model, launches and collectives (model's ttft)"),
    ("tokens_per_s", "output tokens a second: batch / tpot_s"),
    ("decode_tiled", "1: a decode GEMM takes gemm_hopper's estimate here"),
    ("prefill_tiled", "1: a prefill GEMM takes gemm_hopper's estimate here"),
)


def _columns(grid: ModelGrid) -> list[numpy.ndarray]:
    tp, batch, context = grid.mesh()
    fits = grid.fits
    tpot = grid.decode.latency_s
    return [tp, batch, context,
            numpy.full(tp.shape, numpy.nan) if fits is None else fits.astype(numpy.float64),
            grid.needed_B, grid.decode.t_bound_s, tpot, grid.prefill.t_bound_s,
            grid.prefill.latency_s, batch / tpot, grid.decode.tiled.astype(numpy.float64),
            grid.prefill.tiled.astype(numpy.float64)]


def grid_csv(grid: ModelGrid) -> bytes:
    """The header and a row a point, tp slowest, then batch, then context; a figure not
    given (NaN) is an empty field."""
    text = csv_rows([figure_field(column.ravel(), blank_nan=True)
                     for column in _columns(grid)])
    return (",".join(name for name, _ in COLUMNS) + "\n").encode() + text


def grid_json(grid: ModelGrid) -> dict:
    axes, fits = grid.axes, grid.fits
    given = ~numpy.isnan(grid.decode.latency_s) & ~numpy.isnan(grid.prefill.latency_s)
    return {
        "model": grid.model.name, "machine": grid.machine.id,
        "batch": list(axes.batches), "context": list(axes.contexts), "tp": list(axes.tps),
        "pp": grid.stages, "points": axes.points,
        "quantisation": {**grid.quantisation.words(), "group_size": grid.quantisation.group},
        "launch": WORD_OF[grid.launch], "memory_fraction": grid.fraction,
        "usable_B": grid.usable_B,
        "fitting_points": None if fits is None else int(fits.sum()),
        "t_model_points": int(given.sum()),
        "tiled_points": int((grid.decode.tiled | grid.prefill.tiled).sum()),
        "tiled_shapes": grid.tiled_shapes, "tiled_from_analysis": grid.tiled_asked,
        "figures": figures_note(grid),
        "columns": [{"name": name, "meaning": meaning} for name, meaning in COLUMNS],
        "best": _best(grid),
    }


def figures_note(grid: ModelGrid) -> str:
    """Which figure the grid gives, and where t_model is left out."""
    held = ("t_bound at every point; t_model (tpot_s, ttft_s) equal to `kernelcost model`'s "
            "at every point where it is given")
    if grid.tiled_asked:
        if not grid.tiled_shapes:
            return held + ": everywhere (no GEMM's sizes meet gemm_hopper's tiles)"
        return (held + f": everywhere (the {_many(grid.tiled_shapes, 'GEMM shape')} that "
                f"take{'s' if grid.tiled_shapes == 1 else ''} gemm_hopper's wave estimate "
                "asked of the analysis)")
    return (held + f": not where a GEMM's sizes meet gemm_hopper's tiles (decode_tiled, "
            f"prefill_tiled), whose wave estimate is not vectorised; the grid holds "
            f"{grid.tiled_shapes:,} such shapes, more than the {grid.tiled_limit} it asks the "
            "analysis for")


def _many(count: int, word: str, words: str | None = None) -> str:
    """`1 point`, `256,000 points`."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


def _best(grid: ModelGrid) -> dict | None:
    """The point of most output tokens a second among those that fit, TPOT given."""
    rate = grid.mesh()[1] / grid.decode.latency_s
    fits = grid.fits
    allowed = ~numpy.isnan(rate) & (True if fits is None else fits)
    if not allowed.any():
        return None
    flat = int(numpy.argmax(numpy.where(allowed, rate, -numpy.inf)))
    at = numpy.unravel_index(flat, rate.shape)
    tp, batch, context = (int(axis.ravel()[flat]) for axis in grid.mesh())
    return {"tp": tp, "batch": batch, "context": context,
            "tokens_per_s": float(rate[at]), "tpot_s": float(grid.decode.latency_s[at]),
            "ttft_s": None if numpy.isnan(ttft := float(grid.prefill.latency_s[at]))
            else ttft}


def grid_lines(grid: ModelGrid, destination: str) -> list[str]:
    document = grid_json(grid)
    axes = grid.axes
    lines = [f"{grid.model.name} on {grid.machine.name}: {_many(axes.points, 'point')} "
             f"({_many(len(axes.batches), 'batch', 'batches')} x "
             f"{_many(len(axes.contexts), 'context')} x {len(axes.tps)} tp) written to "
             f"{destination}"]
    if grid.usable_B is not None:
        lines.append(f"fit in HBM ({si(grid.usable_B, 'B')} usable a GPU): "
                     f"{_many(document['fitting_points'], 'point')}")
    lines.append(f"t_model given at {_many(document['t_model_points'], 'point')}: "
                 + figures_note(grid))
    best = document["best"]
    if best is not None:
        first = "" if best["ttft_s"] is None else \
            f", to first token {si(best['ttft_s'], 's')}"
        lines.append(f"most output tokens/s where the batch fits and TPOT is given: "
                     f"{best['tokens_per_s']:,.1f} at tp {best['tp']}, batch {best['batch']}, "
                     f"context {best['context']} (time per output token "
                     f"{si(best['tpot_s'], 's')}{first})")
    return lines
