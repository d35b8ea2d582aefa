"""The oracle's sizes, budget and errors, sample_sizes() and compare() on hand-written closed
forms (independent of the count package)."""

from __future__ import annotations

import random

import pytest
import sympy
from oracle_specs import CLIPPED, GEMM, SPECS, VECTOR_ADD, kernel_of

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


def test_sizes_counted_already_run_alike_and_still_stop_at_the_budget():
    """`counted`: the caller drew the sizes within the budget (self-verification), so the
    steps are not counted again; the counts are the same, and a nest past the budget still
    stops, as it runs (2*3*4 statements and 2 + 6 + 24 iterations are 56 steps)."""
    kernel = kernel_of(GEMM)
    sizes = {"M": 2, "N": 3, "K": 4}
    assert enumerate_counts(kernel, sizes, max_steps=56, counted=True) == enumerate_counts(
        kernel, sizes, max_steps=56)
    with pytest.raises(KcostError, match="budget of 55 steps"):
        enumerate_counts(kernel, sizes, max_steps=55, counted=True)


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
