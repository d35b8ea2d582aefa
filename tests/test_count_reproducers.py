"""The reproducers of unsound counts, each against the oracle's enumeration, and the closed
forms they were wrong in, derived by hand."""

import sympy
from conftest import size
from count_checks import at, cost_of, mismatches, same
from known_cases import KNOWN_CASES

import kernelcost

M, N, K, T, n = (size(s) for s in ("M", "N", "K", "T", "n"))


# --- issue "Sound counts": each reproducer, against the enumeration -----------------------


PREFIX_SUM_UNDER_A_BOUND = """kernel k(N, T) {{
    assume {fact}
    in x: f32[N]
    out y: f32[N]
    for i in 0..N {{ for j in 0..min({cap}, i) {{ y[i] += x[j] }} }}
}}"""


def test_a_non_strict_bound_proves_nothing_beyond_itself():
    # `assume T <= N` once "proved" T >= N too (a slack symbol that could only be zero)
    text = PREFIX_SUM_UNDER_A_BOUND.format(fact="T <= N", cap="T")
    cost = cost_of(text)
    assert at(cost.work["vector"], N=10, T=2) == 17  # i = 0..9: min(2, i) = 0+1+2*8
    assert mismatches(text, N=10, T=2) == []
    assert mismatches(text, N=5, T=5) == []


def test_a_lower_bound_on_a_size_proves_nothing_beyond_itself():
    text = PREFIX_SUM_UNDER_A_BOUND.format(fact="N >= 3", cap="3")
    assert at(cost_of(text).work["vector"], N=10, T=2) == 24  # 0+1+2+3*7
    assert mismatches(text, N=10, T=2) == []


def test_a_strict_bound_between_integers_proves_the_gap_of_one():
    from kernelcost.count.facts import Facts

    spec = kernelcost.loads("kernel k(N, T) { assume T < N\n in x: f32[N]\n"
                            " out y: f32[N]\n for i in 0..N { y[i] = x[i] } }")
    facts = Facts(spec.checked)
    assert facts.nonnegative(N - T - 1)  # integers: T < N means T + 1 <= N
    assert not facts.nonnegative(T - N)


def test_triangle_bounded_by_two_sizes():
    text = """kernel k(N, M) {
        in x: f32[N]
        out y: f32[N]
        for i in 0..M, j in i..N, k in j..M { y[k] = x[j] * 2 }
    }"""
    # by hand at N = 7, M = 5: i < 5, j in i..6, k in j..4 -> sum over i of
    # sum_{j=i}^{4} (5 - j) = 15 + 10 + 6 + 3 + 1
    assert at(cost_of(text).work["vector"], N=7, M=5) == 35
    for n_, m_ in ((7, 5), (5, 5), (6, 2), (1, 1)):
        assert mismatches(text, N=n_, M=m_) == []


def test_a_subtracted_max_needs_both_of_its_arguments():
    from kernelcost.count.facts import Facts

    spec = kernelcost.loads("kernel k(N, M) { in x: f32[N]\n out y: f32[N]\n"
                            " for i in 0..N { y[i] = x[i] } }")
    facts = Facts(spec.checked)
    assert facts.nonnegative_within(M + 1 - sympy.Max(0, M - 1), ())
    assert not facts.nonnegative_within(M - sympy.Max(0, N), ())  # N may exceed M


def test_a_flagged_bound_is_at_least_the_enumeration():
    text = """kernel k(N, M) {
        in x: f32[N]
        out z: f32[N]
        for i in 0..N, j in i..M { keep z in l2 { z[i] = x[0]
                                                  z[j] = x[0] } }
    }"""
    cost = cost_of(text)
    assert not cost.exact  # two accesses apart by j - i: a bounding box per entry
    for n_, m_ in ((3, 3), (4, 2), (2, 2)):
        assert mismatches(text, N=n_, M=m_) == []


def test_chained_divisibility_leaves_no_internal_symbol():
    text = """kernel k(N, K, T) {
        assume T | K, K | N
        in x: f32[N]
        out y: f32[N]
        for i in 0..N by T { for k in 0..K by T { y[i] += x[k] } }
    }"""
    cost = cost_of(text)
    assert same(cost.work["vector"], K * N / T**2)
    assert same(cost.traffic["global"], 4 * (K + N) / T)  # N/T of y, K/T of x
    names = {s.name for e in (*cost.work.values(), *cost.traffic.values()) for s in e.free_symbols}
    assert names == {"N", "K", "T"}
    reversed_order = text.replace("T | K, K | N", "K | N, T | K")
    assert same(cost_of(reversed_order).work["vector"], K * N / T**2)
    assert mismatches(text, N=12, K=6, T=3) == []


