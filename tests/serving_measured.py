"""The whole-model composition against published serving measurements:
validate/published/serving.csv read with the csv module, each row's model time from
`whole_model(...).latencies()`, the error, and the table docs/serving.md holds
(tools/regen_measured_docs.py writes it; tests/test_serving_measured.py checks that the page is
what this computes).

How a row maps onto the model (the same for every row; no figure is fitted):
- `ttft` with `prompt_step` batch: the prefill of `prefill_batch` prompts of `input_len`
  tokens (Latency.ttft_s at the context input_len), with the launches and, under tensor
  parallelism, the collectives; with `prompt_step` with_decodes or alone (a server at a fixed
  concurrency = batch): closed_loop.py's median TTFT, half the other batch - 1 sequences'
  decode step at the TPOT's context, under an `overlap` scheduler the whole decode step it
  launched ahead, then the step that holds the prompt (with their decode tokens, or alone);
- `tpot`: one decode step of `batch` sequences at the context input_len + output_len // 2, the
  middle of a request's decode (Latency.tpot_s); in a closed loop, closed_loop.py's TPOT: that
  step and the batch - 1 other requests' prompt steps spread over output_len - 1 tokens;
- `request_latency` (vLLM's benchmark_latency.py: one llm.generate of the whole batch): that
  TTFT plus (output_len - 1) of those decode steps.
To each the engine's host path (host_path.py, the row's `host_path` column), kept apart from
the kernels: a TTFT pays the request's share and one step of prefill_batch sequences (in a
closed loop, of batch), a TPOT one step of batch sequences, a request latency the request's
share and output_len steps of batch sequences (the prefill's step among them). Only the
engines with calibration rows have one (tools/fit_host_path.py); `none` adds nothing.
Each row's decode steps are launched as its `launch` column says (`graphs` only where the
source states CUDA graphs; `eager`, as before the option, elsewhere); the prefill is eager in
both. Rows that share a model, machine, tp, precisions, launch and context share one
whole_model run."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from measured_rows import SCALE, block, p90, read_fields

from kernelcost.answers.closed_loop import (
    ClosedLoopTtft,
    Loop,
    PromptStep,
    Scheduler,
    closed_loop_tpot,
    closed_loop_ttft,
)
from kernelcost.answers.host_path import HostEngine, host_path
from kernelcost.answers.launch_cost import WORDS
from kernelcost.answers.quantisation import quantisation
from kernelcost.answers.tensor_parallel import Layout
from kernelcost.answers.wholemodel import Latency, whole_model
from kernelcost.hardware.hfconfig import load_model_or_config
from kernelcost.hardware.machinefile import load_machine
from kernelcost.hardware.topology import default_topology

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "validate" / "published" / "serving.csv"
DOC = ROOT / "docs" / "serving.md"
BEGIN = "<!-- measured-table: begin (tools/regen_measured_docs.py writes it) -->"
END = "<!-- measured-table: end -->"
QUANTITIES = ("ttft", "tpot", "request_latency")


@dataclass(frozen=True)
class Row:
    line: int
    fields: dict[str, str]

    def int(self, key: str) -> int:
        return int(self.fields[key])

    @property
    def time_s(self) -> float:
        return float(self.fields["time_s"])

    @property
    def quantity(self) -> str:
        return self.fields["quantity"]

    @property
    def decode_context(self) -> int:
        return self.int("input_len") + self.int("output_len") // 2

    @property
    def closed_loop(self) -> bool:
        return self.fields["prompt_step"] != "batch"


def host_s(row: Row) -> float:
    """The engine's host time the row's quantity pays (host_path.py)."""
    path = host_path(HostEngine(row.fields["host_path"]))
    batch = row.int("batch")
    if row.quantity == "tpot":
        return path.seconds(1, batch) - path.per_request_s
    if row.quantity == "ttft":
        return path.seconds(1, batch if row.closed_loop else row.int("prefill_batch"))
    return path.seconds(row.int("output_len"), batch)


def read_rows(path: Path = CSV) -> list[Row]:
    return [Row(number, fields) for number, fields in read_fields(path)]


def expected_time(row: Row) -> float:
    """The time from the published value and its unit."""
    return float(row.fields["value"]) * SCALE[row.fields["unit"]]


def model_path(model: str) -> str:
    """A shipped id as it is; a config.json path relative to the repository root."""
    return str(ROOT / model) if model.endswith(".json") else model


@cache
def latencies(model: str, machine: str, tp: int, precisions: tuple[str, str, str], launch: str,
              batches: tuple[int, ...], context: int) -> dict[int, Latency]:
    """One whole_model run: the Latency of each batch, on the machine's default topology."""
    config = load_model_or_config(model_path(model))
    gpu = load_machine(machine)
    topology = default_topology(machine) if tp > 1 else None
    result = whole_model(config, gpu, list(batches), context, tp, Layout(topology, tp, 1),
                         quantisation=quantisation(*precisions), launch=WORDS[launch])
    return {latency.batch: latency for latency in result.latencies()}


