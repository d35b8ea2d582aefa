"""The order in which sympy's assumption system tries the facts that may settle a question,
fixed instead of shuffled.

sympy 1.14's `assumptions._ask`, where a fact's own handler leaves it open, queues the
facts that could imply it and tries them breadth first, each batch shuffled by an unseeded
random generator (`sympy.core.random._assumptions_shuffle`), so that a handler inconsistent
with the rules would show as a nondeterministic answer in sympy's tests. With consistent
handlers the answer does not depend on the order: a fact is left open only once every fact
in its queue has been tried, and one settled by any of them is settled whichever comes
first. The order changes only the work done before the answer: a question settled by a
cheap fact (`ceiling(x).is_extended_real`, which `real` or `integer` settles through the
argument's type) may first ask the expensive ones (whether x is positive, whether a sum is
odd: milliseconds on a sum with roundings and min/max, each), and which it meets first
varied from one process to the next: a shipped spec's count moved by 10-40 M instructions
between runs of the same code.

Here each batch is sorted: the facts of type and kind first (commutative, finite, real,
rational, integer, ...: a sum's or product's handlers read them off the arguments), the
signs next (their handlers bound sums term by term), parity and primality last (their
handlers on a sum or product ask the parity of every term). The answers are sympy's own
(a property test holds them equal under sympy's shuffle); the order is the same in every
process."""

from __future__ import annotations

import sys

from .sympy_patch import Patch

_assumptions = sys.modules["sympy.core.assumptions"]

# type and kind; then signs; then parity and primality
_TYPES = ("commutative", "finite", "infinite", "complex", "extended_real", "real", "rational",
          "integer", "noninteger", "irrational", "algebraic", "transcendental", "hermitian",
          "antihermitian", "imaginary", "polar")
_SIGNS = ("zero", "nonzero", "extended_nonzero", "positive", "negative", "nonnegative",
          "nonpositive", "extended_positive", "extended_negative", "extended_nonnegative",
          "extended_nonpositive")
_PARITY = ("even", "odd", "prime", "composite")
_NAMED = (*_TYPES, *_SIGNS, *_PARITY)
# a fact a later sympy defines, unnamed here, after them
RANK = {fact: rank for rank, fact in enumerate(
    (*_NAMED, *sorted(_assumptions._assume_defined - set(_NAMED))))}


def ranked(facts: list[str]) -> None:
    """sympy's `_assumptions_shuffle` in `_ask`: the facts queued, put in RANK's order."""
    facts.sort(key=RANK.__getitem__)


# sympy's own, which _ask calls by the module's name `shuffle`
SYMPY_SHUFFLE = getattr(_assumptions.shuffle, "wraps", _assumptions.shuffle)
ranked.wraps = SYMPY_SHUFFLE  # type: ignore[attr-defined]

# in sympy's place while kernelcost computes (sympy_scope)
PATCHES = (Patch(_assumptions, "shuffle", ranked),)
