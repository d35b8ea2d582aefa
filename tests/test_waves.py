"""The wave-union estimate (kernelcost.gpu.waves) against brute force: the oracle enumerates the
blocks and the elements each touches, the raster is re-implemented here straight from its
definition (Triton's formula for grouped), the launch order is cut into waves and element
sets are united with Python sets."""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from fractions import Fraction
from functools import cache

import pytest
import sympy

import kernelcost
from kernelcost.base.kinds import WaveRule
from kernelcost.count.cost import TileBox
from kernelcost.gpu import block_enumeration as waves_module
from kernelcost.gpu.waves import estimate, raster_order
from kernelcost.oracle import enumerate_counts
from kernelcost.present.model_text import wave_reason_text

HUGE_L2 = 1e18  # the fit test always passes: the wave rule applies

# Divisible tiles, the accumulator in registers and C written after the k loop (as in
# gemm_hopper); CLIPPED clips edge tiles with min, so any M, N, K go.
GEMM = """
kernel gemm(M, N, K, TM = 4, TN = 8, TK = 4) {
    assume TM | M, TN | N, TK | K
    in  A: bf16[M, K]
    in  B: bf16[K, N]
    out C: bf16[M, N]
    for i0 in 0..M by TM, j0 in 0..N by TN parallel(threads = 128, raster = RASTER) {
        let acc: f32[TM, TN] in registers = 0
        for k0 in 0..K by TK {
            keep A, B in shared stages 2 {
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
CLIPPED = """
kernel gemm_clipped(M, N, K, TM = 4, TN = 8, TK = 4) {
    in  A: bf16[M, K]
    in  B: bf16[K, N]
    out C: bf16[M, N]
    for i0 in 0..M by TM, j0 in 0..N by TN parallel(threads = 128, raster = RASTER) {
        for k0 in 0..K by TK {
            keep A, B in shared stages 2 {
                for i in i0..min(i0 + TM, M), j in j0..min(j0 + TN, N) {
                    for k in k0..min(k0 + TK, K) {
                        C[i, j] += A[i, k] * B[k, j]
                    }
                }
            }
        }
    }
}
"""
RASTERS = ("row", "column", "grouped(2)", "grouped(3)", "grouped(8)")
DIVISIBLE_SHAPES = ({"M": 28, "N": 40, "K": 8}, {"M": 16, "N": 64, "K": 4},
                    {"M": 32, "N": 24, "K": 8})
RAGGED_SHAPES = ({"M": 26, "N": 37, "K": 7}, {"M": 13, "N": 50, "K": 5},
                 {"M": 30, "N": 17, "K": 9})
MACHINES = tuple(itertools.product((3, 5, 8), (1, 2)))  # (SMs, resident blocks per SM)


@cache
def spec(text: str, raster: str = "row"):
    return kernelcost.loads(text.replace("RASTER", raster))


@cache
def oracle_blocks(text: str, sizes: tuple) -> tuple:
    """(coordinates tuple, {tensor: elements}) per block, in grid order."""
    counts = enumerate_counts(spec(text).checked, dict(sizes))
    return tuple((tuple(block.coordinates.values()), block.elements) for block in counts.blocks)


def values_of(text: str, sizes: dict) -> dict:
    cost = spec(text).cost()
    return {symbol: sympy.Integer(sizes.get(symbol.name, cost.defaults.get(symbol)))
            for symbol in cost.parameters}


def launch_order(coordinates: list[tuple], raster: str) -> list[tuple]:
    """The raster by its definition, from the blocks in grid (row-major) order."""
    if raster == "row":
        return list(coordinates)
    if raster == "column":  # the first iterator fastest
        return sorted(coordinates, key=lambda c: tuple(reversed(c)))
    group = int(raster[len("grouped("):-1])
    # the axes before the last two are batches, the slowest (a split-K grid's splits)
    batches = sorted({c[:-2] for c in coordinates})
    rows = sorted({c[-2] for c in coordinates})
    cols = sorted({c[-1] for c in coordinates})
    num_m, num_n = len(rows), len(cols)
    order = []
    for batch in batches:
        for pid in range(num_m * num_n):  # Triton's grouped ordering
            group_id = pid // (group * num_n)
            first_m = group_id * group
            size_m = min(num_m - first_m, group)
            pid_m = first_m + (pid % (group * num_n)) % size_m
            pid_n = (pid % (group * num_n)) // size_m
            order.append((*batch, rows[pid_m], cols[pid_n]))
    return order


def brute_waves(blocks: tuple, raster: str, wave_blocks: int, element_bytes: dict) -> list:
    """Per wave and tensor, the bytes of the distinct elements its blocks touch."""
    elements = dict(blocks)
    order = launch_order([coordinates for coordinates, _ in blocks], raster)
    waves = []
    for start in range(0, len(order), wave_blocks):
        wave = order[start:start + wave_blocks]
        waves.append({tensor: Fraction(len(set().union(
            *(elements[c].get(tensor, frozenset()) for c in wave)))) * size
            for tensor, size in element_bytes.items()})
    return waves


def brute_force(blocks: tuple, raster: str, wave_blocks: int, element_bytes: dict) -> dict:
    """HBM bytes per tensor: each wave's distinct elements, summed over the waves."""
    waves = brute_waves(blocks, raster, wave_blocks, element_bytes)
    return {tensor: sum((wave[tensor] for wave in waves), Fraction(0))
            for tensor in element_bytes}


