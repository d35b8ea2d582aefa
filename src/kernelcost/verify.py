"""The closed forms against brute-force enumeration of the nest: `kernelcost check` at the
sizes asked for, and the self-verification `analyze` runs at a few small sizes."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import sympy

from .check import CheckedKernel
from .cost import Cost
from .errors import KcostError
from .records import record
from .settings import resolve_settings
from .sizes import size_warnings

if TYPE_CHECKING:
    from .analysis import Spec
    from .oracle import Comparison, Counts, Mismatch

# The oracle (the enumeration) is imported where it runs: `analyze` and `check` use it, the
# other commands (solve, sweep, plot, ...) count without it and skip loading it.

SAMPLE_SEED = 20261129  # fixed, so that a check is repeatable


@record
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
    from .oracle import comparisons, enumerate_counts, sample_sizes

    cost = spec.cost(reuse)
    if settings:
        resolved = resolve_settings(settings, spec.parameters)
        numeric = {s: v for s, v in resolved.items() if not v.free_symbols}
        defaults = {s: sympy.Integer(v) for s, v in spec.checked.defaults.items()}
        size_warnings(spec.checked, {**defaults, **numeric})  # a step <= 0 there: an error
        assignments = [{str(s): int(v) for s, v in numeric.items()}]
    else:
        assignments = sample_sizes(spec.checked, samples, random.Random(SAMPLE_SEED))
    results = []
    for sizes in assignments:
        counts = enumerate_counts(spec.checked, sizes, reuse)
        results.append(CheckResult(sizes, counts, tuple(comparisons(cost, counts, sizes))))
    return results


# --- self-verification: `analyze` checks its closed forms before printing them -----------

VERIFY_SAMPLES = 2  # small size assignments enumerated (the issue asks for two or more)
VERIFY_MAX_STEPS = 500  # loop iterations plus statements per assignment: about a millisecond
VERIFY_MAX_ENTRIES = 8  # per-entry scope footprints compared per scope and assignment
VERIFY_CANDIDATES = 4  # assignments drawn; the largest distinct ones are kept
VERIFY_CANDIDATE_ATTEMPTS = 32  # draws for the candidates: few distinct ones, give up soon
VERIFY_ATTEMPTS = 400  # draws sample_sizes may try for the samples before it gives up
# a safety net, in CPU seconds of this process: the shipped specs take at most ~35 ms, and
# CPU time, unlike wall time, does not grow when a busy machine makes the process wait
VERIFY_TIME_CAP_S = 0.5


@record
class Verification:
    """The closed forms against enumeration at a few small sizes. Nothing here depends on
    timing except `skipped` when the cap is reached, so that the JSON stays reproducible."""

    samples: int  # size assignments enumerated and compared
    agree: bool | None  # None when no assignment was compared
    skipped: str | None  # why verification stopped early or did not run; None when it ran
    failure: CheckResult | None = None  # the first assignment where a form disagrees


def self_verify(checked: CheckedKernel, cost: Cost, *, samples: int = VERIFY_SAMPLES,
                time_cap_s: float = VERIFY_TIME_CAP_S,
                clock: Callable[[], float] = time.process_time) -> Verification:
    """Compare `cost` (counted from `checked` under cost.reuse) with the enumeration at
    `samples` small sizes that meet the spec's assumptions (defaults such as T = 128 are
    drawn small too), stopping at the first disagreement or when time_cap_s has passed."""
    from .oracle import comparisons, enumerate_counts

    start = clock()

    def out_of_time() -> bool:
        return clock() - start > time_cap_s

    try:
        assignments = _largest_samples(checked, cost, samples, out_of_time)[:samples]
    except KcostError:
        return Verification(0, None, "no small sizes meet the assumptions within "
                                     f"{VERIFY_MAX_STEPS:,} enumeration steps")
    order = [symbol.name for symbol in checked.parameters]
    for done in range(samples):
        if out_of_time():
            return _stopped(done, f"the time cap of {time_cap_s:g} s was reached after {done} "
                                  f"of {samples} samples")
        if done == len(assignments):
            return _stopped(done, f"only {done} distinct small sizes meet the assumptions "
                                  f"within {VERIFY_MAX_STEPS:,} enumeration steps")
        sizes = {name: assignments[done][name] for name in order}
        try:
            counts = enumerate_counts(checked, sizes, cost.reuse, max_steps=VERIFY_MAX_STEPS)
        except KcostError as error:
            return _stopped(done, "the enumeration cannot run this spec: "
                                  f"{error.diagnostics[0].message}")
        rows = tuple(comparisons(cost, counts, max_entries=VERIFY_MAX_ENTRIES))
        if not all(row.holds for row in rows):
            return Verification(done + 1, False, None, CheckResult(sizes, counts, rows))
    return Verification(samples, True, None)


def _largest_samples(checked: CheckedKernel, cost: Cost, samples: int,
                     stop: Callable[[], bool]) -> list[dict[str, int]]:
    """Distinct small assignments, the largest first (by the sum of their sizes): sizes of 1
    leave little for a wrong form to get wrong, and the step budget keeps them cheap."""
    from .oracle import sample_sizes

    def draw(count: int, attempts: int) -> list[dict[str, int]]:
        return sample_sizes(checked, count, random.Random(SAMPLE_SEED),
                            max_steps=VERIFY_MAX_STEPS,
                            max_attempts=attempts, stop=stop)

    candidates = max(samples, VERIFY_CANDIDATES)
    drawn = _first_that_draws(draw, ((candidates, VERIFY_CANDIDATE_ATTEMPTS),
                                     (samples, VERIFY_ATTEMPTS), (1, VERIFY_ATTEMPTS)))
    distinct = list({tuple(sorted(sizes.items())): sizes for sizes in drawn}.values())
    return sorted(distinct, key=lambda sizes: -sum(sizes.values()))  # stable: draw order


def _first_that_draws(draw: Callable[[int, int], list[dict[str, int]]],
                      tries: tuple[tuple[int, int], ...]) -> list[dict[str, int]]:
    """draw(count, attempts) for the first try that succeeds: where few assignments meet the
    assumptions, fewer candidates, then fewer samples (the last KcostError propagates)."""
    for count, attempts in tries[:-1]:
        try:
            return draw(count, attempts)
        except KcostError:
            continue
    return draw(*tries[-1])


def _stopped(done: int, reason: str) -> Verification:
    """Stopped early: the assignments compared so far all agreed (agree is None if none)."""
    return Verification(done, True if done else None, reason)
