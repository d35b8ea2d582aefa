"""sympy's `Basic.free_symbols` and `Basic.atoms` (sympy.core.basic), each expression's
sets found once.

The property is the union of the arguments' free symbols, found again from the whole tree
each time it is asked, and kernelcost asks it of the same expressions again and again:
whether a counter is in a summand, which sizes a bound holds, a plan's symbols (some 1,300
times an analysis of flash_attention_hopper, walking some 6,000 nodes, 5-6 ms). Here each
expression's set is kept, as a frozenset under the expression, while kernelcost's scope is
in place (sympy_scope forgets them when the last caller leaves), and each call gets a set of
its own, as sympy's does (its callers may change the set they get). Classes with a
free_symbols of their own (Symbol, Sum, Derivative, Lambda, ...) keep theirs. `atoms`, the
nodes of given types (or the leaves), walks the whole tree too, asked again of the same
expression and types some 160 times of 290 in an analysis: kept the same way, under the
expression and the types asked (an instance asks for its type, as sympy reads it). The sets
are sympy's own: equal expressions are of one class with equal arguments, and so have
equal free symbols and equal atoms (a property test compares them with sympy's)."""

from __future__ import annotations

from sympy.core.basic import Basic
from sympy.core.traversal import preorder_traversal as _preorder_traversal

from .sympy_patch import Patch, Slot

_FOUND: dict[Basic, frozenset] = {}


def free_symbols(self: Basic) -> set:
    """Basic.free_symbols: the union of the free symbols of the arguments."""
    try:
        found = _FOUND.get(self)
    except TypeError:  # a class that leaves itself unhashable: found each time
        return set().union(*(arg.free_symbols for arg in self.args))
    if found is None:
        found = _FOUND[self] = frozenset().union(*(arg.free_symbols for arg in self.args))
    return set(found)


_ATOMS: dict[tuple[Basic, tuple[type, ...]], frozenset] = {}


def atoms(self: Basic, *types) -> set:
    """Basic.atoms: the nodes of the given types, or without arguments where none is given."""
    kinds = tuple([kind if isinstance(kind, type) else type(kind) for kind in types])
    try:
        found = _ATOMS.get((self, kinds))
    except TypeError:  # a class that leaves itself unhashable: found each time
        return _atoms(self, kinds)
    if found is None:
        found = _ATOMS[(self, kinds)] = frozenset(_atoms(self, kinds))
    return set(found)


def _atoms(expr: Basic, kinds: tuple[type, ...]) -> set:
    nodes = _preorder_traversal(expr)
    if kinds:
        return {node for node in nodes if isinstance(node, kinds)}
    return {node for node in nodes if not node.args}


def forget() -> None:
    """Drop the kept sets (the expressions they hold stay alive while kept)."""
    _FOUND.clear()
    _ATOMS.clear()


PATCHES = (Patch(Basic, "free_symbols", free_symbols, Slot.PROPERTY),
           Patch(Basic, "atoms", atoms))
