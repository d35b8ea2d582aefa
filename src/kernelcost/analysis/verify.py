"""The closed forms against brute-force enumeration of the nest: `kernelcost check` at the
sizes asked for, and the self-verification `analyze` runs at a few small sizes."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import sympy

from ..base.errors import KcostError
from ..base.kinds import Reuse
from ..base.records import record
from ..count.cost import Cost
from ..lang.check import CheckedKernel
from ..lang.settings import refuse_unnumbered, resolve_settings
from ..lang.sizes import size_warnings

if TYPE_CHECKING:
    from ..oracle import Comparison, Counts, Mismatch

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


class Checkable(Protocol):
    """What `check` reads of a loaded spec (analysis.api.Spec)."""

    @property
    def checked(self) -> CheckedKernel: ...

    @property
    def parameters(self) -> dict[str, sympy.Symbol]: ...

    def cost(self, reuse: Reuse | str = Reuse.SPEC) -> Cost: ...


def check_against_oracle(spec: Checkable, settings: dict[str, str],
                         reuse: Reuse | str = Reuse.SPEC,
                         samples: int = 4) -> list[CheckResult]:
    """Enumerate at the given sizes (defaults filling in) where they leave no size without a
    value, else at `samples` small assignments that respect the spec's assumptions, with the
    sizes given pinned."""
    from ..oracle import comparisons, enumerate_counts, sample_sizes

    cost = spec.cost(reuse)
    pinned: dict[str, int] = {}
    if settings:
        resolved = resolve_settings(settings, spec.parameters)
        refuse_unnumbered(settings, resolved)
        defaults = {s: sympy.Integer(v) for s, v in spec.checked.defaults.items()}
        size_warnings(spec.checked, {**defaults, **resolved})  # a step <= 0 there: an error
        pinned = {str(s): int(v) for s, v in resolved.items()}
    if set(map(str, spec.parameters)) <= pinned.keys() | set(map(str, spec.checked.defaults)):
        assignments = [pinned]
    else:
        assignments = sample_sizes(spec.checked, samples, random.Random(SAMPLE_SEED),
                                   pinned=pinned)
    results = []
    for sizes in assignments:
        counts = enumerate_counts(spec.checked, sizes, reuse)
        results.append(CheckResult(sizes, counts, tuple(comparisons(cost, counts, sizes))))
    return results


# --- self-verification: `analyze` checks its closed forms before printing them -----------

# Small size assignments enumerated: two miss a multicast lost under clipped cluster tiles,
# so more, chosen for what they reach (below).
VERIFY_SAMPLES = 6
VERIFY_MIN_SAMPLES = 2  # fewer distinct ones meet the assumptions: verified, and said so
VERIFY_MAX_STEPS = 500  # loop iterations plus statements per assignment: about a millisecond
VERIFY_MAX_ENTRIES = 8  # per-entry scope footprints compared per scope and assignment
VERIFY_CANDIDATES = 16  # assignments drawn; the samples are chosen among them
VERIFY_CANDIDATE_ATTEMPTS = 64  # draws for the candidates: few distinct ones, give up soon
VERIFY_ATTEMPTS = 400  # draws sample_sizes may try for the samples before it gives up
# a safety net, in CPU seconds of this process: the shipped specs take at most ~60 ms, and
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
    """Compare `cost` (counted from `checked` under cost.reuse) with the enumeration at up to
    `samples` small sizes that meet the spec's assumptions (defaults such as T = 128 are
    drawn small too; ragged sizes and several tiles along each size preferred, see
    `reach_order`), stopping at the first disagreement or when time_cap_s has passed."""
    from ..oracle import comparisons, enumerate_counts

    start = clock()

    def out_of_time() -> bool:
        return clock() - start > time_cap_s

    assignments = _candidates(checked, samples, out_of_time)
    if not assignments:
        if out_of_time():
            return _stopped(0, f"the time cap of {time_cap_s:g} s was reached after 0 of "
                               f"{samples} samples")
        return Verification(0, None, "no small sizes meet the assumptions within "
                                     f"{VERIFY_MAX_STEPS:,} enumeration steps")
    assignments = reach_order(checked, assignments)[:samples]
    order = [symbol.name for symbol in checked.parameters]
    for done, assignment in enumerate(assignments):
        if out_of_time():
            return _stopped(done, f"the time cap of {time_cap_s:g} s was reached after {done} "
                                  f"of {samples} samples")
        sizes = {name: assignment[name] for name in order}
        try:
            # drawn within VERIFY_MAX_STEPS (_candidates): not counted again before the run
            counts = enumerate_counts(checked, sizes, cost.reuse, max_steps=VERIFY_MAX_STEPS,
                                      counted=True)
        except KcostError as error:
            return _stopped(done, "the enumeration cannot run this spec: "
                                  f"{error.diagnostics[0].message}")
        rows = tuple(comparisons(cost, counts, max_entries=VERIFY_MAX_ENTRIES))
        if not all(row.holds for row in rows):
            return Verification(done + 1, False, None, CheckResult(sizes, counts, rows))
    done = len(assignments)
    if done < min(samples, VERIFY_MIN_SAMPLES):
        return _stopped(done, f"only {done} distinct small sizes meet the assumptions "
                              f"within {VERIFY_MAX_STEPS:,} enumeration steps")
    return Verification(done, True, None)


def _candidates(checked: CheckedKernel, samples: int,
                stop: Callable[[], bool]) -> list[dict[str, int]]:
    """Distinct small assignments, in the order drawn: VERIFY_CANDIDATES in a short search
    (its ranges shrink fast), and where that finds too few, a longer one for the samples."""
    from ..oracle import sample_sizes

    distinct: dict[tuple, dict[str, int]] = {}
    for count, attempts in ((max(samples, VERIFY_CANDIDATES), VERIFY_CANDIDATE_ATTEMPTS),
                            (samples, VERIFY_ATTEMPTS)):
        try:
            drawn = sample_sizes(checked, count, random.Random(SAMPLE_SEED),
                                 max_steps=VERIFY_MAX_STEPS, max_attempts=attempts,
                                 stop=stop, partial=True)
        except KcostError:  # a step not positive at a drawn size (`by m - n`, m <= n)
            continue
        for sizes in drawn:
            distinct.setdefault(tuple(sorted(sizes.items())), sizes)
        if len(distinct) >= min(samples, VERIFY_CANDIDATES) or stop():
            break
    return list(distinct.values())


def reach_order(checked: CheckedKernel,
                assignments: list[dict[str, int]]) -> list[dict[str, int]]:
    """The assignments, each next one the one that reaches most of what the earlier ones did
    not (ties: the larger sum of sizes, then the order drawn). What an assignment reaches,
    for each problem size S and tile-like size T (a divisor or a default): S >= 2 T (several
    tiles: clusters and edges between them) and T < S, T not dividing S (a ragged edge); and
    S >= 2 for each problem size. Sizes of 1 leave little for a wrong form to get wrong."""
    from ..oracle import tile_like_sizes

    tiles = tile_like_sizes(checked)
    problems = [name for name in (s.name for s in checked.parameters) if name not in tiles]

    def reached(sizes: dict[str, int]) -> set[tuple[str, ...]]:
        found: set[tuple[str, ...]] = {(name, "more than one") for name in problems
                                       if sizes[name] >= 2}
        for name in problems:
            for tile in tiles:
                size, width = sizes[name], sizes[tile]
                if size >= 2 * width:
                    found.add((name, tile, "several"))
                if width < size and size % width:
                    found.add((name, tile, "ragged"))
        return found

    pending = list(assignments)
    covered: set[tuple[str, ...]] = set()
    ordered = []
    while pending:
        best = max(pending, key=lambda sizes: (len(reached(sizes) - covered),
                                               sum(sizes.values())))
        pending.remove(best)  # max keeps the first of a tie: the order drawn
        covered |= reached(best)
        ordered.append(best)
    return ordered


def _stopped(done: int, reason: str) -> Verification:
    """Stopped early: the assignments compared so far all agreed (agree is None if none)."""
    return Verification(done, True if done else None, reason)
