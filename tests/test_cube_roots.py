"""A crossing solved by the cubic's formula in symbolic sizes (flash_attention_causal_split's
l2 working set against its ridge): its side, its value and its condition are not factored,
which took minutes (each cube root a generator of the ring); square roots still are."""

import sympy

from kernelcost.algebra.equations import _side_of_slope, _simplified
from kernelcost.algebra.root_conditions import beyond_square_roots, positive_real_condition

B, D, S = sympy.symbols("B D S", positive=True, integer=True)
K = sympy.Symbol("k", integer=True)


def test_which_powers_are_beyond_square_roots():
    assert not beyond_square_roots(B**2 + 3 * D)
    assert not beyond_square_roots(sympy.sqrt(B * D + 1) - B)
    assert not beyond_square_roots(2**K * B)  # an integer exponent, symbolic
    assert beyond_square_roots(sympy.cbrt(B * D + 1) - B)
    assert beyond_square_roots(B + sympy.I * D)


def test_a_cube_root_in_sizes_stays_as_solved_and_its_side_is_undecided():
    root = sympy.cbrt(B**3 * D + 7 * B) - D / 2
    assert _simplified(root) == root
    assert _side_of_slope(S**3 - B * S - D, S, root) is None
    condition = positive_real_condition(root)  # the root as one factor: its sign asked whole
    assert condition.free_symbols <= {B, D}


def test_a_square_root_in_sizes_is_still_factored():
    root = (B * sympy.sqrt(D**2 + 4) - B * D) / 2
    assert _simplified(root) == B * (sympy.sqrt(D**2 + 4) - D) / 2
    assert _simplified(root).is_Mul  # B taken out, as factor takes it
