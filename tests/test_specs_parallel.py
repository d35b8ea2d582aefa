"""The realistic parallel specs (flash_attention, its causal variant) against the chapter's
figures, and the teaching attention spec against the GPU execution model: the score matrix
it keeps in shared memory does not fit an SM."""

from __future__ import annotations

import json

import sympy
from conftest import SPECS, size

import kernelcost
from kernelcost import cli
from kernelcost.analysis.verify import check_against_oracle
from kernelcost.answers.model import verdict
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.roofs import roof_name

S, d, H, Br, Bc = (size(s) for s in ("S", "d", "H", "Br", "Bc"))
SMALL = {"S": "8", "d": "4", "H": "2", "Br": "4", "Bc": "2", "WM": "2", "WK": "2"}


def same(a, b) -> bool:
    return sympy.simplify(a - b) == 0


def values(cost, **sizes) -> dict:
    return {symbol: sympy.Integer(sizes.get(symbol.name, cost.defaults.get(symbol, 0)))
            for symbol in cost.parameters}


def run_json(capsys, *argv) -> dict:
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr().out
    assert code == cli.EXIT_OK
    return json.loads(out)


# ------------------------------------------------------------------------- flash_attention

def test_flash_attention_products_are_four_s_squared_d(spec_cost):
    """REFERENCE: attention is 4 S^2 d FLOP (the two GEMMs), per head."""
    work = spec_cost("flash_attention").work
    assert same(work["tensor"], 4 * H * S**2 * d)


def test_flash_attention_softmax_terms(spec_cost):
    """Per query row and key tile of Bc: Bc comparisons (row max), m - m_new and its exp, d
    multiplies rescaling the O row, Bc subtractions, exps and additions (the scores and their
    row sum), l * rescale + row_sum; then O = acc / l, d divisions per row."""
    work = spec_cost("flash_attention").work
    tiles = H * S * S / Bc  # (query row, key tile) pairs
    assert same(work["sfu"], tiles * (Bc + 1))  # exp of every score, one rescale per row
    assert same(work["vector"], tiles * (3 * Bc + d + 3) + H * S * d)
    total = sum(work.values())
    assert same(total - 4 * H * S**2 * d, tiles * (4 * Bc + d + 4) + H * S * d)


def test_flash_attention_leading_term_at_the_reference():
    """The leading term of W is the chapter's 4 S^2 d plus the softmax's per-score terms; at
    S = 4096, d = 128 the softmax adds 1.2 %."""
    result = kernelcost.analyze(SPECS / "flash_attention.kcost", {"S": "4096"})
    assert same(result.work_by_class["tensor"].expr, 4 * H * S**2 * d)
    assert same(result.work.leading, H * S**2 * (4 * Bc * d + 4 * Bc + d + 4) / Bc)
    reference = 4 * 4096**2 * 128
    assert result.work_by_class["tensor"].value == reference
    assert 1.01 < result.work.value / reference < 1.013
    assert result.work_by_class["sfu"].value == 4096**2 * 65 / 64  # exps


def test_flash_attention_causal_does_half_the_products(spec_cost):
    """Key tiles up to the diagonal, the straddling ones in full: 2 S^2 d + 2 S d Br per head."""
    work = spec_cost("flash_attention_causal").work
    assert same(work["tensor"], 2 * H * S * d * (S + Br))
    assert same(work["sfu"], H * S * (S + Br) * (Bc + 1) / (2 * Bc))


def test_flash_attention_agrees_with_enumeration_at_small_sizes():
    for name in ("flash_attention", "flash_attention_causal"):
        spec = kernelcost.load(SPECS / f"{name}.kcost")
        results = check_against_oracle(spec, SMALL) + check_against_oracle(spec, {}, samples=2)
        assert results and all(not result.mismatches for result in results), name