@cache
def closed_loop_s(model: str, machine: str, precisions: tuple[str, str, str], launch: str,
                  loop: Loop, quantity: str) -> float:
    """closed_loop.py's median TTFT or TPOT on one GPU."""
    compose = closed_loop_ttft if quantity == "ttft" else closed_loop_tpot
    result = compose(load_model_or_config(model_path(model)), load_machine(machine), loop,
                     quantisation=quantisation(*precisions), launch=WORDS[launch])
    return result.ttft_s if isinstance(result, ClosedLoopTtft) else result.tpot_s


def _closed_loop(row: Row) -> float:
    """The row's TTFT or TPOT in the closed loop."""
    f = row.fields
    if row.int("tp") != 1:
        raise ValueError(f"line {row.line}: a closed loop is composed on one GPU only")
    loop = Loop(row.int("batch"), row.int("input_len"), row.int("output_len"),
                row.decode_context, PromptStep(f["prompt_step"]), Scheduler(f["scheduler"]))
    return closed_loop_s(f["model"], f["machine"], (f["weights"], f["activations"],
                                                    f["kv_cache"]), f["launch"], loop,
                         row.quantity)


def _key(row: Row) -> tuple[str, str, int, tuple[str, str, str], str]:
    f = row.fields
    return (f["model"], f["machine"], int(f["tp"]), (f["weights"], f["activations"],
                                                     f["kv_cache"]), f["launch"])


def _runs(rows: list[Row]) -> dict[tuple, tuple[int, ...]]:
    """The batches each (model, machine, tp, precisions, context) run needs, over all rows."""
    need: dict[tuple, set[int]] = {}
    for row in rows:
        if row.closed_loop and row.quantity in ("ttft", "tpot"):
            continue  # closed_loop.py composes its own steps
        if row.quantity in ("ttft", "request_latency"):
            need.setdefault((*_key(row), row.int("input_len")), set()).add(
                row.int("prefill_batch"))
        if row.quantity in ("tpot", "request_latency"):
            need.setdefault((*_key(row), row.decode_context), set()).add(row.int("batch"))
    return {key: tuple(sorted(batches)) for key, batches in need.items()}


@dataclass(frozen=True)
class Compared:
    row: Row
    ttft_s: float | None  # the model's TTFT where the row needs it
    tpot_s: float | None  # the model's decode step where the row needs it
    host_s: float = 0.0  # the engine's host path (host_path.py), apart from the kernels

    @property
    def model_s(self) -> float:
        return self.kernel_s + self.host_s

    @property
    def kernel_s(self) -> float:
        """The composition's kernels, launches and collectives, without the host path."""
        q = self.row.quantity
        if q == "ttft":
            assert self.ttft_s is not None
            return self.ttft_s
        if q == "tpot":
            assert self.tpot_s is not None
            return self.tpot_s
        assert self.ttft_s is not None and self.tpot_s is not None
        return self.ttft_s + (self.row.int("output_len") - 1) * self.tpot_s

    @property
    def error(self) -> float:
        return (self.model_s - self.row.time_s) / self.row.time_s


