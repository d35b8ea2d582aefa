"""sure_orders: the order sympy's `_is_connected` finds of two arguments of a Min or Max
where a difference is surely nonnegative, held to sympy's own answer on random pairs, and
the forms called surely nonnegative held to sympy's proof of `expr >= 0`."""

from __future__ import annotations

import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra import sound_signs
from kernelcost.algebra.sure_orders import sure_order, surely_nonnegative
from kernelcost.base.symbols import size_symbol

N, T, M = (size_symbol(name) for name in ("N", "T", "M"))
Q = sympy.Symbol("N__over__T", integer=True, positive=True)  # a quotient of the facts
COUNTER = sympy.Symbol("_i_t", integer=True, nonnegative=True)
HALF = sympy.Symbol("h", positive=True)  # positive, not an integer
SYMBOLS = (N, T, M, Q, COUNTER, HALF)
RATIONALS = st.builds(sympy.Rational, st.integers(-4, 6), st.sampled_from([1, 2, 3]))


@st.composite
def sure_forms(draw, depth: int = 3) -> sympy.Expr:
    """A form surely_nonnegative may hold: sums and products of numbers, symbols, powers and
    a symbol less a number (negative numbers too, which it must refuse)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        kind = draw(st.sampled_from(["symbol", "number", "power", "less"]))
        if kind == "symbol":
            return draw(st.sampled_from(SYMBOLS))
        if kind == "number":
            return draw(RATIONALS)
        if kind == "power":
            return draw(st.sampled_from(SYMBOLS)) ** draw(st.integers(-2, 3))
        return draw(st.sampled_from(SYMBOLS)) - draw(st.sampled_from(
            [sympy.Integer(1), sympy.Rational(1, 2), sympy.Integer(2)]))
    first, second = draw(sure_forms(depth - 1)), draw(sure_forms(depth - 1))
    return first + second if draw(st.booleans()) else first * second


@tiered(300)
@given(sure_forms())
@example(T * (Q - 1))
@example(Q - 1 + N / T)
def test_what_is_surely_nonnegative_sympy_proves_so(expr):
    sure = surely_nonnegative(expr)
    assert isinstance(sure, bool)
    if sure:
        assert (expr >= 0) is sympy.true, expr
        assert expr.is_extended_nonnegative is True, expr


def test_a_number_below_minus_one_or_a_real_symbol_less_one_is_not_sure():
    assert surely_nonnegative(T * (Q - 1))
    assert not surely_nonnegative(Q - 2)
    assert not surely_nonnegative(HALF - 1)  # 1/2 - 1 < 0
    assert not surely_nonnegative(COUNTER - 1)  # 0 - 1 < 0
    assert not surely_nonnegative(sympy.Min(N, T))


@tiered(300)
@given(sure_forms(depth=2), sure_forms(depth=2), st.booleans(), st.booleans())
@example(Q * T * COUNTER + T, Q * T * COUNTER + Q * T, False, False)  # a clipped warpgroup
@example(N + Q * T, N + T, True, False)
def test_a_sure_order_is_sympys_own(base, step, larger, expanded):
    other = base + step if larger else base - step
    if expanded:
        other = sympy.expand(other)
    if base == other:
        return
    found = sure_order(base, other)
    if found is not None:
        assert found is sound_signs._SYMPY_IS_CONNECTED(sympy.Max, base, other), (base, other)
