"""Split-K (issue 41, issue 39's wave tail under the declared schedule): `split_k k0 = S`
written out as a grid of S times the blocks (lang.split_k), the partial tiles' fix-up at
global memory (count.fixup, CUTLASS's parallel split-K), the brute-force oracle agreeing,
the order t_floor <= t_bound <= t_model, and `tune` splitting a skinny GEMM."""

import json
from fractions import Fraction

import pytest
from conftest import SPECS

from kernelcost.algebra.sympy_scope import patched
from kernelcost.analysis.api import broken_assumptions, loads
from kernelcost.answers.model import verdict
from kernelcost.answers.tune import tune
from kernelcost.base.errors import KcostError
from kernelcost.base.kinds import Raster
from kernelcost.base.levels import Level
from kernelcost.cli import main
from kernelcost.gpu import block_enumeration, wave_classes
from kernelcost.gpu.block_classes import numeric_sizes
from kernelcost.gpu.block_enumeration import raster_order
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.varied import parse_vary
from kernelcost.oracle import compare, enumerate_counts

H100, H200 = load_machine("h100"), load_machine("h200")
HOPPER = SPECS / "gemm_hopper.kcost"

SMALL = """kernel gemm_split(M, N, K, TM = 4, TN = 4, TK = 4) {
    assume TM | M, TN | N, TK | K
    in  A: bf16[M, K]
    in  B: bf16[K, N]
    out C: bf16[M, N]

    for i0 in 0..M by TM, j0 in 0..N by TN parallel(threads = 128, split_k k0 = SPLIT) {
        let acc: f32[TM, TN] in registers = 0
        for k0 in 0..K by TK {
            keep A, B in shared {
                for i in i0..i0 + TM, j in j0..j0 + TN, k in k0..k0 + TK {
                    acc[i - i0, j - j0] += A[i, k] * B[k, j]
                }
            }
        }
        for i in i0..i0 + TM, j in j0..j0 + TN {
            C[i, j] = acc[i - i0, j - j0]
        }
    }
}
"""


def small(split: int):
    return loads(SMALL.replace("SPLIT", str(split)), "gemm_split.kcost")


def test_a_small_split_gemm_by_hand_and_by_enumeration():
    # M = N = 8, K = 32, 4 x 4 x 4 tiles, S = 2: 2 x 2 output tiles, each in 2 splits
    sizes = {"M": 8, "N": 8, "K": 32}
    spec = small(2)
    cost = spec.cost()
    with patched():
        at = {**cost.defaults, **{spec.parameters[n]: v for n, v in sizes.items()}}
        grid = cost.grid
        assert grid.blocks.subs(at) == 2 * 2 * 2  # tiles x splits
        # a block runs K / (S TK) = 4 of the 8 k-steps: 2 x 4 x 4 x 4 FLOP each
        assert grid.work["tensor"].subs(at) == 2 * 4 * 4 * 4 * 4
        # the fix-up: each split writes its 8 x 8 partial in fp32 and the reduction reads
        # it back, 2 x 4 B x S x M x N; A and B once (bf16), C once by the reduction
        fixup = 2 * 4 * 2 * 8 * 8
        assert grid.fixup_B.subs(at) == fixup == 1024
        assert cost.traffic[Level.GLOBAL].subs(at) == 2 * (32 * 8 + 32 * 8) + 2 * 64 + fixup
        assert cost.compulsory_B.subs(at) == 2 * (32 * 8 + 32 * 8) + 2 * 64  # t_floor's
        found = verdict(cost, H100, values=sizes)
    # 8 blocks on 132 SMs: one wave, one block on the busiest SM
    assert (found.grid.occupancy.blocks, found.grid.occupancy.waves) == (8, 1)
    counts = enumerate_counts(spec.checked, sizes)
    assert counts.traffic[Level.GLOBAL] == Fraction(2 * 512 + 128 + 1024)
    assert len(counts.blocks) == 8
    assert not [c for c in compare(cost, counts) if not c.ok]


def test_a_split_of_one_is_the_unsplit_kernel():
    sizes = {"M": 8, "N": 8, "K": 32}
    with patched():
        one = verdict(small(1).cost(), H100, values=sizes)
        unsplit = loads(SMALL.replace(", split_k k0 = SPLIT", ""), "plain.kcost")
        plain = verdict(unsplit.cost(), H100, values=sizes)
    assert (one.t_floor, one.t_bound, one.t_model) == (plain.t_floor, plain.t_bound,
                                                       plain.t_model)


