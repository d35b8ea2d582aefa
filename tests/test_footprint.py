"""The footprint module on its own: `Footprints.union`, the distinct elements a set of accesses
touches while the loops inside a region run.

Each footprint is compared, at several small sizes, with the size of a Python set of the
elements touched, built by plain loops here. An exact footprint must equal it; one flagged
inexact must never be below it."""

import itertools

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelcost
from kernelcost.base.symbols import iterator_symbol, size_symbol
from kernelcost.count.facts import Facts
from kernelcost.count.footprint import Footprints
from kernelcost.count.nest import build_nest
from kernelcost.count.sums import Summer
from kernelcost.oracle import enumerate_counts

N, M, T = (size_symbol(s) for s in ("N", "M", "T"))


def prepare(body: str, assume: str = "", tensors: str = "in x: f32[N, N]\n out y: f32[N]"):
    fact = f"assume {assume}\n" if assume else ""
    kernel = kernelcost.loads(f"kernel k(N, M, T) {{ {fact} {tensors}\n {body} }}").checked
    facts = Facts(kernel)
    nest = build_nest(kernel, facts, "spec")
    return Footprints(facts, Summer(facts)), nest, facts


def reads_of(body: str, depth: int = 0, tensor: str = "x", **options):
    footprints, nest, facts = prepare(body, **options)
    sites = [s for s in nest.accesses if s.tensor == tensor and not s.is_write]
    return footprints.union(sites, depth), facts


def at(expr, facts=None, **values):
    if facts is not None:
        expr = facts.restore(expr)
    point = {(size_symbol(n) if n in ("N", "M", "T") else iterator_symbol(n)): v
             for n, v in values.items()}
    value = expr.subs(point)
    # a rational as it is: sympy 1.14's nsimplify writes 4753/2 as a product of radicals
    return value if value.is_Rational else sympy.nsimplify(value)


def sizes(**ranges):
    names = list(ranges)
    for combination in itertools.product(*ranges.values()):
        yield dict(zip(names, combination))


# --- one access ---------------------------------------------------------------------------


def test_no_access_touches_nothing():
    footprints, _, _ = prepare("for i in 0..N { y[i] = 1 }")
    result = footprints.union([], 0)
    assert result.elements == 0 and result.exact


def test_an_injective_access_touches_one_element_per_point():
    result, _ = reads_of("for i in 0..N, j in 0..N { y[i] += x[i, j] }")
    assert result.elements == N**2 and result.exact  # (i, j) -> (i, j): N*N points
    result, _ = reads_of("for i in 0..N { y[i] += x[i, i] }")
    assert result.elements == N and result.exact  # the diagonal
    result, _ = reads_of("for i in 0..N, j in i..N { y[i] += x[i, j] }")
    assert sympy.expand(result.elements - N * (N + 1) / 2) == 0  # the upper triangle
    for n in range(1, 7):
        assert at(result.elements, N=n) == len({(a, b) for a in range(n) for b in range(a, n)})


def test_a_transpose_pair_covers_the_same_square():
    result, _ = reads_of("for i in 0..N, j in 0..N { y[i] += x[i, j] + x[j, i] }")
    assert result.elements == N**2 and result.exact


def test_a_strided_access_touches_its_trips_not_its_span():
    result, _ = reads_of("for i in 0..N by 3 { y[i] += x[0, i] }")
    assert result.elements == sympy.ceiling(N / 3) and result.exact  # 0, 3, 6, ...
    result, _ = reads_of("for i in 0..N { y[i] += x[0, 2 * i] }",
                         tensors="in x: f32[N, 2*N]\n out y: f32[N]")
    assert result.elements == N and result.exact  # 0, 2, ..., 2N - 2
    for n in range(1, 10):
        assert at(sympy.ceiling(N / 3), N=n) == len(set(range(0, n, 3)))