def brute_step_bytes(blocks: tuple, raster: str, wave_blocks: int, sizes: dict,
                     stages: int) -> Fraction:
    """The largest wave's first k step (k0 = 0), x stages: its distinct A row tiles x TM x TK
    and B column tiles x TK x TN (clipped at the edges), 2 bytes each."""
    order = launch_order([coordinates for coordinates, _ in blocks], raster)
    tm, tn, tk = 4, 8, 4
    largest = 0
    for start in range(0, len(order), wave_blocks):
        wave = order[start:start + wave_blocks]
        a = sum(min(tm, sizes["M"] - i0) for i0 in {i0 for i0, _ in wave})
        b = sum(min(tn, sizes["N"] - j0) for j0 in {j0 for _, j0 in wave})
        largest = max(largest, 2 * min(tk, sizes["K"]) * (a + b))
    return Fraction(largest * stages)


def exact_clipped_boxes(grid):
    """The clipped GEMM's tile boxes written out exactly: the count's boxes drop the min
    (they are sound bounding boxes, [i0, M - 1]), which the estimate takes as an upper
    bound; with these the union must match element for element."""
    i0, j0 = grid.iterators
    k0 = grid.step_iterator
    M, N, K, TM, TN, TK = sympy.symbols("M N K TM TN TK", integer=True, positive=True)
    rows, cols = (i0, sympy.Min(i0 + TM, M) - 1), (j0, sympy.Min(j0 + TN, N) - 1)
    ks = (k0, sympy.Min(k0 + TK, K) - 1)
    return dataclasses.replace(grid, tiles=(
        TileBox("A", sympy.Integer(2), (rows, (0, K - 1)), (rows, ks), True),
        TileBox("B", sympy.Integer(2), ((0, K - 1), cols), (ks, cols), True),
        TileBox("C", sympy.Integer(2), (rows, cols), (rows, cols), True)))


@pytest.mark.parametrize("raster", RASTERS)
@pytest.mark.parametrize("sizes", DIVISIBLE_SHAPES, ids=str)
def test_divisible_gemm_matches_brute_force(raster, sizes):
    grid = spec(GEMM, raster).cost().grid
    blocks = oracle_blocks(GEMM, tuple(sizes.items()))
    values = values_of(GEMM, sizes)
    coordinates = [c for c, _ in blocks]
    assert raster_order(grid, values) == launch_order(coordinates, raster)
    for sms, resident in MACHINES:
        result = estimate(grid, values, sms, resident, usable_l2_B=HUGE_L2,
                          stages=2, fills_B=Fraction(0))
        wave_blocks = sms * resident
        assert result.waves == math.ceil(len(blocks) / wave_blocks)
        assert result.rule == (WaveRule.ONE_WAVE if result.waves == 1 else WaveRule.WAVE_UNION)
        expected = brute_force(blocks, raster, wave_blocks, {"A": 2, "B": 2, "C": 2})
        assert result.bytes_by_tensor == expected, (sms, resident)
        assert result.total_B == sum(expected.values())
        assert result.step_B == brute_step_bytes(blocks, raster, wave_blocks, sizes, 2)