def compare_all(rows: list[Row] | None = None) -> list[Compared]:
    rows = read_rows() if rows is None else rows
    runs = _runs(rows)
    out = []
    for row in rows:
        ttft = tpot = None
        if row.closed_loop and row.quantity in ("ttft", "tpot"):
            ttft, tpot = ((_closed_loop(row), None) if row.quantity == "ttft"
                          else (None, _closed_loop(row)))
            out.append(Compared(row, ttft, tpot, host_s(row)))
            continue
        if row.quantity in ("ttft", "request_latency"):
            key = (*_key(row), row.int("input_len"))
            ttft = latencies(*key[:5], runs[key], key[5])[row.int("prefill_batch")].ttft_s
        if row.quantity in ("tpot", "request_latency"):
            key = (*_key(row), row.decode_context)
            tpot = latencies(*key[:5], runs[key], key[5])[row.int("batch")].tpot_s
        if row.quantity not in QUANTITIES:
            raise ValueError(f"line {row.line}: unknown quantity {row.quantity!r}")
        out.append(Compared(row, ttft, tpot, host_s(row)))
    return out


def summary(compared: list[Compared]) -> list[tuple[str, str, int, float, float, int]]:
    """(split, quantity or 'all', rows, median |error|, p90 |error|, rows the model is low on),
    validation first."""
    groups: dict[tuple[str, str], list[float]] = {}
    for c in compared:
        side = c.row.fields["split"]
        groups.setdefault((side, c.row.quantity), []).append(c.error)
        groups.setdefault((side, "all"), []).append(c.error)
    order = {q: i for i, q in enumerate((*QUANTITIES, "all"))}
    keys = sorted(groups, key=lambda k: (k[0] != "validation", order[k[1]]))
    return [(*k, len(groups[k]), statistics.median(abs(e) for e in groups[k]),
             p90([abs(e) for e in groups[k]]), sum(e < 0 for e in groups[k])) for k in keys]


def worst(compared: list[Compared], side: str, count: int = 5) -> list[Compared]:
    """The rows of a side with the largest |error|, largest first (line order breaks ties)."""
    rows = [c for c in compared if c.row.fields["split"] == side]
    return sorted(rows, key=lambda c: (-abs(c.error), c.row.line))[:count]


def _ms(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds * 1e3:.2f}"


def render(compared: list[Compared]) -> str:
    """The page's block: the summary, then every row."""
    lines = [BEGIN, "",
             "| split | quantity | rows | median abs. error | p90 abs. error | model low on |",
             "|---|---|---:|---:|---:|---:|"]
    for side, quantity, count, median, ninety, low in summary(compared):
        lines.append(f"| {side} | {quantity} | {count} | {median:.0%} | {ninety:.0%} | {low} |")
    lines += ["", "| source | machine | model | tp | w/a/kv | batch | in | out | quantity | "
              "implementation | launch | prompt step | scheduler | model TTFT (ms) | "
              "model TPOT (ms) | host path | host (ms) | model (ms) | measured (ms) | error | "
              "split |",
              "|---|---|---|---:|---|---:|---:|---:|---|---|---|---|---|---:|---:|---|---:|---:|---:|---:|"
              "---|"]
    for c in compared:
        f = c.row.fields
        model = Path(f["model"]).parent.name if f["model"].endswith(".json") else f["model"]
        lines.append(
            f"| {f['source']} | {f['machine']} | {model} | {f['tp']} | "
            f"{f['weights']}/{f['activations']}/{f['kv_cache']} | {f['batch']} | "
            f"{f['input_len']} | {f['output_len']} | {c.row.quantity} | {f['implementation']} | "
            f"{f['launch']} | {f['prompt_step']} | {f['scheduler']} | "
            f"{_ms(c.ttft_s)} | {_ms(c.tpot_s)} | {f['host_path']} | {_ms(c.host_s)} | "
            f"{c.model_s * 1e3:.2f} | "
            f"{c.row.time_s * 1e3:.2f} | {c.error:+.0%} | {f['split']} |")
    return "\n".join([*lines, "", END])


def doc_block(text: str) -> str:
    """The block of the page between the markers, the markers included."""
    return block(text, BEGIN, END)
