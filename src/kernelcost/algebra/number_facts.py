"""sympy's facts about a rational number, found once for each kind of number.

sympy answers `is_positive` of a fresh Integer or Rational by its handler and then deduces
every fact that follows (`deduce_all_facts`): some 40 to 90 microseconds a number, and a
machine's verdict meets hundreds of fresh numbers (its rates, its ridge, their quotients),
each asked whether it is negative by the printer, by Mul and by Add: 10 to 17 ms of a
command over every machine. Every fact of a nonzero rational but whether it is prime or
composite follows from its kind: its sign, whether it is an integer, and its parity. The
first number of each kind is asked as sympy asks it, its facts are kept, and later numbers of
that kind take them at once. Prime and composite, which depend on the value, are left to
sympy. The answers are sympy's own; only the time they take changes."""

from __future__ import annotations

import sys

import sympy

from .sympy_patch import Patch

_assumptions = sys.modules["sympy.core.assumptions"]
_SYMPY_ASK = getattr(_assumptions._ask, "wraps", _assumptions._ask)
_BY_VALUE = frozenset({"prime", "composite"})
_FACTS = tuple(sorted(_assumptions._assume_defined - _BY_VALUE))
# Integer and Rational themselves: the singletons (0, 1, -1, 1/2) have classes of their own
_KINDS = (sympy.Integer, sympy.Rational)
_known: dict[tuple, dict[str, bool]] = {}


def _ask(fact, obj):
    if fact in _BY_VALUE or type(obj) not in _KINDS:
        return _SYMPY_ASK(fact, obj)
    kind = (type(obj), obj.p > 0, obj.q == 1, obj.p % 2 if obj.q == 1 else None)
    facts = _known.get(kind)
    if facts is None:  # the first of its kind: sympy's answers, all of them, kept
        _known[kind] = {}  # meanwhile, a handler asking another fact of it asks sympy
        for each in _FACTS:
            _SYMPY_ASK(each, obj)
        _known[kind] = {each: value for each in _FACTS
                        if (value := obj._assumptions.get(each)) is not None}
        return obj._assumptions.get(fact)
    if not facts:
        return _SYMPY_ASK(fact, obj)
    obj._assumptions.update(facts)
    return facts.get(fact)


_ask.wraps = _SYMPY_ASK


# Before its first fact is asked, every new expression takes a copy of its class's facts
# (`default_assumptions.copy()`), and sympy's copy deduces each of them again from the rules:
# a few hundred copies a command, two thirds of the facts' cost in printing. A class's facts
# do not change, so the copy of the same facts, in the same order, is kept and given again.
_StdFactKB = _assumptions.StdFactKB
_SYMPY_COPY = getattr(_StdFactKB.copy, "wraps", _StdFactKB.copy)
_copies: dict[int, tuple[object, list, dict]] = {}
_MOST_COPIES = 1024


def _copy(facts):
    """StdFactKB.copy(facts), the same facts in the same order: deduced by sympy the first
    time these facts are copied, taken from that copy while they stay the same."""
    items = list(dict.items(facts))
    found = _copies.get(id(facts))
    if found is not None and found[0] is facts and found[1] == items:
        copied = _StdFactKB.__new__(_StdFactKB)
        dict.update(copied, found[2])
        copied.rules = _assumptions._assume_rules
        copied._generator = facts._generator.copy()
        return copied
    copied = _SYMPY_COPY(facts)
    if len(_copies) < _MOST_COPIES:
        _copies[id(facts)] = (facts, items, dict(copied))
    return copied


_copy.wraps = _SYMPY_COPY


# in sympy's place while kernelcost computes (sympy_scope): every fact property reads `_ask`
# from the module when it is not known yet, and copies its class's facts before
PATCHES = (Patch(_assumptions, "_ask", _ask), Patch(_StdFactKB, "copy", _copy))