@pytest.mark.parametrize("raster", RASTERS)
@pytest.mark.parametrize("sizes", RAGGED_SHAPES, ids=str)
def test_ragged_gemm_matches_brute_force(raster, sizes):
    counted = spec(CLIPPED, raster).cost().grid
    grid = exact_clipped_boxes(counted)
    blocks = oracle_blocks(CLIPPED, tuple(sizes.items()))
    values = values_of(CLIPPED, sizes)
    assert raster_order(grid, values) == launch_order([c for c, _ in blocks], raster)
    for sms, resident in MACHINES:
        wave_blocks = sms * resident
        expected = brute_force(blocks, raster, wave_blocks, {"A": 2, "B": 2, "C": 2})
        result = estimate(grid, values, sms, resident, usable_l2_B=HUGE_L2,
                          stages=2, fills_B=Fraction(0))
        assert result.bytes_by_tensor == expected, (sms, resident)
        # C is read and written inside the k loop here: it is part of the step
        c_step = max(2 * sum(min(4, sizes["M"] - i0) * min(8, sizes["N"] - j0)
                             for i0, j0 in launch_order([c for c, _ in blocks], raster)
                             [start:start + wave_blocks])
                     for start in range(0, len(blocks), wave_blocks))
        assert result.step_B >= brute_step_bytes(blocks, raster, wave_blocks, sizes, 2)
        assert result.step_B <= brute_step_bytes(blocks, raster, wave_blocks, sizes, 2) \
            + 2 * c_step
        # the count's own boxes are bounding boxes: an upper bound, and said so
        bound = estimate(counted, values, sms, resident, usable_l2_B=HUGE_L2,
                         stages=2, fills_B=Fraction(0))
        assert all(bound.bytes_by_tensor[t] >= expected[t] for t in expected)
        assert "bounding boxes, an upper bound" in wave_reason_text(bound)


def test_a_step_over_usable_l2_pays_the_share_of_the_fills_l2_does_not_hold():
    sizes = {"M": 28, "N": 40, "K": 8}
    grid = spec(GEMM, "grouped(3)").cost().grid
    values = values_of(GEMM, sizes)
    fits = estimate(grid, values, 5, 1, usable_l2_B=HUGE_L2, stages=2, fills_B=Fraction(0))
    # just enough L2 for the largest wave's step x stages, and one byte less
    at_edge = estimate(grid, values, 5, 1, usable_l2_B=float(fits.step_B),
                       stages=2, fills_B=Fraction(999))
    assert at_edge.rule == WaveRule.WAVE_UNION and at_edge.total_B == fits.total_B
    # half the step's working set held: the union and half the fills beyond it
    half = estimate(grid, values, 5, 1, usable_l2_B=float(fits.step_B) / 2,
                    stages=2, fills_B=fits.total_B + 1000)
    assert half.rule == WaveRule.PARTIAL and half.total_B == fits.total_B + 500
    assert half.bytes_by_tensor == {} and "which holds 50%" in wave_reason_text(half)
    # one byte short of the step: continuous with the union at the edge
    short = estimate(grid, values, 5, 1, usable_l2_B=float(fits.step_B) - 1,
                     stages=2, fills_B=fits.total_B + 1000)
    assert short.total_B == fits.total_B + Fraction(1000, int(fits.step_B))
    # per tensor: each tensor's union and the missed share of its fills beyond it (fills
    # under the union, an out tensor's, add nothing)
    unions = fits.bytes_by_tensor
    split = {name: union + 100 for name, union in unions.items()}
    split["C"] = Fraction(0)
    quarter = estimate(grid, values, 5, 1, usable_l2_B=float(fits.step_B) / 4, stages=2,
                       fills_B=split)
    assert quarter.bytes_by_tensor == {"A": unions["A"] + 75, "B": unions["B"] + 75,
                                       "C": unions["C"]}
    assert quarter.total_B == sum(quarter.bytes_by_tensor.values())


