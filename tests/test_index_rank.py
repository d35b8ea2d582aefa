"""The linear algebra under the footprint's injectivity test: the exact rank of a numeric
index map and the determinant of a minor with symbolic entries, against sympy's Matrix."""

import sympy
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.base.symbols import determinant_of, size_symbol
from kernelcost.count.footprint import _rank

N, M, T = (size_symbol(s) for s in ("N", "M", "T"))

_entries = st.builds(sympy.Rational, st.integers(-3, 3), st.sampled_from([1, 1, 2, 3]))


@tiered(300)
@given(st.integers(1, 4).flatmap(lambda columns: st.lists(
    st.lists(_entries, min_size=columns, max_size=columns), min_size=1, max_size=4)),
    st.booleans())
def test_the_exact_rank_is_sympys(rows, dependent):
    if dependent and len(rows) > 1:  # a combination of two rows: a rank below the row count
        rows = [*rows[:-1], [2 * a - b for a, b in zip(rows[0], rows[1])]]
    assert _rank(rows) == sympy.Matrix(rows).rank()


entries = st.sampled_from([sympy.Integer(0), sympy.Integer(1), sympy.Integer(-2), N, T - 1,
                           2 * M + 1, N * T, sympy.Max(N, T), sympy.floor(N / T)])


@tiered(150)
@given(st.integers(1, 4).flatmap(
    lambda size: st.lists(st.lists(entries, min_size=size, max_size=size),
                          min_size=size, max_size=size)))
def test_a_minors_determinant_is_the_one_sympy_writes(rows):
    """The injectivity test's minors, by cofactors: expanded, sympy's Matrix.det."""
    assert sympy.expand(determinant_of(rows)) == sympy.expand(sympy.Matrix(rows).det())
