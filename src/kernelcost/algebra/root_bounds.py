"""sympy's bound on a polynomial's positive roots, in plain integers.

It replaces `dup_root_upper_bound` (sympy.polys.rootisolation), the Local Max Quadratic
bound that sympy's real-root isolation and refinement ask at every continued-fraction step
(through `dup_root_lower_bound`): a crossing's CRootOf at each machine's ridge, isolated in
`formula_roots.placed_at` and refined when its value is printed, some 1,300 bounds a
command over every machine. sympy's spends most of its time around the arithmetic: the
domain's `log` method for each pair of coefficients (the same coefficient's logarithm taken
again for every negative one before it), `min` over a list of candidate pairs built for
each, and `K.get_field()(2)`, an import and a conversion, for the power of two it returns.
Here each coefficient's logarithm is taken once, the least pair kept as it is found, and the
power taken of a 2 of the field built once; the bound is the same number of the same type,
by the same float logarithms (`int(math.log(c, 2))`, as ZZ.log takes them). Only integer
polynomials over sympy's python ZZ take this path; any other domain is left to sympy's. A
property test holds the two equal on random polynomials."""

from __future__ import annotations

import importlib
import math

from sympy.polys.domains import QQ, ZZ

from .sympy_patch import Patch

_isolation = importlib.import_module("sympy.polys.rootisolation")
_SYMPY_BOUND = getattr(_isolation.dup_root_upper_bound, "wraps",
                       _isolation.dup_root_upper_bound)
_TWO = QQ(2)
# sympy's python integers, whose field is QQ: the ground types this path computes in
_PLAIN = ZZ.dtype is int and ZZ.get_field() == QQ


def root_upper_bound(f, K):
    """dup_root_upper_bound(f, K): 2 ** (max(P) + 1) in K's field, P the LMQ exponents of
    f's negative coefficients; None where f has none with a positive one after it."""
    if K is not ZZ or not _PLAIN:
        return _SYMPY_BOUND(f, K)
    n = len(f)
    if f and f[0] < 0:
        f = [-c for c in f]
    f = f[::-1]
    used = [1] * n  # how often each positive coefficient was paired (sympy's t)
    logs: list[int | None] = [None] * n
    exponents = []
    for i in range(n):
        if f[i] >= 0:
            continue
        a = int(math.log(-f[i], 2))
        least = None
        for j in range(i + 1, n):
            if f[j] <= 0:
                continue
            if logs[j] is None:
                logs[j] = int(math.log(f[j], 2))
            pair = [(used[j] + a - logs[j]) // (j - i), j]
            if least is None or pair < least:
                least = pair
        if least is None:
            continue
        used[least[1]] += 1
        exponents.append(least[0])
    if not exponents:
        return None
    return _TWO ** (max(exponents) + 1)


root_upper_bound.wraps = _SYMPY_BOUND  # type: ignore[attr-defined]

# in sympy's place while kernelcost computes (sympy_scope): the isolation's functions call it
# by the module's name
PATCHES = (Patch(_isolation, "dup_root_upper_bound", root_upper_bound),)
