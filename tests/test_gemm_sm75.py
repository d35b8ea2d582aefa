"""CUTLASS's sm75 tensor-op GEMM, which cuBLAS ran for the ragged GEMMs of this project's
second H200 round (ncu: cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_nn_align1): the spec's
counts by hand at one small size, against enumeration, and the rows that run it."""

from __future__ import annotations

import csv
from pathlib import Path

import sympy
from conftest import SPECS
from test_torch_rows import numbers

import kernelcost
from kernelcost.analysis.verify import check_against_oracle
from kernelcost.answers.model import verdict
from kernelcost.base.kinds import EffectCause
from kernelcost.hardware.machinefile import load_machine

ROOT = Path(__file__).resolve().parent.parent
SMALL = {"M": 8, "N": 4, "K": 4, "TM": 4, "TN": 2, "TK": 2, "WM": 2, "WN": 1, "WK": 1}


def test_gemm_sm75_by_hand(spec_cost):
    # 2 x 2 blocks of 4 x 2 tiles; each reads its 4 x K band of A and K x 2 band of B from L2
    # once (2 B an element), writes its tile of C; each 2 x 1 warp tile reads its A and B
    # fragments (2 x 1 and 1 x 1) from shared at every k, so 2 K M N (1/WN + 1/WM) bytes
    work, traffic, blocks, threads = numbers(spec_cost("gemm_sm75"), SMALL)
    assert work == {"tensor": 2 * 8 * 4 * 4}
    assert traffic["global"] == 2 * (8 * 4 + 4 * 4 + 8 * 4)
    assert traffic["l2"] == 4 * 2 * (4 * 4 + 4 * 2) + 2 * 8 * 4
    assert traffic["shared"] == 2 * 4 * 8 * 4 * (1 + sympy.Rational(1, 2))
    assert (blocks, threads) == (4, 256)  # TileDescription([256, 128, 32], 2, [4, 2, 1])
    assert spec_cost("gemm_sm75").grid.widths == (("A", 2), ("B", 2), ("C", 2))  # align1


def test_gemm_sm75_closed_forms_agree_with_enumeration():
    spec = kernelcost.load(SPECS / "gemm_sm75.kcost")
    results = check_against_oracle(spec, {name: str(value) for name, value in SMALL.items()})
    assert results and not any(result.mismatches for result in results)


def test_the_ragged_rows_run_it_in_order_of_their_times():
    lines = [line for line in (ROOT / "validate" / "published" / "project_h200.csv")
             .read_text().splitlines() if not line.startswith("#")]
    rows = [row for row in csv.DictReader(lines) if row["shape"] == "gemm_ragged"]
    assert [row["sizes"] for row in rows] == ["M=8192;N=8192;K=8192", "M=4096;N=4096;K=4096"]
    cost = kernelcost.load(SPECS / "gemm_sm75.kcost").cost("spec")
    for row in rows:
        assert row["spec"] == "specs/gemm_sm75.kcost"
        assert "cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_nn_align1" in row[
            "implementation"]
        sizes = dict(part.split("=") for part in row["sizes"].split(";"))
        result = verdict(cost, load_machine("h200"), values=sizes)
        assert result.t_floor <= result.t_bound <= result.t_model
    # 32 x 64 = 2048 tiles of 256 x 128 at 8192, 16 x 32 = 512 at 4096
    assert [numbers(cost, {"M": m, "N": m, "K": m, "TM": 256, "TN": 128, "TK": 32, "WM": 64,
                           "WN": 64, "WK": 8})[2] for m in (8192, 4096)] == [2048, 512]


def test_the_mainloop_overlaps_the_next_tiles_loads_with_the_mmas():
    # MmaPipelined::gemm_iters (cutlass/gemm/threadblock/mma_pipelined.h) loads the next tile
    # into registers before the current tile's MMAs and stores it after them: no `serial`
    # group, so the tensor and shared terms overlap rather than add
    cost = kernelcost.load(SPECS / "gemm_sm75.kcost").cost("spec")
    assert cost.serial == ()
    result = verdict(cost, load_machine("h200"), values={"M": 8192, "N": 8192, "K": 8192})
    causes = [derate.cause for derate in result.derates]
    assert EffectCause("overlap") in causes and EffectCause("serial") not in causes
    # the tensor term alone at mma.sync's 65.26 % of 990 TFLOP/s is below t_model, which the
    # overlap with shared memory sets: 2 x 8192^3 / (0.6526 x 990e12) = 1.70 ms at full waves
    tensor_alone = 2 * 8192**3 / (0.6526 * 990e12)
    assert tensor_alone < float(result.t_model)
