"""Property tests that run in both tiers: a share of their examples in the fast tier, all of
them in the slow tier.

A test decorated `@tiered(N)` checks N // SHARE examples in the fast tier (every push), and N
where the slow tier runs (`pytest -m slow`, and CI's bounded sample, which also stops it
between examples once its budget is spent). The fast tier keeps every property in front of
every change; the slow tier keeps the depth that found the bugs these tests were written for.
In CI both tiers replay the same examples each run (conftest's `ci` profile)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

import pytest
from conftest import sample_spent
from hypothesis import settings
from hypothesis.errors import FlakyStrategyDefinition

FULL = "KERNELCOST_FULL_EXAMPLES"  # set by conftest where the session runs the slow tier
SHARE = 4  # the fast tier checks a quarter of the examples


def slow_tier() -> bool:
    """Whether this session runs the slow tier (tiered tests at their full size)."""
    return bool(os.environ.get(FULL))


def examples(full: int) -> int:
    """The examples a tiered test checks in this session."""
    return full if slow_tier() else max(1, full // SHARE)


def tiered(full: int, **options: Any) -> Callable:
    """Apply above `@given`: the test's settings (`full` examples in the slow tier, no
    deadline, `options` besides) and the `tiered` mark the slow tier selects."""
    def wrap(test: Callable) -> Callable:
        inner = test.hypothesis.inner_test  # type: ignore[attr-defined]

        @functools.wraps(inner)
        def until_spent(*args: Any, **kwargs: Any) -> None:
            if not sample_spent():
                inner(*args, **kwargs)

        test.hypothesis.inner_test = until_spent  # type: ignore[attr-defined]
        counted = settings(max_examples=examples(full), deadline=None, **options)(test)

        @functools.wraps(counted)
        def cut_short(*args: Any, **kwargs: Any) -> None:
            # an example that stops at the budget draws less than the run that began its
            # prefix: hypothesis calls that flaky; with the budget spent it is the cut, a skip
            try:
                counted(*args, **kwargs)
            except FlakyStrategyDefinition:
                if not sample_spent():
                    raise
                pytest.skip("slow sample: its budget ran out during this test's examples")

        return pytest.mark.tiered(cut_short)
    return wrap
