"""Small specs and readers shared by the oracle's tests."""

from __future__ import annotations

from pathlib import Path

from kernelcost.lang.check import check
from kernelcost.lang.parse import parse

SPECS = Path(__file__).resolve().parent.parent / "specs"


def kernel_of(text: str):
    return check(parse(text))


def traffic(counts) -> dict[str, int]:
    """Traffic as plain ints (all these examples move whole bytes)."""
    assert all(value.denominator == 1 for value in counts.traffic.values())
    return {level: int(value) for level, value in counts.traffic.items()}


def scope_rows(scope) -> list[tuple]:
    return [(entry.outer_values, entry.read_elements, entry.write_elements)
            for entry in scope.entries]


VECTOR_ADD = """
kernel vector_add(n) {
    in x: f32[n]
    in y: f32[n]
    out z: f32[n]
    for i in 0..n { z[i] = x[i] + y[i] }
}
"""

GEMM = """
kernel gemm(M, N, K) {
    in A: bf16[M, K]
    in B: bf16[K, N]
    out C: bf16[M, N]
    for i in 0..M, j in 0..N, k in 0..K { C[i, j] += A[i, k] * B[k, j] }
}
"""

CLIPPED = """
kernel clipped(M, T) {
    in x: f32[M]
    out y: f32[M]
    for i0 in 0..M by T {
        keep x in shared {
            for i in i0..min(i0 + T, M) { y[i] = 2 * x[i] }
        }
    }
}
"""
