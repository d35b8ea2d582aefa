"""Counting semantics on small specs, each expected closed form derived by hand; the
reproducers of unsound counts are in test_count_reproducers.py."""

import sympy
from conftest import size
from count_checks import at, cost_of, mismatches, same

import kernelcost

M, N, K, T, n = (size(s) for s in ("M", "N", "K", "T", "n"))


def test_steps_count_with_a_ceiling_unless_divisibility_is_assumed():
    loop = "in x: f32[N]\n out y: f32[N]\n for i in 0..N by T { y[i] = 2 * x[i] }"
    plain = cost_of(f"kernel k(N, T) {{ {loop} }}")
    assert same(plain.work["vector"], sympy.ceiling(N / T))  # one multiply per iteration
    assert at(plain.work["vector"], N=10, T=4) == 3  # i = 0, 4, 8
    divisible = cost_of(f"kernel k(N, T) {{ assume T | N\n {loop} }}")
    assert same(divisible.work["vector"], N / T)


def test_triangular_loop_is_summed_exactly():
    cost = cost_of("""kernel tri(n) {
        in L: f64[n, n]
        out y: f64[n]
        for i in 0..n { for j in 0..i + 1 { y[i] += L[i, j] * L[i, j] } } }""")
    assert same(cost.work["fma"], n * (n + 1))  # 2 FLOP on each of n(n+1)/2 points
    assert same(cost.footprints["L"].read_elements, n * (n + 1) / 2)  # the lower triangle
    assert cost.footprints["L"].exact


def test_clipped_edge_tiles_count_full_tiles_plus_remainder():
    cost = cost_of("""kernel clip(M, T = 4) {
        in x: f32[M]
        out y: f32[M]
        for i0 in 0..M by T { for i in i0..min(i0 + T, M) { y[i] = 3 * x[i] } } }""")
    for m in (1, 3, 4, 7, 8, 13):
        assert at(cost.work["vector"], M=m, T=4) == m  # not rounded up to whole tiles
        assert at(cost.traffic["global"], M=m, T=4) == 8 * m


def test_five_point_stencil_union_leaves_out_the_corners():
    cost = cost_of("""kernel st(N, M) {
        assume N >= 3, M >= 3
        in u: f64[N, M]
        out v: f64[N, M]
        for i in 1..N - 1, j in 1..M - 1 {
            v[i, j] = u[i, j] + u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] } }""")
    assert same(cost.footprints["u"].read_elements, N * M - 4)  # the grid but its corners
    assert same(cost.footprints["v"].write_elements, (N - 2) * (M - 2))


def test_out_accumulation_is_read_back_when_the_scope_does_not_hold_the_whole_sum():
    spec = """kernel part(M, N, K, T = 8) {
        assume T | K
        in A: f32[M, K]
        out C: f32[M]
        for i in 0..M { for k0 in 0..K by T { keep C in registers {
            for k in k0..k0 + T { C[i] += A[i, k] } } } } }"""
    cost = cost_of(spec)
    # each (i, k0) entry fills C[i] (a partial sum from memory) and writes it back
    assert same(cost.traffic["global"], 4 * M * K + 4 * 2 * M * K / T)
    whole = spec.replace("for i in 0..M { for k0 in 0..K by T { keep C in registers {",
                         "for i in 0..M { keep C in registers { for k0 in 0..K by T {")
    cost = cost_of(whole)
    assert same(cost.traffic["global"], 4 * M * K + 4 * M)  # written once, never read


def test_reuse_none_counts_every_access_and_accumulations_twice():
    cost = cost_of("""kernel mm(M, N, K) {
        in A: bf16[M, K]
        in B: bf16[K, N]
        out C: bf16[M, N]
        for i in 0..M, j in 0..N, k in 0..K { C[i, j] += A[i, k] * B[k, j] } }""", "none")
    assert same(cost.traffic["global"], 2 * 4 * M * N * K)  # A, B read, C read and written


