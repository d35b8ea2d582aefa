"""Domain rates: a kernel's time as items per second, where the spec says what one item is
(`per token = b`): one run handles `count` items, so at the roofline bound the kernel runs
count / t_min of them a second, and count / t_min_with_launch when each run is launched on
its own (the machine's launch overhead added, as `t_min_with_launch` reports it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy

from ..algebra.held_quotients import cancelled_quotient
from ..base.records import record
from ..count.values import evaluate
from ..lang.check import CheckedKernel

if TYPE_CHECKING:  # only a type here: the model loads only for a command with a machine
    from .model import Verdict


@record
class ItemRate:
    item: str  # as the spec names one: token
    count: sympy.Expr  # items one run handles, at the verdict's sizes
    per_s: sympy.Expr | None  # count / t_min; None when the kernel does not fit
    per_s_with_launch: sympy.Expr | None  # count / t_min_with_launch

    @property
    def unit(self) -> str:
        """tokens/s"""
        return f"{plural(self.item)}/s"


def item_rate(checked: CheckedKernel, result: Verdict) -> ItemRate | None:
    """The spec's items per second on the verdict's machine; None without a `per` line."""
    if checked.items is None:
        return None
    count = evaluate(checked.items.count, result.values)
    if result.t_bound is None:  # does not fit: no time, no rate
        return ItemRate(checked.items.item, count, None, None)
    return ItemRate(checked.items.item, count, cancelled_quotient(count, result.t_min),
                    cancelled_quotient(count, result.t_min_with_launch))


def plural(word: str) -> str:
    """English plural of an item's name: tokens, batches, queries."""
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"