def test_several_divisors_of_one_size_all_drop_their_ceilings():
    S, Br, Bc = size("S"), size("Br"), size("Bc")
    cost = cost_of("""kernel k(S, Br, Bc) {
        assume Br | S, Bc | S
        in x: f32[S]
        out y: f32[S]
        for i in 0..S by Br { for j in 0..S by Bc { y[i] += x[j] } }
    }""")
    assert same(cost.work["vector"], S**2 / (Br * Bc))
    assert not cost.work["vector"].has(sympy.ceiling)


def test_limit_in_one_size_keeps_the_roundings_of_the_fixed_sizes():
    from kernelcost.count.asymptotic import Asymptotics

    spec = kernelcost.load("specs/gemm_tiled_clipped.kcost")
    cost = spec.cost()
    fixed = {N: 7, K: 9, T: 4}
    intensity = cost.intensity("global").xreplace(fixed)
    limit = Asymptotics(intensity).limit([M])
    # by hand: W = 2*M*7*9; Q = 2*9*M*ceiling(7/4) + 2*9*7*ceiling(M/4) + 2*M*7 bytes
    # -> 126*M / (36*M + 126*M/4 + 14*M) = 252/163 as M grows (M = 10^12 gives 1.546)
    assert limit == sympy.Rational(252, 163)
    symbolic = Asymptotics(cost.intensity("global")).limit([M])
    assert symbolic.has(sympy.ceiling)  # ceiling(N/T) stays: N and T do not grow


def test_tiles_of_tiles_under_chained_divisibility_are_exact():
    # i0 steps by K, i by T inside: x[i] visits 0, T, 2T, ... once each, N/T elements
    cost = cost_of("""kernel k(N, K, T) {
        assume T | K, K | N
        in x: f32[N]
        out y: f32[N]
        for i0 in 0..N by K { for i in i0..i0 + K by T { y[i] = x[i] } }
    }""")
    assert cost.exact
    assert same(cost.traffic["global"], 8 * N / T)  # N/T elements read and written, 4 B each


def test_a_stepped_triangle_evaluates_even_inside_a_min():
    # property-test findings F2 and F3: trip counts ceil((N - j)/2) summed over a triangle
    # stay an unevaluated Sum; the oracle's evaluation must sum it before any Min compares it
    text = """kernel k(N) {
        reuse none
        in x: f32[N]
        out y: f32[N]
        for i in 0..N, j in 0..i, k in j..N by 2 { y[0] = x[0] }
    }"""
    assert mismatches(text, N=7) == []
    assert mismatches(text, N=1) == []


def test_a_triangle_under_an_outer_max_clips_its_reversed_ranges():
    # finding F4: for i >= N the j loop is empty, not N - i < 0 trips
    text = """kernel k(N, M) {
        reuse none
        in x: f32[N + M]
        out y: f32[N + M]
        for i in 0..max(N, M), j in i..N { y[0] = x[0] }
    }"""
    # by hand at N = 5, M = 9: sum over i < 5 of (5 - i) = 15 executions, 8 B each
    assert at(cost_of(text).traffic["global"], N=5, M=9) == 120
    assert mismatches(text, N=5, M=9) == []


def test_a_sum_sympy_cannot_close_stays_exact():
    # long-run finding: sympy's telescoping solver compares a Max holding nan and raises
    # ValueError inside `summation`; the sum then stays an unevaluated, exact Sum
    text = """kernel k(N, M, T, K) {
        assume T | K
        assume K <= M
        assume K | N
        in x: f32[4 * N + 4 * M + 4 * T + 4 * K + 8]
        out y: f32[4 * N + 4 * M + 4 * T + 4 * K + 8, 4 * N + 4 * M + 4 * T + 4 * K + 8]
        out z: f32[4 * N + 4 * M + 4 * T + 4 * K + 8]
        for i in 0..M by 2 * T {
            for j in 1..N {
                for k in i..N by 2 * T {
                    keep y, x in shared {
                        keep x, z in registers {
                            y[k, j + i] += exp(x[i + j])
                            y[2 * k, i] += x[i + j] * x[i]
                        }
                    }
                }
            }
            y[2 * i, 1] = x[1]
        }
    }"""
    for sizes in ({"N": 4, "M": 6, "T": 1, "K": 2}, {"N": 6, "M": 3, "T": 1, "K": 3},
                  {"N": 8, "M": 8, "T": 2, "K": 4}):
        for reuse in ("spec", "perfect", "none"):
            assert mismatches(text, reuse, **sizes) == []