def test_a_symbolic_stride_that_may_be_zero_is_not_injective():
    # x[(T - 1)*i]: at T = 1 every i reads x[0], one element, not N; a footprint flagged
    # exact must hold at every size, so the stride's rank must not be taken symbolically
    result, _ = reads_of("for i in 0..N { y[i] = x[0, (T - 1) * i] }",
                         tensors="in x: f32[N, N*T]\n out y: f32[N]")
    for point in sizes(N=range(1, 6), T=range(1, 4)):
        n, t = point["N"], point["T"]
        truth = len({(t - 1) * a for a in range(n)})  # 1 at T = 1, else N
        value = at(result.elements, **point)
        assert value == truth if result.exact else value >= truth, point


def test_mixed_radix_tiles_touch_each_element_once():
    # i = T*t0 + t1 with t1 < T: the tile stride exceeds the span inside a tile
    result, facts = reads_of("for i in 0..N by T, j in 0..T { y[i] += x[0, i + j] }",
                             assume="T | N")
    assert facts.restore(result.elements) == N and result.exact
    for n, t in ((6, 3), (8, 2), (5, 5)):
        assert len({a + b for a in range(0, n, t) for b in range(t)}) == n


def test_clipped_tiles_touch_each_element_once():
    body = "for i0 in 0..N by T { for i in i0..min(i0 + T, N) { y[i] += x[0, i] } }"
    result, _ = reads_of(body)
    assert result.elements == N and result.exact
    # inside one tile (the loops below i0): min(T, N - i0) elements
    inner, _ = reads_of(body, depth=1)
    assert inner.exact
    for point in sizes(N=range(1, 10), T=range(1, 5)):
        n, t = point["N"], point["T"]
        for start in range(0, n, t):
            truth = len(set(range(start, min(start + t, n))))
            assert at(inner.elements, i0=start, **point) == truth


def test_tiles_that_overlap_are_not_injective():
    # i + j with j < 2T and a stride T: tiles overlap by T, the span is N + T - 1 (T | N)
    result, facts = reads_of("for i in 0..N by T, j in 0..2 * T { y[0] += x[0, i + j] }",
                             assume="T | N", tensors="in x: f32[N, 2*N]\n out y: f32[N]")
    for n, t in ((6, 3), (8, 2), (4, 4), (6, 1)):
        truth = len({a + b for a in range(0, n, t) for b in range(2 * t)})
        assert truth == n + t  # 0 .. N + T - 1
        value = at(result.elements, facts, N=n, T=t)
        assert value == truth if result.exact else value >= truth


def test_a_footprint_inside_an_outer_loop_is_per_entry():
    result, _ = reads_of("for i in 0..N { for j in 0..M { y[i] += x[i, j] } }", depth=1)
    assert result.elements == M and result.exact  # one row of M elements per i


# --- one element --------------------------------------------------------------------------


def test_one_element_under_loops_that_always_run_is_one():
    result, _ = reads_of("for i in 0..N, j in 0..M { y[i] += x[0, 0] }")
    assert result.elements == 1 and result.exact


def test_one_element_under_a_loop_that_may_be_empty_is_zero_or_one():
    result, _ = reads_of("for i in 0..N, j in 2..M { y[i] += x[0, 0] }")
    assert result.exact
    for point in sizes(N=range(1, 4), M=range(1, 6)):
        touched = {(0, 0) for _ in range(point["N"]) for _ in range(2, point["M"])}
        assert at(result.elements, **point) == len(touched)  # 0 for M <= 2
    assert at(result.elements, N=3, M=2) == 0


def test_one_element_under_a_triangle_that_may_be_empty():
    result, _ = reads_of("for i in 0..N, j in i..M { y[i] += x[0, 0] }")
    assert result.exact
    for point in sizes(N=range(1, 5), M=range(1, 5)):
        touched = {(0, 0) for a in range(point["N"]) for _ in range(a, point["M"])}
        assert at(result.elements, **point) == len(touched)


