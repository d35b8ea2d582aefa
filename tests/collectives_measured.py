"""The collectives model against published measurements: validate/published/collectives.csv
read with the csv module, each row's model time on its topology, the error, and the table
docs/collectives.md holds (tools/regen_measured_docs.py writes it; tests/test_collectives_
measured.py checks that the page is what this computes)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from measured_rows import SCALE, block, p90, read_fields

from kernelcost.answers.collectives import (
    Algorithm,
    Collective,
    Protocol,
    Timed,
    collective_time,
)
from kernelcost.hardware.topology import load_topology

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "validate" / "published" / "collectives.csv"
DOC = ROOT / "docs" / "collectives.md"
BEGIN = "<!-- measured-table: begin (tools/regen_measured_docs.py writes it) -->"
END = "<!-- measured-table: end -->"
# the sizes that separate the classes: latency-bound below 64 KiB, bandwidth-bound from 16 MiB
SMALL_B, LARGE_B = 64 * 1024, 16 * 1024 * 1024


@dataclass(frozen=True)
class Row:
    line: int
    fields: dict[str, str]

    @property
    def gpus(self) -> int:
        return int(self.fields["gpus"])

    @property
    def size_B(self) -> int:
        return int(self.fields["size_B"])

    @property
    def time_s(self) -> float:
        return float(self.fields["time_s"])

    @property
    def collective(self) -> Collective:
        return Collective(self.fields["collective"])


def read_rows(path: Path = CSV) -> list[Row]:
    return [Row(number, fields) for number, fields in read_fields(path)]


def expected_time(row: Row) -> float:
    """The time from the published value, recomputed: a duration's unit, or nccl-tests' busbw
    (time = size x 2(p-1)/p / busbw for an all-reduce)."""
    unit, value = row.fields["unit"], float(row.fields["value"])
    if unit in SCALE:
        return value * SCALE[unit]
    if unit == "GB/s" and row.collective is Collective.ALL_REDUCE:
        p = row.gpus
        return row.size_B * 2 * (p - 1) / p / (value * 1e9)
    raise ValueError(f"line {row.line}: no conversion for unit {unit!r}")


def _choices(row: Row, candidates: tuple[Timed, ...]) -> list[Timed]:
    algorithm = row.fields["algorithm"]
    if algorithm == "NVLS":
        return [c for c in candidates if c.algorithm is Algorithm.NVLS]
    if algorithm == "custom":
        return [c for c in candidates if c.protocol is Protocol.CUSTOM]
    if algorithm == "any":  # what NCCL or RCCL may pick: every way but the engines' kernels
        return [c for c in candidates if c.protocol is not Protocol.CUSTOM]
    raise ValueError(f"line {row.line}: unknown algorithm {algorithm!r}")


@dataclass(frozen=True)
class Compared:
    row: Row
    way: Timed  # the model's way the row is compared with

    @property
    def model_s(self) -> float:
        return self.way.seconds

    @property
    def error(self) -> float:
        return (self.model_s - self.row.time_s) / self.row.time_s

    @property
    def size_class(self) -> str:
        size = self.row.size_B
        return "small" if size < SMALL_B else "large" if size >= LARGE_B else "medium"


def compare(row: Row) -> Compared:
    topology = load_topology(row.fields["topology"])
    result = collective_time(row.collective, row.size_B, row.gpus, topology)
    choices = _choices(row, result.candidates)
    if not choices:
        raise ValueError(f"line {row.line}: the model has no {row.fields['algorithm']} way")
    return Compared(row, min(choices, key=lambda timed: timed.seconds))


def compare_all(rows: list[Row] | None = None) -> list[Compared]:
    return [compare(row) for row in (read_rows() if rows is None else rows)]


def _way(timed: Timed) -> str:
    if timed.protocol is Protocol.CUSTOM:
        return timed.algorithm.value
    return f"{timed.algorithm.value} {timed.protocol.value}"


def _size(size: int) -> str:
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def summary(compared: list[Compared]) -> list[tuple[str, str, str, int, float, float]]:
    """(collective, size class, split, rows, median |error|, p90 |error|), validation first."""
    groups: dict[tuple[str, str, str], list[float]] = {}
    for c in compared:
        key = (c.row.fields["collective"], c.size_class, c.row.fields["split"])
        groups.setdefault(key, []).append(abs(c.error))
    for c in compared:
        key = (c.row.fields["collective"], "all", c.row.fields["split"])
        groups.setdefault(key, []).append(abs(c.error))
    order = {"small": 0, "medium": 1, "large": 2, "all": 3}
    keys = sorted(groups, key=lambda k: (k[2] != "validation", k[0], order[k[1]]))
    return [(*k, len(groups[k]), statistics.median(groups[k]), p90(groups[k])) for k in keys]


def render(compared: list[Compared]) -> str:
    """The page's block: the summary, then every row."""
    lines = [BEGIN, "",
             "| collective | size class | split | rows | median abs. error | p90 abs. error |",
             "|---|---|---|---:|---:|---:|"]
    for collective, size_class, side, count, median, ninety in summary(compared):
        lines.append(f"| {collective} | {size_class} | {side} | {count} | {median:.0%} | "
                     f"{ninety:.0%} |")
    lines += ["", "| source | topology | GPUs | size | compared with | model's way | model (us) | "
              "measured (us) | error | split |", "|---|---|---:|---:|---|---|---:|---:|---:|---|"]
    for c in compared:
        f = c.row.fields
        lines.append(f"| {f['source']} | {f['topology']} | {f['gpus']} | {_size(c.row.size_B)} | "
                     f"{f['algorithm']} | {_way(c.way)} | {c.model_s * 1e6:.2f} | "
                     f"{c.row.time_s * 1e6:.2f} | {c.error:+.0%} | {f['split']} |")
    return "\n".join([*lines, "", END])


def doc_block(text: str) -> str:
    """The block of the page between the markers, the markers included."""
    return block(text, BEGIN, END)
