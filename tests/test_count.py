"""Counting semantics on small specs, each expected closed form derived by hand."""

import sympy

import kernelcost
from conftest import size

M, N, K, T, n = (size(s) for s in ("M", "N", "K", "T", "n"))


def cost_of(text: str, reuse: str = "spec"):
    return kernelcost.loads(text).cost(reuse)


def same(a, b) -> bool:
    return sympy.simplify(a - b) == 0


def at(expr, **values):
    return expr.subs({size(k): v for k, v in values.items()})


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