@pytest.mark.parametrize("split", [2, 4, 8])
@pytest.mark.parametrize("machine", [H100, H200], ids=["h100", "h200"])
def test_the_three_times_stay_in_order(split, machine):
    for m, n, k in ((512, 512, 65536), (4096, 4096, 4096), (256, 1024, 16384)):
        text = HOPPER.read_text().replace("split_k k0 = 1", f"split_k k0 = {split}")
        spec = loads(text, "gemm_hopper_split.kcost")
        with patched():
            found = verdict(spec.cost(), machine, values={"M": m, "N": n, "K": k})
        assert found.t_floor <= found.t_bound <= found.t_model, (m, n, k)


@pytest.mark.parametrize(("header", "message"), [
    ("split_k = 2", "`split_k` needs the loop it splits"),
    # i0 is the grid's own iterator, not a loop its blocks run
    ("split_k i0 = 2", "`i0` is not a sequential loop directly inside the parallel header"),
    ("split_k k0 = 0", "a split count must be positive"),
])
def test_a_wrong_split_is_refused_at_its_place(header, message):
    with pytest.raises(KcostError) as error:
        loads(SMALL.replace("split_k k0 = SPLIT", header), "wrong.kcost")
    assert message in str(error.value)
    assert error.value.code in ("KC214", "KC211")


def test_a_split_that_does_not_divide_the_k_steps_is_refused():
    # K = 40 has 10 k-steps of 4: 3 splits cannot share them equally
    spec = small(3)
    values = {**spec.checked.defaults, **{spec.parameters[n]: v for n, v in
                                          {"M": 8, "N": 8, "K": 40}.items()}}
    (broken,) = broken_assumptions(spec.checked, values)
    assert broken.startswith("`assume 3*TK | K` does not hold")
    assert not broken_assumptions(spec.checked, {**values, spec.parameters["K"]: 36})


def test_tune_splits_the_skinny_gemm():
    # M = N = 512, K = 65536, gemm_hopper's 128 x 256 x 64 tile: 4 x 2 = 8 tiles for 132
    # SMs. Splitting K 8 ways gives 64 blocks, still one wave and one block on the busiest
    # SM, each running 65536 / 8 of K: 2 x 128 x 256 x 8192 FLOP on one SM's tensor rate
    ranking = tune(HOPPER, H100, parse_vary("split_k=1..8"), None,
                   {"M": "512", "N": "512", "K": "65536"}, rescore=8)
    best = ranking.top[0]
    assert ranking.parameters[-1] == "split_k" and best.values[-1] == 8
    machine = H100.at_max_clock
    tensor = machine.ceiling("bf16", "tensor").peak_FLOPps
    t_tensor = 2 * 128 * 256 * 8192 * machine.sm_count / tensor
    # global: A and B once, C once, and 2 x 4 B x 8 x 512 x 512 of partial tiles
    global_B = 2 * 512 * 65536 * 2 + 2 * 512 * 512 + 2 * 4 * 8 * 512 * 512
    assert global_B == 151_519_232
    t_global = global_B / machine.bandwidth(Level.GLOBAL)
    assert t_global < t_tensor
    assert best.t_bound == pytest.approx(t_tensor, rel=1e-9)
    unsplit = next(row for row in ranking.top if row.values[-1] == 1)
    # one split: 8 blocks each running all of K, 8x the busiest SM's work
    assert unsplit.t_bound == pytest.approx(8 * t_tensor, rel=1e-9)


def test_a_grouped_raster_runs_each_split_in_turn():
    # 4 x 2 tiles of 4 x 4 in grouped(2) order, split 2: split 0's blocks (rows 0-1 column by
    # column, then rows 2-3), then split 1's the same way (CUTLASS's split is blockIdx.z)
    spec = loads(SMALL.replace("SPLIT", "2").replace("threads = 128",
                                                      "threads = 128, raster = grouped(2)"),
                 "grouped.kcost")
    values = {**spec.checked.defaults,
              **{spec.parameters[n]: v for n, v in {"M": 16, "N": 8, "K": 32}.items()}}
    within = [(0, 0), (4, 0), (0, 4), (4, 4), (8, 0), (12, 0), (8, 4), (12, 4)]
    expected = [(split, i0, j0) for split in (0, 1) for i0, j0 in within]
    assert raster_order(spec.cost().grid, values) == expected


