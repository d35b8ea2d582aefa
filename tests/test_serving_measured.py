"""The whole-model composition against published serving measurements
(validate/published/serving.csv): every row sound (its machine and model exist, its lengths
and batch are positive, its time is its published value converted, its side is SPLIT.md's
rule), the comparison well defined for every row, and docs/serving.md's table exactly what
tests/serving_measured.py computes."""

import math
import re

import pytest
from serving_measured import (
    CSV,
    DOC,
    QUANTITIES,
    ROOT,
    compare_all,
    doc_block,
    expected_time,
    model_path,
    read_rows,
    render,
    summary,
    worst,
)

from kernelcost.answers.host_path import HostEngine, host_path
from kernelcost.answers.published import read_corpus
from kernelcost.hardware.hfconfig import load_model_or_config
from kernelcost.hardware.machinefile import load_machine
from kernelcost.hardware.topology import default_topology

SPLIT_MD = CSV.parent / "SPLIT.md"
SHIPPED_MODELS = {"llama3_8b", "llama3_70b", "mixtral_8x7b"}
# a hub config.json, or an engine's shape as its source's build command writes it
CONFIG_FOLDERS = ("tests/data/hf/", "validate/published/models/")
CALIBRATION_UNTIL = "2024-01-22"  # SPLIT.md: the first five sources' earliest date


@pytest.fixture(scope="module")
def rows():
    return read_rows()


@pytest.fixture(scope="module")
def compared(rows):
    return compare_all(rows)


def test_every_row_is_sound(rows):
    assert len(rows) >= 20
    for row in rows:
        f = row.fields
        where = f"serving.csv line {row.line}"
        machine = load_machine(f["machine"])
        assert machine.id == f["machine"], where
        model = f["model"]
        assert model in SHIPPED_MODELS or (
            model.startswith(CONFIG_FOLDERS) and (ROOT / model).is_file()), where
        assert load_model_or_config(model_path(model)).layers > 0, where
        tp = row.int("tp")
        assert tp >= 1, where
        if tp > 1 and default_topology(f["machine"]) is not None:
            assert tp <= default_topology(f["machine"]).gpus, where
        for key in ("batch", "prefill_batch", "input_len", "output_len"):
            assert row.int(key) >= 1, where
        assert row.int("prefill_batch") <= row.int("batch"), where
        assert row.quantity in QUANTITIES, where
        assert f["source"] and f["citation"] and f["part"] and f["timed"] and f["shape"], where
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", f["date"]), where
        assert math.isfinite(row.time_s) and row.time_s > 0, where
        assert row.time_s == pytest.approx(expected_time(row), rel=1e-5), where


def test_each_side_is_the_rule_of_split_md(rows):
    # SPLIT.md, "serving.csv": by source, by date; a source dated on or before 2024-01-22 (the
    # earliest of the first five) is calibration, every later one validation
    text = " ".join(SPLIT_MD.read_text(encoding="utf-8").split())
    assert "## serving.csv" in text and f"dated on or before {CALIBRATION_UNTIL}" in text
    for row in rows:
        rule = "calibration" if row.fields["date"] <= CALIBRATION_UNTIL else "validation"
        assert row.fields["split"] == rule, f"serving.csv line {row.line}"
    by_source = {}
    for row in rows:
        by_source.setdefault(row.fields["source"], set()).add(
            (row.fields["date"], row.fields["split"]))
    assert all(len(sides) == 1 for sides in by_source.values())  # one date, one side a source
    assert len(by_source) >= 3


def test_each_rows_prompt_step_is_its_engines_default(rows):
    # closed_loop.py: a benchmark_latency batch is prefilled together (batch); a server's new
    # prompt meets the others decoding, run with their decode tokens by vLLM V1 and
    # TensorRT-LLM, alone by SGLang unless --enable-mixed-chunk, which no command passes
    for row in rows:
        f = row.fields
        expected = "batch"
        if f["timed"].startswith("vllm bench serve"):
            assert "--enable-mixed-chunk" not in f["implementation"] + f["citation"]
            expected = "alone" if f["implementation"].startswith("SGLang") else "with_decodes"
        assert f["prompt_step"] == expected, f"serving.csv line {row.line}"
        assert row.closed_loop == (expected != "batch")


def test_each_rows_scheduler_is_its_engines_default(rows):
    # closed_loop.py: SGLang's and TensorRT-LLM's overlap schedulers run one step ahead unless
    # turned off, which no command does; vLLM v0.11.0 schedules between steps unless started
    # with --async-scheduling, which no command passes; a batch prefilled together meets no step
    for row in rows:
        f = row.fields
        said = f["implementation"] + f["citation"]
        if not row.closed_loop:
            assert f["scheduler"] == "n/a", f"serving.csv line {row.line}"
            continue
        if f["implementation"].startswith("vLLM v0.11"):
            assert "--async-scheduling" not in said
            assert f["scheduler"] == "sync", f"serving.csv line {row.line}"
        else:
            assert f["implementation"].startswith(("SGLang v0.5.", "TensorRT-LLM v1."))
            assert "disable-overlap" not in said and "disable_overlap" not in said
            assert f["scheduler"] == "overlap", f"serving.csv line {row.line}"


