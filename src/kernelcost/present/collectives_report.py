"""Stage: the collectives of tensor, pipeline and expert parallelism -> a table, sentences and
JSON (`kernelcost model --tp N --pp N --ep N`)."""

from __future__ import annotations

from ..answers.composition import Phase
from ..answers.tensor_parallel import StepCollectives, TensorParallel
from ..base.units import si
from .report.page import Column, noted_table

COLUMNS = [Column("batch", "right"), Column("collective"), Column("copies", "right"),
           Column("bytes each", "right"), Column("algorithm"), Column("time each", "right"),
           Column("total", "right"), Column("kind", optional=True),
           Column("protocol", optional=True), Column("GB/s each way", "right", optional=True)]


def decode_table(parallel: TensorParallel, width: int | None):
    """Each decode step's collectives, one a row, with their algorithm and time."""
    rows = []
    for step in parallel.decode:
        for use in step.uses:
            best = use.time.best
            rows.append([str(step.batch), use.name, str(use.copies), si(use.time.bytes, "B"),
                         best.algorithm.value, si(best.seconds, "s"), si(use.seconds, "s"),
                         use.collective.value, best.protocol.value,
                         f"{use.time.bandwidth_Bps / 1e9:,.0f}"])
    title = (f"{_layout_words(parallel)}, on {parallel.topology.name}: the collectives of "
             "a decode step")
    return noted_table(title, COLUMNS, rows, width, (1,))


def _layout_words(parallel: TensorParallel) -> str:
    layout = parallel.layout
    words = f"tensor parallelism over {layout.tp} GPUs" if layout.tp > 1 else "one GPU a stage"
    if layout.ep > 1:
        words += ", the experts split over them"
    return words + (f" in {layout.stages} pipeline stages" if layout.stages > 1 else "")


def step_lines(parallel: TensorParallel, t_model_of: dict[tuple[Phase, int], float]) -> list[str]:
    """Per step: the collectives' time and the step's with them, in sequence."""
    lines = []
    for step in (*parallel.decode, *parallel.prefill):
        kernels = t_model_of[(step.phase, step.batch)]
        lines.append(f"{step.phase}, batch {step.batch}: {step.count} collectives take "
                     f"{si(step.seconds, 's')}; with the kernels' t_model "
                     f"{si(kernels, 's')}, the step takes {si(kernels + step.seconds, 's')} "
                     f"({100 * step.seconds / (kernels + step.seconds):.1f} % in collectives)")
    return lines


def _step_json(step: StepCollectives) -> dict:
    return {"phase": step.phase, "batch": step.batch, "count": step.count,
            "seconds": step.seconds,
            "collectives": [{"name": use.name, "kind": use.collective.value,
                             "copies": use.copies, "bytes": use.time.bytes,
                             "algorithm": use.time.best.algorithm.value,
                             "protocol": use.time.best.protocol.value,
                             "latency": use.time.best.latency_s,
                             "transfer": use.time.best.transfer_s,
                             "seconds_each": use.time.best.seconds,
                             "seconds": use.seconds,
                             "bandwidth_Bps": use.time.bandwidth_Bps}
                            for use in step.uses]}


def parallel_json(parallel: TensorParallel) -> dict:
    """Numbers in SI base units (B, s, B/s)."""
    topology = parallel.topology
    layout = parallel.layout
    return {"topology": topology.id, "name": topology.name, "gpus": layout.gpus,
            "tp": layout.tp, "ep": layout.ep, "stages": layout.stages,
            "fabric": topology.fabric.value,
            "decode": [_step_json(s) for s in parallel.decode],
            "prefill": [_step_json(s) for s in parallel.prefill]}
