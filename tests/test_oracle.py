"""The oracle on small specs whose counts are worked out by hand in the comments (independent of
the count package); its sizes, sampling and compare() are in test_oracle_compare.py."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_specs import CLIPPED, GEMM, SPECS, VECTOR_ADD, kernel_of, scope_rows, traffic

from kernelcost.lang.check import check
from kernelcost.lang.parse import parse
from kernelcost.oracle import (
    enumerate_counts,
)

# --- work and traffic on plain nests -----------------------------------------------------


def test_vector_add_at_five():
    counts = enumerate_counts(kernel_of(VECTOR_ADD), {"n": 5})
    assert counts.work == {"tensor": 0, "fma": 0, "vector": 5, "sfu": 0}  # one + per element
    assert traffic(counts) == {"global": 60}  # (5 + 5 read + 5 written) * 4 B
    assert counts.footprints == {"x": (5, 0), "y": (5, 0), "z": (0, 5)}
    assert counts.scopes == ()
    assert counts.statement_executions == 5
    assert counts.steps == 10  # 5 iterations + 5 statements
    # every access touches a new element, so no reuse changes nothing
    assert traffic(enumerate_counts(kernel_of(VECTOR_ADD), {"n": 5}, "none")) == {"global": 60}


def test_gemm_perfect_and_no_reuse():
    kernel = kernel_of(GEMM)
    sizes = {"M": 2, "N": 3, "K": 4}
    perfect = enumerate_counts(kernel, sizes, "perfect")
    assert perfect.work["fma"] == 48  # 2 MNK = 2 * 24
    # 2 B * (MK + KN + MN) = 2 * (8 + 12 + 6); C's accumulation read is skipped (out)
    assert traffic(perfect) == {"global": 52}
    # the kernel footprint counts the accumulation read: C is read and written, 6 each
    assert perfect.footprints == {"A": (8, 0), "B": (12, 0), "C": (6, 6)}
    none = enumerate_counts(kernel, sizes, "none")
    # 24 executions, each: read A, read B, read C, write C -> 96 accesses * 2 B
    assert traffic(none) == {"global": 192}
    # spec mode without keeps follows the kernel's default, perfect
    assert traffic(enumerate_counts(kernel, sizes, "spec")) == {"global": 52}


def test_register_local_moves_nothing():
    kernel = kernel_of("""
    kernel gemm_naive(M, N, K) {
        in A: f32[M, K]
        in B: f32[K, N]
        out C: f32[M, N]
        for i in 0..M, j in 0..N {
            let acc: f32 = 0
            for k in 0..K { acc += A[i, k] * B[k, j] }
            C[i, j] = acc
        }
    }
    """)
    sizes = {"M": 2, "N": 3, "K": 4}
    perfect = enumerate_counts(kernel, sizes)
    assert perfect.work == {"tensor": 0, "fma": 48, "vector": 0, "sfu": 0}  # 24 fused += a * b
    assert traffic(perfect) == {"global": 104}  # 4 B * (8 + 12 + 6)
    # none: A and B read 24 times each, C written 6 times; acc is a register: 54 * 4 B
    assert traffic(enumerate_counts(kernel, sizes, "none")) == {"global": 216}
    assert perfect.statement_executions == 6 + 24 + 6  # let, +=, store


def test_kernel_reuse_setting_none_applies_in_spec_mode():
    kernel = kernel_of(GEMM.replace("in A", "reuse none\n    in A"))
    sizes = {"M": 2, "N": 3, "K": 4}
    assert traffic(enumerate_counts(kernel, sizes, "spec")) == {"global": 192}
    assert traffic(enumerate_counts(kernel, sizes, "perfect")) == {"global": 52}


def test_five_point_stencil_unions_the_shifted_boxes():
    kernel = kernel_of("""
    kernel stencil(N, M) {
        in A: f64[N, M]
        out B: f64[N, M]
        for i in 1..N - 1, j in 1..M - 1 {
            B[i, j] = A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1] + A[i, j]
        }
    }
    """)
    counts = enumerate_counts(kernel, {"N": 4, "M": 5})
    # interior 2 x 3 = 6 points, 4 additions each
    assert counts.work["vector"] == 24
    # A: the whole 4 x 5 grid but its 4 corners = 16 elements; B: 6 written
    assert counts.footprints == {"A": (16, 0), "B": (0, 6)}
    assert traffic(counts) == {"global": 176}  # 8 B * (16 + 6)
    # none: 5 reads + 1 write per point, 6 points, 8 B
    assert traffic(enumerate_counts(kernel, {"N": 4, "M": 5}, "none")) == {"global": 288}


def test_triangular_loop():
    kernel = kernel_of("""
    kernel trsv_like(n) {
        in L: f32[n, n]
        in x: f32[n]
        out y: f32[n]
        for i in 0..n { for j in 0..i + 1 { y[i] += L[i, j] * x[j] } }
    }
    """)
    counts = enumerate_counts(kernel, {"n": 4})
    assert counts.statement_executions == 10  # 1 + 2 + 3 + 4
    assert counts.work["fma"] == 20
    assert counts.footprints == {"L": (10, 0), "x": (4, 0), "y": (4, 4)}
    assert traffic(counts) == {"global": 72}  # 4 B * (10 + 4 + 4 written; y's read skipped)
    # none: per execution L, x, y read and y written: 40 accesses * 4 B
    assert traffic(enumerate_counts(kernel, {"n": 4}, "none")) == {"global": 160}


def test_clipped_tiles_run_the_remainder():
    counts = enumerate_counts(kernel_of(CLIPPED), {"M": 7, "T": 3})
    assert counts.statement_executions == 7  # tiles of 3, 3 and 1
    assert counts.steps == 3 + 7 + 7  # i0 iterations, i iterations, statements
    assert counts.work["vector"] == 7
    (scope,) = counts.scopes
    assert scope_rows(scope) == [
        ({"i0": 0}, {"x": 3}, {"x": 0}),
        ({"i0": 3}, {"x": 3}, {"x": 0}),
        ({"i0": 6}, {"x": 1}, {"x": 0}),
    ]
    assert scope.held_bytes_first == 12  # 3 elements of f32
    # fills 7 * 4 B of x plus y written 7 * 4 B; shared serves 7 reads of x
    assert traffic(counts) == {"global": 56, "shared": 28}
    # keeps ignored: 4 B * (7 + 7) either way
    assert traffic(enumerate_counts(kernel_of(CLIPPED), {"M": 7, "T": 3}, "perfect")) == {
        "global": 56}


def test_fractional_derived_size_bounds_a_loop():
    kernel = kernel_of("""
    kernel half(n) {
        let h = n / 2
        in x: f32[n]
        out y: f32[n]
        for i in 0..h { y[i] = x[2 * i] }
    }
    """)
    counts = enumerate_counts(kernel, {"n": 5})
    assert counts.sizes["h"] == Fraction(5, 2)
    assert counts.statement_executions == 3  # i = 0, 1, 2 < 5/2
    assert counts.footprints == {"x": (3, 0), "y": (0, 3)}


def test_special_functions_and_scalar_reduction():
    kernel = kernel_of("""
    kernel sum_exp(n) {
        in x: f32[n]
        out s: f32
        for i in 0..n { s += exp(x[i]) }
    }
    """)
    counts = enumerate_counts(kernel, {"n": 6})
    # one exp, one add per element
    assert counts.work == {"tensor": 0, "fma": 0, "vector": 6, "sfu": 6}
    assert counts.footprints == {"x": (6, 0), "s": (1, 1)}  # a scalar is one element
    assert traffic(counts) == {"global": 28}  # 4 B * (6 + 1 written; s starts at zero)
    # none: x read 6 times, s read and written 6 times: 18 accesses * 4 B
    assert traffic(enumerate_counts(kernel, {"n": 6}, "none")) == {"global": 72}


# --- keep scopes -------------------------------------------------------------------------


def test_gemm_tiled_spec_at_four_tiles_of_two():
    kernel = check(parse((SPECS / "gemm_tiled.kcost").read_text()))
    sizes = {"M": 4, "N": 4, "K": 4, "T": 2}
    counts = enumerate_counts(kernel, sizes)
    assert counts.work["fma"] == 128  # 2 MNK
    # global: (M/T)(N/T)(K/T) = 8 entries, each filling T^2 = 4 elements of A and of B:
    # 8 * 8 * 2 B = 128 = 4MNK/T; C written once, 2MN = 32 B (its read is skipped)
    # shared: A and B read once per execution, MNK = 64 times: 64 * 2 * 2 B = 256 = 4MNK
    assert traffic(counts) == {"global": 160, "shared": 256}
    (scope,) = counts.scopes
    assert (scope.index, scope.level, scope.tensors) == (0, "shared", ("A", "B"))
    assert scope.outer_iterators == ("i0", "j0", "k0")
    assert scope.entry_count == 8
    assert all(entry.read_elements == {"A": 4, "B": 4} for entry in scope.entries)
    assert all(entry.write_elements == {"A": 0, "B": 0} for entry in scope.entries)
    assert scope.entries[1].outer_values == {"i0": 0, "j0": 0, "k0": 2}
    assert scope.held_bytes_first == 16  # (4 + 4) elements * 2 B
    # forced modes ignore the keep: perfect 2 B * (16 + 16 + 16); none 64 * 4 accesses * 2 B
    assert traffic(enumerate_counts(kernel, sizes, "perfect")) == {"global": 96}
    assert traffic(enumerate_counts(kernel, sizes, "none")) == {"global": 512}
    # forced modes have no scopes at all, as the count reports them
    assert enumerate_counts(kernel, sizes, "none").scopes == ()


ROW_SUM_TILED = """
kernel row_sum(M, K, T) {
    in A: f32[M, K]
    out y: f32[M]
    for i in 0..M, k0 in 0..K by T {
        keep y in registers { for k in k0..k0 + T { y[i] += A[i, k] } }
    }
}
"""

ROW_SUM_WHOLE = """
kernel row_sum(M, K) {
    in A: f32[M, K]
    out y: f32[M]
    for i in 0..M {
        keep y in registers { for k in 0..K { y[i] += A[i, k] } }
    }
}
"""


def test_accumulation_read_is_filled_when_the_scope_splits_the_reduction():
    counts = enumerate_counts(kernel_of(ROW_SUM_TILED), {"M": 2, "K": 4, "T": 2})
    # k0 lies outside the scope and does not index y: each of the M * K/T = 4 entries fills
    # y[i] (1 read) and writes it back (1 write)
    (scope,) = counts.scopes
    assert scope.entry_count == 4
    assert all((e.read_elements, e.write_elements) == ({"y": 1}, {"y": 1})
               for e in scope.entries)
    # global: y 4 entries * 2 * 4 B = 32, A direct 8 * 4 B = 32
    # registers: 8 executions * (1 read + 1 write) * 4 B = 64
    assert traffic(counts) == {"global": 64, "registers": 64}
    assert counts.work["vector"] == 8  # one add per +=


def test_accumulation_read_is_skipped_when_the_scope_encloses_the_reduction():
    counts = enumerate_counts(kernel_of(ROW_SUM_WHOLE), {"M": 2, "K": 4})
    (scope,) = counts.scopes
    # i indexes y: the scope holds the whole sum over k, which starts from zero on chip
    assert scope_rows(scope) == [({"i": 0}, {"y": 0}, {"y": 1}), ({"i": 1}, {"y": 0}, {"y": 1})]
    assert scope.held_bytes_first == 4  # y[0], read or written, counted once
    # global: y written back 2 * 4 B, A 8 * 4 B; registers as before
    assert traffic(counts) == {"global": 40, "registers": 64}
    # the kernel footprint ignores the skip: y read 2, written 2
    assert counts.footprints["y"] == (2, 2)


def test_accumulation_skip_follows_the_tile_bounds():
    kernel = kernel_of("""
    kernel row_tiles(M, K, T) {
        in A: f32[M, K]
        out y: f32[M]
        for i0 in 0..M by T {
            keep y in registers { for i in i0..i0 + T, k in 0..K { y[i] += A[i, k] } }
        }
    }
    """)
    counts = enumerate_counts(kernel, {"M": 4, "K": 3, "T": 2})
    # i0 lies outside the scope; `y[i]` moves with it through i's bounds (i in i0..i0 + T),
    # so each entry holds whole sums: no fill of y, only its 2 tile elements written back
    assert [e.read_elements for e in counts.scopes[0].entries] == [{"y": 0}, {"y": 0}]
    # global: y 2 entries * 2 * 4 B = 16, A 12 * 4 B = 48; registers: 12 * 2 * 4 B
    assert traffic(counts) == {"global": 64, "registers": 96}


def test_accumulation_skip_needs_every_outer_loop_to_move_the_target():
    kernel = kernel_of("""
    kernel partial_rows(M, K, T) {
        in A: f32[M, K]
        out y: f32[M]
        for k0 in 0..K by T {
            keep y in registers { for i in 0..M, k in k0..k0 + T { y[i] += A[i, k] } }
        }
    }
    """)
    counts = enumerate_counts(kernel, {"M": 2, "K": 4, "T": 2})
    # k0 does not move y[i]: each entry continues partial sums, so y is filled each time
    assert [e.read_elements for e in counts.scopes[0].entries] == [{"y": 2}, {"y": 2}]


def test_inout_accumulation_is_always_filled():
    kernel = kernel_of(ROW_SUM_WHOLE.replace("out y", "inout y"))
    counts = enumerate_counts(kernel, {"M": 2, "K": 4})
    assert [e.read_elements for e in counts.scopes[0].entries] == [{"y": 1}, {"y": 1}]
    assert traffic(counts) == {"global": 48, "registers": 64}  # y: 2 * (1 + 1) * 4 B more


def test_nested_keeps_fill_from_the_outer_level():
    kernel = kernel_of("""
    kernel staged(n, T) {
        in x: f32[n]
        out y: f32[n]
        keep x in l2 {
            for i0 in 0..n by T {
                keep x in shared { for i in i0..i0 + T { y[i] = x[i] + x[i] } }
            }
        }
    }
    """)
    counts = enumerate_counts(kernel, {"n": 4, "T": 2})
    outer, inner = counts.scopes
    assert (outer.level, outer.entry_count, outer.outer_iterators) == ("l2", 1, ())
    assert outer.entries[0].read_elements == {"x": 4}  # nested accesses count for the outer
    assert (inner.level, inner.entry_count) == ("shared", 2)
    assert [e.read_elements for e in inner.entries] == [{"x": 2}, {"x": 2}]
    # global: x filled into l2 once, 4 * 4 B, y written 4 * 4 B
    # l2: two inner fills of 2 elements, 16 B; shared: 8 dynamic reads of x, 32 B
    assert traffic(counts) == {"global": 32, "l2": 16, "shared": 32}


@settings(max_examples=60, deadline=None)
@given(M=st.integers(1, 20), T=st.integers(1, 8))
def test_clipped_tiles_match_their_closed_forms(M, T):
    # entries ceil(M/T); tile at i0 holds min(T, M - i0) elements; every element once
    counts = enumerate_counts(kernel_of(CLIPPED), {"M": M, "T": T})
    (scope,) = counts.scopes
    assert scope.entry_count == -(-M // T)
    assert [e.read_elements["x"] for e in scope.entries] == [
        min(T, M - i0) for i0 in range(0, M, T)]
    assert traffic(counts) == {"global": 8 * M, "shared": 4 * M}