def test_each_rows_host_path_is_its_engines(rows):
    # host_path.py: the engine and version the source names; none where neither a calibration
    # row nor a published measurement times it, so that no engine's figure is lent to another
    by_engine = {}
    for row in rows:
        impl = row.fields["implementation"]
        by_engine.setdefault((row.fields["source"], impl.split()[0]), set()).add(
            row.fields["host_path"])
    assert all(len(paths) == 1 for paths in by_engine.values())  # one engine, one path
    for row in rows:
        engine = HostEngine(row.fields["host_path"])
        impl = row.fields["implementation"]
        if engine == HostEngine.VLLM_2024Q1:
            assert impl.startswith("vLLM") and row.fields["date"] < "2024-04-01", row.line
        if engine == HostEngine.TRTLLM_SESSION_V05:
            assert impl.startswith("TensorRT-LLM v0.5 (gptSessionBenchmark"), row.line
        if engine == HostEngine.SGLANG_SERVER_V0511:
            # SGLang's HTTP server, driven by vllm bench serve as the source measured it
            assert impl.startswith("SGLang v0.5.") and row.closed_loop, row.line
            assert row.fields["timed"].startswith("vllm bench serve"), row.line
    fitted = {HostEngine(r.fields["host_path"]) for r in rows if r.fields["split"] == "calibration"}
    assert fitted == {HostEngine.VLLM_2024Q1, HostEngine.TRTLLM_SESSION_V05}  # each has its rows
    measured = {HostEngine(r.fields["host_path"]) for r in rows} - fitted - {HostEngine.NONE}
    assert measured == {HostEngine.SGLANG_SERVER_V0511}
    assert all("measured in" in host_path(e).basis for e in measured)


def test_every_row_compares(compared):
    for c in compared:
        assert c.model_s > 0 and math.isfinite(c.error), c.row.line
        q = c.row.quantity
        assert (c.ttft_s is not None) == (q != "tpot")
        assert (c.tpot_s is not None) == (q != "ttft")
        if q == "request_latency":
            assert c.kernel_s == pytest.approx(
                c.ttft_s + (c.row.int("output_len") - 1) * c.tpot_s)
        assert c.model_s == pytest.approx(c.kernel_s + c.host_s)
        path = host_path(HostEngine(c.row.fields["host_path"]))
        per_step = path.per_step_s + path.per_sequence_step_s
        pays = path.per_request_s + per_step if q != "tpot" else per_step  # a TPOT: steps only
        assert (c.host_s > 0) == (pays > 0), c.row.line


def test_rows_sharing_a_run_share_its_figures(compared):
    # the two blocks of a pull request ran the same shapes: the model gives them one time
    # (one launch mode: a row whose source states CUDA graphs is launched from a graph; one
    # prompt step: a server's engine runs a new prompt with the others' decodes or alone; one
    # scheduler: it takes the prompt between steps or one step ahead)
    times = {}
    for c in compared:
        f = c.row.fields
        key = (f["source"], f["machine"], f["model"], f["tp"], f["batch"], f["input_len"],
               f["output_len"], f["quantity"], f["weights"], f["launch"], f["prompt_step"],
                   f["scheduler"])
        times.setdefault(key, set()).add(round(c.model_s, 12))
    assert all(len(t) == 1 for t in times.values())


def test_the_page_holds_the_table_the_code_computes(compared):
    text = DOC.read_text(encoding="utf-8")
    assert doc_block(text) == render(compared), (
        "docs/serving.md is stale: run tools/regen_measured_docs.py")


def test_the_page_names_every_source(rows):
    text = DOC.read_text(encoding="utf-8")
    for source in {row.fields["source"] for row in rows}:
        assert f"`{source}`" in text, source


def test_the_pages_headline_is_the_validation_summary(compared):
    [line] = [s for s in summary(compared) if s[0] == "validation" and s[1] == "all"]
    _, _, count, median, ninety, low = line
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    headline = re.search(r"validation side, (\d+) rows: median \|error\| (\d+) %, p90 (\d+) %; "
                         r"the model is low on (\d+) of them", text)
    assert headline is not None
    assert tuple(int(g) for g in headline.groups()) == (
        count, round(median * 100), round(ninety * 100), low)


def test_the_pages_worst_rows_are_the_worst(compared):
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    for c in worst(compared, "validation"):
        assert f"line {c.row.line}: {c.error:+.0%}" in text, c.row.line


def test_the_kernel_corpus_leaves_the_serving_file_out():
    assert all(row.file.name != CSV.name for row in read_corpus())


def test_a_row_run_from_cuda_graphs_pays_one_launch(compared):
    """GPUStack's "Maximum batch size for cuda graph in SGLang" row: its decode step replayed
    from a graph. Qwen3-8B's step runs 290 kernels (36 layers: 2 norms, qkv, attention,
    output, gate+up, SwiGLU, down = 8 a layer, the final norm, the LM head): eager 290 x 4 us
    = 1.160 ms of launches; from a graph 4 us + 290 x 490/401 us = 358.4 us; the kernels'
    time the same, and the other requests' prompt steps (eager in both) the same, so the
    TPOT falls by 0.8016 ms."""
    tpot = {c.row.fields["launch"]: c.tpot_s for c in compared
            if c.row.quantity == "tpot" and c.row.fields["weights"] == "bf16"
            and c.row.fields["prompt_step"] == "alone"}  # SGLang's two runs: a prompt alone
    assert set(tpot) == {"eager", "graphs"}
    eager, graphs = 290 * 4e-6, 4e-6 + 290 * 490e-6 / 401
    assert tpot["eager"] - tpot["graphs"] == pytest.approx(eager - graphs, rel=1e-9)
    assert eager - graphs == pytest.approx(0.8016e-3, abs=0.0001e-3)
