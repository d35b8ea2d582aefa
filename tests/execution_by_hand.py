"""The independent computation the execution model's tests hold kernelcost to: machine figures
read from the machine files with tomllib, the GEMM specs and their configurations, and the
grid worked out by hand (blocks, raster, resident blocks, unions of tiles).

Tie order: where two resources allow the same number of resident blocks, the limiting one
is the first in the contract's list (shared, registers, threads, warps, blocks)."""

from __future__ import annotations

import tomllib
from fractions import Fraction
from functools import cache
from pathlib import Path

import sympy

import kernelcost
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


# The GEMMs the grid is checked at: (spec configuration, machine, (M, N, K)).
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


DIVISIBLE_CASES = [case for case in CASES if not config_of(case[0]).get("ragged")]
RAGGED_CASES = [case for case in CASES if config_of(case[0]).get("ragged")]
