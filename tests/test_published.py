"""The corpus of published measurements (validate/published/), its split and its report.

The rows are real published numbers (each row cites its source); the tests check the rule of
SPLIT.md on the files, that no fitting code can read a validation row, that the loader
places its errors, and the report's numbers on the corpus as it stands."""

import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from published_results import corpus_results, published_once

from kernelcost.answers.published import (
    COLUMNS,
    FOLDER,
    MOVES,
    Family,
    Machine,
    Split,
    Unit,
    calibration_rows,
    hash_split,
    read_corpus,
    read_file,
    split_of,
)
from kernelcost.base.errors import Code, MeasurementError

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "validate" / "published"
SRC = ROOT / "src" / "kernelcost"
# SPLIT.md, "Known gaps": (side missing, what is missing there); none since softmax's
# calibration source (quack-blog-2025-07-10)
KNOWN_GAPS: set[tuple[Split, str]] = set()
# the reporting path: the only modules that may read validation rows
REPORTING = {"published.py", "published_report.py", "published_page.py"}


@pytest.fixture(scope="module")
def rows():
    return read_corpus()


@pytest.fixture(scope="module")
def results():
    return corpus_results()


def test_the_corpus_has_80_rows_over_the_five_machines(rows):
    assert len(rows) >= 80
    assert {r.machine for r in rows} == set(Machine)
    assert {r.family for r in rows} == set(Family)
    for r in rows:
        assert r.citation and r.part and r.spec and r.sizes
        assert (ROOT / r.spec).is_file(), r.spec


def test_a_source_is_on_one_side(rows):
    sides = defaultdict(set)
    for r in rows:
        sides[r.source].add(r.split)
    assert all(len(s) == 1 for s in sides.values())


def test_the_split_follows_the_rule(rows):
    sources = {r.source for r in rows}
    assert set(MOVES) <= sources  # every move names a real source
    for source in sources - set(MOVES):
        first = hashlib.sha256(source.encode()).digest()[0]
        assert split_of(source) is (Split.CALIBRATION if first % 2 == 0 else Split.VALIDATION)
        assert split_of(source) is hash_split(source)
    assert split_of("project-h200-2026-12-04") is Split.VALIDATION
    assert split_of("project-h200-2026-12-04b") is Split.VALIDATION


def test_forty_percent_validation_and_both_sides_covered(rows):
    validation = [r for r in rows if r.split is Split.VALIDATION]
    assert len(validation) >= 0.4 * len(rows)
    gaps = set()
    for side in Split:
        on_side = [r for r in rows if r.split is side]
        gaps |= {(side, f.value) for f in Family if f not in {r.family for r in on_side}}
        gaps |= {(side, m.value) for m in Machine if m not in {r.machine for r in on_side}}
    assert gaps == KNOWN_GAPS  # a change of the gaps must update SPLIT.md and this list


def test_calibration_rows_hold_no_validation_row(rows):
    chosen = calibration_rows()
    assert chosen and all(r.split is Split.CALIBRATION for r in chosen)
    assert len(chosen) == sum(r.split is Split.CALIBRATION for r in rows)


def test_no_fitting_code_reads_a_validation_row():
    forbidden = re.compile(r"validation_rows|Split\.VALIDATION|published_report|read_corpus")
    offenders = [path.name for path in SRC.rglob("*.py")
                 if path.name not in REPORTING and forbidden.search(path.read_text())]
    assert offenders == []


def test_the_conversions_are_the_sources(rows):
    # FA3 paper figure, FlashAttention-2, d = 128, not causal, seqlen 4k: 368 TFLOP/s with
    # F = 4 * 4 * 4096^2 * 16 * 128 = 549755813888 FLOP
    fa2 = [r for r in rows if r.source == "fa3-paper-fwd-figure"
           and r.family is Family.ATTENTION and r.implementation == "FlashAttention-2"
           and r.sizes == {"S": "4096", "H": "64", "d": "128"}]
    assert len(fa2) == 1 and fa2[0].value == 368
    assert fa2[0].time_s == pytest.approx(549755813888 / 368e12, rel=1e-6)
    # ml-engineering's MAMF table, H100: 794.5 TFLOP/s at 2048 x 2048 x 13312
    h100 = [r for r in rows if r.source == "mamf-table" and r.machine is Machine.H100]
    assert len(h100) == 1 and h100[0].value == 794.5
    assert h100[0].time_s == pytest.approx(2 * 2048 * 2048 * 13312 / 794.5e12, rel=1e-6)
    # QuACK blog, FP32 softmax (8K, 262K) on H100: 3.01 TB/s of model memory throughput, with
    # B = 2 * 8192 * 262144 * 4 = 17179869184 bytes (x read once, y written once)
    quack = [r for r in rows if r.source == "quack-blog-2025-07-10" and r.value == 3.01]
    assert len(quack) == 1 and quack[0].unit is Unit.TBPS and quack[0].family is Family.SOFTMAX
    assert quack[0].time_s == pytest.approx(17179869184 / 3.01e12, rel=1e-6)
    assert quack[0].split is Split.CALIBRATION and hash_split(quack[0].source) is Split.VALIDATION