@pytest.mark.parametrize("wave_blocks", [7, 50, 132])
def test_batched_grouped_waves_by_classes_equal_the_enumeration(wave_blocks):
    # gemm_hopper split 2 at 2048 x 2048 x 1024: 16 x 8 tiles x 2 splits = 256 blocks, waves
    # that start and end inside a split and cross from one split to the next
    text = HOPPER.read_text().replace("split_k k0 = 1", "split_k k0 = 2")
    spec = loads(text, "gemm_hopper_split.kcost")
    grid = spec.cost().grid
    values = {**spec.checked.defaults,
              **{spec.parameters[n]: v for n, v in {"M": 2048, "N": 2048, "K": 1024}.items()}}
    sizes = numeric_sizes(values)
    by_classes = wave_classes.wave_unions(grid, sizes, wave_blocks)
    by_blocks = block_enumeration.wave_unions(grid, sizes, wave_blocks)
    assert by_classes.raster == by_blocks.raster == Raster.GROUPED
    assert by_classes.by_tensor == by_blocks.by_tensor
    assert by_classes.step_union == by_blocks.step_union


def test_the_under_filled_grid_counts_the_split_it_has(tmp_path, capsys):
    # split 4 of 8 tiles: 32 blocks for 132 SMs, ceil(132 / 32) = 5 times the blocks would
    # fill them, so 5 x 4 = 20 parts of the k-loop
    path = tmp_path / "gemm_hopper_split4.kcost"
    path.write_text(HOPPER.read_text().replace("split_k k0 = 1", "split_k k0 = 4"))
    assert main(["analyze", str(path), "--machine", "h100", "--set",
                 "M=512,N=512,K=65536"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "32 blocks for 132 SMs leave 100 idle" in out
    assert "split-K along k0 (20 ways, where the spec splits 4)" in out


def _validated(tmp_path, capsys, sizes: str, code: int = 0) -> dict:
    results = tmp_path / "runs.csv"
    results.write_text("kernel,spec,sizes,dtype,time_s,dram_bytes,l2_bytes,flop\n"
                       f"gemm_tallk,{HOPPER},{sizes},bf16,1.782880e-04,287990528,,\n")
    assert main(["validate", str(results), "--machine", "h200", "--json"]) == code
    return json.loads(capsys.readouterr().out)["rows"][0]


def test_a_measured_row_names_the_split_that_ran(tmp_path, capsys):
    # validate/README.md: cuBLAS split the tall K four ways (ncu's names and DRAM counter);
    # the row says SPLIT_K=4, opened from the spec's `split_k k0 = 1` as tune opens it.
    row = _validated(tmp_path, capsys, "M=1024;N=1024;K=65536;SPLIT_K=4")
    # by hand: 8 x 4 tiles x 4 splits = 128 blocks, one an SM; each 128 x 256 x 16384 MACs
    # = 1,073,741,824 FLOP at one SM's 4096 FLOP/clk x 1.98 GHz
    assert row["t_bound"] == pytest.approx(2 * 128 * 256 * 16384 / (4096 * 1.98e9), rel=1e-12)
    # A, B and C once, and the four fp32 partial tiles written and read back
    compulsory = 2 * (1024 * 65536 * 2 + 1024 * 1024)
    assert row["counters"]["dram_bytes"]["predicted"] == compulsory + 2 * 4 * 4 * 1024 * 1024
    # the same verdict as the spec written with the split
    with patched():
        text = HOPPER.read_text().replace("split_k k0 = 1", "split_k k0 = 4")
        written = verdict(loads(text, "gemm_hopper_split4.kcost").cost(), H200,
                          values={"M": 1024, "N": 1024, "K": 65536})
    assert row["t_model"] == pytest.approx(float(written.t_model), rel=1e-12)
    # unsplit: 32 blocks, each all of K, four times the time on its SM (and beaten: exit 1)
    unsplit = _validated(tmp_path, capsys, "M=1024;N=1024;K=65536", code=1)
    assert unsplit["t_bound"] == pytest.approx(4 * row["t_bound"], rel=1e-12)


@pytest.mark.parametrize("row, machine, said", [
    # the rewrite's fact written as itself (not the text of the setting that asked for it)
    (f"gemm_tallk,{HOPPER},M=1024;N=1024;K=65536;SPLIT_K=3,bf16,1e-4,,,", "h200",
     ("`assume SPLIT_K*TK | K` does not hold at K = 65536: 65536 is not a multiple of "
      "SPLIT_K*TK = 192", "a split that divides its k-steps")),
    # a split named for a spec that writes none
    (f"copy,{SPECS / 'copy.kcost'},n=4096;SPLIT_K=2,fp32,1e-3,,,", "h100",
     ("copy writes no number for `split_k`",)),
])
def test_a_split_the_spec_cannot_take_is_refused_at_the_row(tmp_path, capsys, row, machine,
                                                             said):
    results = tmp_path / "runs.csv"
    results.write_text(f"kernel,spec,sizes,dtype,time_s,dram_bytes,l2_bytes,flop\n{row}\n")
    assert main(["validate", str(results), "--machine", machine]) == 2
    err = capsys.readouterr().err
    assert f"{results}:2:" in err
    assert all(words in err for words in said), err
