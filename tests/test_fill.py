"""Grids of fewer blocks than SMs (issue 34, item 4): the verdict names the under-filled grid,
what would fill it, and one regime. gemm_hopper at M = N = K = 512 on H100: 128 x 256 tiles
make 4 x 2 = 8 blocks on 132 SMs; the busiest SM's one block does 2 x 128 x 256 x 512 FLOP
at 990 TFLOP/s / 132 = 4.47 us, where the whole machine would need 0.27 us."""

import json

import pytest
import sympy
from conftest import SPECS, size

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.answers.regimes import Regime
from kernelcost.cli import main
from kernelcost.gpu.fill import grid_fill
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.roofs import roof_name

H100 = load_machine("h100")
SIZES_512 = {"M": 512, "N": 512, "K": 512}


def hopper_verdict(sizes, machine=H100):
    cost = kernelcost.load(SPECS / "gemm_hopper.kcost").cost()
    return verdict(cost, machine, None, {size(k): sympy.Integer(v) for k, v in sizes.items()})


def test_the_512_cube_is_under_filled_and_says_what_fills_it():
    result = hopper_verdict(SIZES_512)
    fill = result.grid.fill
    assert (fill.blocks, fill.sm_count, fill.fill_factor) == (8, 132, 17)  # ceil(132 / 8)
    assert fill.share == sympy.Rational(8, 132)
    assert fill.binds and roof_name(result.bound) == "bf16 tensor peak"
    assert fill.split_iterator == "k0" and fill.tile_iterators == ("i0", "j0")
    assert result.regime == Regime.UNDERFILLED
    # one block's tile on one SM: 990e12 / 132 as given, 4096 FLOP/clk x 1.98 GHz at the
    # maximum clock (the H100 whitepaper's dense bf16 rate per SM)
    assert float(result.t_min) == pytest.approx(2 * 128 * 256 * 512 / (990e12 / 132))
    assert float(result.t_bound) == pytest.approx(2 * 128 * 256 * 512 / (4096 * 1.98e9))


def test_the_512_cube_states_one_regime_in_the_text(capsys):
    assert main(["analyze", str(SPECS / "gemm_hopper.kcost"), "--set", "M=512,N=512,K=512",
                 "--machine", "h100", "--no-verify"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    answer = out[out.index("under-filled on H100 BF16"):]
    assert "8 blocks for 132 SMs leave 124 idle (the grid fills 6 % of the machine)" in answer
    assert "split-K along k0 (17 ways) or smaller tiles along i0, j0" in answer
    assert "memory-bound" not in answer and "compute-bound" not in answer


def test_the_fill_is_in_the_json(capsys):
    assert main(["analyze", str(SPECS / "gemm_hopper.kcost"), "--set", "M=512,N=512,K=512",
                 "--machine", "h100", "--no-verify", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    answer = document["answers"][0]
    assert answer["regime"] == "under-filled"
    assert document["verdicts"][0]["grid"]["fill"] == {
        "blocks": 8, "sm_count": 132, "share": pytest.approx(8 / 132), "fill_factor": 17,
        "binds": True, "split_iterator": "k0", "tile_iterators": ["i0", "j0"]}
    assert answer["t_floor"] <= answer["t_bound"] <= answer["t_model"]


def test_a_grid_that_fills_the_machine_has_no_fill():
    result = hopper_verdict({"M": 8192, "N": 8192, "K": 8192})
    assert result.grid.fill is None and result.regime == "compute-bound"


def test_a_small_grid_bound_by_hbm_is_named_without_changing_the_regime(capsys):
    """decode_attention at b = 1 on H100: 64 blocks on 132 SMs, HBM binds (a device roof,
    which the idle SMs do not change): memory-bound, and the grid is named."""
    assert main(["analyze", str(SPECS / "decode_attention.kcost"), "--set", "b=1,h=32,L=4096",
                 "--machine", "h100", "--no-verify", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)["answers"][0]
    assert answer["regime"] == "memory-bound"
    assert "64 blocks for 132 SMs leave 68 idle" in answer["sentence"]


def test_no_fill_where_the_blocks_are_no_number():
    cost = kernelcost.load(SPECS / "gemm_hopper.kcost").cost()
    assert grid_fill(cost.grid, cost.grid.blocks, 132, {}, True) is None
