"""The known cases of the property tests (tests/known_cases.py: issue 9's reproducers and what
the generator found since), each run every time at the sizes where it failed and at sampled
ones; and the long campaign of generated nests (marked slow, left out unless -m slow), which
checks every nest of a seeded run (test_properties.py runs CI's bounded sample of them):

    KERNELCOST_CAMPAIGN_NESTS=10000 KERNELCOST_PROPERTY_SEED=1 nice .venv/bin/python \\
        -m pytest -m slow -s tests/test_property_cases.py -k campaign
"""

from __future__ import annotations

import os
import random
import time

import pytest
import sympy
from conftest import Hang, sample_seconds_left, sample_spent, time_budget
from hypothesis import Phase, given, seed, settings
from hypothesis import strategies as st
from known_cases import KNOWN_CASES
from nestgen import nests
from property_checks import (
    NEST_SETTINGS,
    NEST_STEPS,
    REUSE_MODES,
    SAMPLES_PER_NEST,
    SECONDS_PER_NEST,
    SEED,
    check_against_enumeration,
    intensity_problems,
    leftover_problems,
    nest_problems,
)

import kernelcost
from kernelcost.base.symbols import size_symbol
from kernelcost.oracle import sample_sizes

# --- known cases: each found once, each run every time (tests/known_cases.py) -------------


@pytest.mark.parametrize("case", sorted(KNOWN_CASES))
@pytest.mark.parametrize("mode", REUSE_MODES)
def test_known_case(case, mode):
    """Exact at the sizes where it once failed and at a few sampled ones, in every reuse
    mode, with nothing left over in the closed forms."""
    text, failing_sizes, *in_bounds = KNOWN_CASES[case]
    spec = kernelcost.loads(text, f"{case}.kcost")
    with time_budget(SECONDS_PER_NEST, cpu=True):
        cost = spec.cost(mode)
        intensities = {level: cost.intensity(level) for level in cost.levels}
    problems = leftover_problems(spec.checked, cost)
    in_bounds = [sympy.Le(*(size_symbol(name) for name in fact.split(" <= ")))
                 for fact in in_bounds]
    samples = sample_sizes(spec.checked, SAMPLES_PER_NEST, random.Random(0),
                           max_steps=NEST_STEPS, extra_facts=in_bounds)
    for sizes in [failing_sizes, *samples]:
        problems += [f"at {sizes}: {p}"
                     for p in (check_against_enumeration(spec.checked, cost, sizes,
                                                         waves_and_lanes=True)
                               + intensity_problems(cost, intensities, sizes))]
    assert not problems, "\n".join(problems[:12])


CAMPAIGN_NESTS = int(os.environ.get("KERNELCOST_CAMPAIGN_NESTS", 10_000))


@pytest.mark.slow
def test_generated_nests_campaign():
    """The long run: CAMPAIGN_NESTS generated nests from the seed KERNELCOST_PROPERTY_SEED
    (default 0), every one checked (a failure is printed at once and the run goes on), a
    progress line every PROGRESS_EVERY nests, then a summary line with the seed, the counts
    and the time. Run it with -s to see them:

        KERNELCOST_CAMPAIGN_NESTS=10000 KERNELCOST_PROPERTY_SEED=1 nice .venv/bin/python \\
            -m pytest -m slow -s tests/test_property_cases.py -k campaign

    A nest whose count outruns its budget (the count's own positioned error, or the CPU
    budget of this test) is not a wrong number: it is listed and counted apart, and fails
    the run only when more than MAX_OVER_BUDGET of the nests do (one is allowed in a short
    run, such as CI's slow sample)."""
    run_seed = int(SEED or 0)
    failures: list[str] = []
    over_budget: list[str] = []
    checked = 0
    started = time.monotonic()

    def summary(what: str) -> str:
        return (f"campaign {what}: {checked} nests, seed {run_seed}, {len(failures)} failing, "
                f"{len(over_budget)} over budget, {time.monotonic() - started:.0f} s")

    @seed(run_seed)
    @settings(NEST_SETTINGS, max_examples=CAMPAIGN_NESTS, derandomize=False,
              phases=[Phase.generate])
    @given(nest=nests(max_extrema=3), mode=st.sampled_from(REUSE_MODES),
           sample_seed=st.integers(0, 2**32 - 1))
    def campaign(nest, mode, sample_seed):
        nonlocal checked
        left = sample_seconds_left()  # in CI's slow sample, no nest runs past its end
        if left is not None and left <= 0:
            return  # the sample is out of time: the remaining nests go unchecked
        checked += 1
        text = nest.text()
        try:
            problems = nest_problems(text, mode, sample_seed, SECONDS_PER_NEST if left is None
                                     else max(1.0, min(SECONDS_PER_NEST, left)))
        except Exception as error:  # noqa: BLE001 - a crash is a finding too
            problems = [f"reuse={mode}: {type(error).__name__}: {error}"]
            if _is_over_budget(error) and sample_spent():
                checked -= 1  # cut short by the sample's end: not checked, not over budget
                return
            if _is_over_budget(error):
                over_budget.append(text)
                print(f"\n--- over budget {len(over_budget)} (nest {checked}, reuse={mode})\n"
                      f"{text}{problems[0]}", flush=True)
                problems = []
        if problems:
            failures.append(text)
            print(f"\n--- failure {len(failures)} (nest {checked}, sample seed {sample_seed})\n"
                  f"{text}" + "\n".join(problems[:12]), flush=True)
        if checked % PROGRESS_EVERY == 0:
            print(summary("progress"), flush=True)

    campaign()
    print("\n" + summary("done"), flush=True)
    assert not failures, f"{len(failures)} of {checked} generated nests fail (seed {run_seed})"
    assert len(over_budget) <= max(1, MAX_OVER_BUDGET * checked), summary(
        "over budget too often")


PROGRESS_EVERY = 100
MAX_OVER_BUDGET = 0.01  # a share of the nests; more means counting got slower


def _is_over_budget(error: Exception) -> bool:
    return isinstance(error, Hang) or "symbolic work" in str(error)
