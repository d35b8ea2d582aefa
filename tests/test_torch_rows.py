"""PyTorch's own softmax and layer-norm kernels as this project's H200 rows ran them (torch 2.11,
bf16): which kernel each row launched, re-implemented from the dispatch in PyTorch's source,
and the specs the rows run (layernorm_torch, softmax_rows_gmem) against their work, bytes and
blocks counted by hand at one size."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import sympy
from conftest import SPECS

import kernelcost
from kernelcost.analysis.verify import check_against_oracle

ROOT = Path(__file__).resolve().parent.parent
ROWS = ROOT / "validate" / "published" / "project_h200.csv"
BF16 = 2
SHARED_PER_BLOCK = 48 * 1024  # cudaDeviceProp::sharedMemPerBlock, without the opt-in
WARP = 32


def softmax_kernel(n: int, element: int = BF16) -> str:
    """host_softmax's choice for a contiguous last-dim softmax, input and output of one type
    (aten/src/ATen/native/cuda/SoftMax.cu, read at ROCm/pytorch 4a5afa7)."""
    if n <= 2048 and n * element <= 8192:
        return "softmax_warp_forward"
    block = min(n, 1024)  # SoftMaxForward_getBlockSize: a multiple of the warp, at most 1024
    block = block if block % WARP == 0 else (block // WARP + 1) * WARP
    if -(-n // block) < 10:  # potential_register_count
        return f"cunn_SoftMaxForwardReg<{-(-n // block)}>"
    ilp = 16 // element
    smem_elements = (SHARED_PER_BLOCK - block // WARP * 4) // element
    if n < smem_elements and n % ilp == 0:
        return "cunn_SoftMaxForwardSmem"
    return "cunn_SoftMaxForward"


def layer_norm_vectorized(n: int) -> bool:
    """LayerNormKernelImplInternal (layer_norm_kernel.cu at 0005c538) for bf16 and aligned
    buffers: the vectorized kernel when N <= 2^24 and N % vec_size (4) == 0."""
    return n <= 2 ** 24 and n % 4 == 0


def project_rows(shape: str) -> list[dict]:
    lines = [line for line in ROWS.read_text().splitlines() if not line.startswith("#")]
    return [row for row in csv.DictReader(lines) if row["shape"] == shape]


def sizes_of(row: dict) -> dict[str, int]:
    return {k: int(v) for k, v in (part.split("=") for part in row["sizes"].split(";"))}


def test_the_dispatch_at_its_edges():
    assert softmax_kernel(2048) == "softmax_warp_forward"
    assert softmax_kernel(2056) == "cunn_SoftMaxForwardReg<3>"
    assert softmax_kernel(9216) == "cunn_SoftMaxForwardReg<9>"
    assert softmax_kernel(10240) == "cunn_SoftMaxForwardSmem"  # 20 kB of a 48 kB block
    assert softmax_kernel(24512) == "cunn_SoftMaxForward"  # (49152 - 128) / 2 elements


def test_each_softmax_row_runs_the_kernel_the_dispatch_picks():
    rows = project_rows("softmax_rows")
    assert len(rows) == 3
    for row in rows:
        n = sizes_of(row)["n"]
        kernel = softmax_kernel(n)
        assert kernel in row["implementation"], (n, kernel, row["implementation"])
        # the row in registers is read once, each template instance its own spec (its
        # registers and instructions as compiled); the plain kernel reads it in three passes
        expected = ("softmax_rows_gmem" if kernel == "cunn_SoftMaxForward"
                    else f"softmax_torch_reg{kernel[-2]}")
        assert row["spec"] == f"specs/{expected}.kcost", (n, row["spec"])


def test_each_layer_norm_row_runs_the_vectorized_kernel():
    rows = project_rows("layernorm_rows")
    assert len(rows) == 3
    for row in rows:
        assert layer_norm_vectorized(sizes_of(row)["n"])
        assert row["spec"] == "specs/layernorm_torch.kcost"
        assert "vectorized_layer_norm_kernel" in row["implementation"]


def numbers(cost, sizes: dict[str, int]) -> tuple[dict, dict, int, int]:
    """The cost's work, traffic, blocks and threads at numeric sizes."""
    def at(expr) -> int:
        expr = sympy.sympify(expr)
        return int(expr.subs({s: sizes[s.name] for s in expr.free_symbols}))
    work = {cls: at(v) for cls, v in cost.work.items()}
    traffic = {level: at(v) for level, v in cost.traffic.items()}
    return work, traffic, at(cost.grid.blocks), at(cost.grid.threads)


def test_layernorm_torch_by_hand(spec_cost):
    # R = 4 rows of n = 8: per element a sum (1 vector), a square (2 fma), (x - mean) * inv
    # (2 vector) and the fma with gamma, beta (2 fma): 4 fma + 3 vector; per row mean's and
    # the variance's divisions, mean * mean, the difference and + eps (5 vector), one rsqrt.
    # Bytes: x read (2 x 32), gamma and beta (2 x 8 each), y written (2 x 32).
    work, traffic, blocks, threads = numbers(spec_cost("layernorm_torch"), {"R": 4, "n": 8})
    assert work == {"fma": 128, "vector": 96 + 20, "sfu": 4}
    assert traffic["global"] == 64 + 16 + 16 + 64
    assert (blocks, threads) == (4, 128)  # a block per row, C10_WARP_SIZE * 4 threads


def test_softmax_rows_gmem_by_hand(spec_cost):
    # R = 4 rows of n = 8: per element max (1), x - max and + (2) with an exp, x - max and /
    # (2) with an exp again. Bytes: x compulsory once from DRAM (2 x 32) and y (2 x 32); in L2
    # three reads of x (3 x 64) and the write (64).
    work, traffic, blocks, threads = numbers(spec_cost("softmax_rows_gmem"), {"R": 4, "n": 8})
    assert work == {"vector": 160, "sfu": 64}
    assert traffic["global"] == 128
    assert traffic["l2"] == 3 * 64 + 64
    assert (blocks, threads) == (4, 1024)


@pytest.mark.parametrize("name", ["layernorm_torch", "softmax_rows_gmem"])
def test_closed_forms_agree_with_enumeration(name):
    spec = kernelcost.load(SPECS / f"{name}.kcost")
    results = check_against_oracle(spec, {"R": "3", "n": "5"})
    assert results and not any(result.mismatches for result in results), name