TRIANGLE = """
kernel tri(M, T = 4) {
    assume T | M
    in  A: f32[M, M]
    out C: f32[M, M]
    for i0 in 0..M by T, j0 in 0..i0 + T by T parallel(threads = 64, raster = RASTER) {
        for i in i0..i0 + T, j in j0..j0 + T {
            C[i, j] = A[i, j] * 2
        }
    }
}
"""
BOX3 = """
kernel box3(N, T = 4) {
    assume T | N
    in  X: f32[N + 2, N + 2]
    out Y: f32[N, N]
    for i0 in 0..N by T, j0 in 0..N by T parallel(threads = 64, raster = RASTER) {
        for i in i0..i0 + T, j in j0..j0 + T, a in 0..3, b in 0..3 {
            Y[i, j] += X[i + a, j + b]
        }
    }
}
"""


@pytest.mark.parametrize("raster", ("row", "column", "grouped(2)"))
def test_triangular_grid_nests_its_trips(raster):
    """j0's trip count holds i0: the grid is enumerated nested; grouped needs a rectangle
    and falls back to row order, saying so."""
    sizes = {"M": 20}
    grid = spec(TRIANGLE, raster).cost().grid
    blocks = oracle_blocks(TRIANGLE, tuple(sizes.items()))
    values = values_of(TRIANGLE, sizes)
    used = "row" if raster.startswith("grouped") else raster
    assert raster_order(grid, values) == launch_order([c for c, _ in blocks], used)
    for sms, resident in MACHINES:
        result = estimate(grid, values, sms, resident, usable_l2_B=HUGE_L2,
                          stages=1, fills_B=Fraction(0))
        assert result.bytes_by_tensor == brute_force(blocks, used, sms * resident,
                                                     {"A": 4, "C": 4})
        assert ("row order used" in wave_reason_text(result)) == (used != raster)


@pytest.mark.parametrize("slab_cells", (1 << 22, 7))  # 7: the union grid in many slabs
@pytest.mark.parametrize("raster", ("row", "column", "grouped(2)"))
def test_overlapping_halos_are_united_exactly(raster, slab_cells, monkeypatch):
    """3 x 3 box filter: neighbouring blocks' X boxes overlap by two rows and columns, so
    the union takes the coordinate-compression path. Without a keep, its one sequential loop
    (i) is the step the fit test looks at: under the whole wave's union, never over it."""
    monkeypatch.setattr(waves_module, "MAX_CELLS", slab_cells)
    sizes = {"N": 24}
    grid = spec(BOX3, raster).cost().grid
    blocks = oracle_blocks(BOX3, tuple(sizes.items()))
    values = values_of(BOX3, sizes)
    for sms, resident in MACHINES:
        expected = brute_force(blocks, raster, sms * resident, {"X": 4, "Y": 4})
        result = estimate(grid, values, sms, resident, usable_l2_B=HUGE_L2,
                          stages=1, fills_B=Fraction(0))
        assert result.bytes_by_tensor == expected
        waves = brute_waves(blocks, raster, sms * resident, {"X": 4, "Y": 4})
        assert 0 < result.step_B < max(sum(wave.values()) for wave in waves)
    assert grid.step_iterator is not None and grid.step_iterator.name == "i"


