"""Nsight Compute input (`ncu --csv --page raw`): the reader, the metric names per
architecture and the comparison with a spec's Q and W.

tests/data/ncu/ is hand-written test input in the raw page's layout, written from the metric
names src/kernelcost/ncu.py documents, NOT measurements (its README says which counts come
from this project's H200 run)."""

from pathlib import Path

import pytest

from kernelcost.answers.ncu import Architecture, compare_ncu, read_ncu
from kernelcost.base.errors import Code, MeasurementError
from kernelcost.present.ncu_report import how_text

DATA = Path(__file__).resolve().parent / "data" / "ncu"
ROOT = Path(__file__).resolve().parent.parent


def test_hopper_export_against_gemm_hopper():
    profile = read_ncu(DATA / "hopper_gemm.csv")
    assert profile.architecture is Architecture.HOPPER
    assert len(profile.launches) == 1  # ncu's ==PROF== line is skipped
    assert profile.duration_s == pytest.approx(27.968e-6)
    levels = {level.name: level for level in compare_ncu(
        profile, ROOT / "specs" / "gemm_hopper.kcost", {"M": "2048", "N": "2048", "K": "2048"},
        "h200")}
    # the DRAM count measured on the H200 for gemm 2048^3: 16834560 B of 25165824 predicted
    assert levels["global"].measured == 16834560
    assert levels["global"].predicted == 3 * 2 * 2048 * 2048
    assert levels["global"].ratio == pytest.approx(0.669, abs=1e-3)
    assert levels["l2"].measured == 110404800
    # hmma 0 % + gmma 64.5 % of 989.4 TFLOP/s for 27.968 us, against 2 * 2048^3 FLOP
    tensor = levels["tensor work"]
    assert tensor.predicted == 2 * 2048**3
    assert tensor.measured == pytest.approx(0.645 * 989.4e12 * 27.968e-6, rel=2e-3)


def test_ampere_sums_launches_and_weights_the_utilisation_by_duration():
    profile = read_ncu(DATA / "ampere_gemm.csv")
    assert profile.architecture is Architecture.AMPERE
    assert profile.total("dram_bytes") == 2 * 25165824
    assert profile.total("tensor_pct") == pytest.approx((50 * 40000 + 70 * 120000) / 160000)
    assert profile.duration_s == pytest.approx(160e-6)


def test_blackwell_reads_the_tcgen05_op_counter():
    profile = read_ncu(DATA / "blackwell_gemm.csv")
    assert profile.architecture is Architecture.BLACKWELL
    assert profile.total("tensor_ops_fp8") == 2 * 4096**3
    levels = {level.name: level for level in compare_ncu(
        profile, ROOT / "specs" / "gemm.kcost", {"M": "4096", "N": "4096", "K": "4096"}, "b200")}
    assert levels["tensor work"].measured is None  # no documented bf16 counter
    assert "no documented" in how_text(levels["tensor work"])


def test_an_unknown_architecture_is_placed(tmp_path):
    with pytest.raises(MeasurementError) as caught:
        read_ncu(DATA / "bad_cc.csv")
    span = caught.value.diagnostics[0].span
    line = (DATA / "bad_cc.csv").read_text().splitlines()[2]
    assert caught.value.code is Code.RESULTS_BAD_ROW
    assert (span.line, span.column) == (3, line.index('"7.5"') + 1)


def test_a_bad_number_is_placed():
    with pytest.raises(MeasurementError) as caught:
        read_ncu(DATA / "bad_number.csv")
    line = (DATA / "bad_number.csv").read_text().splitlines()[2]
    span = caught.value.diagnostics[0].span
    assert span.column == line.index('"lots"') + 1
    assert "lts__t_bytes.sum" in caught.value.diagnostics[0].message


def test_the_command(capsys):
    from kernelcost.cli import main

    code = main(["validate", "--ncu", str(DATA / "hopper_gemm.csv"), "--spec",
                 str(ROOT / "specs" / "gemm_hopper.kcost"), "--set", "M=2048,N=2048,K=2048",
                 "--machine", "h200"])
    out = capsys.readouterr().out
    assert code == 0
    assert "hopper, 1 launch(es)" in out and "16.8 MB" in out and "0.67x" in out