def test_keep_scope_fills_from_the_outer_level_and_serves_inside():
    cost = cost_of("""kernel tiled(M, N, K, T = 16) {
        assume T | M, T | N, T | K
        in A: bf16[M, K]
        in B: bf16[K, N]
        out C: bf16[M, N]
        for i0 in 0..M by T, j0 in 0..N by T, k0 in 0..K by T {
            keep A, B in shared {
                for i in i0..i0 + T, j in j0..j0 + T, k in k0..k0 + T {
                    C[i, j] += A[i, k] * B[k, j] } } } }""")
    assert same(cost.traffic["global"], 4 * M * N * K / T + 2 * M * N)
    assert same(cost.traffic["shared"], 4 * M * N * K)  # 2 reads of 2 bytes per FMA
    (scope,) = cost.scopes
    assert same(scope.entries, M * N * K / T**3)
    assert same(scope.held_bytes, 2 * 2 * T**2)  # a T x T tile of A and one of B


def test_strided_access_touches_trips_elements_not_its_span():
    cost = cost_of("""kernel stride(n) {
        in x: f32[2 * n]
        out y: f32[n]
        for i in 0..n { y[i] = x[2 * i] } }""")
    assert same(cost.footprints["x"].read_elements, n)
    assert cost.footprints["x"].exact


def test_diagonal_access_is_injective():
    cost = cost_of("""kernel diag(n) {
        in A: f32[n, n]
        out y: f32[n]
        for i in 0..n { y[i] = A[i, i] } }""")
    assert same(cost.footprints["A"].read_elements, n)


def test_locals_move_no_bytes():
    cost = cost_of("""kernel dot(n) {
        in x: f32[n]
        in y: f32[n]
        out r: f32
        let acc: f32 = 0
        for i in 0..n { acc += x[i] * y[i] }
        r = acc }""")
    assert same(cost.traffic["global"], 8 * n + 4)
    assert same(cost.work["fma"], 2 * n)


def test_home_level_charges_traffic_there():
    cost = cost_of("""kernel h(n) {
        in x: f32[n] @ l2
        out y: f32[n]
        for i in 0..n { y[i] = x[i] + 1 } }""")
    assert same(cost.traffic["l2"], 4 * n)
    assert same(cost.traffic["global"], 4 * n)


# --- regressions found by the property tests (tests/test_properties.py) -------------------


def matches_enumeration(text: str, sizes: list[dict], reuse: str = "spec") -> list[str]:
    """Mismatches of the closed forms against the oracle's enumeration at each size."""
    return [f"{s}: {m}" for s in sizes for m in mismatches(text, reuse, **s)]


def test_bounding_box_drops_arguments_the_nest_proves_smaller():
    # x[j + i0, 0] and x[0, j] are no shifted boxes: a bounding box, per entry of the keep.
    # It used to be max(0, j) - min(0, j) + 1 wide (j >= 0 unproven), and summing that max
    # over the clipped tile loops took a minute and returned a sum with a counter left free
    # ("no number"); j >= i0 >= 0 inside the nest, so the width is j + 1.
    text = """kernel box(N, M, T) {
        assume T | M
        in x: f32[2 * M + 2 * T, 2 * M + 2 * T]
        out y: f32[2 * M + 2 * T]
        for i0 in 0..M by T { for j in i0..min(i0 + T, M) {
            keep x in shared { y[j] = x[j + i0, 0] + x[0, j] } } } }"""
    from kernelcost.base.symbols import iterator_symbol

    (scope,) = cost_of(text).scopes
    i0, j = iterator_symbol("i0"), iterator_symbol("j")
    assert not scope.exact  # a bounding box, an upper bound
    assert same(scope.read_elements["x"], (j + 1) * (i0 + j + 1))
    assert matches_enumeration(text, [{"N": 1, "M": m, "T": t} for m, t in
                                      ((4, 2), (6, 3), (9, 3), (8, 4))]) == []


def test_minmax_inside_an_unevaluated_sum_is_not_split_outside_it():
    # The fill of x is a bounding box with max(k, M - 1, M + j - 1) and the like; the sum
    # over k stayed unevaluated, and the split of a max inside it (in the bound counter _k_t)
    # gave the outer sum over i limits in _k_t: a closed form with a free counter, no number.
    text = """kernel leak(N, M, T) {
        in x: f32[2 * N + 2 * M + 2 * T + 4, 2 * N + 2 * M + 2 * T + 4]
        out z: f32[2 * N + 2 * M + 2 * T + 4]
        for i in 1..M { for j in 0..M { for k in 1..M { keep x in shared {
            for l in 0..M { z[0] += x[1, k] + x[2 * k, l] + x[l, l + j] } } } } } }"""
    assert matches_enumeration(text, [{"N": 1, "M": m, "T": 1} for m in (1, 2, 4, 6)]) == []


