"""count.loop_ends: a bound proven at the end of an iterator's loop, where the counter's last
value hides the loop's end inside a rounding of a min (a causal key loop clipped at S, and
its ragged tile). Each answer is checked against Python's ranges at small sizes."""

import itertools

from test_nest import loops_of, trips_at

CAUSAL = ("for i in 0..N by T, j0 in 0..min(i + T, N) by M, j in j0..min(j0 + M, END) "
          "{ y[i] += x[j] }")


def _runs(n: int, t: int, m: int, shift: int) -> list[int]:
    """The trips of the innermost loop at every point of the two outer ones."""
    return [len(range(j0, min(j0 + m, n - shift)))
            for i in range(0, n, t) for j0 in range(0, min(i + t, n), m)]


def test_a_ragged_key_tile_under_a_causal_bound_always_runs():
    loops = loops_of(CAUSAL.replace("END", "N"))
    assert loops[1].never_empty and loops[2].never_empty
    for n, t, m in itertools.product(range(1, 12), range(1, 6), range(1, 6)):
        assert min(_runs(n, t, m, 0)) >= 1
        for i0, j0 in itertools.product(range(0, n, t), range(0, n, m)):
            if j0 < min(i0 + t, n):
                assert trips_at(loops[2], N=n, T=t, M=m, i=i0, j0=j0) == len(
                    range(j0, min(j0 + m, n)))


def test_a_tile_that_can_be_empty_is_not_proven_to_run():
    # clipped at N - 1, the last key tile of the last query tile runs nothing at N = 1 + M*k
    loops = loops_of(CAUSAL.replace("END", "N - 1"))
    assert not loops[2].never_empty
    assert min(_runs(4, 2, 3, 1)) == 0