def test_an_unused_loop_that_may_be_empty_hides_the_points():
    # x[0, i] under `j in 2..M`: nothing is touched when M <= 2; a bound must cover N
    result, _ = reads_of("for i in 0..N, j in 2..M { y[i] += x[0, i] }")
    for point in sizes(N=range(1, 5), M=range(1, 6)):
        touched = {(0, a) for a in range(point["N"]) for _ in range(2, point["M"])}
        value = at(result.elements, **point)
        assert value == len(touched) if result.exact else value >= len(touched)


# --- unions of shifted boxes -----------------------------------------------------------------


def test_a_five_point_stencil_leaves_out_the_corners():
    result, _ = reads_of("""for i in 1..N - 1, j in 1..N - 1 {
        y[i] += x[i - 1, j] + x[i + 1, j] + x[i, j - 1] + x[i, j + 1] + x[i, j] }""",
                         assume="N >= 3")
    assert sympy.expand(result.elements - (N**2 - 4)) == 0 and result.exact  # the corners
    for n in range(3, 8):
        inner = range(1, n - 1)
        touched = {(a + da, b + db) for a in inner for b in inner
                   for da, db in ((-1, 0), (1, 0), (0, -1), (0, 1), (0, 0))}
        assert len(touched) == n * n - 4


def test_two_shifted_intervals_overlap_or_not():
    # [0, M) and [2, M + 2): they overlap by max(0, M - 2)
    result, _ = reads_of("for i in 0..M { y[i] += x[0, i] + x[0, i + 2] }",
                         tensors="in x: f32[N, M + 2]\n out y: f32[M]")
    assert result.exact
    assert sympy.expand(result.elements - (2 * M - sympy.Max(0, M - 2))) == 0
    for m in range(1, 8):
        assert at(result.elements, M=m) == len({a for a in range(m)} | {a + 2 for a in range(m)})


def test_neighbours_under_an_assumption_need_no_clip():
    result, _ = reads_of("for i in 0..N - 1 { y[i] += x[0, i] + x[0, i + 1] }",
                         assume="N >= 2")
    assert result.elements == N and result.exact  # 0 .. N - 1
    for n in range(2, 8):
        assert len({a for a in range(n - 1)} | {a + 1 for a in range(n - 1)}) == n


def test_three_shifts_in_two_dimensions():
    result, _ = reads_of("for i in 0..M, j in 0..M {"
                         " y[i] += x[i, j] + x[i + 1, j + 1] + x[i, j + 2] }",
                         tensors="in x: f32[M + 1, M + 2]\n out y: f32[M]")
    assert result.exact
    for m in range(1, 7):
        touched = {(a + da, b + db) for a in range(m) for b in range(m)
                   for da, db in ((0, 0), (1, 1), (0, 2))}
        assert at(result.elements, M=m) == len(touched)


# --- bounding boxes ----------------------------------------------------------------------


def test_accesses_that_are_no_shifts_get_a_flagged_bounding_box():
    result, _ = reads_of("for i in 0..N { y[i] += x[0, i] + x[0, 2 * i] }",
                         tensors="in x: f32[N, 2*N]\n out y: f32[N]")
    assert not result.exact
    assert result.elements == 2 * N - 1  # from 0 to 2N - 2
    for n in range(1, 10):
        truth = len({a for a in range(n)} | {2 * a for a in range(n)})  # N + floor(N/2)
        assert truth == n + n // 2
        assert at(result.elements, N=n) >= truth


