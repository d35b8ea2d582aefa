"""The facts of a rational number, taken from the first number of its kind (number_facts),
are those sympy deduces for the number itself."""

from __future__ import annotations

import sys

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra import number_facts, sympy_scope

ASSUMPTIONS = sys.modules["sympy.core.assumptions"]
FACTS = sorted(ASSUMPTIONS._assume_defined)


def facts_of(number: sympy.Rational) -> dict[str, bool | None]:
    number._assumptions = number.default_assumptions.copy()  # as if fresh
    return {fact: getattr(number, f"is_{fact}") for fact in FACTS}


@tiered(300)
@given(st.one_of(st.integers(-40, 40), st.integers(-10**30, 10**30)),
       st.sampled_from([1, 1, 2, 3, 7, 1000, 10**20]),
       st.sampled_from(FACTS))
def test_a_number_has_sympys_facts_whichever_is_asked_first(numerator, denominator, first):
    number = sympy.Rational(numerator, denominator)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ASSUMPTIONS, "_ask", number_facts._SYMPY_ASK)
        expected = facts_of(number)
    assert sympy_scope.active()  # the session computes as kernelcost does
    number._assumptions = number.default_assumptions.copy()
    getattr(number, f"is_{first}")  # the question that fills in the others
    assert {fact: getattr(number, f"is_{fact}") for fact in FACTS} == expected


def test_prime_and_composite_are_asked_of_the_value():
    for value, prime in ((7, True), (9, False), (11, True), (15, False)):
        number = sympy.Integer(value)
        number._assumptions = number.default_assumptions.copy()
        assert number.is_positive and number.is_odd
        assert number.is_prime is prime and number.is_composite is (not prime)


@pytest.mark.parametrize("expr", [sympy.Integer(7), sympy.Rational(3, 4), sympy.Symbol("x") + 1,
                                  sympy.Symbol("n", integer=True, positive=True) * 2,
                                  sympy.ceiling(sympy.Symbol("y") / 3), sympy.S.Half])
def test_a_kept_copy_of_a_class_facts_is_sympys_copy(expr):
    defaults = type(expr).default_assumptions
    expected = number_facts._SYMPY_COPY(defaults)
    for _ in range(3):  # the first copy deduced by sympy, the later ones kept
        copied = defaults.copy()
        assert type(copied) is type(expected)
        assert list(copied.items()) == list(expected.items())
        assert copied.rules is expected.rules
        assert copied.generator == expected.generator
        assert copied is not defaults and copied._generator is not defaults._generator
    copied["positive"] = not copied.get("positive")  # a copy's own facts, not the class's
    assert list(defaults.copy().items()) == list(expected.items())
