"""The oracle on small specs whose counts are worked out by hand in the comments, and compare()
and sample_sizes() on hand-written closed forms (independent of the count package)."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost.base.errors import KcostError
from kernelcost.base.symbols import iterator_symbol, size_symbol
from kernelcost.count.cost import Cost, ScopeCost, TensorFootprint
from kernelcost.lang.check import check
from kernelcost.lang.parse import parse
from kernelcost.oracle import (
    assumptions_hold,
    compare,
    count_steps,
    draw_sizes,
    enumerate_counts,
    sample_sizes,
)

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


# --- sizes, budget, errors ---------------------------------------------------------------


def test_defaults_fill_missing_parameters():
    kernel = check(parse((SPECS / "gemm_tiled.kcost").read_text()))
    counts = enumerate_counts(kernel, {"M": 4, "N": 4, "K": 4, "T": 2})
    assert counts.sizes == {"M": 4, "N": 4, "K": 4, "T": 2}
    small = kernel_of(CLIPPED.replace("clipped(M, T)", "clipped(M, T = 3)"))
    assert enumerate_counts(small, {"M": 7}).sizes == {"M": 7, "T": 3}


@pytest.mark.parametrize("sizes, message", [
    ({"n": 5, "m": 2}, "`m` is not a size parameter"),
    ({}, "size `n` needs a value"),
    ({"n": 0}, "must be a positive integer"),
])
def test_bad_sizes_are_clean_errors(sizes, message):
    with pytest.raises(KcostError, match=message):
        enumerate_counts(kernel_of(VECTOR_ADD), sizes)


def test_runaway_nest_stops_at_the_budget_before_running():
    kernel = kernel_of(GEMM)
    with pytest.raises(KcostError, match="budget of 1,000 steps"):
        enumerate_counts(kernel, {"M": 100, "N": 100, "K": 100}, max_steps=1000)
    assert count_steps(kernel, {"M": 100, "N": 100, "K": 100}, limit=1000) == float("inf")
    # 2 + 2*3 + 2*3*4 iterations, 24 statements
    assert count_steps(kernel, {"M": 2, "N": 3, "K": 4}) == 2 + 6 + 24 + 24


def test_a_step_that_is_not_positive_at_the_sizes_is_refused_before_counting():
    """The steps are checked at every draw's sizes, in loops that do not run as well."""
    kernel = kernel_of("""kernel steps(N, T) {
    in x: f32[N]
    out y: f32[N]
    for j in 0..N - N, i in 0..N by T - 2 { y[i] = x[i] }
}""")
    assert count_steps(kernel, {"N": 6, "T": 4}) == 0  # j never runs, so neither does i
    with pytest.raises(KcostError, match="loop step of `i` must be a positive size"):
        count_steps(kernel, {"N": 6, "T": 2})


def test_unknown_reuse_mode():
    with pytest.raises(KcostError, match="unknown reuse mode"):
        enumerate_counts(kernel_of(VECTOR_ADD), {"n": 2}, "sometimes")


# --- sample_sizes ------------------------------------------------------------------------


BOUNDED = """kernel bounded(N, A, B, T = 4) {
    assume A <= T, B < A, T | N
    in x: f32[N]
    out y: f32[N]
    for i in 0..N { y[i] = x[i] }
}"""


def test_draws_stay_under_the_sizes_that_bound_them():
    """`A <= T` with T a tile (drawn up to 4) and A a size (up to 12): A is drawn after T and
    up to it, B after A and below it, so that draws meet the relations, and every value under
    the bound is drawn."""
    kernel = kernel_of(BOUNDED)
    rng = random.Random(3)
    draws = [draw_sizes(kernel, lambda name, top: rng.randint(1, top)) for _ in range(400)]
    for sizes in draws:
        assert sizes["A"] <= sizes["T"] and sizes["N"] % sizes["T"] == 0
        assert sizes["B"] < sizes["A"] or sizes["A"] == 1  # nothing is below 1: B = 1 fails
    assert {sizes["A"] for sizes in draws} == {1, 2, 3, 4}
    # A = 1 leaves no B below it: about half the draws (A is 1 for T = 1, half of T = 2, ...)
    assert sum(assumptions_hold(kernel, sizes) for sizes in draws) > 150


