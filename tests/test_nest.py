"""The nest module on its own: loops with counters and trip counts, keep scopes, access sites
and executions, as `build_nest` makes them from a checked kernel.

Trip counts are checked by hand and, at small sizes, against Python's own `range`."""

import itertools

import pytest
import sympy

import kernelcost
from kernelcost.base.symbols import counter_symbol, iterator_symbol, size_symbol
from kernelcost.count.facts import Facts
from kernelcost.count.nest import build_nest

N, M, T = (size_symbol(s) for s in ("N", "M", "T"))
i, j = iterator_symbol("i"), iterator_symbol("j")


def nest_of(body: str, assume: str = "", params: str = "N, M, T", reuse: str = "spec",
            tensors: str = "in x: f32[N]\n out y: f32[N]"):
    fact = f"assume {assume}\n" if assume else ""
    kernel = kernelcost.loads(f"kernel k({params}) {{ {fact} {tensors}\n {body} }}").checked
    facts = Facts(kernel)
    return build_nest(kernel, facts, reuse), facts


def loops_of(body: str, **options):
    nest, _ = nest_of(body, **options)
    return nest.executions[0].loops


def trips_at(loop, **values):
    point = {(size_symbol(n) if n in "NMT" else iterator_symbol(n)): v for n, v in values.items()}
    return loop.trips.subs(point)


# --- loops and counters ----------------------------------------------------------------------


def test_each_loop_gets_its_iterator_counter_bounds_and_depth():
    outer, inner = loops_of("for i in 0..N { for j in 1..M by 2 { y[i] += x[j] } }")
    assert (outer.var, outer.counter, outer.lo, outer.hi, outer.step, outer.depth) == (
        i, counter_symbol("i"), 0, N, 1, 0)
    assert (inner.var, inner.counter, inner.lo, inner.hi, inner.step, inner.depth) == (
        j, counter_symbol("j"), 1, M, 2, 1)
    assert inner.counter.is_integer and inner.counter.is_nonnegative
    assert outer.trips == N  # 0..N: N trips, proven nonempty (N >= 1)
    assert outer.never_empty


def test_comma_ranges_are_nested_loops():
    loops = loops_of("for i in 0..N, j in 0..i + 1 { y[i] += x[j] }")
    assert [loop.var for loop in loops] == [i, j]
    assert [loop.depth for loop in loops] == [0, 1]
    assert loops[1].trips == i + 1  # 0..i + 1 with i >= 0: never empty, no clip
    assert loops[1].never_empty


# --- trip counts ---------------------------------------------------------------------------------


def test_a_step_gives_a_ceiling_unless_divisibility_drops_it():
    (loop,) = loops_of("for i in 0..N by T { y[i] = x[i] }")
    assert loop.trips == sympy.ceiling(N / T)  # i = 0, T, 2T, ... below N
    for n, t in itertools.product(range(1, 10), range(1, 5)):
        assert trips_at(loop, N=n, T=t) == len(range(0, n, t))
    assert loop.never_empty  # N - 1 >= 0: i = 0 runs
    nest, facts = nest_of("for i in 0..N by T { y[i] = x[i] }", assume="T | N")
    (loop,) = nest.executions[0].loops
    (quotient,) = facts.backward
    assert loop.trips == quotient  # N = T*q: exactly q trips, no ceiling
    assert facts.restore(loop.trips) == N / T


def test_a_range_that_may_be_empty_is_clipped_at_zero():
    (loop,) = loops_of("for i in 2..N { y[i] = x[i] }")
    # N - 2 is negative at N = 1: the count is max(0, N - 2)
    assert loop.trips == sympy.Max(0, N - 2)
    assert not loop.never_empty  # N = 2 runs zero times
    for n in range(1, 8):
        assert trips_at(loop, N=n) == len(range(2, n))


def test_an_assumed_lower_bound_removes_the_clip():
    (loop,) = loops_of("for i in 2..N { y[i] = x[i] }", assume="N >= 2")
    assert loop.trips == N - 2  # N - 2 >= 0 proven
    assert not loop.never_empty  # N = 2 is allowed: zero trips
    (loop,) = loops_of("for i in 2..N { y[i] = x[i] }", assume="N > 2")
    assert loop.trips == N - 2
    assert loop.never_empty  # N >= 3: at least one trip
    (loop,) = loops_of("for i in 2..N { y[i] = x[i] }", assume="N >= 3")
    assert loop.never_empty