def _corpus_file(tmp_path, body: str) -> Path:
    path = tmp_path / "bad.csv"
    good = (FOLDER / "copy.csv").read_text().splitlines()
    header = next(line for line in good if not line.startswith("#"))
    path.write_text("# test input, not a measurement\n" + header + "\n" + body + "\n")
    return path


def test_a_wrong_conversion_is_placed_at_its_column(tmp_path):
    good = [line for line in (FOLDER / "copy.csv").read_text().splitlines()
            if line and not line.startswith("#")][1]
    bad = good.replace("1.429200e-05", "2.000000e-05")
    assert bad != good
    with pytest.raises(MeasurementError) as caught:
        read_file(_corpus_file(tmp_path, bad))
    assert caught.value.code is Code.RESULTS_BAD_ROW
    span = caught.value.diagnostics[0].span
    assert span.line == 3 and span.column == bad.index("2.000000e-05") + 1
    assert "is not the conversion's" in caught.value.diagnostics[0].message


def test_a_bandwidth_without_its_byte_count_is_refused(tmp_path):
    good = [line for line in (FOLDER / "softmax.csv").read_text().splitlines()
            if line and not line.startswith("#")][1]
    bad = good.replace(" = 17179869184 B (", " = 17179869184 bytes (")
    assert bad != good
    with pytest.raises(MeasurementError) as caught:
        read_file(_corpus_file(tmp_path, bad))
    assert "names no B count" in caught.value.diagnostics[0].message


def test_an_unknown_machine_is_refused(tmp_path):
    good = [line for line in (FOLDER / "copy.csv").read_text().splitlines()
            if line and not line.startswith("#")][1]
    bad = good.replace(",h200,", ",h300,", 1)
    with pytest.raises(MeasurementError) as caught:
        read_file(_corpus_file(tmp_path, bad))
    assert caught.value.diagnostics[0].span.column == bad.index(",h300,") + 2