def test_a_bounding_box_per_scope_entry_is_never_below_the_enumeration():
    # issue 9, defect 3: z[i] and z[j] for j in i..M, once per (i, j): one or two elements
    footprints, nest, _ = prepare("""for i in 0..N, j in i..M { keep z in l2 { z[i] = x[0]
        z[j] = x[0] } }""", tensors="in x: f32[N]\n out z: f32[N]")
    sites = [s for s in nest.accesses if s.tensor == "z"]
    loops = sites[0].loops
    per_entry = footprints.union(sites, 2)
    assert not per_entry.exact
    summed = footprints.summer.over_loops(per_entry.elements, loops)
    for point in sizes(N=range(1, 6), M=range(1, 6)):
        n, m = point["N"], point["M"]
        if m > n:
            continue  # z[j] would leave z's shape
        pairs = [(a, b) for a in range(n) for b in range(a, m)]
        for a, b in pairs:
            assert at(per_entry.elements, i=a, j=b, **point) >= len({a, b})
        assert at(summed, **point) >= sum(len({a, b}) for a, b in pairs)
    # N = M = 3: 1+2+2 + 1+2 + 1 = 9 elements over the 6 entries
    assert sum(len({a, b}) for a in range(3) for b in range(a, 3)) == 9
    # whole nest and per i: every bound covers the elements touched
    for depth in (0, 1):
        result = footprints.union(sites, depth)
        for point in sizes(N=range(1, 6), M=range(1, 6)):
            n, m = point["N"], point["M"]
            if m > n:
                continue
            if depth == 0:
                truth = len({e for a in range(n) for b in range(a, m) for e in (a, b)})
                assert at(result.elements, **point) >= truth
                assert result.exact is False or at(result.elements, **point) == truth
            else:
                for a in range(n):
                    truth = len({e for b in range(a, m) for e in (a, b)})
                    value = at(result.elements, i=a, **point)
                    assert value == truth if result.exact else value >= truth


def test_a_triangle_of_tiles_with_whole_trips_is_boxed_to_its_last_row():
    # flash_attention_causal's keys: tile i0 reads the key tiles j0 up to i0 + T. With
    # M | T and T | N the key loop's trips (i0 + T)/M are whole, so its last tile ends at
    # i0 + T, and the box over every i0 at N: the N rows read, not N + M
    result, facts = reads_of(
        "for i0 in 0..N by T, j0 in 0..i0 + T by M, j in j0..j0 + M { y[j] += x[0, j] }",
        assume="M | T, T | N")
    for point in sizes(N=range(1, 13), T=range(1, 7), M=range(1, 4)):
        n, t, m = point["N"], point["T"], point["M"]
        if n % t or t % m:
            continue
        truth = len({j for i0 in range(0, n, t) for j0 in range(0, i0 + t, m)
                     for j in range(j0, j0 + m)})
        assert truth == n and at(result.elements, facts, **point) == truth, point


def test_a_bounding_box_where_the_loops_may_not_run_is_not_negative():
    # x[0, i] and x[0, 2i + 1] for i in 2..M: empty when M <= 2
    result, _ = reads_of("for i in 2..M { y[0] += x[0, i] + x[0, 2 * i + 1] }",
                         tensors="in x: f32[N, 2*M]\n out y: f32[N]")
    for m in range(1, 9):
        truth = len({a for a in range(2, m)} | {2 * a + 1 for a in range(2, m)})
        value = at(result.elements, M=m)
        assert value >= 0
        assert value == truth if result.exact else value >= truth


# --- straight bounds of trip counts ---------------------------------------------------------


NESTED = [  # a rounding, min or max inside another: the node found first is the inner one
    lambda a, b, c: sympy.ceiling((sympy.Max(sympy.Min(a + b, c), a + 2) - a) / 2),
    lambda a, b, c: sympy.Max(sympy.Min(a + b, c), a + 1) - a,
    lambda a, b, c: sympy.Min(sympy.floor(c / 3), b) + a,
    lambda a, b, c: 2 * sympy.ceiling(sympy.Min(c, a * b) / b) - c,
    lambda a, b, c: sympy.Max(c, sympy.ceiling(a / b)) * b,
]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(range(len(NESTED))), st.booleans())
def test_a_node_inside_another_has_no_straight_bound(which, upward):
    """The slope of the expression in a node that sits inside another rounding or min/max is
    a Heaviside step or an unevaluated derivative: no prover signs it, so the bound is None,
    found without building the slope (tens of milliseconds on a clipped warpgroup loop)."""
    footprints, _, facts = prepare("for i in 0..N { y[i] = x[i, i] }")
    expr = NESTED[which](N, M, T)
    stand_in = sympy.Dummy("node")
    node = next(n for n in sympy.postorder_traversal(expr)
                if isinstance(n, (sympy.floor, sympy.ceiling, sympy.Min, sympy.Max)))
    if isinstance(node, (sympy.floor, sympy.ceiling)) and facts.integral(node.args[0]):
        return
    slope = sympy.diff(expr.xreplace({node: stand_in}), stand_in)
    assert not facts.nonnegative(slope) and not facts.nonpositive(slope)
    assert footprints.ranges._straighten(expr, upward) is None


