"""unsure_orders: pairs of a Min or Max that sympy leaves unordered, held to sympy's own
`_is_connected` and to its own Min and Max built from the pair (the same expression, str
and srepr), on random pairs of sizes, roundings of quotients and nested Min and Max, some
that sympy orders."""

from __future__ import annotations

from unittest import mock

import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from sympy.functions.elementary.miscellaneous import MinMaxBase
from tiers import tiered

from kernelcost.algebra import sound_signs, sympy_scope
from kernelcost.algebra.unsure_orders import unordered
from kernelcost.base.symbols import size_symbol

N, T, M = (size_symbol(name) for name in ("N", "T", "M"))
Q = sympy.Symbol("N__over__T", integer=True, positive=True)  # a quotient of the facts
COUNTER = sympy.Symbol("_i_t", integer=True, nonnegative=True)
HALF = sympy.Symbol("h", positive=True)  # positive, not an integer
SYMBOLS = (N, T, M, Q, COUNTER, HALF)
NUMBERS = st.builds(sympy.Rational, st.integers(-3, 6), st.sampled_from([1, 2]))


@st.composite
def sizes(draw, depth: int = 3) -> sympy.Expr:
    """Sums, products, roundings of quotients (alone and times the divisor), Min and Max of
    symbols and numbers."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.integers(0, 4)) == 0:
            return draw(NUMBERS)
        return draw(st.sampled_from(SYMBOLS))
    first, second = draw(sizes(depth - 1)), draw(sizes(depth - 1))
    kind = draw(st.sampled_from(["add", "sub", "mul", "ceiling", "floor", "rounded", "min",
                                 "max"]))
    if kind == "add":
        return first + second
    if kind == "sub":
        return first - second
    if kind == "mul":
        return first * second
    if kind in ("ceiling", "floor", "rounded"):
        if second == 0:
            return first
        rounding = sympy.floor if kind == "floor" else sympy.ceiling
        rounded = rounding(first / second)
        return second * rounded if kind == "rounded" else rounded
    return (sympy.Min if kind == "min" else sympy.Max)(first, second)


def _sympys_is_connected(cls, x, y):
    return sound_signs._SYMPY_IS_CONNECTED(cls, x, y)


def _shortcut(cls, x, y):
    return False if unordered(x, y) else sound_signs._SYMPY_IS_CONNECTED(cls, x, y)


def _built(kind, x, y, is_connected):
    """sympy's own Min or Max of the pair, with `is_connected` for its `_is_connected`."""
    sympy.core.cache.clear_cache()
    with mock.patch.object(MinMaxBase, "_is_connected", classmethod(is_connected)):
        try:
            return kind(x, y)
        except (ValueError, TypeError) as error:
            return type(error)
        finally:
            sympy.core.cache.clear_cache()


CLIPPED = (T * sympy.ceiling(N / T), N)  # a clipped bound against its size
QUOTIENT = (M * T * sympy.ceiling(Q * N / (M * T)), Q * N)


@tiered(300)
@given(sizes(), sizes(), st.sampled_from([sympy.Min, sympy.Max]))
@example(*CLIPPED, sympy.Min)
@example(*QUOTIENT, sympy.Min)
@example(sympy.Min(Q * T, M * T), T, sympy.Max)  # a warpgroup's clipped bound
@example(T * (Q - 1), Q * T, sympy.Max)  # ordered by the factored difference
@example(N + T, N, sympy.Min)  # ordered at once
def test_an_unordered_pair_is_sympys_own(x, y, kind):
    if unordered(x, y):
        assert sound_signs._SYMPY_IS_CONNECTED(kind, x, y) is False, (x, y)
        with sympy_scope.patched():  # and with kernelcost's sound deductions
            sympy.core.cache.clear_cache()
            assert sound_signs._SYMPY_IS_CONNECTED(kind, x, y) is False, (x, y)
    own, fast = _built(kind, x, y, _sympys_is_connected), _built(kind, x, y, _shortcut)
    assert own == fast, (x, y)
    if isinstance(own, sympy.Basic):
        assert (str(own), sympy.srepr(own)) == (str(fast), sympy.srepr(fast))


def test_the_clipped_bounds_are_unordered_and_sure_orders_are_not():
    assert unordered(*CLIPPED) and unordered(*QUOTIENT)
    assert unordered(sympy.Min(Q * T, M * T), T)
    assert not unordered(T * (Q - 1), Q * T)  # sympy orders it: T*(Q - 1) - Q*T is -T
    assert not unordered(N + T, N)
    assert not unordered(T * sympy.ceiling(N / T) * M, N * M)  # factored: a product
    assert unordered(N, M)  # two sizes
    assert not unordered(COUNTER, N)  # a counter may be 0: a term of no strict sign
    assert not unordered(sympy.ceiling(N / T), N)  # ceiling has its own comparison
    assert sympy.Min(*CLIPPED).args == (N, T * sympy.ceiling(N / T))