def test_flash_attention_gets_a_time_with_sfu_beside_tensor(spec_cost):
    """H100, S = 4096 and 16384, d = 128: 2 blocks resident (registers: 128 x 255), a time from
    t_bound, and the terms list the tensor and the SFU time. The 4 warps each read the whole
    K and V tile from shared (mma.sync fragments): I_shared ~ 26 FLOP/B, under H100's shared
    ridge of 33, so shared bandwidth binds on H100 (and B200), the tensor peak on A100."""
    cost = spec_cost("flash_attention")
    for sequence in (4096, 16384):
        result = verdict(cost, load_machine("h100"), "bf16", values(cost, S=sequence, d=128))
        grid = result.grid
        assert grid.t_bound is not None and grid.t_model is not None
        assert grid.occupancy.resident == 2 and grid.occupancy.limited_by == "registers"
        terms = {roof_name(term.roof): float(term.seconds) for term in result.terms}
        assert {"bf16 tensor peak", "sfu", "shared bandwidth"} <= set(terms)
        assert 0.4 < terms["sfu"] / terms["bf16 tensor peak"] < 0.6  # 3.9e12 exp/s vs 990e12
        assert roof_name(result.bound) == "shared bandwidth"
        assert terms["shared bandwidth"] < 1.35 * terms["bf16 tensor peak"]
    a100 = verdict(cost, load_machine("a100"), "bf16", values(cost, S=16384, d=128))
    assert roof_name(a100.bound) == "bf16 tensor peak" and a100.regime == "compute-bound"


def test_flash_attention_analyze_answers_with_a_time(capsys):
    document = run_json(capsys, "analyze", SPECS / "flash_attention.kcost", "--set",
                        "S=4096,d=128", "--machine", "h100", "--json", "--no-verify")
    answer = document["answers"][0]
    assert answer["t_min"] is not None and answer["t_min"] > 0
    verdicts = document["verdicts"]
    assert all(not v["misfits"] for v in verdicts)
    assert verdicts[0]["grid"]["blocks"] == 32 and verdicts[0]["grid"]["waves"] == 1


# ------------------------------------------------------------------ the teaching attention

def test_attention_does_not_fit_at_4096_on_h100(capsys):
    """The chapter's attention keeps the whole S x S f32 score matrix in shared memory: 64 MiB
    at S = 4096, 287 x an H100 SM's 228 KiB."""
    document = run_json(capsys, "analyze", SPECS / "attention.kcost", "--set",
                        "S=4096,d=128", "--machine", "h100", "--json", "--no-verify")
    misfits = document["verdicts"][0]["misfits"]
    assert misfits and misfits[0]["level"] == "shared"
    assert misfits[0]["needed"] == 4096 * 4096 * 4
    answer = document["answers"][0]
    assert answer["t_min"] is None
    assert "does not fit" in answer["sentence"]


def test_a_misfit_in_a_free_size_is_said_with_its_formula(capsys):
    """moe_gemm on an MI300X: a block needs 512 B a token row (Min(64, Mt) rows) and the
    64 KiB of its B tile, more than the 64 KiB of LDS a workgroup has, for every Mt."""
    document = run_json(capsys, "analyze", SPECS / "moe_gemm.kcost", "--machine", "mi300x",
                        "--json", "--no-verify")
    misfits = document["verdicts"][0]["misfits"]
    assert misfits[0]["level"] == "shared" and misfits[0]["needed"] is None
    assert misfits[0]["capacity"] == 64 * 1024
    sentence = document["answers"][0]["sentence"]
    assert "needs 512*Min(64, Mt) + 65536 B per block, over the 64 KiB" in sentence


def test_flash_attention_causal_global_traffic_is_a_box_bound(spec_cost):
    """Q and O once, K and V once each, 2 bytes: the triangular union of key tiles is
    bounded by a box, flagged inexact, that ends with the last query tile's keys (the key
    loop's trips (i0 + Br)/Bc are whole): the S rows read, no more."""
    cost = spec_cost("flash_attention_causal")
    assert not cost.exact
    assert same(cost.traffic["global"], 8 * H * S * d)
    assert same(spec_cost("flash_attention").traffic["global"], 8 * H * S * d)
