"""`kernelcost check`: the closed forms against brute-force enumeration of the nest."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy

from .oracle import Comparison, Counts, Mismatch, comparisons, enumerate_counts, sample_sizes
from .settings import resolve_settings
from .sizes import size_warnings

if TYPE_CHECKING:
    from .analysis import Spec

SAMPLE_SEED = 20261129  # fixed, so that a check is repeatable


@dataclass(frozen=True)
class CheckResult:
    sizes: dict[str, int]  # the parameters given or sampled; defaults fill in the rest
    counts: Counts  # counts.sizes: every size as enumerated, defaults included
    rows: tuple[Comparison, ...]  # every closed form against the enumeration

    @property
    def mismatches(self) -> tuple[Mismatch, ...]:
        return tuple(row.mismatch() for row in self.rows if not row.holds)


def check_against_oracle(spec: Spec, settings: dict[str, str], reuse: str = "spec",
                         samples: int = 4) -> list[CheckResult]:
    """Enumerate at the given sizes (every parameter set, defaults filling in), or at
    `samples` small assignments that respect the spec's assumptions."""
    cost = spec.cost(reuse)
    if settings:
        resolved = resolve_settings(settings, spec.parameters)
        numeric = {s: v for s, v in resolved.items() if not v.free_symbols}
        defaults = {s: sympy.Integer(v) for s, v in spec.checked.defaults.items()}
        size_warnings(spec.checked, {**defaults, **numeric})  # a step <= 0 there: an error
        assignments = [{str(s): int(v) for s, v in numeric.items()}]
    else:
        assignments = sample_sizes(spec.checked, samples, random.Random(SAMPLE_SEED),
                                   extra_facts=cost.conditions)
    results = []
    for sizes in assignments:
        counts = enumerate_counts(spec.checked, sizes, reuse)
        results.append(CheckResult(sizes, counts, tuple(comparisons(cost, counts, sizes))))
    return results
