"""The GPU execution model (issue 11, DESIGN.md "The GPU execution model") against an
independent computation.

Everything kernelcost answers for a parallel GEMM (blocks, resident blocks per SM and the
resource that limits them, waves, the busiest SM's share, the L2 fills, the wave-union HBM
bytes per tensor, the terms of t_bound and t_model) is recomputed here from first principles:
the machine figures are read from the machine files with tomllib (not through kernelcost's
Machine or its occupancy code), blocks are enumerated in Python, the raster is written out
(row-major, and Triton's grouped formula), and unions are taken with Python sets at small
sizes and with interval arithmetic (disjoint tile rows and columns) at large ones.

Tie order: where two resources allow the same number of resident blocks, the limiting one
is the first in the contract's list (shared, registers, threads, warps, blocks)."""

from __future__ import annotations

import heapq
import re
import tomllib
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
import sympy

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.base.kinds import WaveRule
from kernelcost.base.levels import Level
from kernelcost.gpu.grid_terms import worked_tail_share
from kernelcost.gpu.waves import estimate
from kernelcost.hardware.machinefile import load_machine
from kernelcost.oracle import enumerate_counts
from kernelcost.present.model_text import model_detail_text
from kernelcost.present.roofs import roof_name

ROOT = Path(__file__).resolve().parent.parent
MACHINE_FILES = ROOT / "src" / "kernelcost" / "machines"
RESOURCES = ("shared", "registers", "threads", "warps", "blocks")
BF16 = 2  # bytes
RESERVE_FALLBACK = 1024

# -- the machine, read from its file ---------------------------------------------------------


@cache
def figures(machine: str) -> dict:
    data = tomllib.loads((MACHINE_FILES / f"{machine}.toml").read_text())
    execution = data["execution"]
    memory = {entry["level"]: entry for entry in data["memory"]}
    tensor = [entry["peak_FLOPps"] for entry in data["compute"]
              if entry["precision"] == "bf16" and entry["unit"] == "tensor"
              and not entry.get("sparse", False)]
    assert len(tensor) == 1
    fp32 = [entry["peak_FLOPps"] for entry in data["compute"]
            if entry["precision"] == "fp32" and entry["unit"] == "vector"]
    return {
        "sms": data["device"]["sm_count"],
        "bf16": _exact(tensor[0]),
        "fp32": _exact(fp32[0]),  # the vector FMA units, which run tiles under the MMA minimum
        "hbm": _exact(memory["global"]["bandwidth_Bps"]),
        "l2_bw": _exact(memory["l2"]["bandwidth_Bps"]),
        "l2": memory["l2"]["capacity_B"],
        "shared_bw": _exact(memory["shared"]["bandwidth_Bps"]),
        "smem_sm": memory["shared"]["capacity_B"],
        "smem_block_max": execution["shared_per_block_max_B"],
        "reserve": execution.get("shared_reserved_per_block_B", RESERVE_FALLBACK),
        "regs_sm": execution["registers_per_sm"],
        "reg_unit": execution["register_granularity_per_warp"],
        "warp": execution["warp_size"],
        "threads_sm": execution["max_threads_per_sm"],
        "warps_sm": execution["max_warps_per_sm"],
        "blocks_sm": execution["max_blocks_per_sm"],
        "usable_l2": execution["usable_l2_fraction"],
    }


def _exact(value) -> Fraction:
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def rational(value) -> sympy.Rational:
    value = Fraction(value)
    return sympy.Rational(value.numerator, value.denominator)


def fraction(expr) -> Fraction:
    expr = sympy.sympify(expr)
    assert expr.is_Rational, expr
    return Fraction(int(expr.p), int(expr.q))