def test_gemm_hopper_on_h200_by_hand(spec_cost):
    """M = N = K = 8192: 64 x 32 = 2048 blocks of 128 x 256; 132 SMs x 1 resident: 16 waves
    (15 of 132 blocks, the last of 68). grouped(8): a group is 8 row tiles x 32 column tiles
    = 256 blocks, column-major, so a wave of 132 = 16.5 columns of 8 blocks:
    - waves 0, 2, ..., 14 lie inside one group: 8 row tiles of A and 17 column tiles of B;
    - waves 1, 3, ..., 13 cross into the next group (wave 1: columns 16-31 of rows 0-7, then
      column 0 of rows 8-15): 16 row tiles of A and 17 column tiles of B;
    - wave 15 (68 blocks, 8.5 columns): 8 row tiles, 9 column tiles.
    A: 8 x 8 + 7 x 16 + 8 = 184 row tiles of 128 x 8192; B: 15 x 17 + 9 = 264 column tiles
    of 8192 x 256; C once, 8192^2; 2 bytes each.
    Fit: the largest step (k0 = 0) is 16 A tiles of 128 x 64 and 17 B tiles of 64 x 256:
    16 x 16 KiB + 17 x 32 KiB = 800 KiB, x 4 stages = 3.125 MiB <= 0.7 x 60 MiB = 42 MiB."""
    cost = spec_cost("gemm_hopper")
    values = {symbol: sympy.Integer(cost.defaults.get(symbol, 8192)) for symbol in cost.parameters}
    usable = 0.7 * 60 * 2**20
    result = estimate(cost.grid, values, 132, 1, usable_l2_B=usable, stages=4, fills_B=Fraction(0))
    assert (result.waves, result.wave_blocks, result.rule) == (16, 132, WaveRule.WAVE_UNION)
    assert result.bytes_by_tensor == {"A": Fraction(184 * 128 * 8192 * 2),
                                      "B": Fraction(264 * 8192 * 256 * 2),
                                      "C": Fraction(8192 * 8192 * 2)}
    assert result.step_B == (16 * 128 * 64 * 2 + 17 * 64 * 256 * 2) * 4 == 3276800
    reason = wave_reason_text(result)
    assert "16 waves of 132" in reason and "grouped(8)" in reason
    # with L2 smaller than a step's working set (3 MiB of 3.125: 96 %), the union and the
    # other 4 % of the keep fills beyond it
    fills = Fraction(2 * 8192**3 * 2 // 128 + 2 * 8192**3 * 2 // 256)
    small = estimate(cost.grid, values, 132, 1, usable_l2_B=3 * 2**20, stages=4, fills_B=fills)
    union = sum(result.bytes_by_tensor.values())
    assert small.rule == WaveRule.PARTIAL
    assert small.total_B == union + (fills - union) * (1 - Fraction(3 * 2**20, 3276800))


def test_hundred_thousand_blocks_under_a_second(spec_cost):
    cost = spec_cost("gemm_hopper")
    sizes = {"M": 320 * 128, "N": 320 * 256, "K": 8192}  # 320 x 320 = 102400 blocks
    values = {symbol: sympy.Integer(sizes.get(symbol.name, cost.defaults.get(symbol)))
              for symbol in cost.parameters}
    for raster in ("row", "column", "grouped"):
        grid = dataclasses.replace(cost.grid, raster=raster)
        start = time.perf_counter()
        result = estimate(grid, values, 132, 2, usable_l2_B=50e6, stages=4, fills_B=Fraction(0))
        assert time.perf_counter() - start < 1.0, raster
        assert (result.waves, result.wave_blocks) == (388, 264)  # ceil(102400 / 264)
    # overlapping boxes (halos) go through coordinate compression, wave by wave
    halo = spec(BOX3, "grouped(8)").cost()
    values = {symbol: sympy.Integer({"N": 1264, "T": 4}[symbol.name])
              for symbol in halo.parameters}  # 316 x 316 = 99856 blocks
    start = time.perf_counter()
    result = estimate(halo.grid, values, 132, 1, usable_l2_B=50e6, stages=1, fills_B=Fraction(0))
    assert time.perf_counter() - start < 1.0 and result.waves == 757
