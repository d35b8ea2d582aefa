"""Replacer (base.symbols): xreplace with one rule, each distinct node replaced once a run,
gives xreplace's expressions, for rules of symbols, of sizes to expressions and of whole
nodes (a Min, a rounding), and for a rule that is a test (the facts' whole roundings), the
same Replacer asked again and again as a count asks it."""

from __future__ import annotations

import sympy
from hypothesis import given
from hypothesis import strategies as st
from test_rational_eval import SIZES, expressions
from tiers import tiered

from kernelcost.base.symbols import Replacer, WholeRoundings, iterator_symbol, size_symbol

N, T, M = SIZES
j = iterator_symbol("j")
COUNTER = sympy.Symbol("_j_t", integer=True, nonnegative=True)
IMAGES = st.sampled_from([N + 1, 2 * T * COUNTER, T * M, sympy.Integer(3), N / T, COUNTER])


def _rules(expr: sympy.Expr, draw_images: list[sympy.Expr]) -> dict[sympy.Expr, sympy.Expr]:
    """A rule of expr's symbols and of some of its nodes, to the images drawn."""
    nodes = sorted({node for node in sympy.preorder_traversal(expr) if node.args},
                   key=sympy.default_sort_key)
    keys = [*SIZES, *nodes[::2]]
    return dict(zip(keys, draw_images, strict=False))


@tiered(300)
@given(st.lists(expressions(), min_size=1, max_size=4), st.lists(IMAGES, min_size=1,
                                                                  max_size=6))
def test_a_replacer_gives_xreplaces_expressions(exprs, images):
    rule = _rules(exprs[0], images)
    replacer = Replacer(rule)
    for expr in [*exprs, *exprs]:  # asked again: the kept answers
        assert replacer(expr) == expr.xreplace(rule)
        assert str(replacer(expr)) == str(expr.xreplace(rule))


def test_a_replacer_of_an_iterator_and_of_whole_nodes():
    S, Bc = size_symbol("S"), size_symbol("Bc")
    bound = sympy.Min(S, Bc + j) - j
    in_counter = Replacer({j: Bc * COUNTER})
    assert in_counter(bound) == sympy.Min(S, Bc * COUNTER + Bc) - Bc * COUNTER
    assert in_counter(bound * sympy.ceiling(S / Bc)) == (in_counter(bound)
                                                         * sympy.ceiling(S / Bc))
    assert Replacer({sympy.Min(S, Bc + j): S})(bound + 1) == S - j + 1
    assert Replacer({})(bound) is bound


def _halved(argument):
    """A rule that is a test: a ceiling of an even multiple of the sizes is whole."""
    return bool((argument / 2).is_integer)


@tiered(200)
@given(st.lists(expressions(kinds=("add", "mul", "div", "ceiling", "min")), min_size=1,
                max_size=4))
def test_a_rule_that_is_a_test_gives_xreplaces_expressions(exprs):
    replacer = WholeRoundings(_halved)
    for expr in [*exprs, *exprs]:
        rule = {node: node.args[0] for node in expr.atoms(sympy.ceiling)
                if _halved(node.args[0])}
        assert replacer(expr) == expr.xreplace(rule)
