"""sympy's forward chaining of facts, each distinct deduction done once.

It replaces `FactKB.deduce_all_facts` (sympy.core.facts), which every new fact of every
expression goes through: a knowledge base and the facts told to it give the same knowledge
base after, by the same alpha and beta rules in the same order, whatever expression it
belongs to. Most deductions repeat (a class's facts copied into a fresh expression, `zero`
found False of a positive sum): of the 1,162 that `analyze
flash_attention_causal_split --json --machine all` makes, 137 are distinct, and each takes
some 14 microseconds of rule tables and `_tell` calls. Here the knowledge base's items
before, the facts told and the rules name a deduction; the first of each is sympy's own,
and the items it leaves are kept and put in place again for the next (a dict updated with
them holds the same keys in the same order as sympy's chaining leaves it). A deduction that
finds the facts inconsistent raises as sympy's does and is not kept. A property test holds
the knowledge bases equal, key order included, on random facts."""

from __future__ import annotations

from sympy.core.facts import FactKB

from .sympy_patch import Patch

_SYMPY_DEDUCE = getattr(FactKB.deduce_all_facts, "wraps", FactKB.deduce_all_facts)
_MOST = 4096  # deductions kept: a command makes a few hundred distinct ones
_kept: dict[tuple, tuple] = {}


def deduce_all_facts(self: FactKB, facts) -> None:
    """FactKB.deduce_all_facts(self, facts): the same items in self afterwards."""
    told = tuple(facts.items()) if isinstance(facts, dict) else tuple(facts)
    key = (self.rules, tuple(dict.items(self)), told)  # the rules kept alive, by identity
    after = _kept.get(key)
    if after is not None:
        dict.update(self, after)
        return
    _SYMPY_DEDUCE(self, told)
    if len(_kept) < _MOST:
        _kept[key] = tuple(dict.items(self))


deduce_all_facts.wraps = _SYMPY_DEDUCE  # type: ignore[attr-defined]

# in sympy's place while kernelcost computes (sympy_scope)
PATCHES = (Patch(FactKB, "deduce_all_facts", deduce_all_facts),)
