"""sympy's `Factors` of a term built from a dict, without sympy's comparisons of the dict.

`Factors.__init__` (sympy.core.exprtools), given a dict of base -> exponent, first asks
whether it is None or S.One and then whether it is zero: `dict == S.One` falls to Integer's
`__eq__`, which sympifies the whole dict into a sympy `Dict` (every key and exponent
sympified again) only to answer False, as `dict == 0` does at once. factor_terms and
gcd_terms build a `Factors` from a dict for every product and quotient of two terms
(`Factors.mul`, `quo`, `normal`, `gcd`): some 1,500 a command with all machines, a third of
their time; and `Term` builds two from defaultdicts of exponents for every term it reads,
each of which sympy turns into a sorted `Dict` the same way. For a plain dict or defaultdict
every one of those questions is False, so the branch sympy takes for it is taken here at
once, as sympy 1.14 writes it (a defaultdict stays one, as its copy is); anything else is
sympy's own. The result is sympy's own (a property test compares the two)."""

from __future__ import annotations

from collections import defaultdict

from sympy import I, S
from sympy.core.exprtools import Factors, _isnumber
from sympy.core.numbers import equal_valued

from .sympy_patch import Patch

_SYMPYS_INIT = getattr(Factors.__init__, "wraps", Factors.__init__)
# the dicts that compare unequal to 1 and 0 without a question: not a subclass of either
# with an __eq__ of its own
_PLAIN_DICTS = (dict, defaultdict)


def _factors_init(self, factors=None) -> None:
    if type(factors) not in _PLAIN_DICTS:
        _SYMPYS_INIT(self, factors)
        return
    factors = factors.copy()
    # sympy's branch for a dict: powers of -1, 1 and I with numeric exponents made canonical
    handle = [k for k in factors if k is I or k in (-1, 1)]
    if handle:
        i1 = S.One
        for k in handle:
            if not _isnumber(factors[k]):
                continue
            i1 *= k**factors.pop(k)
        if i1 is not S.One:
            for a in i1.args if i1.is_Mul else [i1]:  # at worst, -1.0*I*(-1)**e
                if a is S.NegativeOne:
                    factors[a] = S.One
                elif a is I:
                    factors[I] = S.One
                elif a.is_Pow:
                    factors[a.base] = factors.get(a.base, S.Zero) + a.exp
                elif equal_valued(a, 1):
                    factors[a] = S.One
                elif equal_valued(a, -1):
                    factors[-a] = S.One
                    factors[S.NegativeOne] = S.One
                else:
                    raise ValueError(f"unexpected factor in i1: {a}")
    self.factors = factors
    self.gens = frozenset(factors.keys())


_factors_init.wraps = _SYMPYS_INIT  # type: ignore[attr-defined]

PATCHES = (Patch(Factors, "__init__", _factors_init),)