def test_one_element_counts_zero_when_the_loops_around_it_never_run():
    # z[0] is one element only where `for i in 1..M` runs: at M = 1 nothing is touched.
    # The footprint said 1 (exact) there; now min(1, number of executions).
    text = """kernel once(M) {
        in x: f32[M]
        out z: f32[1]
        for i in 1..M { z[0] += x[i] } }"""
    cost = cost_of(text)
    assert at(cost.footprints["z"].write_elements, M=1) == 0
    assert at(cost.footprints["z"].write_elements, M=5) == 1
    assert cost.footprints["z"].exact
    assert same(cost.traffic["global"], 4 * (M - 1) + 4 * sympy.Min(1, M - 1))
    assert matches_enumeration(text, [{"M": m} for m in (1, 2, 3)]) == []


def test_bounding_box_of_a_deep_keep_is_summed_over_the_whole_nest_range():
    # A keep four loops in, over z[2l, l], z[k, 2i], z[i, l]: the per-entry box has a max of
    # three iterators in each dimension, and splitting them in every outer sum did not end
    # within minutes. Each dimension now takes its range over the whole nest (sizes only),
    # still an upper bound of each entry's footprint.
    text = """kernel deep(N, T) {
        assume T | N
        in z: f32[2 * N + 4, 2 * N + 4]
        out y: f32[2 * N + 4, 2 * N + 4]
        for i in 0..N, j in 0..N by T, k in 0..N by T, l in 0..N by 2 {
            keep z in l2 { y[0, k + l] += exp(z[2 * l, l]) - z[k, 2 * i] - z[i, l] } } }"""
    cost = cost_of(text)
    (scope,) = cost.scopes
    assert not cost.exact and not scope.exact
    assert scope.read_elements["z"].free_symbols <= {N, T}  # no iterator left
    sizes = [{"N": n, "T": t} for n, t in ((2, 1), (4, 2), (6, 3))]
    assert matches_enumeration(text, sizes) == []


def test_bounding_box_is_never_negative_where_the_nest_may_be_empty():
    # y[2 * l] under l < j < i < M: a bounding box (l's range depends on j), 2M - 5 wide.
    # At M = 2 no iteration runs and the box said -1 elements, below the truth, 0.
    text = """kernel empty(M) {
        in x: f32[2 * M + 2, 2 * M + 2]
        out y: f32[2 * M + 2]
        for i in 0..M { for j in 0..i { for l in 0..j { y[2 * l] += x[l, 1] } } } }"""
    cost = cost_of(text, "perfect")
    assert not cost.footprints["y"].exact
    assert at(cost.footprints["y"].write_elements, M=2) == 0
    assert matches_enumeration(text, [{"M": m} for m in (1, 2, 3, 5)], "perfect") == []


def test_symbolic_work_over_budget_is_a_clean_error():
    import pytest

    from kernelcost.base.errors import KcostError
    from kernelcost.count.spec_count import count

    spec = kernelcost.loads("""kernel k(n) {
        in x: f32[n]
        out y: f32[n]
        for i in 0..n { for j in 0..i + 1 { y[i] += x[j] } } }""", "budget.kcost")
    with pytest.raises(KcostError) as error:
        count(spec.checked, budget_s=0)
    assert "needs more than 0 s of symbolic work" in error.value.render()
    assert error.value.render().startswith("budget.kcost:1:1: error")


def test_accumulation_skip_follows_tile_bounds():
    cost = cost_of("""kernel g(M, N, K, T = 16) {
        assume T | M, T | N, T | K
        in A: bf16[M, K]
        in B: bf16[K, N]
        out C: f32[M, N]
        for i0 in 0..M by T, j0 in 0..N by T { keep C in shared { for k0 in 0..K by T {
            for i in i0..i0 + T, j in j0..j0 + T, k in k0..k0 + T {
                C[i, j] += A[i, k] * B[k, j] } } } } }""")
    # C[i, j] moves with i0 and j0 through the tile bounds: each entry holds whole sums, so
    # C is written once (4 B each) and never read; A and B cross once (perfect reuse)
    assert same(cost.traffic["global"], 2 * M * K + 2 * K * N + 4 * M * N)
