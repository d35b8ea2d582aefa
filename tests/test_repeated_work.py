"""Work done once that sympy repeats gives sympy's own results: together with each distinct
subexpression put together once (together_once), a knowledge base's deductions kept
(fact_deductions), the bound on positive roots in plain integers (root_bounds)."""

from __future__ import annotations

import sys

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from sympy.core.facts import FactKB, InconsistentAssumptions
from sympy.polys.domains import QQ, ZZ
from tiers import tiered

from kernelcost.algebra import fact_deductions, root_bounds, sympy_scope
from kernelcost.algebra.closed_roots import polynomial_roots
from kernelcost.algebra.together_once import together
from kernelcost.base.symbols import RIDGE

ASSUMPTIONS = sys.modules["sympy.core.assumptions"]
FACTS = sorted(ASSUMPTIONS._assume_defined)
LEAVES = (sympy.Symbol("S", positive=True), sympy.Symbol("T", integer=True, positive=True),
          sympy.Symbol("x"), RIDGE, sympy.Integer(2), sympy.Rational(-3, 4), sympy.sqrt(3),
          sympy.I)
EXPONENTS = (sympy.Integer(-1), sympy.Integer(2), sympy.Rational(1, 2), sympy.Rational(1, 3),
             sympy.Rational(-2, 3))


def _trees(depth: int) -> st.SearchStrategy:
    """A nested tuple `_built` makes an expression of; "twice" uses one part two times."""
    leaf = st.sampled_from(range(len(LEAVES)))
    if depth == 0:
        return leaf
    inner = _trees(depth - 1)
    return st.one_of(leaf, st.tuples(st.sampled_from(["add", "mul", "div", "twice"]),
                                      inner, inner),
                     st.tuples(st.just("pow"), inner, st.sampled_from(range(len(EXPONENTS)))))


def _built(tree) -> sympy.Expr:
    if isinstance(tree, int):
        return LEAVES[tree]
    operation, left, right = tree
    if operation == "pow":
        base = _built(left)
        return base ** EXPONENTS[right] if base != 0 else base
    a, b = _built(left), _built(right)
    if operation == "div":
        return a / b if b != 0 else a
    if operation == "twice":  # a part met twice, as the cubic's cube root is
        return a / (b + a) + a * b if b + a != 0 else a * b
    return sympy.Add(a, b) if operation == "add" else sympy.Mul(a, b)


@tiered(200)
@given(_trees(4))
def test_together_once_is_sympys_together(tree):
    expr = _built(tree)
    assert sympy.srepr(together(expr)) == sympy.srepr(sympy.together(expr))


def test_together_once_of_the_cubics_roots_is_sympys():
    """The cubic of flash_attention_causal_split's global ridge, cleared: its three roots in
    cube roots of the ridge, and a sum over them that holds each one's radicals again."""
    size = sympy.Symbol("S", integer=True, positive=True)
    cleared = (-33024 * RIDGE * size**2 - 8388608 * RIDGE * size + size**3
               + 2130240 * size**2 + 273178624 * size + 67108864)
    roots = polynomial_roots(cleared, size)
    assert len(roots) == 3
    for root in (*roots, roots[1] / roots[2] - roots[0]):
        assert sympy.srepr(together(root)) == sympy.srepr(sympy.together(root))


def _told(pairs: list[tuple[int, bool | None]]) -> tuple[tuple[str, bool | None], ...]:
    return tuple((FACTS[index], value) for index, value in pairs)


def _deduced(deduce, batches) -> tuple[list, str | None]:
    """A knowledge base of the built-in rules told each batch in turn: its items in order,
    and the inconsistency that stopped it, if one did."""
    base = FactKB(ASSUMPTIONS._assume_rules)
    try:
        for batch in batches:
            deduce(base, batch)
    except InconsistentAssumptions as error:
        return list(dict.items(base)), str(error)
    return list(dict.items(base)), None


FACT_PAIRS = st.lists(st.tuples(st.sampled_from(range(len(FACTS))),
                                st.sampled_from([True, False, None])), max_size=3)


@tiered(400)
@given(st.lists(FACT_PAIRS, min_size=1, max_size=4), st.booleans())
def test_kept_deductions_are_sympys(batches, as_dict):
    told = [dict(_told(batch)) if as_dict else _told(batch) for batch in batches]
    expected = _deduced(fact_deductions._SYMPY_DEDUCE, told)
    for _ in range(2):  # the first deduction sympy's, the second one kept, where consistent
        assert _deduced(fact_deductions.deduce_all_facts, told) == expected


def test_the_scope_deduces_with_kept_deductions():
    assert sympy_scope.active()
    size = sympy.Symbol("n", integer=True, positive=True)
    # a fresh expression's facts, deduced twice over: the same as sympy's alone
    with sympy_scope.sympys_own():
        expected = {fact: getattr(size + 1, f"is_{fact}") for fact in FACTS}
    sympy.core.cache.clear_cache()
    assert {fact: getattr(size + 1, f"is_{fact}") for fact in FACTS} == expected
    assert fact_deductions._kept  # the scope's deductions went through the kept ones


COEFFICIENTS = st.one_of(st.integers(-50, 50), st.integers(-2**80, 2**80),
                         st.integers(-2**300, 2**300))


@tiered(400)
@given(st.lists(COEFFICIENTS, max_size=9))
def test_the_root_bound_is_sympys(coefficients):
    polynomial = [ZZ(c) for c in coefficients]
    expected = root_bounds._SYMPY_BOUND(list(polynomial), ZZ)
    found = root_bounds.root_upper_bound(list(polynomial), ZZ)
    assert found == expected and type(found) is type(expected)


def _bound(bound, polynomial, domain) -> object:
    """The bound, or the kind of error it raises (sympy's has no logarithm over QQ)."""
    try:
        return bound(list(polynomial), domain)
    except NotImplementedError as error:
        return type(error)


@pytest.mark.parametrize("polynomial", [[2039, -93123885, -5, 7], [1, -111840, -509306, 3],
                                        [-1, 0, 0, 4], [1, 2, 3], [5, -3]])
def test_a_root_bound_over_another_domain_is_left_to_sympy(polynomial):
    rational = [QQ(c, 7) for c in polynomial]
    assert (_bound(root_bounds.root_upper_bound, rational, QQ)
            == _bound(root_bounds._SYMPY_BOUND, rational, QQ))
    assert (_bound(root_bounds.root_upper_bound, polynomial, ZZ)
            == _bound(root_bounds._SYMPY_BOUND, polynomial, ZZ))
