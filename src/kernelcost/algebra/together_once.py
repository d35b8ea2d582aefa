"""sympy.together(expr) with each distinct subexpression put together once.

It replaces sympy's `together` (sympy.polys.rationaltools, deep=False, fraction=True) where
kernelcost puts a closed-form root over one denominator (equations' tidy, root_conditions).
sympy's walks the tree, and a subexpression met twice is put together twice: the cubic's
formula holds its cube root's radicand three times, the discriminant's square root inside
each, and the tidied root holds the tidied cube root again in its numerator and denominator:
of the 167 subexpressions that `together` visits in the tidied cubic of
flash_attention_causal_split, 54 are distinct, and each one repeated costs a gcd_terms of its
sum, with sympy's questions of every term (some 25 of 35 ms of the two calls). Here each
distinct node (by identity: every node lives as long as the tree, so an id names one) is put
together once and its result taken again. The steps are sympy's own, in its order: the same
tree comes out, which a property test holds on random expressions with repeated parts."""

from __future__ import annotations

import sympy
from sympy.core.exprtools import gcd_terms


def together(expr: sympy.Basic) -> sympy.Basic:
    """sympy.together(expr): sums put over one denominator (gcd_terms with fraction=True),
    powers through their base, functions left whole, anything else through its arguments."""
    if not isinstance(expr, sympy.Basic):
        return sympy.together(expr)
    done: dict[int, sympy.Basic] = {}

    def put(node: sympy.Basic) -> sympy.Basic:
        if node.is_Atom or node.is_Function:
            return node
        found = done.get(id(node))
        if found is not None:
            return found
        if node.is_Add:
            made = gcd_terms([put(term) for term in sympy.Add.make_args(node)], fraction=True)
        elif node.is_Pow:
            made = node.func(put(node.base), node.exp)
        else:
            made = node.func(*[put(argument) for argument in node.args])
        done[id(node)] = made
        return made

    return put(expr)
