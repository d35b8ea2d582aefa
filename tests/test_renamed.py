"""unknowns.renamed, xreplace where subs of a size by its real twin is the same rebuild, held
equal to sympy's subs, node for node (srepr), on random forms of sizes with roundings,
Min, Max, radicals and complex numbers, and on a Sum (left to subs)."""

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost.answers.unknowns import real_variable, renamed

S, N = sympy.symbols("S N", positive=True, integer=True)
REAL = real_variable(S)
LEAVES = st.sampled_from([S, N, sympy.Integer(2), sympy.Rational(3, 7), sympy.Integer(-5),
                          sympy.I, sympy.sqrt(3)])


def _lattice(kind, first, second):
    """kind(first, second), or their sum where sympy refuses a complex argument."""
    try:
        return kind(first, second)
    except ValueError:
        return first + second


def _combined(children):
    pairs = st.tuples(children, children)
    return st.one_of(
        pairs.map(lambda pair: pair[0] + pair[1]),
        pairs.map(lambda pair: pair[0] * pair[1]),
        pairs.map(lambda pair: pair[0] / (pair[1] + S)),
        children.map(lambda child: child ** 2),
        children.map(lambda child: sympy.cbrt(child + 1)),
        children.map(lambda child: sympy.sqrt(child + S)),
        children.map(lambda child: sympy.ceiling(child / 3)),
        children.map(lambda child: sympy.floor(child / 5)),
        children.map(lambda child: _lattice(sympy.Max, child, S)),
        children.map(lambda child: _lattice(sympy.Min, child, N + 1)),
    )


FORMS = st.recursive(LEAVES, _combined, max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(FORMS)
def test_renamed_is_subs(form):
    assert sympy.srepr(renamed(form, S, REAL)) == sympy.srepr(form.subs(S, REAL))


def test_a_sum_binding_the_size_is_left_to_subs():
    k = sympy.Symbol("k", integer=True)
    form = sympy.Sum(S * k, (k, 1, N)) + S
    assert sympy.srepr(renamed(form, S, REAL)) == sympy.srepr(form.subs(S, REAL))
    bound = sympy.Sum(S, (S, 1, N)) + S  # S bound inside: subs leaves it, xreplace would not
    assert renamed(bound, S, REAL) == bound.subs(S, REAL) != bound.xreplace({S: REAL})