def test_a_bad_header_is_refused(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(",".join(COLUMNS[:-1]) + "\n")
    with pytest.raises(MeasurementError) as caught:
        read_file(path)
    assert caught.value.code is Code.RESULTS_BAD_HEADER


def test_no_row_beats_its_floor(results):
    beaten = [(r.row.source, r.row.line) for r in results if r.floor_beaten]
    assert beaten == []


def test_every_beaten_bound_has_a_reason(results):
    from kernelcost.answers.published_report import Beaten

    beaten = [r for r in results if r.bound_beaten]
    assert beaten  # cuBLAS's smaller blocks at M = 256 beat gemm_hopper's schedule
    assert all(r.reason is not None for r in beaten)
    assert all(r.reason[0] is Beaten.OTHER_IMPLEMENTATION for r in beaten
               if r.row.spec == "specs/gemm_hopper.kcost")


def test_grouped_gemm_rows_run_the_grouped_gemm_they_timed_and_stay_above_its_bound(results):
    """torch._grouped_mm beat moe_gemm's bound (vLLM's fused_moe on mma.sync) by up to 40 %:
    on moe_gemm_hopper, the CUTLASS sm90 grouped GEMM it runs, every row is above it."""
    grouped = [r for r in results if r.row.implementation.startswith("torch._grouped_mm")]
    assert len(grouped) == 3
    assert {r.row.spec for r in grouped} == {"specs/moe_gemm_hopper.kcost"}
    assert all(r.t_bound is not None and r.t_bound <= r.row.time_s for r in grouped)


def test_flashattention3_rows_run_the_hopper_specs_and_stay_above_their_bound(results):
    # the FA3 paper's forward figure and issue 1438: FA3's sm90 schedule (wgmma, warp
    # specialisation), no longer FA2's mma.sync spec, which they beat
    fa3 = [r for r in results if r.row.implementation == "FlashAttention-3"
           and r.row.family in (Family.ATTENTION, Family.ATTENTION_CAUSAL)]
    assert len(fa3) == 37
    assert {r.row.spec for r in fa3} == {"specs/flash_attention_hopper.kcost",
                                         "specs/flash_attention_causal_hopper.kcost"}
    assert all(r.t_bound is not None and not r.bound_beaten for r in fa3)
    assert all(r.t_bound <= r.row.time_s for r in fa3)


def test_torchao_b200_rows_are_warm_kernel_times_on_the_tcgen05_tiling(results):
    # bench_matmul.py at the PR's merge: get_gpu_kernel_gemm_time_s, torch.profiler's GPU
    # time of aten::mm over five runs after one warm-up (no flush): kernels alone, warm
    ao = [r for r in results if r.row.source == "ao-pr2427"]
    assert len(ao) == 7
    assert all(r.row.timed.value == "kernel" and not r.row.cold and r.cold_start_s is None
               for r in ao)
    # cuBLAS on sm100 issues tcgen05: gemm_blackwell, as the B200 row of mamf-table
    b200 = [r for r in results if r.row.family is Family.GEMM and r.row.machine is Machine.B200]
    assert {r.row.spec for r in b200} == {"specs/gemm_blackwell.kcost"}
    # 1024^3: 8 x 4 tiles of 128 x 256 on 148 SMs, one an SM: 128 x 256 x 1024 MACs at one
    # SM's 8192 FLOP/clk x 1.965 GHz
    small = next(r for r in ao if r.row.sizes["M"] == "1024")
    assert small.t_bound == pytest.approx(2 * 128 * 256 * 1024 / (8192 * 1.965e9), rel=1e-9)


def test_the_skinny_gemm_runs_the_staged_tile_ncu_named(results):
    # nvjet_sm90_tst_64x16_64x16_2x1 at M = 16: 64 x 16 tiles, 16 stages of TMA (164 kB a
    # block in flight, 128 blocks): no latency derate, t_model = t_bound / the copy fraction
    row = next(r for r in results if r.row.source == "project-h200-2026-12-04b"
               and r.row.shape == "gemm_skinny" and r.row.sizes.get("N") == "16")
    compulsory = 2 * (8192 * 8192 + 8192 * 16 + 16 * 8192)
    assert row.t_bound == pytest.approx(compulsory / 4.8e12, rel=1e-9)
    assert row.t_model == pytest.approx(row.t_bound / 0.8354, rel=1e-9)
    tall = next(r for r in results if r.row.shape == "gemm_tallk")
    assert tall.row.sizes["SPLIT_K"] == "4" and not tall.bound_beaten


def test_the_small_gemm_runs_the_tile_ncu_named(results):
    # nvjet_sm90_tst_64x48_64x15 at 512^3: 8 x 11 = 88 tiles of 64 x 48 (528 columns in whole
    # tiles). A block reads its 64 x 512 of A, half its 512 x 48 of B (clusters of two share
    # it), writes 64 x 48 of C: 96,256 B through L2, 88 times at 10 TB/s
    row = next(r for r in results if r.row.shape == "gemm_small" and r.row.sizes["M"] == "512")
    assert row.t_bound == pytest.approx(
        88 * 2 * (64 * 512 + 512 * 48 / 2 + 64 * 48) / 10e12, rel=1e-9)


def test_the_summaries_today(results):
    from kernelcost.answers.published_report import summaries

    items = {(s.split, s.family): s for s in summaries(results)}
    everything = items[(Split.VALIDATION, None)]
    assert everything.rows == 96
    assert everything.geomean_measured_over_model > 1  # t_model optimistic on the whole
    gemv = items[(Split.VALIDATION, Family.GEMV)]
    # cuBLAS's nvjet kernels stream weights below the copy fraction t_model gives them
    assert gemv.geomean_measured_over_model > 1
    # docs/validation.md's table of today is what the command computes, row for row
    text = (Path(__file__).resolve().parent.parent / "docs" / "validation.md").read_text()
    today = text.split("## Today's errors", 1)[1].split("\n## ", 1)[0]
    documented = [line.split("|")[1:-1] for line in today.splitlines()
                  if line.startswith("| calibration |") or line.startswith("| validation |")]
    assert len(documented) == len(items)
    for split, family, rows, median, p90, geomean in (map(str.strip, row) for row in documented):
        found = items[(Split(split), None if family == "all" else Family(family))]
        assert (int(rows), median, p90, geomean) == (
            found.rows, f"{100 * found.median_abs_error:.1f} %",
            f"{100 * found.p90_abs_error:.1f} %", f"{found.geomean_measured_over_model:.3f}x")


@pytest.fixture
def calibration_only():
    """The commands below given the process's results (one side), not counted again: the
    comparisons are the fixture's, tested above; what is tested here is their printing."""
    with published_once():
        yield


def test_the_command_and_the_figure(tmp_path, capsys, calibration_only):
    from kernelcost.cli import main

    figure = tmp_path / "published.png"
    code = main(["validate", "--published", "--split", "calibration", "--figure", str(figure)])
    out = capsys.readouterr().out
    assert code == 0
    assert "calibration  all" in out and "validation" not in out.split("error:")[0][-2000:]
    assert figure.read_bytes()[:4] == b"\x89PNG"


def test_a_row_timed_cold_is_predicted_with_its_machines_cold_start():
    """nvbench's cold measurement, do_bench's cleared buffer and this project's 256 MB write
    time the kernel alone after an L2 flush: the prediction is t_model plus the machine's cold
    start (validate --published), never t_model itself."""
    from kernelcost.answers.published import calibration_rows
    from kernelcost.answers.published_report import compare_rows

    rows = [row for row in calibration_rows() if row.source in ("cccl-pr2086", "zzc-issue-79")]
    results = compare_rows(rows)
    cold = [r for r in results if r.row.source == "cccl-pr2086"]
    warm = [r for r in results if r.row.source == "zzc-issue-79"]
    assert cold and all(r.row.cold and r.cold_start_s == 5.9e-6 for r in cold)  # h200.toml
    assert all(r.predicted == r.t_model + 5.9e-6 for r in cold)
    assert warm and all(not r.row.cold and r.cold_start_s is None for r in warm)  # no flush
    assert all(r.predicted == r.t_model for r in warm)
    for r in cold + warm:
        assert r.error == (r.predicted - r.row.time_s) / r.row.time_s


def test_the_fitted_cold_starts_are_the_tools():
    """h100.toml and h200.toml state tools/fit_cold_start.py's figures, rounded to 0.1 us:
    the median over each machine's cold calibration rows of measured - t_model."""
    import importlib.util

    from kernelcost.hardware.machinefile import load_machine

    path = Path(__file__).resolve().parent.parent / "tools" / "fit_cold_start.py"
    spec = importlib.util.spec_from_file_location("fit_cold_start", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    fitted = tool.fitted()
    for machine in ("h100", "h200"):
        assert load_machine(machine).cold_start_s == round(fitted[machine], 7)


def test_the_command_prints_one_json_object_under_json(capsys, calibration_only):
    from kernelcost.cli import main

    code = main(["validate", "--published", "--split", "calibration", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    rows, whole = document["rows"], document["summaries"][0]
    assert {row["split"] for row in rows} == {"calibration"} and len(rows) == whole["rows"]
    errors = sorted(abs(row["error"]) for row in rows if row["error"] is not None)
    assert whole["family"] is None and whole["median_abs_error"] == statistics.median(errors)
    first = rows[0]
    assert first["error"] == pytest.approx(
        (first["t_model_s"] + (first["cold_start_s"] or 0) - first["measured_s"])
        / first["measured_s"])


def test_the_transcriber_writes_the_committed_files(tmp_path):
    """Every CSV tools/transcribe_published.py writes is the committed one, byte for byte: a
    row moved to another spec in the file alone (the ORT decode rows, the torch.compile
    softmax row) was undone by the next run of the transcriber."""
    environment = {**os.environ, "KERNELCOST_TRANSCRIBE_OUT": str(tmp_path)}
    subprocess.run([sys.executable, str(ROOT / "tools" / "transcribe_published.py")],
                   check=True, capture_output=True, env=environment)
    written = sorted(path.name for path in tmp_path.glob("*.csv"))
    assert len(written) >= 9
    for name in written:
        assert (tmp_path / name).read_bytes() == (CORPUS / name).read_bytes(), name
