import datetime
import os
import random
import signal
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import sympy
from hypothesis import settings

from kernelcost.algebra.sympy_scope import patched

# No per-example deadline: a wall-clock limit judges the machine's load, not the code (an
# example of 0.2 s failed under a load of 9). CI runs the same examples every time, so that a
# red run is reproducible; a local run explores new examples each time (set CI=true to replay
# CI's).
settings.register_profile("local", deadline=None)
settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "local")

# The tests call kernelcost's stages directly, below the public calls that put its deductions
# in sympy's place (sympy_scope.patched): the whole session computes as those calls do, and
# a test that compares with sympy's own asks for it (sympy_scope.sympys_own).
_SESSION = patched()
_SESSION.__enter__()

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"


def size(name: str) -> sympy.Symbol:
    from kernelcost.base.symbols import size_symbol

    return size_symbol(name)


@pytest.fixture(scope="session")
def spec_cost():
    """spec name -> Cost under a reuse mode, counted once per session."""
    import kernelcost

    specs: dict = {}

    def get(name: str, reuse: str = "spec"):
        if name not in specs:
            specs[name] = kernelcost.load(SPECS / f"{name}.kcost")
        return specs[name].cost(reuse)

    return get


class Hang(Exception):
    """An input took longer than its time budget."""


@pytest.fixture(scope="session")
def h100():
    """The shipped H100 machine file, read once a session (a Machine is immutable)."""
    from kernelcost.hardware.machinefile import load_machine

    return load_machine("h100")


@contextmanager
def time_budget(seconds: float, cpu: bool = False):
    """Turn a hang into a failure that names the input (a timer signal: main thread, POSIX).
    With `cpu`, the budget is the process's CPU time (SIGPROF), so that a long run's verdicts
    do not depend on what else the machine is doing. The signal can land in a
    garbage-collector callback, which swallows the exception, so the timer is re-armed each
    time it fires, and the expiry is also remembered and raised again when the block ends."""
    timer, signum = ((signal.ITIMER_PROF, signal.SIGPROF) if cpu
                     else (signal.ITIMER_REAL, signal.SIGALRM))
    expired = []

    def interrupt(signum, frame):
        expired.append(True)
        # re-armed: when a garbage-collector callback swallows this one, the next lands
        # elsewhere a second later, instead of the block running on for minutes
        signal.setitimer(timer, 1.0)
        raise Hang(f"no answer within {seconds} s" + (" of CPU time" if cpu else ""))

    previous = signal.signal(signum, interrupt)
    signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(signum, previous)
    if expired:
        raise Hang(f"no answer within {seconds} s" + (" of CPU time" if cpu else ""))


# --- the slow tier as a bounded sample -----------------------------------------------------
# `pytest --slow-sample SECONDS` (what .ci/run runs after the fast tier) selects the slow tier
# (-m slow) and runs each of its campaigns cut to SLOW_SAMPLE_SIZES, from a seed that changes
# every day (today's date, printed at the end: KERNELCOST_PROPERTY_SEED=<seed> replays it).
# SECONDS bounds it: a campaign checks no further example once that long has passed since the
# session started (sample_spent), and a test not started by then is skipped; the tests run in
# an order shuffled by the seed. `pytest -m slow` without it runs every campaign at full size.
SLOW_SAMPLE_SIZES = {
    "KERNELCOST_CAMPAIGN_NESTS": "150",  # of 10,000 (test_property_cases), ~0.3 s a nest
    "KERNELCOST_QUOTIENT_SLOW_NESTS": "15",  # of 300 (test_quotients_nests), ~3 s a nest
}
_SAMPLE_STARTED = time.monotonic()
_SAMPLE_BUDGET: list[float] = []  # the option's SECONDS, in a slow sample


def sample_seconds_left() -> float | None:
    """In a slow sample, the seconds left of its budget (negative once spent); else None."""
    if not _SAMPLE_BUDGET:
        return None
    return _SAMPLE_BUDGET[0] - (time.monotonic() - _SAMPLE_STARTED)


def sample_spent() -> bool:
    """In a slow sample, whether its time is up: a campaign then checks no further example."""
    left = sample_seconds_left()
    return left is not None and left <= 0


def pytest_addoption(parser):
    parser.addoption("--slow-sample", type=float, default=None, metavar="SECONDS",
                     help="run the slow tier as a bounded sample: each campaign cut short, "
                          "seeded by today's date, no test started after SECONDS")


def pytest_configure(config):
    if config.getoption("slow_sample") is not None:
        _start_sample(config)
    if config.option.markexpr == "slow":  # the slow tier: with the tiered tests at full size
        config.option.markexpr = "slow or tiered"
        os.environ["KERNELCOST_FULL_EXAMPLES"] = "1"  # tests/tiers.py


def _start_sample(config):
    _SAMPLE_BUDGET.append(config.getoption("slow_sample"))
    config.option.markexpr = "slow"
    os.environ.setdefault("KERNELCOST_PROPERTY_SEED", datetime.date.today().strftime("%Y%m%d"))
    for name, value in SLOW_SAMPLE_SIZES.items():
        os.environ.setdefault(name, value)


def pytest_terminal_summary(terminalreporter, config):
    if config.getoption("slow_sample") is not None:
        sizes = ", ".join(f"{name}={os.environ[name]}" for name in SLOW_SAMPLE_SIZES)
        terminalreporter.write_line(
            f"slow sample: KERNELCOST_PROPERTY_SEED={os.environ['KERNELCOST_PROPERTY_SEED']}, "
            f"{sizes}, budget {config.getoption('slow_sample'):g} s")


def pytest_collection_modifyitems(config, items):
    if config.getoption("slow_sample") is not None:
        random.Random(os.environ["KERNELCOST_PROPERTY_SEED"]).shuffle(items)


def pytest_runtest_setup(item):
    if sample_spent():
        pytest.skip(f"slow sample: past its budget of {_SAMPLE_BUDGET[0]:g} s")


@pytest.fixture(autouse=True)
def _environment_left_as_found():
    """No test leaves the environment changed for the next one in its process: a page width
    (COLUMNS) left at 1,000 made a later argparse usage line one long line, and a docs test
    failed or passed by the order xdist ran the files in."""
    before = dict(os.environ)
    yield
    changed = {name for name in set(before) | set(os.environ)
               if before.get(name) != os.environ.get(name) and name != "PYTEST_CURRENT_TEST"}
    assert not changed, f"the test left the environment changed: {sorted(changed)}"
