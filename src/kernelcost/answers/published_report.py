"""`kernelcost validate --published [--split calibration|validation]`: the corpus of published
measurements (published.py) against t_floor, t_bound and t_model.

Per row the three times, the measured time and t_model's error (t_model - measured) / measured;
per split and kernel family the median and 90th percentile of |error| and the geometric mean of
measured / t_model. A row measured below t_bound carries a reason from `Beaten` (a fixed list);
a row below t_floor is a failure of the floor itself (the command exits 1, and so does the test
suite). This is the reporting path: it is allowed to read validation rows."""

from __future__ import annotations

import dataclasses
import statistics
from enum import Enum
from pathlib import Path

from ..base.records import record
from .published import FOLDER, Family, Machine, PublishedRow, Split, read_corpus
from .validate import FALSIFIED_BELOW, Comparison, Row, _compare


class Beaten(Enum):
    """Why a published run beat the spec's t_bound (the fixed list)."""
    OTHER_ARCHITECTURE = "other-architecture"      # the spec's tiling targets another GPU
    MACHINE_FIGURE = "machine-figure"              # a figure of the machine file is too low
    OTHER_IMPLEMENTATION = "other-implementation"  # the run is not the schedule the spec models


# The architectures a spec's tiling is written for (its header comment says which).
SPEC_TARGETS: dict[str, frozenset[Machine]] = {
    "specs/gemm_hopper.kcost": frozenset({Machine.H100, Machine.H200}),
    "specs/moe_gemm_hopper.kcost": frozenset({Machine.H100, Machine.H200}),
    "specs/flash_attention.kcost": frozenset({Machine.A100, Machine.H100, Machine.H200}),
    "specs/flash_attention_causal.kcost": frozenset({Machine.A100, Machine.H100, Machine.H200}),
}
# The implementation a spec models, as the corpus's `implementation` column names it.
SPEC_MODELS: dict[str, str] = {
    "specs/flash_attention.kcost": "FlashAttention-2",
    "specs/flash_attention_causal.kcost": "FlashAttention-2",
    # vLLM's fused_moe Triton kernel with a 64 x 128 x 64 tile (the spec's header)
    "specs/moe_gemm.kcost": "fused_moe",
    # the CUTLASS sm90 grouped GEMM of PyTorch's GroupMM.cu (the spec's header)
    "specs/moe_gemm_hopper.kcost": "torch._grouped_mm",
}


@record
class TiledFor:
    """The spec's tiling targets other machines than the row's."""

    spec: str
    machines: tuple[str, ...]  # in the order of their names


@record
class ModelsOther:
    """The row's implementation is not the one the spec models."""

    implementation: str
    model: str


# Rows whose reason is a reading, not a rule: (source, shape) -> reason, with the evidence
# (written with the corpus, as its rows are).
READINGS: dict[tuple[str, str], tuple[Beaten, str]] = {
    ("project-h200-2026-12-04b", "gemm_skinny"): (
        Beaten.OTHER_IMPLEMENTATION, "cuBLAS ran more, smaller blocks than the spec's 64 tiles"),
    ("project-h200-2026-12-04b", "flash_attention"): (
        Beaten.MACHINE_FIGURE, "h200.toml's shared bandwidth assumes ~1.78 GHz; the card ran "
                               "at 1980 MHz (validate/README.md, second round)"),
}


@record
class Result:
    row: PublishedRow
    comparison: Comparison
    cold_start_s: float | None = None  # the machine's, where the row was timed cold

    @property
    def predicted(self) -> float | None:
        """t_model, with the machine's cold start where the row was timed alone after an L2
        flush: what the row's harness saw of the kernel."""
        if self.t_model is None:
            return None
        return self.t_model + (self.cold_start_s or 0.0)

    @property
    def t_floor(self) -> float | None:
        return self.comparison.t_floor

    @property
    def t_bound(self) -> float | None:
        return self.comparison.t_bound

    @property
    def t_model(self) -> float | None:
        return self.comparison.t_model

    @property
    def error(self) -> float | None:
        """(predicted - measured) / measured."""
        predicted = self.predicted
        return None if predicted is None else (predicted - self.row.time_s) / self.row.time_s

    @property
    def floor_beaten(self) -> bool:
        return self.t_floor is not None and self.row.time_s < self.t_floor * FALSIFIED_BELOW

    @property
    def bound_beaten(self) -> bool:
        return self.comparison.falsified

    @property
    def reason(self) -> tuple[Beaten, TiledFor | ModelsOther | str] | None:
        """Why t_bound was beaten; None when it was not, or when no reason applies."""
        if not self.bound_beaten:
            return None
        return reason_for(self.row)


def reason_for(row: PublishedRow) -> tuple[Beaten, TiledFor | ModelsOther | str] | None:
    targets = SPEC_TARGETS.get(row.spec)
    if targets is not None and row.machine not in targets:
        return Beaten.OTHER_ARCHITECTURE, TiledFor(row.spec, tuple(sorted(m.value
                                                                        for m in targets)))
    model = SPEC_MODELS.get(row.spec)
    if model is not None and model not in row.implementation:
        return Beaten.OTHER_IMPLEMENTATION, ModelsOther(row.implementation, model)
    return READINGS.get((row.source, row.shape))


@record
class Summary:
    split: Split
    family: Family | None  # None: every family of the split
    rows: int
    median_abs_error: float
    p90_abs_error: float
    geomean_measured_over_model: float


def compare_corpus(folder: str | Path = FOLDER, split: Split | None = None) -> list[Result]:
    """Every row (of one split, if given) against its spec on its machine."""
    return compare_rows([r for r in read_corpus(folder) if split is None or r.split is split])


def compare_rows(rows: list[PublishedRow]) -> list[Result]:
    """Each row against its spec on its machine; a row timed cold carries the machine's cold
    start."""
    from ..hardware.machinefile import load_machine

    loaded = {m: load_machine(m.value) for m in {r.machine for r in rows}}
    # each machine taken once with the operands its rows state (random, or zeros)
    machines = {(m, operands): dataclasses.replace(loaded[m], inputs=operands)
                for m, operands in {(r.machine, r.operands) for r in rows}}
    texts: dict[Path, str] = {}
    specs: dict[Path, object] = {}
    results = []
    for row in rows:
        if row.file not in texts:
            texts[row.file] = row.file.read_text(encoding="utf-8")
        measured = Row(row.line, f"{row.source}:{row.line}", row.spec, dict(row.sizes),
                       row.dtype.split(" ")[0], row.time_s, {})
        machine = machines[row.machine, row.operands]
        results.append(Result(row, _compare(row.file, texts[row.file], measured, machine, specs),
                              machine.cold_start_s if row.cold else None))
    return results


def summaries(results: list[Result]) -> list[Summary]:
    out = []
    for split in Split:
        chosen = [r for r in results if r.row.split is split and r.error is not None]
        if not chosen:
            continue
        out.append(_summary(split, None, chosen))
        for family in Family:
            subset = [r for r in chosen if r.row.family is family]
            if subset:
                out.append(_summary(split, family, subset))
    return out


def _summary(split: Split, family: Family | None, results: list[Result]) -> Summary:
    errors = sorted(abs(r.error) for r in results if r.error is not None)
    ratios = [r.row.time_s / r.predicted for r in results if r.predicted]
    return Summary(split, family, len(results), statistics.median(errors),
                   _percentile(errors, 0.9), statistics.geometric_mean(ratios))


def _percentile(values: list[float], q: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default)."""
    if len(values) == 1:
        return values[0]
    position = q * (len(values) - 1)
    low = int(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)
