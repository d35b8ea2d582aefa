"""sympy's `Basic.free_symbols` (sympy.core.basic), each expression's set found once.

The property is the union of the arguments' free symbols, found again from the whole tree
each time it is asked, and kernelcost asks it of the same expressions again and again:
whether a counter is in a summand, which sizes a bound holds, a plan's symbols (some 1,300
times an analysis of flash_attention_hopper, walking some 6,000 nodes, 5-6 ms). Here each
expression's set is kept, as a frozenset under the expression, while kernelcost's scope is
in place (sympy_scope forgets them when the last caller leaves), and each call gets a set of
its own, as sympy's does (its callers may change the set they get). Classes with a
free_symbols of their own (Symbol, Sum, Derivative, Lambda, ...) keep theirs. The sets are
sympy's own: equal expressions are of one class with equal arguments, and so have equal
free symbols (a property test compares them with sympy's)."""

from __future__ import annotations

from sympy.core.basic import Basic

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


def forget() -> None:
    """Drop the kept sets (the expressions they hold stay alive while kept)."""
    _FOUND.clear()


PATCHES = (Patch(Basic, "free_symbols", free_symbols, Slot.PROPERTY),)