def test_samples_respect_divisibility_and_the_step_budget():
    kernel = check(parse((SPECS / "gemm_tiled.kcost").read_text()))
    samples = sample_sizes(kernel, 30, random.Random(7), max_steps=20_000)
    assert len(samples) == 30
    for sizes in samples:
        assert set(sizes) == {"M", "N", "K", "T"}
        assert all(sizes[name] % sizes["T"] == 0 for name in "MNK")
        assert sizes["T"] <= 4  # a tile: drawn small
        assert count_steps(kernel, sizes, 20_000) <= 20_000
        assert assumptions_hold(kernel, sizes)
    assert len({tuple(sorted(s.items())) for s in samples}) > 20  # mostly distinct
    assert samples == sample_sizes(kernel, 30, random.Random(7), max_steps=20_000)


def test_samples_respect_bounds_and_extra_facts():
    kernel = kernel_of("""
    kernel bounded(N, T) {
        assume T | N, T <= N, 2 <= T
        in x: f32[N]
        out y: f32[N]
        for i in 0..N { y[i] = x[i] }
    }
    """)
    extra = (sympy.Ge(size_symbol("N"), 4),)
    for sizes in sample_sizes(kernel, 20, random.Random(1), extra_facts=extra):
        assert sizes["N"] % sizes["T"] == 0 and 2 <= sizes["T"] <= sizes["N"]
        assert sizes["N"] >= 4


def test_impossible_assumptions_are_reported():
    kernel = kernel_of("""
    kernel never(N) {
        assume N > 100
        in x: f32[N]
        out y: f32[N]
        for i in 0..N { y[i] = x[i] }
    }
    """)
    with pytest.raises(KcostError, match="satisfy its assumptions"):
        sample_sizes(kernel, 3, random.Random(0), max_attempts=200)


# --- compare -----------------------------------------------------------------------------


def make_cost(kernel, reuse, work, traffic, footprints, scopes=(), exact=True) -> Cost:
    return Cost(kernel.name, kernel.parameters, kernel.defaults, kernel.precision, reuse,
                work, traffic, footprints, tuple(scopes), exact=exact)


def footprint(tensor, read, written, exact=True) -> TensorFootprint:
    return TensorFootprint(tensor, sympy.Integer(0) + read, sympy.Integer(0) + written, exact)


def test_compare_accepts_a_right_closed_form_and_names_a_wrong_one():
    kernel = kernel_of(VECTOR_ADD)
    n = size_symbol("n")
    prints = {"x": footprint("x", n, 0), "y": footprint("y", n, 0), "z": footprint("z", 0, n)}
    right = make_cost(kernel, "spec", {"vector": n}, {"global": 12 * n}, prints)
    counts = enumerate_counts(kernel, {"n": 5})
    assert compare(right, counts) == []
    wrong = make_cost(kernel, "spec", {"vector": n}, {"global": 8 * n}, prints)
    (mismatch,) = compare(wrong, counts)
    assert mismatch.quantity == "traffic[global]"
    assert (mismatch.closed_form, mismatch.enumerated, mismatch.relation) == (40, 60, "==")
    assert "8*n = 40 should equal the enumeration 60" in str(mismatch)


def test_compare_refuses_counts_of_another_reuse_mode():
    kernel = kernel_of(VECTOR_ADD)
    n = size_symbol("n")
    cost = make_cost(kernel, "perfect", {"vector": n}, {"global": 12 * n}, {})
    with pytest.raises(ValueError, match="reuse"):
        compare(cost, enumerate_counts(kernel, {"n": 5}, "none"))


def gemm_tiled_cost(kernel, read_form=None) -> Cost:
    """The closed forms of DESIGN.md for gemm_tiled, written by hand."""
    M, N, K, T = (size_symbol(name) for name in "MNKT")
    iterators = tuple(iterator_symbol(name) for name in ("i0", "j0", "k0"))
    tile = T**2 if read_form is None else read_form
    scope = ScopeCost(0, "shared", ("A", "B"), iterators, (M / T) * (N / T) * (K / T),
                      {"A": tile, "B": T**2}, {"A": sympy.Integer(0), "B": sympy.Integer(0)},
                      True, 2 * 2 * T**2)
    prints = {"A": footprint("A", M * K, 0), "B": footprint("B", K * N, 0),
              "C": footprint("C", M * N, M * N)}
    return make_cost(kernel, "spec", {"fma": 2 * M * N * K},
                     {"global": 4 * M * N * K / T + 2 * M * N, "shared": 4 * M * N * K},
                     prints, [scope])


