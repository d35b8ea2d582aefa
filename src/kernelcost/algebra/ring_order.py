"""The order sympy gives a polynomial ring's generators, each generator's place computed once.

`sympy.polys.polyutils._sort_gens` sorts the generators by a key made from each one's
text: it prints every generator (a rounding of sizes takes tens of microseconds to print)
and builds an options object, each time a ring is made. A count makes some fifty rings,
most over generators an earlier ring had. `sorted_generators` is `_sort_gens` without
options (the call `quotients` makes): the same key, from sympy's own table and pattern,
kept for each generator; tests/test_quotients.py holds the two equal."""

from __future__ import annotations

import functools
from collections.abc import Iterable

import sympy
from sympy.polys import polyutils


def sorted_generators(generators: Iterable[sympy.Expr]) -> tuple[sympy.Expr, ...]:
    """`_sort_gens(list(generators))`: the generators in sympy's order."""
    return tuple(sorted(generators, key=_place))


@functools.lru_cache(maxsize=4096)
def _place(generator: sympy.Expr) -> tuple[int, str, int]:
    """`_sort_gens`'s order_key with no options: the name part of the text, with its
    trailing digits as a number, after the names sympy orders first (x, y, z, ...)."""
    name, index = polyutils._re_gen.match(str(generator)).groups()
    return (polyutils._gens_order.get(name, polyutils._max_order), name,
            int(index) if index else 0)
