"""kernelcost's stand-ins for sympy's preorder walk and a polynomial's coefficients in one
variable (base.symbols.preorder, count.sums.linear_coefficients) give sympy's answers on
random expressions of sizes with roundings, Min and Max."""

from __future__ import annotations

import sympy
from hypothesis import given
from hypothesis import strategies as st
from test_rational_eval import RATIONALS, SIZES, expressions
from tiers import tiered

from kernelcost.base.symbols import first_minmax, preorder
from kernelcost.count.sums import linear_coefficients

COUNTER = sympy.Symbol("t", integer=True, nonnegative=True)


@tiered(300)
@given(expressions())
def test_the_preorder_walk_is_sympys(expr):
    assert list(preorder(expr)) == list(sympy.preorder_traversal(expr))
    expected = next((node for node in sympy.preorder_traversal(expr)
                     if isinstance(node, (sympy.Min, sympy.Max))), None)
    assert first_minmax(expr) == expected


def _sympys(expr, var):
    poly = sympy.Poly(expr, var) if expr.is_polynomial(var) else None
    if poly is None or poly.degree() > 1:
        return None
    return tuple(poly.all_coeffs()) if poly.degree() == 1 else (0, poly.as_expr())


@tiered(300)
@given(expressions(), expressions(), st.integers(0, 2), RATIONALS)
def test_the_coefficients_of_a_line_are_those_of_sympys_poly(slope, offset, power, factor):
    # the split of a min/max meets expanded differences: slope*t**power + offset, expanded
    expr = sympy.expand(factor * slope * COUNTER**power + offset)
    found = linear_coefficients(expr, COUNTER)
    assert found == _sympys(expr, COUNTER)


def test_a_clipped_bound_splits_as_sympys_poly_says():
    size, tile, width = SIZES
    difference = sympy.expand(tile * width * COUNTER + width - sympy.Min(size, tile))
    assert linear_coefficients(difference, COUNTER) == (tile * width,
                                                       width - sympy.Min(size, tile))
    assert linear_coefficients(COUNTER**2 + size, COUNTER) is None
    assert linear_coefficients(sympy.floor(COUNTER / tile), COUNTER) is None
    assert linear_coefficients(size * tile - 3, COUNTER) == (0, size * tile - 3)


@tiered(300)
@given(expressions())
def test_the_generators_counted_are_sympys(expr):
    from kernelcost.algebra.factored_forms import _generators, _sympys_generators

    assert _generators(expr) == _sympys_generators(expr)
    summed = sympy.Sum(expr * COUNTER, (COUNTER, 1, SIZES[0]))  # its counter is not free
    assert _generators(summed + expr) == _sympys_generators(summed + expr)


@tiered(300)
@given(expressions())
def test_the_innermost_call_is_sympys_and_a_stand_in_for_an_enclosed_one_stays_held(expr):
    from kernelcost.count.index_ranges import _STAND_IN, _held, innermost_call

    calls = (sympy.floor, sympy.ceiling, sympy.Min, sympy.Max)
    expected = next((node for node in sympy.postorder_traversal(expr)
                     if isinstance(node, calls)), None)
    found = innermost_call(expr)
    assert (found and found[0]) == expected
    if found is not None:
        node, enclosed = found
        assert enclosed == _held(expr.xreplace({node: _STAND_IN}), _STAND_IN)