def test_compare_gemm_tiled_at_sampled_sizes():
    kernel = check(parse((SPECS / "gemm_tiled.kcost").read_text()))
    cost = gemm_tiled_cost(kernel)
    for sizes in sample_sizes(kernel, 8, random.Random(3), max_steps=30_000):
        assert compare(cost, enumerate_counts(kernel, sizes)) == [], sizes


def test_compare_substitutes_each_entry_outer_iterators():
    kernel = check(parse((SPECS / "gemm_tiled.kcost").read_text()))
    i0 = iterator_symbol("i0")
    # a form that is right only for the first row of tiles: wrong where i0 > 0
    cost = gemm_tiled_cost(kernel, read_form=size_symbol("T") ** 2 + i0)
    mismatches = compare(cost, enumerate_counts(kernel, {"M": 4, "N": 2, "K": 2, "T": 2}))
    assert [m.quantity for m in mismatches] == [
        "scope 0 (A, B in shared) read[A] at i0=2, j0=0, k0=0"]


def test_compare_clipped_scope_per_entry():
    kernel = kernel_of(CLIPPED)
    M, T = size_symbol("M"), size_symbol("T")
    i0 = iterator_symbol("i0")
    entries = sympy.ceiling(M / T)

    def cost_with(read_form):
        scope = ScopeCost(0, "shared", ("x",), (i0,), entries, {"x": read_form},
                          {"x": sympy.Integer(0)}, True, 4 * sympy.Min(T, M))
        prints = {"x": footprint("x", M, 0), "y": footprint("y", 0, M)}
        return make_cost(kernel, "spec", {"vector": M}, {"global": 8 * M, "shared": 4 * M},
                         prints, [scope])

    counts = enumerate_counts(kernel, {"M": 7, "T": 3})
    assert compare(cost_with(sympy.Min(i0 + T, M) - i0), counts) == []
    (mismatch,) = compare(cost_with(T), counts)  # rounds the last tile up
    assert mismatch.quantity == "scope 0 (x in shared) read[x] at i0=6"
    assert (mismatch.closed_form, mismatch.enumerated) == (3, 1)


def test_compare_upper_bound_footprints():
    kernel = kernel_of(VECTOR_ADD)
    n = size_symbol("n")
    base = {"x": footprint("x", n, 0), "y": footprint("y", n, 0)}
    counts = enumerate_counts(kernel, {"n": 5})
    above = make_cost(kernel, "spec", {"vector": n}, {"global": 12 * n},
                      {**base, "z": footprint("z", 0, n + 1, exact=False)})
    assert compare(above, counts) == []  # a bounding box may exceed the enumeration
    below = make_cost(kernel, "spec", {"vector": n}, {"global": 12 * n},
                      {**base, "z": footprint("z", 0, n - 1, exact=False)})
    (mismatch,) = compare(below, counts)
    assert (mismatch.quantity, mismatch.relation) == ("footprint[z].write", ">=")
    assert "should be at least" in str(mismatch)


def test_compare_reports_a_missing_scope_and_an_unevaluable_form():
    kernel = kernel_of(CLIPPED)
    M = size_symbol("M")
    prints = {"x": footprint("x", M, 0), "y": footprint("y", 0, M)}
    stray = sympy.Symbol("stray")
    cost = make_cost(kernel, "spec", {"vector": M + stray}, {"global": 8 * M, "shared": 4 * M},
                     prints)
    quantities = {m.quantity: m for m in compare(cost, enumerate_counts(kernel, {"M": 7, "T": 3}))}
    assert set(quantities) == {"work[vector]", "number of scopes"}
    assert quantities["work[vector]"].closed_form is None
    assert (quantities["number of scopes"].closed_form,
            quantities["number of scopes"].enumerated) == (0, 1)


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