def test_a_non_strict_bound_does_not_prove_a_loop_nonempty():
    # T <= N allows T = N: `T..N` may run zero times (the slack may be zero)
    (loop,) = loops_of("for i in T..N { y[i] = x[i] }", assume="T <= N")
    assert loop.trips == N - T
    assert not loop.never_empty
    (loop,) = loops_of("for i in T..N { y[i] = x[i] }", assume="T < N")
    assert loop.never_empty
    (loop,) = loops_of("for i in N..T { y[i] = x[i] }", assume="T <= N")
    # T - N <= 0: proven not positive, but the prover only clips what it cannot prove >= 0
    assert loop.trips == sympy.Max(0, T - N)
    assert not loop.never_empty


def test_an_inner_range_that_starts_at_the_outer_iterator_is_clipped():
    _, inner = loops_of("for i in 0..N { for j in i..M { y[i] += x[j] } }")
    assert inner.trips == sympy.Max(0, M - i)  # i may pass M (N > M)
    assert not inner.never_empty
    for n, m in itertools.product(range(1, 6), repeat=2):
        for i_ in range(n):
            assert trips_at(inner, M=m, i=i_) == len(range(i_, m))


def test_a_min_bound_under_a_non_strict_assumption():
    _, inner = loops_of("for i in 0..N { for j in 0..min(T, i) { y[i] += x[j] } }",
                        assume="T <= N")
    assert inner.trips == sympy.Min(T, i)  # both arguments are >= 0 for i >= 0
    assert not inner.never_empty  # i = 0 runs zero times
    for n, t in itertools.product(range(1, 6), repeat=2):
        for i_ in range(n):
            assert trips_at(inner, T=t, i=i_) == len(range(0, min(t, i_)))


def test_a_clipped_tile_counts_the_remainder():
    outer, inner = loops_of("for i0 in 0..N by T { for i in i0..min(i0 + T, N) { y[i] = x[i] } }")
    i0 = iterator_symbol("i0")
    assert outer.trips == sympy.ceiling(N / T)
    assert sympy.simplify(inner.trips - (sympy.Min(i0 + T, N) - i0)) == 0
    assert inner.never_empty  # i0 < N and T >= 1: at least one element
    for n, t in itertools.product(range(1, 10), range(1, 5)):
        assert sum(inner.trips.subs({N: n, T: t, i0: start}) for start in range(0, n, t)) == n


@pytest.mark.parametrize("bounds, values", [
    ("1..N by T", {"N": range(1, 9), "T": range(1, 4)}),
    ("0..N by 2*T", {"N": range(1, 9), "T": range(1, 4)}),
    ("3..N + M by 2", {"N": range(1, 6), "M": range(1, 5)}),
    ("-N..N", {"N": range(1, 6)}),
    ("M..N", {"N": range(1, 6), "M": range(1, 6)}),
])
def test_trip_counts_match_python_ranges(bounds, values):
    (loop,) = loops_of(f"for i in {bounds} {{ y[0] = x[0] }}")
    names = list(values)
    for combination in itertools.product(*values.values()):
        point = {size_symbol(n): v for n, v in zip(names, combination)}
        lo, hi, step = (int(e.subs(point)) for e in (loop.lo, loop.hi, loop.step))
        assert loop.trips.subs(point) == len(range(lo, hi, step)), point
        if loop.never_empty:
            assert len(range(lo, hi, step)) >= 1, point


# --- executions and access sites ------------------------------------------------------------------


def test_executions_carry_the_work_and_the_loops_around_them():
    nest, _ = nest_of("""for i in 0..N {
        y[i] = x[i] * 2 + 1
        for j in 0..M { y[i] += x[j] * x[i] }
    }""")
    first, second = nest.executions
    assert dict(first.work) == {"vector": 2}  # one * and one +
    assert [loop.var for loop in first.loops] == [i]
    assert dict(second.work) == {"fma": 2}  # `+= a * b` fuses into one FMA, 2 FLOP
    assert [loop.var for loop in second.loops] == [i, j]


