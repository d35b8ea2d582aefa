"""Sizes at the far end of what the commands take (up to 2^53) answer in about the time of
ordinary ones: nothing the analysis does walks a loop of the spec's trips. The MMA-minimum
check of a contraction's tile (count.mma) listed every point of the loops around it before
it compared their number with its limit: decode_attention_paged_hopper at L = 1e15 (7.8e12
K/V tiles) ran out of the 60 s budget (L = 1e9 too; L = 1e7 took 3.8 s)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
import sympy

from kernelcost.cli import main
from kernelcost.count.mma import LARGEST_TRIPS_POINTS, _points

ROOT = Path(__file__).resolve().parent.parent
PAGED = ROOT / "specs" / "decode_attention_paged_hopper.kcost"
H100_BPS = 3.35e12  # src/kernelcost/machines/h100.toml: HBM3 bandwidth


def test_listing_points_past_the_limit_makes_none_of_them():
    """A loop of 10^6 trips: past LARGEST_TRIPS_POINTS, so None, and without the 10^6
    points (about 250 MB as dicts of sympy Integers)."""
    k = sympy.Symbol("k")
    tracemalloc.start()
    try:
        found = _points({k}, [(k, sympy.Integer(0), sympy.Integer(1), sympy.Integer(10**6))],
                        {})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found is None
    assert peak < 1 << 20
    small = _points({k}, [(k, sympy.Integer(3), sympy.Integer(2), sympy.Integer(4))], {})
    assert small == [{k: 3}, {k: 5}, {k: 7}, {k: 9}]
    assert LARGEST_TRIPS_POINTS < 10**6


@pytest.mark.parametrize("L", [10**9, 10**15])
def test_paged_decode_at_a_very_long_context_is_its_bytes_at_the_bandwidth(capsys, L):
    """t_floor is the compulsory bytes at H100's 3.35 TB/s: K and V (2 b H L d bf16), Q and
    O (b h d bf16 each) and lse (b h f32), with b = h = 64, g = 1, d = 128."""
    code = main(["analyze", str(PAGED), "--set", f"b=64,h=64,L={L}", "--machine", "h100",
                 "--json", "--no-verify"])
    out = capsys.readouterr().out
    assert code == 0
    verdict = json.loads(out)["verdicts"][0]
    b, h, d = 64, 64, 128
    compulsory = 2 * b * h * L * d * 2 + 2 * b * h * d * 2 + b * h * 4
    assert verdict["t_floor"] == pytest.approx(compulsory / H100_BPS, rel=1e-9)
    assert verdict["t_floor"] <= verdict["t_bound"] <= verdict["t_model"]


def test_a_grid_of_1e15_short_rows_is_timed_without_listing_its_waves(capsys):
    """layernorm_torch at R = 1e15 rows of n = 64: 4.7e11 waves, one period of which stands
    for all; the waves' index arrays were made first and were a MemoryError (KC708, exit 2).
    t_floor: x read and y written (2 B each an element), gamma and beta (2 B each) at
    3.35 TB/s; t_model at least the stated instructions (1155 + 472 n / 512 = 1214 a block;
    whole where 64 divides n, so n = 1 is refused: KC321) of the busiest SM's ceil(R / 132)
    blocks at 4 a clock and 1.98 GHz."""
    R, n = 10**15, 64
    code = main(["analyze", str(ROOT / "specs" / "layernorm_torch.kcost"), "--set",
                 f"R={R},n={n}", "--machine", "h100", "--json", "--no-verify"])
    out = capsys.readouterr().out
    assert code == 0
    verdict = json.loads(out)["verdicts"][0]
    assert verdict["t_floor"] == pytest.approx((4 * R * n + 4 * n) / H100_BPS, rel=1e-9)
    issue_s = -(-R // 132) * (1155 + 472 * n // 512) / (4 * 1.98e9)
    assert verdict["t_model"] >= issue_s * (1 - 1e-9)
    assert verdict["t_floor"] <= verdict["t_bound"] <= verdict["t_model"]
