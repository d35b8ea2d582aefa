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

from kernelcost.algebra import bounded_roundings
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
