import os
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest
import sympy
from hypothesis import settings

from kernelcost.sympy_scope import patched

# CI runs the same examples every time, so that a red run is reproducible; a local run
# explores new examples each time (set CI=true to replay CI's).
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The tests call kernelcost's stages directly, below the public calls that put its deductions
# in sympy's place (sympy_scope.patched): the whole session computes as those calls do, and
# a test that compares with sympy's own asks for it (sympy_scope.sympys_own).
_SESSION = patched()
_SESSION.__enter__()

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"


def size(name: str) -> sympy.Symbol:
    from kernelcost.symbols import size_symbol

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
