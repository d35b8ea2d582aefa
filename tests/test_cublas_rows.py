"""cuBLAS's kernels as this project's H200 rows ran them (torch 2.11 + cu130): the skinny
F.linear rows on the nvjet WGMMA tiles cuBLAS 13 runs on sm90 at M = 1 to 128, and the one GEMM
row whose bound its measurement beats, each against figures worked by hand."""

from __future__ import annotations

import pytest

from kernelcost.answers.ledger import Cause
from kernelcost.answers.published import read_corpus
from kernelcost.answers.published_report import Beaten, compare_rows
from kernelcost.gpu.effects.achievable import ACHIEVABLE

BF16, FP32 = 2, 4
HBM = 4.8e12  # h200.toml, global bandwidth
COPY_FRACTION = 0.8354  # h200.toml, [[achievable]] global
TENSOR_PER_SM = 4096 * 1.98e9  # bf16 FLOP a clock an SM x the run's maximum SM clock


@pytest.fixture(scope="module")
def first_round():
    """The first round's F.linear rows by their line in project_h200.csv."""
    rows = [r for r in read_corpus() if r.source == "project-h200-2026-12-04"
            and r.shape == "gemv_decode"]
    return {result.row.line: result for result in compare_rows(rows)}


@pytest.mark.parametrize("line, weights_rows, depth, tokens, splits", [
    (13, 4096, 4096, 1, 2),  # gdn_out_proj's kernel: 64 x 8 tiles, split K
    (14, 14336, 4096, 1, 1),  # gdn_in_proj_qkvz's: 64 x 8 tiles, no split
    (15, 4096, 14336, 8, 2),  # mlp_down's: 64 x 8 tiles, split K
    (16, 8192, 8192, 64, 1),  # mlp_down's at M = 64: 64 x 64 tiles, 128 of them: no split
])
def test_skinny_linear_rows_run_nvjet_tiles_and_stream_at_the_copy_fraction(
        first_round, line, weights_rows, depth, tokens, splits):
    """The weights once, the tokens in whole tiles of 8 (the MMA's n), the output, and the
    split's fp32 partials written and read back: at HBM speed that is t_bound. 13 to 16 TMA
    stages of 64 x 64 weights keep 106-131 kB a block in flight, over Little's law's 1.79 MB
    on the 64 to 224 blocks: no latency term, so t_model is t_bound at the copy fraction,
    where gemv_decode's one 16-byte load a thread had added 15.5, 54.5 and 14.5 us at lines
    13, 15 and 16."""
    result = first_round[line]
    assert result.row.spec == "specs/gemm_hopper.kcost"
    assert result.row.implementation.startswith(
        "F.linear (cuBLAS), not profiled: the tile of nvjet_sm90")
    padded = 8 * -(-tokens // 8)
    fixup = 2 * FP32 * splits * weights_rows * padded if splits > 1 else 0
    moved = BF16 * (weights_rows * depth + depth * padded + weights_rows * padded) + fixup
    assert result.t_bound == pytest.approx(moved / HBM, rel=1e-9)
    # at line 14 t_model's wave estimate adds 66 kB of DRAM re-reads to the compulsory bytes
    assert result.t_model == pytest.approx(result.t_bound / COPY_FRACTION, rel=1e-3)
    assert [step.effect for step in result.comparison.ledger.steps
            if step.cause is Cause.EFFECT] == [ACHIEVABLE]
    assert result.t_model < result.row.time_s  # the call also holds the cold start


def test_the_m128_row_reads_its_weight_tiles_through_l2_once_a_token_tile():
    """mlp_down's kernel at M = 128: 128 x 64 tiles of (N, M), 64 x 2 = 128 blocks. A block
    reads its 128 weight rows, half its 64 tokens (clusters of two along N share them by
    multicast) and writes 128 x 64 outputs: 128 such blocks through L2 at 10 TB/s bind."""
    row = next(r for r in read_corpus() if r.source == "project-h200-2026-12-04b"
               and r.sizes.get("N") == "128")
    (result,) = compare_rows([row])
    assert (row.sizes["TM"], row.sizes["TN"]) == ("128", "64")
    block = BF16 * (128 * 8192 + 8192 * 64 / 2 + 128 * 64)
    assert result.t_bound == pytest.approx(128 * block / 10e12, rel=1e-9)


def test_the_skinny_gemm_at_m256_beats_a_bound_of_64_blocks():
    """gemm_hopper's 128 x 256 tiles give 2 x 32 blocks at M = 256, N = K = 8192: one
    block's 2 x 128 x 256 x 8192 FLOP at one SM's peak (4096 FLOP a clock at the run's
    1980 MHz) is t_bound. The call took 54.0 us with its cold start: 34.4 GFLOP in it need
    79 SMs at that peak, more than the 64 the spec's grid can use. The spec's tile is what
    fails, not a figure of the machine; the row says so (other-implementation)."""
    row = next(r for r in read_corpus() if r.source == "project-h200-2026-12-04b"
               and r.sizes == {"M": "256", "N": "8192", "K": "8192"})
    (result,) = compare_rows([row])
    assert result.t_bound == pytest.approx(2 * 128 * 256 * 8192 / TENSOR_PER_SM, rel=1e-9)
    assert result.bound_beaten and result.reason[0] is Beaten.OTHER_IMPLEMENTATION
    sms_needed = 2 * 256 * 8192 * 8192 / (row.time_s * TENSOR_PER_SM)
    assert 64 < sms_needed < 80