def test_reads_writes_and_accumulation_reads():
    nest, _ = nest_of("for i in 0..N, j in 0..M { y[i] += x[j] * 2 }")
    sites = [(s.tensor, s.indices, s.is_write, s.accumulation_read) for s in nest.accesses]
    assert sites == [
        ("x", (j,), False, False),  # the operand
        ("y", (i,), False, True),  # the read half of `+=`
        ("y", (i,), True, False),  # the write
    ]
    assert all([loop.var for loop in s.loops] == [i, j] for s in nest.accesses)


@pytest.mark.parametrize("op", ["max=", "min="])
def test_max_and_min_accumulations_read_back_too(op):
    nest, _ = nest_of(f"for i in 0..N {{ y[0] {op} x[i] }}")
    assert [(s.tensor, s.is_write, s.accumulation_read) for s in nest.accesses] == [
        ("x", False, False), ("y", False, True), ("y", True, False)]


def test_a_plain_assignment_does_not_read_its_target():
    nest, _ = nest_of("for i in 0..N { y[i] = x[i] }")
    assert [(s.tensor, s.is_write, s.accumulation_read) for s in nest.accesses] == [
        ("x", False, False), ("y", True, False)]


def test_a_register_local_moves_nothing_and_a_scalar_tensor_has_no_indices():
    nest, _ = nest_of("""for i in 0..N {
        let t: f32 = x[i] * s
        y[i] = t
    }""", tensors="in x: f32[N]\n in s: f32\n out y: f32[N]")
    assert [(a.tensor, a.indices, a.is_write) for a in nest.accesses] == [
        ("x", (i,), False), ("s", (), False), ("y", (i,), True)]  # no access of `t`
    assert len(nest.executions) == 2  # the local's product and the copy
    assert dict(nest.executions[0].work) == {"vector": 1}
    assert dict(nest.executions[1].work) == {}  # a copy does no arithmetic


def test_a_size_let_is_no_execution():
    nest, _ = nest_of("let H = N * 2\n for i in 0..H { y[0] = x[0] }")
    (execution,) = nest.executions
    assert execution.loops[0].hi == 2 * N


def test_indices_are_in_iterators_and_extents_in_quotients():
    nest, facts = nest_of("for i in 0..N by T, j in 0..T { y[i + j] = x[2 * i - j + 1] }",
                          assume="T | N")
    (quotient,) = facts.backward
    read, write = nest.accesses
    assert read.indices == (2 * i - j + 1,)
    assert write.indices == (i + j,)
    assert read.extent == write.extent == (T * quotient,)  # f32[N] with N = T*q


# --- keep scopes -------------------------------------------------------------------------


def test_keep_scopes_record_their_level_tensors_loops_and_parent_levels():
    nest, _ = nest_of("""keep x in l2 {
        for i in 0..N {
            keep x, y in shared { y[i] = x[i] }
        }
    }""")
    outer, inner = nest.scopes
    assert (outer.index, outer.level, outer.tensors, outer.loops) == (0, "l2", ("x",), ())
    assert outer.parent_levels == {"x": "global"}
    assert (inner.index, inner.level, inner.tensors) == (1, "shared", ("x", "y"))
    assert [loop.var for loop in inner.loops] == [i]
    # x comes into shared from the l2 scope around it, y from its home level
    assert inner.parent_levels == {"x": "l2", "y": "global"}
    read, write = nest.accesses
    assert [s.index for s in read.scopes] == [0, 1]  # outermost first
    assert [s.index for s in write.scopes] == [1]  # only the scopes that hold y


def test_a_home_level_is_the_parent_of_a_scope():
    nest, _ = nest_of("keep x in shared { for i in 0..N { y[i] = x[i] } }",
                      tensors="in x: f32[N] @ l2\n out y: f32[N]")
    (scope,) = nest.scopes
    assert scope.parent_levels == {"x": "l2"}


@pytest.mark.parametrize("reuse", ["perfect", "none"])
def test_reuse_other_than_spec_leaves_the_scopes_out(reuse):
    body = "keep x in shared { for i in 0..N { y[i] = x[i] } }"
    nest, _ = nest_of(body, reuse=reuse)
    assert nest.scopes == []
    assert [s.scopes for s in nest.accesses] == [(), ()]
    assert len(nest.executions) == 1  # the body is still counted
    spec_nest, _ = nest_of(body)
    assert len(spec_nest.scopes) == 1  # and with reuse "spec" the scope is there