def test_a_straight_bound_is_kept():
    footprints, _, _ = prepare("for i in 0..N { y[i] = x[i, i] }")
    expr = sympy.ceiling(N / T) + sympy.Min(N, M)
    first = footprints.ranges._straighten(expr, True)
    assert first is not None and footprints.ranges._straighten(expr, True) is first


CLIPPED_WARPGROUPS = """
kernel clipped(M, N, K, TM = 128, TN = 256, TK = 64, WM = 64, WK = 16) {
    assume TN | N, TK | K, WM | TM, WK | TK
    in  A: bf16[M, K]
    in  B: bf16[N, K]
    out C: bf16[M, N]
    for i0 in 0..M by TM, j0 in 0..N by TN parallel(threads = 384) {
        let acc: f32[TM, TN] in registers = 0
        for k0 in 0..K by TK {
            keep A, B in shared stages 4 {
                for w in i0..i0 + TM by WM, k1 in k0..k0 + TK by WK {
                    for i in w..min(w + WM, M), j in j0..j0 + TN, k in k1..k1 + WK {
                        acc[i - i0, j - j0] += A[i, k] * B[j, k]
                    }
                }
            }
        }
        for i in i0..min(i0 + TM, M), j in j0..j0 + TN {
            C[i, j] = acc[i - i0, j - j0]
        }
    }
}
"""


def test_a_warpgroup_clipped_at_the_edge_keeps_its_tile_not_the_tensor():
    """The warpgroup's rows `i in w..min(w + WM, M)` run max(0, min(M, w + WM) - w) times: a
    min inside the max that clamps an empty loop, which no straight bound was found for. Every
    box of the scope then took the declared extent, B's too (B[j, k] does not move with i),
    and the keep held the whole of A and B: 128 MiB 'does not fit' at M = N = 8192, K = 4096,
    for a 48 KiB tile. A box skips the loops its index does not move with, and the clamped
    count is bounded by the min's argument free of the counters (WM)."""
    cost = kernelcost.loads(CLIPPED_WARPGROUPS).cost()
    [scope] = cost.scopes
    TM, TN, TK = (size_symbol(name) for name in ("TM", "TN", "TK"))
    assert scope.read_elements == {"A": TK * TM, "B": TK * TN}
    # against every entry enumerated: at M = 20 with 16-row tiles of two 8-row warpgroups,
    # the last tile holds 4 rows (its second warpgroup none): the bound is an entry's count
    # inside the matrix and above it at the edge
    sizes = {"M": 20, "N": 32, "K": 16, "TM": 16, "TN": 16, "TK": 8, "WM": 8, "WK": 4}
    counts = enumerate_counts(kernelcost.loads(CLIPPED_WARPGROUPS).checked, sizes)
    [entries] = [scope.entries for scope in counts.scopes]
    found = {tensor: sorted({entry.read_elements[tensor] for entry in entries})
             for tensor in ("A", "B")}
    assert found == {"A": [4 * 8, 16 * 8], "B": [16 * 8]}
    at = {size_symbol(name): value for name, value in sizes.items()}
    assert {tensor: max(values) for tensor, values in found.items()} == {
        tensor: scope.read_elements[tensor].subs(at) for tensor in found}