def resident_by_hand(fig: dict, smem: int, threads: int, regs: int) -> tuple[int, str]:
    warps = -(-threads // fig["warp"])
    per_warp = -(-regs * fig["warp"] // fig["reg_unit"]) * fig["reg_unit"]
    allowed = {
        "shared": fig["smem_sm"] // (smem + fig["reserve"]),
        "registers": fig["regs_sm"] // (warps * per_warp),
        "threads": fig["threads_sm"] // threads,
        "warps": fig["warps_sm"] // warps,
        "blocks": fig["blocks_sm"],
    }
    least = min(allowed.values())
    return least, next(name for name in RESOURCES if allowed[name] == least)


# -- the specs ------------------------------------------------------------------------------

DIVISIBLE = """
kernel gemm_par(M, N, K, TM = {TM}, TN = {TN}, TK = {TK}, WM = {WM}, WK = {WK}) {{
    assume TM | M, TN | N, TK | K, WM | TM, WK | TK
    in  A: bf16[M, K]
    in  B: bf16[K, N]
    out C: bf16[M, N]
    for i0 in 0..M by TM, j0 in 0..N by TN
        parallel(threads = {threads}, registers = {regs}{cluster}, raster = {raster}) {{
        let acc: f32[TM, TN] in registers = 0
        for k0 in 0..K by TK {{
            keep A, B in shared stages {stages} {{
                for w in i0..i0 + TM by WM, k1 in k0..k0 + TK by WK {{
                    keep A, B in registers {{
                        for i in w..w + WM, j in j0..j0 + TN, k in k1..k1 + WK {{
                            acc[i - i0, j - j0] += A[i, k] * B[k, j]
                        }}
                    }}
                }}
            }}
        }}
        for i in i0..i0 + TM, j in j0..j0 + TN {{
            C[i, j] = acc[i - i0, j - j0]
        }}
    }}
}}
"""
RAGGED = """
kernel gemm_ragged(M, N, K, TM = {TM}, TN = {TN}, TK = {TK}) {{
    in  A: bf16[M, K]
    in  B: bf16[K, N]
    out C: bf16[M, N]
    for i0 in 0..M by TM, j0 in 0..N by TN
        parallel(threads = {threads}, registers = {regs}{cluster}, raster = {raster}) {{
        let acc: f32[TM, TN] in registers = 0
        for k0 in 0..K by TK {{
            keep A, B in shared stages {stages} {{
                for i in i0..min(i0 + TM, M), j in j0..min(j0 + TN, N) {{
                    for k in k0..min(k0 + TK, K) {{
                        acc[i - i0, j - j0] += A[i, k] * B[k, j]
                    }}
                }}
            }}
        }}
        for i in i0..min(i0 + TM, M), j in j0..min(j0 + TN, N) {{
            C[i, j] = acc[i - i0, j - j0]
        }}
    }}
}}
"""

# A configuration: the spec's settings; `ragged`: min-clipped edges instead of `assume`.
CONFIGS = {
    # 128 x 128 tiles, 3 stages: registers limit (8 warps x 4096 registers -> 2 per SM)
    "t128": dict(TM=128, TN=128, TK=32, WM=64, WK=16, stages=3, threads=256, regs=128,
                 cluster=1, raster="row"),
    # 64 x 64, 2 stages, 32 registers: shared memory limits (17 KiB with the reservation)
    "t64": dict(TM=64, TN=64, TK=32, WM=32, WK=16, stages=2, threads=128, regs=32,
                cluster=1, raster="grouped(4)"),
    # 512 threads: threads (tied with warps) limit, 4 per SM
    "t512": dict(TM=64, TN=64, TK=16, WM=32, WK=16, stages=2, threads=512, regs=24,
                 cluster=1, raster="row"),
    # one warp per block, tiny tiles: the block limit per SM binds on H100
    "t32": dict(TM=32, TN=32, TK=16, WM=16, WK=16, stages=2, threads=32, regs=32,
                cluster=1, raster="grouped(8)"),
    # Hopper-style: 2-block clusters along i0 with multicast of B, grouped raster
    "cluster": dict(TM=128, TN=128, TK=64, WM=64, WK=16, stages=4, threads=256, regs=128,
                    cluster=2, raster="grouped(8)"),
    "ragged128": dict(TM=128, TN=128, TK=32, stages=3, threads=256, regs=128, raster="row",
                      ragged=True),
    "ragged64": dict(TM=64, TN=64, TK=32, stages=2, threads=128, regs=32,
                     raster="grouped(4)", ragged=True),
    # 8 x 8 tiles, one resident a SM: two waves at sizes Python sets can enumerate
    "ragged8": dict(TM=8, TN=8, TK=8, stages=2, threads=1024, regs=64, raster="grouped(4)",
                    ragged=True),
}
HOPPER = dict(TM=128, TN=256, TK=64, WM=64, WK=16, stages=4, threads=384, regs=168,
              cluster=2, raster="grouped(8)")


def spec_text(config: dict) -> str:
    cluster = f", cluster i0 = {config['cluster']}" if config.get("cluster", 1) > 1 else ""
    return (RAGGED if config.get("ragged") else DIVISIBLE).format(**{**config,
                                                                    "cluster": cluster})


@cache
def cost_of(name: str):
    if name == "gemm_hopper":
        return kernelcost.load(ROOT / "specs" / "gemm_hopper.kcost").cost()
    return kernelcost.loads(spec_text(CONFIGS[name])).cost()


def config_of(name: str) -> dict:
    return HOPPER if name == "gemm_hopper" else CONFIGS[name]


def work_unit(config: dict, fig: dict) -> tuple[str, Fraction]:
    """The work class of the GEMM's multiply-adds and its rate: the tensor units when the
    instruction tile (WM x TN x WK, TM x TN x TK without a register keep) reaches the MMA
    minimum of 16 x 8 x 8 (docs/language.md), else the vector FMA units at fp32."""
    m, n, k = config.get("WM", config["TM"]), config["TN"], config.get("WK", config["TK"])
    if max(m, n) >= 16 and min(m, n) >= 8 and k >= 8:
        return "tensor", fig["bf16"]
    return "fma", fig["fp32"]


# -- the grid, by hand ----------------------------------------------------------------------


def clipped(start: int, tile: int, extent: int) -> int:
    return min(start + tile, extent) - start


def launch_order(rows: int, cols: int, raster: str) -> list[tuple[int, int]]:
    """(row tile, column tile) in launch order: row-major, or Triton's grouped ordering."""
    if raster == "row":
        return [(m, n) for m in range(rows) for n in range(cols)]
    group = int(raster[len("grouped("):-1])
    order = []
    for pid in range(rows * cols):
        group_id = pid // (group * cols)
        first_m = group_id * group
        size_m = min(rows - first_m, group)
        order.append((first_m + (pid % (group * cols)) % size_m,
                      (pid % (group * cols)) // size_m))
    return order


class ByHand:
    """A GEMM grid of `config` at sizes M, N, K on `machine`, computed from scratch."""

    def __init__(self, config: dict, machine: str, M: int, N: int, K: int):
        self.c, self.fig, self.M, self.N, self.K = config, figures(machine), M, N, K
        c, fig = config, self.fig
        self.rows, self.cols = -(-M // c["TM"]), -(-N // c["TN"])
        self.blocks = self.rows * self.cols
        self.smem = c["stages"] * BF16 * (min(c["TM"], M) + min(c["TN"], N)) * min(c["TK"], K)
        self.resident, self.limited_by = resident_by_hand(fig, self.smem, c["threads"],
                                                          c["regs"])
        self.busiest = -(-self.blocks // fig["sms"])
        self.wave_blocks = fig["sms"] * self.resident
        self.waves = -(-self.blocks // self.wave_blocks) if self.resident else None
        self.order = launch_order(self.rows, self.cols, c["raster"])

    def tile(self, m: int, n: int) -> tuple[int, int]:
        return (clipped(m * self.c["TM"], self.c["TM"], self.M),
                clipped(n * self.c["TN"], self.c["TN"], self.N))

    def work(self, m: int, n: int) -> int:
        rows, cols = self.tile(m, n)
        return 2 * rows * cols * self.K

    def shared_traffic(self, m: int, n: int) -> int:
        """Per block: each (k0, w, k1) step reads a WM x WK fragment of A and a WK x TN one
        of B from shared memory (the inner keep in registers)."""
        c = self.c
        steps = (self.K // c["TK"]) * (c["TM"] // c["WM"]) * (c["TK"] // c["WK"])
        return steps * BF16 * (c["WM"] * c["WK"] + c["WK"] * c["TN"])

    def l2_bytes(self) -> int:
        """Every block's fills of its A and B tiles, one per k step, from L2: the tiles of
        a cluster (c consecutive row tiles of one column) and step counted once each, which
        is multicast; plus C written once (outside the keep)."""
        c, cluster = self.c, self.c.get("cluster", 1)
        total = 0
        for k0 in range(0, self.K, c["TK"]):
            depth = clipped(k0, c["TK"], self.K)
            for first in range(0, self.rows, cluster):
                for n in range(self.cols):
                    tiles = set()
                    for m in range(first, min(first + cluster, self.rows)):
                        rows, cols = self.tile(m, n)
                        tiles.add(("A", m, k0, rows * depth))
                        tiles.add(("B", k0, n, depth * cols))
                    total += BF16 * sum(size for *_, size in tiles)
        return total + BF16 * self.M * self.N

    def waves_by_intervals(self) -> tuple[dict[str, int], int]:
        """HBM bytes per tensor (each wave's distinct elements: tile rows and columns are
        disjoint intervals, so a union is a sum over distinct tiles) and the largest wave's
        first k step (k0 = 0) in bytes, before stages."""
        c = self.c
        total = {"A": 0, "B": 0, "C": 0}
        largest_step = 0
        depth = min(c["TK"], self.K)
        for start in range(0, self.blocks, self.wave_blocks):
            wave = self.order[start:start + self.wave_blocks]
            a_rows = sum(self.tile(m, 0)[0] for m in {m for m, _ in wave})
            b_cols = sum(self.tile(0, n)[1] for n in {n for _, n in wave})
            total["A"] += BF16 * a_rows * self.K
            total["B"] += BF16 * b_cols * self.K
            total["C"] += BF16 * sum(rows * cols for rows, cols in
                                     (self.tile(m, n) for m, n in set(wave)))
            largest_step = max(largest_step, BF16 * depth * (a_rows + b_cols))
        return total, largest_step

    def elements(self, m: int, n: int) -> dict[str, set]:
        c = self.c
        i = range(m * c["TM"], min((m + 1) * c["TM"], self.M))
        j = range(n * c["TN"], min((n + 1) * c["TN"], self.N))
        return {"A": {(a, k) for a in i for k in range(self.K)},
                "B": {(k, b) for k in range(self.K) for b in j},
                "C": {(a, b) for a in i for b in j}}

    def waves_by_sets(self) -> dict[str, int]:
        total = {"A": 0, "B": 0, "C": 0}
        for start in range(0, self.blocks, self.wave_blocks):
            union = {"A": set(), "B": set(), "C": set()}
            for m, n in self.order[start:start + self.wave_blocks]:
                for tensor, elements in self.elements(m, n).items():
                    union[tensor] |= elements
            for tensor in total:
                total[tensor] += BF16 * len(union[tensor])
        return total


def values(M: int, N: int, K: int) -> dict:
    return {"M": M, "N": N, "K": K}


def term(terms, key: str):
    found = [t for t in terms if t.key == key]
    assert len(found) == 1, (key, [roof_name(t.roof) for t in terms])
    return found[0]


# -- gemm_hopper: the issue's acceptance figures --------------------------------------------


def test_gemm_hopper_8192_on_h200_is_a_bound_on_the_measured_rate():
    """2048 blocks of 128 x 256, 16 on the busiest of 132 SMs, one resident (shared
    memory: 4 stages x 48 KiB + 1 KiB of 228 KiB); t_bound = 16 x 2 x 128 x 256 x 8192
    FLOP at 990e12 / 132 FLOP/s per SM = 1.1453 ms: 960 TFLOP/s, at or above the best
    measured run (798 TFLOP/s on an H200) and within 1.25 x of it."""
    fig = figures("h200")
    v = verdict(cost_of("gemm_hopper"), load_machine("h200"), values=values(8192, 8192, 8192))
    occ = v.grid.occupancy
    assert (occ.blocks, occ.busiest_sm_blocks, occ.resident, occ.waves) == (2048, 16, 1, 16)
    assert occ.limited_by == Level.SHARED and not v.misfits
    expected = Fraction(16 * 2 * 128 * 256 * 8192) / (fig["bf16"] / fig["sms"])
    assert v.grid.t_bound == rational(expected)
    assert abs(float(expected) - 1.1453e-3) < 1e-7
    assert v.grid.bound == term(v.grid.bound_terms, "tensor").roof
    rate = 2 * 8192**3 / expected
    assert 798e12 <= rate <= 1.25 * 798e12
    assert round(float(rate) / 1e12) == 960


def test_gemm_hopper_does_not_fit_an_a100():
    """192 KiB of stages per block against the 163 KiB a block may have on an A100, and
    2-block clusters on a machine that forms none (cc 8.0: a block is its own cluster)."""
    fig = figures("a100")
    v = verdict(cost_of("gemm_hopper"), load_machine("a100"), values=values(8192, 8192, 8192))
    assert v.grid.t_bound is None and v.grid.t_model is None
    shared, cluster = v.misfits
    assert (shared.level, shared.per) == ("shared", "block")
    assert shared.needed == 4 * 2 * (128 * 64 + 64 * 256) == 196608
    assert shared.capacity == fig["smem_block_max"] == 166912
    assert (cluster.level, cluster.needed, cluster.capacity) == ("cluster", 2, 1)


# -- the grid against the independent computation --------------------------------------------

CASES = [
    ("t128", "h100", (4096, 4096, 4096)),
    ("t128", "a100", (4096, 4096, 4096)),
    ("t128", "a100", (2048, 6144, 1024)),
    ("t64", "h100", (4096, 2048, 512)),
    ("t64", "a100", (4096, 2048, 512)),
    ("t512", "h100", (3072, 2048, 256)),
    ("t512", "a100", (1024, 4096, 256)),
    ("t32", "h100", (4096, 2048, 64)),
    ("t32", "a100", (2048, 2048, 64)),
    ("cluster", "h100", (4096, 4096, 1024)),
    ("cluster", "h100", (1920, 4096, 512)),  # 15 row tiles: the last cluster is one block
    ("gemm_hopper", "h100", (8192, 8192, 8192)),
    ("gemm_hopper", "h100", (4096, 8192, 2048)),
    ("gemm_hopper", "h200", (8192, 8192, 8192)),
    ("ragged128", "h100", (1000, 900, 700)),
    ("ragged128", "a100", (3000, 2900, 1000)),
    ("ragged64", "h100", (1000, 2000, 300)),
    ("ragged64", "a100", (1500, 1030, 333)),
    ("ragged64", "h100", (5000, 3000, 200)),  # 3713 blocks in 3 waves of 1716
    ("ragged8", "h100", (100, 90, 13)),  # 156 blocks in 2 waves of 132
    ("ragged8", "a100", (100, 90, 13)),
]


def case_id(case) -> str:
    name, machine, (M, N, K) = case
    return f"{name}-{machine}-{M}x{N}x{K}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_occupancy_and_bound_terms(case):
    """Blocks, resident blocks and their limit, waves, the busiest SM's share, and every
    term of t_bound: per-SM roofs (tensor, shared) quantised to the busiest SM's blocks when
    blocks are equal, L2 fills (multicast once per cluster) and compulsory HBM traffic
    device-wide; then t_bound, and the share of it that quantisation adds."""
    name, machine, (M, N, K) = case
    config, fig = config_of(name), figures(machine)
    hand = ByHand(config, machine, M, N, K)
    v = verdict(cost_of(name), load_machine(machine), values=values(M, N, K))
    occ = v.grid.occupancy
    assert occ.blocks == hand.blocks
    assert occ.sm_count == fig["sms"]
    assert occ.busiest_sm_blocks == hand.busiest
    assert not occ.misfits
    assert (occ.resident, occ.limited_by) == (hand.resident, hand.limited_by)
    assert occ.waves == hand.waves
    assert occ.wave_efficiency == rational(Fraction(hand.blocks,
                                                    hand.waves * hand.wave_blocks))
    grid = v.grid
    assert grid.equal_blocks == (not config.get("ragged"))
    sms = fig["sms"]
    work_total = sum(hand.work(m, n) for m, n in hand.order)
    assert work_total == 2 * M * N * K
    if grid.equal_blocks:
        shared_total = hand.blocks * hand.shared_traffic(0, 0)
    else:  # no register keep: each multiply-add reads its A and B elements from shared
        shared_total = 2 * BF16 * M * N * K
    compulsory = BF16 * (M * K + K * N + M * N)
    unit, rate = work_unit(config, fig)
    flat = {  # every roof on the whole machine, blocks ignored
        unit: (work_total, rate),
        "shared": (shared_total, fig["shared_bw"]),
        "l2": (hand.l2_bytes(), fig["l2_bw"]),
        "global": (compulsory, fig["hbm"]),
    }
    expected = dict(flat)
    per_sm = set()
    if grid.equal_blocks:  # the busiest SM's blocks on one SM's share of the rate
        expected[unit] = (hand.busiest * hand.work(0, 0), rate / sms)
        expected["shared"] = (hand.busiest * hand.shared_traffic(0, 0),
                              fig["shared_bw"] / sms)
        per_sm = {unit, "shared"}
    else:
        # unequal blocks: whatever the schedule, some SM runs ceil(B / SMs) blocks (at least
        # the smallest ones) and one runs the largest; below the mean, the whole grid's
        # amount on the whole machine is the bound
        works = sorted(hand.work(m, n) for m, n in hand.order)
        busiest = max(works[-1], sum(works[:hand.busiest]))
        if busiest * sms >= work_total:
            expected[unit] = (busiest, rate / sms)
            # each multiply-add (2 FLOP) reads 2 bf16 operands from shared: 2 B per FLOP
            expected["shared"] = (2 * busiest, fig["shared_bw"] / sms)
            per_sm |= {unit, "shared"}
    assert sorted(t.key for t in grid.bound_terms) == sorted(expected)
    for key, (amount, rate) in expected.items():
        found = term(grid.bound_terms, key)
        assert (found.amount, found.rate) == (amount, rational(rate)), key
        assert found.seconds == rational(Fraction(amount) / rate), key
        assert found.per_sm == (key in per_sm), key
    t_bound = max(Fraction(amount) / rate for amount, rate in expected.values())
    assert grid.t_bound == rational(t_bound) == v.t_min
    unquantised = max(Fraction(amount) / rate for amount, rate in flat.values())
    assert grid.tail_share == rational(1 - unquantised / t_bound)


DIVISIBLE_CASES = [case for case in CASES if not config_of(case[0]).get("ragged")]
RAGGED_CASES = [case for case in CASES if config_of(case[0]).get("ragged")]


@pytest.mark.parametrize("case", DIVISIBLE_CASES, ids=case_id)
def test_wave_union_hbm_bytes_by_intervals(case):
    name, machine, (M, N, K) = case
    config, fig = config_of(name), figures(machine)
    hand = ByHand(config, machine, M, N, K)
    per_tensor, step = hand.waves_by_intervals()
    usable = fig["l2"] * fig["usable_l2"]
    assert step * config["stages"] <= usable  # these shapes take the wave rule
    cost = cost_of(name)
    v = verdict(cost, load_machine(machine), values=values(M, N, K))
    assert v.grid.global_count.estimate.rule == (WaveRule.ONE_WAVE if hand.waves == 1
                                                 else WaveRule.WAVE_UNION)
    model_hbm = term(v.grid.model_terms, "global")
    assert model_hbm.amount == sum(per_tensor.values())
    assert v.grid.t_model == max(t.seconds for t in v.grid.model_terms)
    result = estimate(cost.grid, v.values, fig["sms"], hand.resident, usable_l2_B=usable,
                      stages=config["stages"], fills_B=Fraction(0))
    assert result.waves == hand.waves and result.wave_blocks == hand.wave_blocks
    assert result.bytes_by_tensor == {t: Fraction(b) for t, b in per_tensor.items()}
    assert result.step_B == step * config["stages"]


@pytest.mark.parametrize("case", RAGGED_CASES, ids=case_id)
def test_wave_union_hbm_bytes_of_ragged_grids(case):
    """Clipped edge tiles: each wave's distinct elements are still a sum over its distinct
    (clipped) row and column tiles; t_model's HBM term must be that, as the contract says
    (per wave, the distinct elements its blocks touch together)."""
    name, machine, (M, N, K) = case
    config, fig = config_of(name), figures(machine)
    hand = ByHand(config, machine, M, N, K)
    per_tensor, step = hand.waves_by_intervals()
    assert step * config["stages"] <= fig["l2"] * fig["usable_l2"]
    if M * K + K * N + M * N <= 100_000:  # small enough for Python sets
        assert hand.waves_by_sets() == per_tensor
    v = verdict(cost_of(name), load_machine(machine), values=values(M, N, K))
    model_hbm = term(v.grid.model_terms, "global")
    assert model_hbm.amount >= BF16 * (M * K + K * N + M * N)  # never below compulsory
    detail = model_detail_text(v.grid.global_count)
    assert v.grid.global_count.estimate.rule == (WaveRule.ONE_WAVE if hand.waves == 1
                                                 else WaveRule.WAVE_UNION), detail
    assert model_hbm.amount == sum(per_tensor.values()), detail


# -- small sizes: element sets, and the oracle's blocks ---------------------------------------

TINY = dict(TM=8, TN=8, TK=8, WM=8, WK=8, stages=2, threads=1024, regs=64, cluster=1)
TINY_CASES = [
    ("row", "h100", (96, 128, 16), False, 1),
    ("grouped(4)", "h100", (96, 128, 16), False, 2),
    ("grouped(3)", "a100", (128, 96, 8), False, 1),
    ("grouped(8)", "h100", (120, 128, 24), False, 2),  # 15 row tiles: a lone last cluster
    ("row", "a100", (100, 90, 13), True, 1),
    ("grouped(4)", "h100", (100, 90, 13), True, 1),
    # clipped row tiles in clusters of two along i0: B's tile is the same in both blocks of
    # a cluster (the clipped i loop runs at least once), so it is read from L2 once a
    # cluster; the count lost this multicast before issue 34 (and still said exact)
    ("grouped(4)", "h100", (100, 90, 13), True, 2),
    ("row", "h100", (96, 90, 13), True, 2),  # 12 row tiles: whole clusters, ragged columns
]


@pytest.mark.parametrize("raster, machine, shape, ragged, cluster", TINY_CASES, ids=str)
def test_wave_union_by_element_sets(raster, machine, shape, ragged, cluster):
    """8 x 8 tiles and 1024 threads a block (one resident per SM, registers): 150-240
    blocks make two waves on either machine. The tiles' element sets, written here, are
    checked against the oracle's blocks, then united per wave with Python sets; the L2
    fills (multicast in clusters of two) against the oracle's and the count's."""
    M, N, K = shape
    config = {**TINY, "raster": raster, "ragged": ragged, "cluster": cluster}
    fig = figures(machine)
    hand = ByHand(config, machine, M, N, K)
    assert (hand.resident, hand.limited_by) == (1, "registers") and hand.waves == 2
    spec = kernelcost.loads(spec_text(config))
    counts = enumerate_counts(spec.checked, values(M, N, K))
    assert len(counts.blocks) == hand.blocks
    for block in counts.blocks:
        i0, j0 = block.coordinates["i0"], block.coordinates["j0"]
        mine = hand.elements(i0 // config["TM"], j0 // config["TN"])
        assert {t: set(e) for t, e in block.elements.items()} == mine
        unit = work_unit(config, fig)[0]  # 8 x 8 tiles: the vector FMA units
        assert block.work == {unit: hand.work(i0 // config["TM"], j0 // config["TN"])}
    assert counts.traffic["l2"] == hand.l2_bytes()
    by_sets = hand.waves_by_sets()
    assert by_sets == hand.waves_by_intervals()[0]
    cost = spec.cost()
    v = verdict(cost, load_machine(machine), values=values(M, N, K))
    assert v.grid.occupancy.waves == 2
    assert term(v.grid.bound_terms, "l2").amount == hand.l2_bytes()
    model_hbm = term(v.grid.model_terms, "global").amount
    if ragged:  # bounding boxes: an upper bound (the exact union: the ragged test above)
        assert model_hbm >= sum(by_sets.values())
    else:
        assert model_hbm == sum(by_sets.values())
        result = estimate(cost.grid, v.values, fig["sms"], 1, usable_l2_B=1e18,
                          stages=2, fills_B=Fraction(0))
        assert result.bytes_by_tensor == {t: Fraction(b) for t, b in by_sets.items()}


# -- the steps of the quantised compute term ------------------------------------------------


def test_quantised_compute_term_steps_exactly_on_a100():
    """M = N = K = 128 n, 128 x 128 tiles on 108 SMs: B = n^2 blocks, the busiest SM runs
    ceil(n^2 / 108) of them, each 2 x 128 x 128 x N FLOP: t = ceil(B / 108) W_block /
    (P / 108). The term, and the sizes where it steps, exactly, for n = 1 .. 40."""
    fig = figures("a100")
    machine = load_machine("a100")
    cost = cost_of("t128")
    steps_by_hand, steps_of_model = [], []
    previous = None
    for n in range(1, 41):
        size = 128 * n
        blocks = n * n
        share = -(-blocks // fig["sms"])
        expected = share * 2 * 128 * 128 * size / (fig["bf16"] / fig["sms"])
        v = verdict(cost, machine, values=values(size, size, size))
        work = term(v.grid.bound_terms, "tensor")
        assert v.grid.occupancy.busiest_sm_blocks == share
        assert work.seconds == rational(expected), n
        # per unit of K the term is flat between steps and jumps where B passes k x SMs
        per_k = work.seconds / size
        if previous is not None and per_k != previous:
            steps_of_model.append(n)
        previous = per_k
        if n > 1 and share != -(-(n - 1) ** 2 // fig["sms"]):
            steps_by_hand.append(n)
    assert steps_of_model == steps_by_hand
    # B = n^2 crosses 108, 216, 324, ...: n = 11, 15, 19, 21, 24, 26, 28, 30, 32, 33, ...
    assert steps_by_hand == [n for n in range(2, 41)
                             if any((n - 1) ** 2 <= 108 * k < n * n for k in range(1, 16))]
    assert steps_by_hand[:10] == [11, 15, 19, 21, 24, 26, 28, 30, 32, 33]
    # the same term, symbolic in N, evaluated at each size
    N = sympy.Symbol("N", integer=True, positive=True)
    symbolic = verdict(cost, machine, values={"M": N, "N": N, "K": N})
    work = term(symbolic.grid.bound_terms, "tensor").seconds
    for n in range(1, 41):
        size = 128 * n
        share = -(-n * n // fig["sms"])
        assert sympy.simplify(work.subs(N, size)) == rational(
            share * 2 * 128 * 128 * size / (fig["bf16"] / fig["sms"])), n


# -- unequal blocks: t_bound against schedules ------------------------------------------------


def greedy_makespan(loads: list[Fraction], machines: int) -> Fraction:
    """A list schedule: blocks in launch order, each to the least loaded SM."""
    heap = [Fraction(0)] * machines
    for load in loads:
        heapq.heapreplace(heap, heap[0] + load)
    return max(heap)


@pytest.mark.parametrize("case", RAGGED_CASES, ids=case_id)
def test_ragged_t_bound_is_below_every_schedule(case):
    """Clipped blocks are unequal: t_bound's work term is the largest of the busiest-SM
    lower bounds (sum / SMs, the largest block, the ceil(B / SMs) smallest blocks on one
    SM), which every schedule respects: it stays below a greedy list schedule."""
    name, machine, (M, N, K) = case
    fig = figures(machine)
    hand = ByHand(config_of(name), machine, M, N, K)
    v = verdict(cost_of(name), load_machine(machine), values=values(M, N, K))
    unit, rate = work_unit(config_of(name), fig)
    per_sm = rate / fig["sms"]
    times = [Fraction(hand.work(m, n)) / per_sm for m, n in hand.order]
    smallest = sorted(times)[:hand.busiest]
    lower = max(sum(times) / fig["sms"], max(times), sum(smallest))
    work = term(v.grid.bound_terms, unit)
    assert work.seconds == rational(lower)
    schedule = max(greedy_makespan(times, fig["sms"]),
                   *(fraction(t.seconds) for t in v.grid.bound_terms if t.key != unit))
    assert v.grid.t_bound <= rational(schedule)


@pytest.mark.parametrize("name, sizes", [
    ("decode_attention", {}), ("flash_attention", {}), ("moe_gemm", {}), ("gemm_hopper", {}),
    ("gemm_hopper", {"M": 8192, "N": 8192, "K": 8192}), ("flash_attention", {"S": 4096}),
    ("flash_attention_causal", {}), ("strided_read", {})])
def test_the_numeric_tail_share_is_the_share_where_that_is_a_number(name, sizes):
    """The share the JSON shows is told from the witness sizes before its form is worked out:
    it must be the form's value wherever that is a number (0 for a grid without waves to
    quantise, a fraction for a numeric one), and None only where the form holds a size."""
    analysis = kernelcost.analyze(kernelcost.load(ROOT / "specs" / f"{name}.kcost"), sizes)
    shares = []
    for machine_id in ("h100", "a100", "mi300x", "rtx4090"):
        grid = verdict(analysis.cost, load_machine(machine_id), values=analysis.values).grid
        if grid is None or grid.t_bound is None:
            continue
        numeric = grid.numeric_tail_share
        assert grid.tail_share == worked_tail_share(grid.t_bound, grid.flat_terms), machine_id
        if grid.tail_share.is_number:
            assert numeric == grid.tail_share, machine_id
        else:
            assert numeric is None, machine_id
        shares.append(numeric)
    assert shares  # every one of these has a grid that fits some machine
    # the shares that hold a size: those of specs with sizes left free and waves to quantise
    symbolic = not sizes and name in ("decode_attention", "flash_attention", "gemm_hopper")
    assert (None in shares) == symbolic


def test_a_grid_without_keeps_streams_its_one_sequential_loop():
    """The decode GEMV keeps nothing on chip: its k0 loop is what a block streams at a time,
    and the wave of 192 blocks shares each step's X through L2 (6.3 MB of W and X a step, under
    H100's usable 36.7 MB): HBM sees W, X and Y once (vLLM PR 49363's b = 64 row, measured 46.3
    us, where per-block fills re-read X for every block and doubled the bytes)."""
    cost = kernelcost.load(ROOT / "specs" / "gemv_decode.kcost").cost()
    assert cost.grid.step_iterator is not None and cost.grid.step_iterator.name == "k0"
    sizes = {"N": 12288, "K": 5376, "b": 64, "TK": 256}
    values = {symbol: sizes[symbol.name] for symbol in cost.parameters if symbol.name in sizes}
    result = verdict(cost, load_machine("h100"), values=values)
    [global_term] = [t for t in result.grid.wave_terms if t.key == "global"]
    n, k, b = 12288, 5376, 64
    assert global_term.amount == 2 * n * k + 2 * b * k + 2 * b * n  # W, X, Y: bf16, once
    assert result.grid.global_count.estimate.rule == WaveRule.ONE_WAVE


def test_reads_in_two_loops_one_after_the_other_have_no_streaming_loop():
    """rope reads q and k in two loops, one after the other: no one loop streams them."""
    cost = kernelcost.load(ROOT / "specs" / "rope.kcost").cost()
    assert cost.grid.step_iterator is None


@pytest.mark.parametrize("name", ["softmax_online", "softmax_rows"])
def test_two_loops_one_after_the_other_are_two_passes_whatever_their_iterators(name):
    """Two sibling loops of one header (`for i in 0..n` twice) are equal as records: they
    were taken for one streaming loop, so that the second pass over a row counted as served
    from L2 (softmax_online at n = 262144: 17.2 GB from HBM where 25.8 GB cross). Named
    alike or not, they are passes, and the wave rule sees the whole row."""
    text = (ROOT / "specs" / f"{name}.kcost").read_text()
    if name == "softmax_online":  # its second pass is `for j`: named as the first
        texts = (text, re.sub(r"\bj\b", "i", text))
    else:  # its three passes are `for i`: named apart
        head, *bodies = text.split("for i in 0..n {")
        texts = (text, head + "".join(f"for {name} in 0..n {{" + re.sub(r"\bi\b", name, body)
                                      for name, body in zip("ijk", bodies, strict=True)))
    assert texts[0] != texts[1]
    sizes = {"R": 8192, "n": 262144}
    found = []
    for source in texts:
        cost = kernelcost.loads(source).cost()
        values = {symbol: sizes[symbol.name] for symbol in cost.parameters}
        estimate = verdict(cost, load_machine("h100"), values=values).grid.global_count.estimate
        found.append((cost.grid.step_iterator, estimate.rule, estimate.total_B,
                      Fraction(estimate.usable_l2_B) / estimate.step_B))
    assert found[0] == found[1]
    x_reads = 2 if name == "softmax_online" else 1  # softmax_rows keeps its row: perfect reuse
    element = 4 if name == "softmax_online" else 2
    # each wave's rows read and written once, and of the second pass the share L2 misses
    union, fills = 2 * element * 8192 * 262144, (x_reads + 1) * element * 8192 * 262144
    step, rule, total, held = found[0]
    assert (step, rule) == (None, WaveRule.PARTIAL) and held < 1
    assert total == union + (fills - union) * (1 - held)
