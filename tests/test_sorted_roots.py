"""A crossing's roots in cube roots, placed as real roots of their polynomial (CRootOf), are
sorted by their index, not by their floats: the order is the floats' order, and the floats
the printers then take are those they took after the sort by floats (sympy refines a root's
interval the same way from wherever it stands)."""

import sympy
import sympy.polys.rootoftools as rootoftools
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost.algebra.equations import _sort_key, sorted_roots
from kernelcost.algebra.numeric_roots import Root

X = sympy.Symbol("x")


def fresh_real_roots(coefficients: tuple[int, ...]) -> list[sympy.Expr]:
    """The polynomial's real roots with every interval sympy kept forgotten."""
    rootoftools._reals_cache = rootoftools._pure_key_dict()
    rootoftools._complexes_cache = rootoftools._pure_key_dict()
    sympy.core.cache.clear_cache()
    return sympy.Poly(list(coefficients), X).real_roots()


def as_roots(values: list[sympy.Expr]) -> list[Root]:
    return [Root(None, sympy.true, value, None) for value in values]


# x^3 - a x - b with three real irrational roots or one, their scale large or small
cubics = st.tuples(st.integers(1, 10**7), st.integers(1, 10**9), st.integers(1, 40),
                   st.integers(1, 9)).map(lambda t: (t[2], 0, -t[0], -t[1] * t[3]))


@settings(max_examples=60, deadline=None)
@given(cubics, st.sampled_from([sympy.Integer(1), sympy.Rational(3, 7), sympy.Integer(-2)]),
       st.randoms(use_true_random=False))
def test_sorted_by_index_as_by_float_and_printed_alike(coefficients, scale, shuffle):
    found = fresh_real_roots(coefficients)
    if not found or not all(isinstance(root.as_coeff_Mul()[1], sympy.CRootOf) for root in found):
        return  # a rational root: no CRootOf to sort
    values = [scale * root for root in found]
    order = list(range(len(values)))
    shuffle.shuffle(order)
    by_floats = sorted(as_roots([values[i] for i in order]), key=_sort_key)
    printed_before = [repr(float(root.value)) for root in by_floats]

    found = fresh_real_roots(coefficients)
    values = [scale * root for root in found]
    by_index = sorted_roots(as_roots([values[i] for i in order]))
    printed_after = [repr(float(root.value)) for root in by_index]
    assert [root.value for root in by_index] == [root.value for root in by_floats]
    assert printed_after == printed_before


def test_roots_of_two_polynomials_or_other_numbers_are_sorted_by_floats():
    first = fresh_real_roots((1, 0, -7, -1))
    second = sympy.Poly(X**3 - 5 * X - 1, X).real_roots()
    mixed = as_roots([first[2], second[0], first[0], sympy.Integer(2), sympy.sqrt(3)])
    expected = sorted(mixed, key=_sort_key)
    assert [root.value for root in sorted_roots(mixed)] == [root.value for root in expected]
    assert sorted_roots([]) == []
