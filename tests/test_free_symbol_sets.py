"""An expression's free symbols and atoms found once (free_symbol_sets) are sympy's own
`Basic.free_symbols` and `Basic.atoms`, asked again or of an equal expression, and each
caller's set is its own to change."""

from __future__ import annotations

import sympy
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra import free_symbol_sets, sympy_scope

M, N, K = (sympy.Symbol(name, integer=True, positive=True) for name in "MNK")
x = sympy.Symbol("x")
k = sympy.Symbol("k", integer=True)
LEAVES = [M, N, K, x, k, sympy.Integer(2), sympy.Integer(-3), sympy.Rational(1, 4),
          sympy.Dummy("d", positive=True), sympy.Float(1.5)]


def _combined(children):
    two = st.tuples(children, children)
    return st.one_of(
        two.map(lambda pair: pair[0] + pair[1]),
        two.map(lambda pair: pair[0] * pair[1]),
        two.map(lambda pair: sympy.Min(*pair)),
        two.map(lambda pair: sympy.Max(*pair)),
        children.map(lambda child: sympy.floor(child / 3)),
        children.map(lambda child: child**2),
        children.map(lambda child: sympy.Sum(child * k, (k, 0, N))),  # k bound inside
    )


TERMS = st.recursive(st.sampled_from(LEAVES), _combined, max_leaves=8)
EXPRESSIONS = st.one_of(TERMS, st.tuples(TERMS, TERMS).flatmap(lambda pair: st.sampled_from(
    [sympy.Le(*pair), sympy.Tuple(*pair), sympy.Eq(*pair, evaluate=False)])))


def _sympys(expr) -> set:
    with sympy_scope.sympys_own():
        return expr.free_symbols


def _sympys_atoms(expr, *types) -> set:
    with sympy_scope.sympys_own():
        return expr.atoms(*types)


TYPES = [(), (sympy.Symbol,), (sympy.Integer,), (sympy.Symbol, sympy.floor),
         (sympy.Min, sympy.Max), (sympy.Add,), (sympy.Number,), (M,), (sympy.Integer(3), x)]


@tiered(300)
@given(EXPRESSIONS)
def test_the_free_symbols_are_sympys(expr):
    assert sympy_scope.active()  # the session computes as kernelcost does
    expected = _sympys(expr)
    assert expr.free_symbols == expected
    assert expr.free_symbols == expected  # kept, then given again
    rebuilt = expr.func(*expr.args) if expr.args else expr  # made anew
    assert rebuilt.free_symbols == _sympys(rebuilt)  # Eq(M, M, evaluate=False): True
    for node in sympy.preorder_traversal(expr):  # each kept part's own
        assert node.free_symbols == _sympys(node)


@tiered(300)
@given(EXPRESSIONS, st.sampled_from(TYPES))
def test_the_atoms_are_sympys(expr, types):
    expected = _sympys_atoms(expr, *types)
    assert expr.atoms(*types) == expected
    assert expr.atoms(*types) == expected  # kept, then given again
    assert {type(atom) for atom in expr.atoms(*types)} == {type(atom) for atom in expected}
    for node in sympy.preorder_traversal(expr):
        assert node.atoms(*types) == _sympys_atoms(node, *types)


def test_each_caller_gets_a_set_of_its_own():
    expr = M * N + sympy.ceiling(K / M)
    first = expr.free_symbols
    first.discard(M)
    first.add(x)
    assert expr.free_symbols == {M, N, K}
    assert type(expr.free_symbols) is set
    atoms = expr.atoms(sympy.Symbol)
    atoms.clear()
    assert expr.atoms(sympy.Symbol) == {M, N, K}
    assert type(expr.atoms()) is set


def test_the_kept_sets_go_with_the_scope():
    expr = M + 7 * N * K
    assert expr.free_symbols == {M, N, K}
    assert expr.atoms() == {M, N, K, sympy.Integer(7)}
    assert expr in free_symbol_sets._FOUND
    assert (expr, ()) in free_symbol_sets._ATOMS
    free_symbol_sets.forget()
    assert not free_symbol_sets._FOUND and not free_symbol_sets._ATOMS
    assert expr.free_symbols == {M, N, K}