CLIPPED_CLUSTERS = """kernel clipped_clusters(M, N, K, T = 4) {
    in  A: bf16[M, K]
    in  B: bf16[K, N]
    out C: bf16[M, N]
    for i0 in 0..M by T, j0 in 0..N by T parallel(threads = 128, cluster i0 = 2) {
        let acc: f32[T, T] in registers = 0
        for k0 in 0..K by T {
            keep A, B in shared {
                for i in i0..min(i0 + T, M), j in j0..min(j0 + T, N), k in k0..min(k0 + T, K) {
                    acc[i - i0, j - j0] += A[i, k] * B[k, j]
                }
            }
        }
        for i in i0..min(i0 + T, M), j in j0..min(j0 + T, N) {
            C[i, j] = acc[i - i0, j - j0]
        }
    }
}"""


def test_clipped_cluster_tiles_keep_their_multicast():
    """Issue 34: the clipped row loop `i in i0..min(i0 + T, M)` runs at least once in every
    block and B[k, j] does not use it, so both blocks of a cluster along i0 fill the same B
    tile: B is read from L2 once a cluster, K*N per ceil(M / 2T) clusters of row tiles. The
    count used to drop the multicast (2*K*N*ceiling(M/T)) and still say exact; the oracle
    (`kernelcost check`) enumerates the clusters' fills independently."""
    spec = kernelcost.loads(CLIPPED_CLUSTERS)
    cost = spec.cost()
    assert cost.grid.multicast == ("B",)
    l2 = 2 * (K * M * sympy.ceiling(N / T) + K * N * sympy.ceiling(M / (2 * T)) + M * N)
    assert same(cost.traffic["l2"], l2) and cost.exact
    # 13 rows (four row tiles of 4, the last clipped to 1): 2 clusters; 9 columns: 3 tiles
    assert at(cost.traffic["l2"], M=13, N=9, K=7, T=4) == 2 * (7 * 13 * 3 + 7 * 9 * 2 + 13 * 9)
    from kernelcost.analysis.verify import check_against_oracle

    for sizes in ({"M": 13, "N": 9, "K": 7}, {"M": 12, "N": 3, "K": 4, "T": 1}):
        (result,) = check_against_oracle(spec, {k: str(v) for k, v in sizes.items()})
        assert not result.mismatches


EMPTY_FIRST_BLOCK = KNOWN_CASES["loop-empty-in-the-first-block-of-a-cluster"][0]


def test_a_loop_empty_in_some_blocks_of_a_cluster_bounds_its_fills():
    """`k in 0..i0` runs zero times in the first block, so that block fills nothing while
    the others fill x[1] alike: a cluster reads it from L2 once if any block runs. At N = 8,
    T = 2 the clusters (0, 2), (4, 6) read it twice (8 B) where a fill a block charges three
    times (12 B): the closed form counts 60 B of L2 for the 56 B read (the y stores are 48 B),
    and used to say exact."""
    from kernelcost.oracle import compare, enumerate_counts

    spec = kernelcost.loads(EMPTY_FIRST_BLOCK)
    cost = spec.cost()
    assert cost.grid.multicast == () and not cost.exact
    assert at(cost.traffic["l2"], N=8, T=2) == 4 * (3 + 2 + 4 + 6)
    counts = enumerate_counts(spec.checked, {"N": 8, "T": 2})
    assert counts.traffic["l2"] == 4 * (2 + 2 + 4 + 6)
    assert not compare(cost, counts)  # an upper bound, which compare checks as one


OVERLAPPING_BOXES = """kernel overlapping_boxes(M, T) {
    in x: f32[M + 8]
    inout y: f32[T + 8]
    for i in 0..M parallel(threads = 256, cluster i = 3) {
        keep y, x in shared {
            for j in 0..T {
                y[j] += x[i + 1]
                y[j] = x[i]
            }
        }
    }
}"""


def test_boxes_that_overlap_along_the_cluster_axis_are_each_blocks_own():
    """Block i fills x[i], x[i + 1]: its neighbours' boxes overlap it but differ, so no
    multicast serves them and each block loads its own 2 elements; every block fills y[0..T)
    alike, one read and one write a cluster. At M = 12, T = 1 (4 clusters of 3): 2 x 12 + 2 x
    4 = 32 elements, 128 B. The oracle used to count each cluster's union of x (4 elements,
    x[i..i + 3]), 96 B."""
    from kernelcost.oracle import compare, enumerate_counts

    spec = kernelcost.loads(OVERLAPPING_BOXES)
    cost = spec.cost()
    assert cost.grid.multicast == ("y",)
    assert at(cost.traffic["l2"], M=12, T=1) == 4 * (2 * 12 + 2 * 4)
    counts = enumerate_counts(spec.checked, {"M": 12, "T": 1})
    assert counts.traffic["l2"] == 4 * (2 * 12 + 2 * 4)
    assert not compare(cost, counts)
