"""The known cases of the property tests (test_property_cases.test_known_case): issue 9's
reproducers, as written there, and what the generator (and the issues since) found, each
with the sizes where it failed and, where needed, a relation that keeps the sampled sizes'
indices inside the tensors (`y[k]`, k < M, in f32[N]). docs/property-findings.md has their
closed forms and enumerations."""

# case name -> (its text, the sizes where it failed[, "A <= B" keeping the samples inside])
KNOWN_CASES = {
    "non-strict-le-min-T-i": ("""
        kernel k(N, T) {
            assume T <= N
            in x: f32[N]
            out y: f32[N]
            for i in 0..N {
                for j in 0..min(T, i) {
                    y[i] += x[j]
                }
            }
        }""", {"N": 10, "T": 2}),
    "non-strict-ge-min-3-i": ("""
        kernel k(N) {
            assume N >= 3
            in x: f32[N]
            out y: f32[N]
            for i in 0..N {
                for j in 0..min(3, i) {
                    y[i] += x[j]
                }
            }
        }""", {"N": 10}),
    "triangle-mixed-outer-sizes": ("""
        kernel k(N, M) {
            in x: f32[N]
            out y: f32[N]
            for i in 0..M, j in i..N, k in j..M { y[k] = x[j] * 2 }
        }""", {"N": 7, "M": 5}, "M <= N"),
    "keep-two-writes-of-one-tensor": ("""
        kernel k(N, M) {
            in x: f32[N]
            out z: f32[N]
            for i in 0..N, j in i..M { keep z in l2 { z[i] = x[0]; z[j] = x[0] } }
        }""", {"N": 3, "M": 3}, "M <= N"),
    "chained-divisibility": ("""
        kernel k(N, K, T) {
            assume T | K, K | N
            in x: f32[N]
            out y: f32[N]
            for i0 in 0..N by K { for i in i0..i0 + K by T { y[i] += x[i] } }
        }""", {"N": 16, "K": 4, "T": 2}),
    "two-divisors-of-one-size": ("""
        kernel k(S, Br, Bc) {
            assume Br | S, Bc | S
            in x: f32[S]
            out y: f32[S, S]
            for i0 in 0..S by Br, j0 in 0..S by Bc {
                keep x in shared { for i in i0..i0 + Br, j in j0..j0 + Bc { y[i, j] += x[j] } }
            }
        }""", {"S": 12, "Br": 3, "Bc": 4}),
    # found by the widened generator (docs/property-findings.md F1-F5, F7, F8)
    "F1-inner-loop-empty-at-N-1": ("""
        kernel k(N) {
            in x: f32[N]
            out y: f32[N]
            for i in 0..N, j in max(1, i)..N { y[i] += x[j] }
        }""", {"N": 1}),
    "F2-stepped-triangle-sum": ("""
        kernel k(N) {
            in x: f32[N]
            out y: f32[N]
            for i in 0..N, j in 0..i + 1, k in j..N by 2 { y[k] += x[j] }
        }""", {"N": 7}),
    "F3-min-of-an-unevaluated-sum": ("""
        kernel k(N) {
            in x: f32[N]
            out y: f32[N]
            for i in 0..N, j in 0..i, k in j..N by 2 { y[0] = x[0] }
        }""", {"N": 7}),
    "F4-triangle-under-max-of-sizes": ("""
        kernel k(N, M) {
            in x: f32[N + M]
            out y: f32[N]
            for i in 0..max(N, M), j in i..N { y[j] += x[i] }
        }""", {"N": 5, "M": 9}),
    "F5-step-T-plus-1-box": ("""
        kernel k(N, T) {
            in x: f32[N]
            out y: f32[N]
            for j0 in 0..N by T + 1, k in j0..min(j0 + T + 1, N) {
                keep x in shared { y[0] = x[0] * x[j0] * x[k] }
            }
        }""", {"N": 7, "T": 1}),
    "F7-keep-two-elements-in-one-update": ("""
        kernel k(N, M) {
            inout y: f32[N + M]
            for i in 0..N, j in i..M {
                keep y in l2 {
                    for k in 0..N { y[j] += y[i] }
                }
            }
        }""", {"N": 7, "M": 7}),
    "F8-non-strict-ge-min-2-i": ("""
        kernel k(N, M) {
            assume M >= 2
            in x: f32[N]
            out y: f32[N]
            for i in 1..M, j in min(2, i)..N { y[j] += x[i] }
        }""", {"N": 8, "M": 7}),
    "four-deep-stepped-minmax-triangle": ("""
        kernel generated(N, M, T) {
            in x: f32[4 * N + 4 * M + 4 * T + 8, 4 * N + 4 * M + 4 * T + 8]
            out y: f32[4 * N + 4 * M + 4 * T + 8]
            out z: f32[4 * N + 4 * M + 4 * T + 8]
            for i in 0..N {
                for j in i..N by T {
                    for k in j..M by 2 * T {
                        for l in max(j, 2)..min(N, M) {
                            keep z in shared {
                                y[j + i] += exp(x[l, l + j])
                                z[l] += x[l + i, l] + x[i + 1, l + j]
                            }
                        }
                    }
                }
                z[i] += x[i + 1, i]
            }
        }""", {"N": 5, "M": 7, "T": 2}),  # F6: counting once ran past 5 minutes
    "intensity-with-many-min-max-generators": ("""
        kernel generated(N, M, T, K) {
            assume K <= M
            assume K | N
            assume T | K
            in x: f32[4 * N + 4 * M + 4 * T + 4 * K + 8]
            inout y: f32[4 * N + 4 * M + 4 * T + 4 * K + 8]
            out z: f32[4 * N + 4 * M + 4 * T + 4 * K + 8]
            for i in 0..N {
                for j in 0..N by K {
                    keep x, y in shared {
                        for k in max(1, i)..min(N, M) {
                            for l in 0..M {
                                z[2 * k] += 2 * y[l]
                                z[0] = 2 * x[l]
                            }
                            y[j] += 2 * x[k]
                        }
                    }
                }
            }
        }""", {"N": 8, "M": 7, "T": 2, "K": 4}),  # F10: its intensity once took 244 s
    # found by the generator's swizzled tiles: word c of row r sits at c XOR (r mod 32), so a
    # diagonal puts every lane's word in bank 0 (32-way), and every other row of a column
    # meets 16 banks (2-way); lanes.py took both as conflict-free
    "swizzled-diagonal": ("""
        kernel k(N) {
            in x: f32[N, 64]
            out y: f32[N, 64]
            for b in 0..N parallel(threads = 32) {
                let s: f32[64, 64] in shared swizzle = 0
                for v in 0..32 lanes {
                    s[v, v] = x[b, v]
                    y[b, v] = s[v, v]
                }
            }
        }""", {"N": 1}),
    "swizzled-every-other-row": ("""
        kernel k(N) {
            in x: f32[N, 64]
            out y: f32[N, 64]
            for b in 0..N parallel(threads = 32) {
                let s: f32[64, 64] in shared swizzle = 0
                for v in 0..32 lanes {
                    s[2 * v, b] = x[b, v]
                    y[b, v] = s[2 * v, b]
                }
            }
        }""", {"N": 2}),
    # found by the generator's clusters (campaign seed 1, nest 3): j's bound holds the
    # cluster axis i, so the blocks of a cluster fill different parts of y, yet y was taken
    # as multicast (read from L2 once a cluster): 96 B counted at M = 3 for 112 B read
    "cluster-axis-in-an-inner-bound": ("""
        kernel k(M) {
            in x: f32[2 * M + 2]
            out y: f32[2 * M + 2]
            for i in 0..M parallel(threads = 32, cluster i = 2) {
                keep y in l2 {
                    for j in 0..i + 1 {
                        y[j] += x[j]
                    }
                }
            }
        }""", {"M": 3}),
    # found by the campaign (seed 6, nest 154): the cluster axis i bounds the grid's own j,
    # so the blocks of a cluster differ, yet y, x and z were taken as multicast: 1680 B of
    # L2 counted at M = 4, N = 8, T = K = 4 for 1788 B read
    "cluster-axis-in-a-grid-bound": ("""
        kernel k(N, M, T, K) {
            reuse none
            assume K | N
            assume K | M
            assume K <= M
            assume T | K
            in x: f32[8 * N + 8 * M + 8 * T + 8 * K + 64, 8 * N + 8 * M + 8 * T + 8 * K + 64]
            inout y: f32[8 * N + 8 * M + 8 * T + 8 * K + 64]
            in z: f32[8 * N + 8 * M + 8 * T + 8 * K + 64, 8 * N + 8 * M + 8 * T + 8 * K + 64]
            for i in 0..M, j in 0..i parallel(threads = 32, cluster i = 3) {
                keep y in shared {
                    for k in 0..N + 30 by 2 lanes {
                        y[j + 1] += x[i, i + j] * y[2 * k]
                        y[j + 1] max= z[i + k, k] * y[2 * j] * x[i, k]
                    }
                }
            }
        }""", {"T": 4, "K": 4, "N": 8, "M": 4}),
    # issue 34: clipped row tiles in clusters along the grid's tile iterator. The row loop
    # runs at least once in every block and x's tile does not use it, so both blocks of a
    # cluster fill the same tile, read from L2 once; the count read it once a block (96 B
    # of L2 counted at N = 5, M = 3, T = 2 for 84 B read) and still said exact
    "clipped-cluster-tiles": ("""
        kernel k(N, M, T) {
            in x: f32[N, M]
            out y: f32[N, M]
            for i0 in 0..N by T parallel(threads = 32, cluster i0 = 2) {
                keep x in shared {
                    for i in i0..min(i0 + T, N), j in 0..M {
                        y[i, j] += x[0, j]
                    }
                }
            }
        }""", {"N": 5, "M": 3, "T": 2}),
    # issue 34, found while widening the generator: a keep inside the block's tile loop,
    # whose range moves with the cluster axis, fills at steps (j = 0, 1 in one block, 2, 3
    # in the next) that the cluster's blocks do not share, yet x was taken as multicast: 48 B
    # of L2 counted at M = 8, T = 2 for 64 B read
    "keep-inside-a-loop-that-moves-with-the-cluster-axis": ("""
        kernel k(M, T) {
            assume T | M
            in x: f32[M, M]
            out y: f32[M]
            for i0 in 0..M by T parallel(threads = 32, cluster i0 = 2) {
                for j in i0..i0 + T {
                    keep x in shared {
                        y[j] += x[0, 1]
                    }
                }
            }
        }""", {"M": 8, "T": 2}),
    # a loop empty in the first block of a cluster (`k in 0..i0` at i0 = 0): that block fills
    # nothing, the rest of its cluster x[1] alike, so the cluster reads it once; a fill a
    # block (60 B of L2 at N = 8, T = 2 for 56 B read) is an upper bound, once said exact
    "loop-empty-in-the-first-block-of-a-cluster": ("""
        kernel k(N, T) {
            assume T | N
            in x: f32[N]
            out y: f32[N, N]
            for i0 in 0..N by T parallel(threads = 32, cluster i0 = 2) {
                keep x in shared {
                    for k in 0..i0 {
                        y[i0, k] = 2 * x[1]
                    }
                }
            }
        }""", {"N": 8, "T": 2}),
}
