"""thresholds: one expression against many numbers. Where it splits, the witnesses of the
difference built in sympy split too; where it proves a sign, the difference has that sign at
every size tried; and `decide` answers with it as it answers without it, wherever both tell."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from test_rational_eval import POINTS, RATIONALS, SIZES, expressions
from tiers import tiered

from kernelcost.algebra import decide, thresholds, witnesses
from kernelcost.base.symbols import size_symbol

N, T = (size_symbol(name) for name in ("N", "T"))
NUMBERS = st.one_of(RATIONALS, st.builds(sympy.Rational, st.integers(-10**6, 10**6),
                                         st.sampled_from([1, 7, 1000])))


def _value(expr: sympy.Expr, point) -> Fraction | None:
    try:
        value = expr.xreplace(dict(zip(SIZES, map(sympy.Integer, point))))
    except ValueError:
        return None
    return Fraction(int(value.p), int(value.q)) if value.is_Rational else None


@tiered(300)
@given(expressions(), NUMBERS, st.sampled_from([-1, 0, 1]), st.lists(POINTS, max_size=8))
@example(4 * N / (N + 1), sympy.Integer(2), 0, [(1, 1, 1), (3, 1, 1)])
@example(3 * sympy.ceiling(N / 64) + T, sympy.Integer(3), 1, [(1, 1, 1)])
def test_a_threshold_answers_as_the_difference_does(expr, number, zero_counts_as, points):
    found = thresholds.against(expr, number, zero_counts_as)
    if found is None:
        return
    split, sign = found
    difference = expr - number
    assert split == witnesses.both_signs(difference, zero_counts_as), (expr, number)
    if sign is None:
        return
    for point in points:
        value = _value(difference, point)
        if value is not None:
            assert (value > 0) - (value < 0) == sign, (expr, number, point)


@tiered(200)
@given(expressions(), NUMBERS, st.booleans(), st.booleans())
def test_decide_tells_what_it_told_without_thresholds(expr, number, strict, number_first):
    left, right = (number, expr) if number_first else (expr, number)
    with_thresholds = decide._compared.__wrapped__(left, right, strict)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(thresholds, "against", lambda *arguments: None)
        without = decide._compared.__wrapped__(left, right, strict)
    if with_thresholds is not None and without is not None:
        assert with_thresholds == without, (left, right, strict)


def test_an_intensity_against_ridges_is_read_from_one_core():
    # the same primitive part for every machine: one Core, each ridge a few products
    thresholds.core.cache_clear()
    intensity = 2 * N * T / (N + T)
    for ridge in (sympy.Rational(19800, 67), sympy.Integer(156)):
        assert thresholds.against(intensity, ridge, 0) == (True, None)  # crosses each ridge
    for low in (sympy.Rational(1, 10), sympy.Rational(1, 2)):  # 2NT/(N + T) >= 1
        assert thresholds.against(intensity, low, 0) == (False, 1)
    assert thresholds.against(3 * intensity, sympy.Integer(-1), 0) == (False, 1)
    assert thresholds.core.cache_info().currsize == 1
