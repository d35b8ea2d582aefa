"""The assumption system's facts tried in a fixed order (fact_order) give sympy's answers,
which it finds with each batch of facts shuffled."""

from __future__ import annotations

import sys

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra import fact_order, sympy_scope

ASSUMPTIONS = sys.modules["sympy.core.assumptions"]
FACTS = sorted(ASSUMPTIONS._assume_defined)
SIZES = sympy.symbols("M N T", integer=True, positive=True)
COUNTER = sympy.Symbol("k", integer=True, nonnegative=True)
LEAVES = (*SIZES, COUNTER, sympy.Symbol("x", real=True), sympy.Integer(1), sympy.Integer(2),
          sympy.Integer(-3), sympy.Rational(1, 2))


def _trees(depth: int) -> st.SearchStrategy:
    """An expression of sizes as a nested tuple, built by `_built` from the operation names."""
    leaf = st.sampled_from(range(len(LEAVES)))
    if depth == 0:
        return leaf
    inner = _trees(depth - 1)
    return st.one_of(leaf, st.tuples(
        st.sampled_from(["add", "mul", "sub", "div", "ceiling", "floor", "min", "max"]),
        inner, inner))


def _built(tree) -> sympy.Expr:
    if isinstance(tree, int):
        return LEAVES[tree]
    operation, left, right = tree
    a, b = _built(left), _built(right)
    if operation == "div":
        return a / b if b != 0 else a
    if operation in ("ceiling", "floor"):
        kind = sympy.ceiling if operation == "ceiling" else sympy.floor
        return kind(a / b) if b != 0 else kind(a)
    return {"add": sympy.Add, "mul": sympy.Mul, "sub": lambda p, q: p - q,
            "min": sympy.Min, "max": sympy.Max}[operation](a, b)


def _facts(tree, first: str) -> dict[str, bool | None]:
    """Every fact of the expression built afresh (sympy's cache emptied, so that no node
    keeps a fact found before), `first` asked first."""
    sympy.core.cache.clear_cache()
    expr = _built(tree)
    getattr(expr, f"is_{first}")
    return {fact: getattr(expr, f"is_{fact}") for fact in FACTS}


@tiered(150)
@given(_trees(3), st.sampled_from(FACTS))
def test_the_facts_are_sympys_whichever_order_they_are_tried_in(tree, first):
    assert sympy_scope.active()  # the session computes as kernelcost does
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ASSUMPTIONS, "shuffle", fact_order.SYMPY_SHUFFLE)
        shuffled = _facts(tree, first)
    assert _facts(tree, first) == shuffled


def test_every_fact_has_a_place_and_a_batch_is_sorted_in_place():
    assert set(fact_order.RANK) == ASSUMPTIONS._assume_defined
    batch = ["odd", "positive", "integer", "zero", "commutative"]
    assert fact_order.ranked(batch) is None
    assert batch == ["commutative", "integer", "zero", "positive", "odd"]
