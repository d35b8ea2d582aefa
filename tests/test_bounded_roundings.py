"""The bounded-roundings decider's short cuts agree with the bounded difference built in
sympy: the integer expansion gives shifted_sign's answer wherever it gives one, and a choice
of bounds the points rule out is one where shifted_sign finds no sign."""

from __future__ import annotations

import itertools

import pytest
import sympy
from hypothesis import event, given
from hypothesis import strategies as st
from test_decide_random import (
    ROUNDED,
    SEVERAL,
    SYMPY_ROUNDING,
    _product_expr,
    products,
)
from tiers import tiered

from kernelcost.algebra import bounded_roundings, varied_roundings
from kernelcost.algebra.shifted import shifted_sign
from kernelcost.base.symbols import size_symbol

S, L, b, h = (size_symbol(name) for name in ("S", "L", "b", "h"))


def _in_sympy(difference, lattices, uppers):
    """shifted_sign of the bounded difference as rounded_sign built it before the short cuts."""
    offsets = {rounding: sympy.Dummy(integer=True, positive=True) for rounding in uppers}
    bounds = {rounding: bounded_roundings._bound(rounding, rounding.args[0].xreplace(lattices),
                                                 offsets[rounding] - 1, upper)
              for rounding, upper in uppers.items()}
    return shifted_sign(difference.xreplace({**lattices, **bounds}))


def _assert_short_cuts_agree(difference, note=lambda text: None):
    lattices = bounded_roundings._lattice_sizes(difference)
    if lattices is None:
        return
    roundings = sorted(difference.atoms(sympy.floor, sympy.ceiling), key=sympy.default_sort_key)
    for uppers in itertools.product((False, True), repeat=len(roundings)):
        choice = dict(zip(roundings, uppers))
        found = bounded_roundings._polynomial_sign(difference, lattices, choice)
        if found is not bounded_roundings._UNKNOWN:
            note(f"expanded in integers: {found}")
            assert found == _in_sympy(difference, lattices, choice)
        if bounded_roundings._ruled_out(difference, lattices, choice):
            note("ruled out at the points")
            assert _in_sympy(difference, lattices, choice) is None


@pytest.mark.parametrize("difference", [
    # flash_attention's grid terms: positive at every size, no bound of the ceiling proves it
    -S**2 / 1350000000000 + 72 * S * sympy.ceiling(S / 13824) / 3173828125 - S / 10546875000,
    # decode_attention's: the upper bound proves the sign
    (-L * b * h / 13500000000 - 137 * b * h / 13500000000
     + 71 * (65 * L / 128 + 136) * sympy.ceiling(b * h / 71) / 2865000000000),
    sympy.ceiling(S / 7) * L - L * S / 7 + 1,
    sympy.floor(S / 3) - S / 4,
    12 - sympy.floor(sympy.Integer(102400) / (512 * sympy.Min(64, L) + 66560)),
    (S + 1)**3 * sympy.ceiling(L / 5) - L * S,
    S / L - sympy.ceiling(S / L),  # a quotient of sizes: left to sympy
])
def test_short_cuts_agree_with_sympy(difference):
    _assert_short_cuts_agree(difference)


@tiered(120)
@given(st.integers(1, 2), st.data())
def test_short_cuts_agree_on_drawn_differences(sizes, data):
    roundings = [data.draw(ROUNDED) for _ in range(sizes)]
    slots = 2 * sizes
    top = data.draw(products(slots))
    symbols = [symbol for size in SEVERAL[:sizes] for symbol in (size, sympy.Dummy())]
    rounded = {symbols[2 * k + 1]: SYMPY_ROUNDING[function]((SEVERAL[k] + shift) / quotient)
               for k, (function, quotient, shift) in enumerate(roundings)}
    _assert_short_cuts_agree(_product_expr(top, slots, symbols).xreplace(rounded), event)


CONSTANTS = st.fractions(min_value=-200, max_value=200, max_denominator=500)


def _assert_varied_agrees(rest, constants, note=lambda text: None):
    """rounded_sign of rest + k, read off rest once for every k (varied_roundings), is
    bounded_roundings's, read from the whole difference (the intensity against each
    machine's ridge, in that order)."""
    for constant in constants:
        difference = rest + sympy.Rational(constant.numerator, constant.denominator)
        sign = bounded_roundings.rounded_sign(difference)
        note(f"sign: {sign}")
        assert varied_roundings.rounded_sign(difference) == sign, (rest, constant)


HOPPER_SHARED = ((64 * S**2 + 16 * S + 13376 * sympy.ceiling(S / 176) * sympy.ceiling(S / 128))
                 / (S**2 + 32 * S * sympy.ceiling(S / 176)))


@pytest.mark.parametrize("rest", [
    HOPPER_SHARED,  # flash_attention_hopper's shared intensity, against every ridge
    HOPPER_SHARED + sympy.Rational(5, 3),  # a constant term of its own, which k joins
    -sympy.floor(sympy.Integer(65536) / sympy.Max(32768, sympy.ceiling(S / 2) + 18688)),
    -S**2 / 1350000000000 + 72 * S * sympy.ceiling(S / 13824) / 3173828125,
    sympy.ceiling(S / 7) * L - L * S / 7,
])
def test_varied_constants_agree(rest):
    from fractions import Fraction

    constants = [Fraction(k) for k in (0, 1, -1, 4, 16, 33, -33)] + [
        Fraction(7241, 452), Fraction(1915, 239), Fraction(-5, 3), Fraction(1875, 31)]
    _assert_varied_agrees(rest, constants)


@tiered(120)
@given(st.integers(1, 2), st.data())
def test_varied_constants_agree_on_drawn_quotients(sizes, data):
    """A quotient of products of sizes and roundings, as the intensities are, against drawn
    constants: one reading of it answers as each whole difference does."""
    roundings = [data.draw(ROUNDED) for _ in range(sizes)]
    slots = 2 * sizes
    top, bottom = data.draw(products(slots)), data.draw(products(slots))
    symbols = [symbol for size in SEVERAL[:sizes] for symbol in (size, sympy.Dummy())]
    rounded = {symbols[2 * k + 1]: SYMPY_ROUNDING[function]((SEVERAL[k] + shift) / quotient)
               for k, (function, quotient, shift) in enumerate(roundings)}
    quotient = data.draw(st.booleans())
    rest = (_product_expr(top, slots, symbols) / _product_expr(bottom, slots, symbols)
            if quotient else _product_expr(top, slots, symbols)).xreplace(rounded)
    constants = data.draw(st.lists(CONSTANTS, min_size=1, max_size=4))
    _assert_varied_agrees(rest, constants, event)
