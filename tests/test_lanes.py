"""Thread mapping and transfer efficiency (issue 13, items 1 and 2): `lanes` loops, 32-byte
sectors between L1 and L2, what HBM sees, shared-memory bank conflicts. Closed forms (lanes.py)
against the hardware rules worked by hand and against the oracle's enumeration of every lane
of every warp (oracle/lanes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

from kernelcost.analysis.api import load, loads
from kernelcost.answers.model import verdict
from kernelcost.count.lanes import bank_degree, bank_wavefronts, sectors_per_warp
from kernelcost.hardware.machinefile import load_machine
from kernelcost.oracle import enumerate_lanes
from kernelcost.present.derate_text import derate_text
from kernelcost.present.roofs import roof_name

SPECS = Path(__file__).parent.parent / "specs"
H100 = load_machine("h100")


def spec(name: str):
    return load(SPECS / f"{name}.kcost")


def on_h100(analysis, **sizes):
    return verdict(analysis.cost("spec"), H100, values=sizes)


def transfer(result, tensor: str, is_write: bool):
    [found] = [t for t in result.grid.transfers
               if t.access.tensor == tensor and t.access.is_write == is_write]
    return found


def derate(result, cause):
    found = [d for d in result.derates if d.cause == cause]
    return found[0] if found else None


# --- one warp instruction, by hand --------------------------------------------------------

def test_sectors_of_one_warp_of_f32_loads():
    assert sectors_per_warp(4, 4) == 4  # 32 x 4 B contiguous: 128 B, 4 sectors
    assert sectors_per_warp(8, 4) == 8  # every other float: 256 B span
    assert sectors_per_warp(32, 4) == 32  # one sector a lane
    assert sectors_per_warp(4096, 4) == 32  # a column of a 1024-wide matrix
    assert sectors_per_warp(0, 4) == 1  # a broadcast
    assert sectors_per_warp(2, 2) == 2  # 32 bf16: 64 B
    assert sectors_per_warp(16, 16) == 16  # 32 16-byte vectors: 512 B
    assert sectors_per_warp(4, 4, lanes=8) == 1  # a partial warp of 8 lanes: 32 B


@pytest.mark.parametrize("stride", range(1, 13))
def test_f32_stride_s_moves_min_s_8_times_the_useful_bytes(stride):
    # ceil((31 * 4s + 4) / 32) sectors of 32 B against 32 x 4 B useful
    moved = sectors_per_warp(4 * stride, 4) * 32
    assert sympy.Rational(moved, 128) == min(stride, 8)


def test_bank_conflicts_of_the_chapters_tiles():
    assert bank_degree(32 * 4, 4) == 32  # f32 column of a 32 x 32 tile: one bank, 32 words
    assert bank_degree(33 * 4, 4) == 1  # rows padded to 33 words: 32 banks
    assert bank_degree(32 * 2, 2) == 16  # bf16 column: 16 words per row, banks 0 and 16
    assert bank_degree(4, 4) == 1  # a row
    assert bank_degree(0, 4) == 1  # every lane the same word: a broadcast
    assert bank_degree(2, 2) == 1  # bf16 row: two lanes a word
    assert bank_degree(8, 4) == 2  # every other word: 2-way
    assert bank_degree(8, 8) == 1  # f64 row: two phases of 16 lanes, each conflict-free
    assert bank_wavefronts(8, 8) == 2
    assert bank_degree(16 * 8, 8) == 16  # f64 column of 16 doubles a row: 16-way a phase
    assert bank_degree(32 * 4, 4, swizzled_row_B=128) == 1  # XOR swizzle: a column in 32 banks
    assert bank_degree(2 * 128, 4, swizzled_row_B=128) == 2  # every other row: 16 banks
    assert bank_degree(128 + 4, 4, swizzled_row_B=128) == 32  # a diagonal: c XOR c = 0


# --- the specs ---------------------------------------------------------------------------

def test_naive_transpose_moves_8x_on_its_strided_side_1x_on_the_other():
    result = on_h100(spec("transpose_naive"), n=8192)
    assert transfer(result, "a", False).ratio == 1  # rows of A: 128 B a warp, coalesced
    assert transfer(result, "b", True).ratio == 8  # columns of B: 32 sectors for 128 B
    assert transfer(result, "b", True).per_warp == 32
    # L2 serves 8n^2 counted + 7 x 4n^2 of sector waste: the L2 bandwidth kept is 8 / 36
    assert derate(result, "sectors").factor == sympy.Rational(2, 9)
    # HBM sees each byte of B once: the other 28 B of each sector come from 7 other warps
    assert derate(result, "dram_sectors") is None
    [b] = derate(result, "sectors").finding.hbm
    assert (b.tensor, b.shared) == ("b", True)
    assert "neighbouring warps" in derate_text(derate(result, "sectors"))


def test_sectors_enter_t_model_never_t_bound():
    result = on_h100(spec("transpose_naive"), n=8192)
    bandwidth_bound = sympy.Rational(8 * 8192**2) / sympy.Rational(str(H100.bandwidth("global")))
    assert result.t_bound == bandwidth_bound  # compulsory 8n^2 at HBM, as without lanes
    [l2] = [term for term in result.grid.model_terms if term.key == "l2"]
    # L2 is latency-bound too (x0.71, Little's law) but the sectors cap it lower: the smaller
    # factor binds, the product would count the same lost bandwidth twice
    assert roof_name(l2.roof) == "l2 bandwidth (latency-bound, sectors)"
    assert l2.amount / l2.seconds == sympy.Rational(str(H100.bandwidth("l2"))) * sympy.Rational(
        2, 9)
    assert result.t_model >= l2.seconds


def test_tiled_transpose_is_coalesced_and_its_plain_tile_32_way():
    plain = on_h100(spec("transpose_tiled"), n=8192)
    assert transfer(plain, "a", False).ratio == 1
    assert transfer(plain, "b", True).ratio == 1
    assert derate(plain, "sectors") is None
    assert transfer(plain, "tile", True).ratio == 1  # stored along its rows
    assert transfer(plain, "tile", False).ratio == 32  # read down a column of 32 words
    # shared traffic 8n^2 counted; the column read's 4n^2 takes 32 times the wavefronts
    assert derate(plain, "bank_conflicts").factor == sympy.Rational(2, 2 + 31)


def test_tiled_transpose_with_padded_rows_is_conflict_free():
    padded = on_h100(spec("transpose_tiled"), n=8192, R=33)
    assert transfer(padded, "tile", False).ratio == 1
    assert derate(padded, "bank_conflicts") is None
    plain = on_h100(spec("transpose_tiled"), n=8192)
    assert padded.t_model < plain.t_model
    assert padded.t_bound == plain.t_bound  # the bound never sees an estimate


@pytest.mark.parametrize("stride", [1, 2, 3, 4, 7, 8, 9, 16])
def test_strided_read_ratio_is_min_s_8(stride):
    result = on_h100(spec("strided_read"), n=2**24, s=stride)
    assert transfer(result, "x", False).ratio == min(stride, 8)
    assert transfer(result, "y", True).ratio == 1


def test_strided_read_at_large_stride_hbm_sees_the_sectors():
    result = on_h100(spec("strided_read"), n=2**24, s=8)
    [x] = derate(result, "sectors").finding.hbm
    assert (x.tensor, x.shared) == ("x", False)
    assert "nobody uses the rest" in derate_text(derate(result, "sectors"))
    # x: n sectors of 32 B reach DRAM for 4n useful bytes; t_model's wave boxes already hold
    # the 8 x 4n bytes, so no second derate
    assert derate(result, "dram_sectors") is None
    [hbm] = [term for term in result.grid.model_terms if term.key == "global"]
    # each of the n / 1024 blocks' box of x runs from s*b0 to s*(b0 + 1023): 8 * 1023 + 1
    # values, within 1 % of its 1024 sectors; y: 4n
    assert hbm.amount == 2**24 // 1024 * (8 * 1023 + 1) * 4 + 4 * 2**24


# --- the oracle: every lane of every warp ---------------------------------------------------

BF16_COLUMN = """kernel bf16_column(n) {
    assume 32 | n
    in  a: bf16[n, n]
    out b: bf16[n, n]
    for i0 in 0..n by 32 parallel(threads = 32) {
        let tile: bf16[32, 32] in shared = 0
        for j in 0..32 {
            for i in 0..32 lanes {
                tile[i, j] = a[i0 + i, j]
            }
        }
        for i in 0..32, j in 0..32 lanes {
            b[i0 + i, j] = tile[j, i]
        }
    }
}"""

F64_PARTIAL = """kernel f64_partial(n, L = 48) {
    assume L | n
    in  x: f64[n * 2]
    out y: f64[n]
    for b0 in 0..n by L parallel(threads = 64) {
        let stage: f64[2 * L] in shared = 0
        for i in 0..L lanes {
            stage[2 * i] = x[2 * (b0 + i)]
            y[n - 1 - b0 - i] = stage[2 * i]
        }
    }
}"""

SWIZZLED = """kernel transpose_swizzled(n, W = 32) {
    assume 32 | n, W | n
    in  a: f32[n, n]
    out b: f32[n, n]
    for i0 in 0..n by 32, j0 in 0..n by W parallel(threads = 1024) {
        let tile: f32[32, W] in shared swizzle = 0
        for i in 0..32, j in 0..W lanes {
            tile[i, j] = a[i0 + i, j0 + j]
        }
        for j in 0..W, i in 0..32 lanes {
            b[j0 + j, i0 + i] = tile[i, j]
        }
    }
}"""

CASES = [
    (lambda: spec("transpose_naive"), {"n": 64}),
    (lambda: spec("transpose_naive"), {"n": 96}),
    (lambda: spec("transpose_tiled"), {"n": 64}),
    (lambda: spec("transpose_tiled"), {"n": 64, "R": 33}),
    (lambda: spec("transpose_tiled"), {"n": 32, "T": 16, "R": 17}),
    (lambda: spec("strided_read"), {"n": 2048, "s": 1}),
    (lambda: spec("strided_read"), {"n": 2048, "s": 3}),
    (lambda: spec("strided_read"), {"n": 1024, "s": 9}),
    (lambda: loads(BF16_COLUMN), {"n": 64}),
    (lambda: loads(F64_PARTIAL), {"n": 96}),
    (lambda: loads(SWIZZLED), {"n": 64}),
    (lambda: loads(SWIZZLED), {"n": 128, "W": 64}),
]


@pytest.mark.parametrize("make, sizes", CASES)
def test_closed_forms_agree_with_the_enumeration_of_every_warp(make, sizes):
    analysis = make()
    result = verdict(analysis.cost("spec"), H100, values=sizes)
    closed = result.grid.transfers
    counted = enumerate_lanes(analysis.checked, sizes)
    assert [(t.access.tensor, t.access.is_write) for t in closed] == [
        (c.tensor, c.is_write) for c in counted]
    for found, oracle in zip(closed, counted):
        assert found.instructions == oracle.instructions
        assert found.useful_B == oracle.useful_B
        if oracle.level == "global":
            assert found.cost_B == oracle.sectors * 32
        else:
            assert found.ratio == sympy.Rational(oracle.wavefronts, oracle.ideal_wavefronts)


def test_the_enumeration_finds_the_chapters_degrees():
    counted = enumerate_lanes(loads(BF16_COLUMN).checked, {"n": 64})
    [read] = [c for c in counted if c.tensor == "tile" and not c.is_write]
    assert read.degree == 16  # bf16 column of a 32 x 32 tile
    plain = enumerate_lanes(spec("transpose_tiled").checked, {"n": 64})
    assert [c.degree for c in plain if c.tensor == "tile"] == [1, 32]
    naive = enumerate_lanes(spec("transpose_naive").checked, {"n": 64})
    assert [c.sector_ratio for c in naive] == [1, 8]


def test_what_hbm_sees_by_enumeration():
    # transpose: each sector of B written by 8 warps, so its distinct sectors are its bytes
    [_, written] = enumerate_lanes(spec("transpose_naive").checked, {"n": 64})
    assert len(written.distinct_sectors) * 32 == 4 * 64 * 64
    # strided read at s = 9: one sector a value, nobody reads the rest
    [read, _] = enumerate_lanes(spec("strided_read").checked, {"n": 1024, "s": 9})
    assert len(read.distinct_sectors) == 1024


def test_an_xor_swizzle_makes_the_column_read_conflict_free():
    # word c of row r at c XOR (r mod 32): the 32 rows of one column land in 32 banks
    result = on_h100(loads(SWIZZLED), n=8192)
    assert [t.ratio for t in result.grid.transfers if t.access.level == "shared"] == [1, 1]
    assert derate(result, "bank_conflicts") is None
    counted = enumerate_lanes(loads(SWIZZLED).checked, {"n": 64})
    assert [c.degree for c in counted if c.tensor == "tile"] == [1, 1]


FIRST_COLUMN = """kernel first_column(n) {
    assume 1024 | n
    in  x: f32[n, 8]
    out y: f32[n]
    for b0 in 0..n by 1024 parallel(threads = 1024) {
        for i in b0..b0 + 1024 lanes {
            y[i] = x[i, 0]
        }
    }
}"""


def test_hbm_sees_the_sectors_nobody_else_uses():
    # x[i, 0]: lanes 32 B apart, one sector each, and no access reads the other 7 floats; the
    # wave boxes hold column 0 only (4n B), so HBM's 32n B of sectors + y's 4n B is a derate
    n = 2**22
    result = on_h100(loads(FIRST_COLUMN), n=n)
    assert transfer(result, "x", False).ratio == 8
    assert derate(result, "dram_sectors").factor == sympy.Rational(4 * n + 4 * n, 32 * n + 4 * n)
    [hbm] = [term for term in result.grid.model_terms if term.key == "global"]
    assert hbm.amount == 8 * n  # the amount stays; the rate carries the derate
    assert "dram sectors" in roof_name(hbm.roof)
    [read, _] = enumerate_lanes(loads(FIRST_COLUMN).checked, {"n": 2048})
    assert len(read.distinct_sectors) == 2048  # one sector a row reaches DRAM
