"""The start of a command's own process: the budget's clock from the process's start, and the
watchdog forked before sympy is imported, so that one budget covers the whole command.

The console script (`kernelcost`) and `python -m kernelcost.cli` import the package first;
its __init__ calls `start()` before anything heavy when the process is a command's own
(lean_sympy.runs_a_command). The parent then only watches: it never imports sympy, waits for
the child until the deadline (the process's start plus the budget) and ends with the child's
code, or kills it and reports the stage it was in. The child returns from start() and goes
on: it imports sympy and the pipeline, reads the arguments and runs the command, announcing
each stage (watchdog.stage). Standard library and the light foundations only."""

from __future__ import annotations

import os
import sys
import time

# /proc/self/stat: the fields after the command name, the 22nd of all (starttime, in clock
# ticks since boot) being the 20th of them
_START_FIELD = 19


def process_start() -> float:
    """time.monotonic() at this process's start (its exec, or the fork that made it), read
    from /proc on Linux to a clock tick (10 ms); now where that cannot be read."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        started = int(fields[_START_FIELD]) / os.sysconf("SC_CLK_TCK")
        elapsed = time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - elapsed if 0 <= elapsed < 3600 else now


def hold_closed_streams() -> None:
    """A standard stream the shell closed (`kernelcost ... >&-`) is None in Python, and its
    descriptor goes to the next file opened (the watchdog's pipe): each is held by /dev/null,
    stdout and stdin read-only, so that writing the output fails as a full disk does (an
    error, KC812, not an AttributeError at import), and stderr writable (an error has
    nowhere else to go)."""
    for number, name, mode in ((0, "stdin", os.O_RDONLY), (1, "stdout", os.O_RDONLY),
                               (2, "stderr", os.O_WRONLY)):
        if getattr(sys, name) is not None:
            continue
        held = os.open(os.devnull, mode)
        if held != number:
            os.dup2(held, number)
            os.close(held)
        stream = open(number, "r" if number == 0 else "w", encoding="utf-8",  # noqa: SIM115
                      closefd=False)  # the process's own stream, open as long as it runs
        setattr(sys, name, stream)


def start() -> None:
    """Fork the watched child and return in it; the parent watches it and ends the process
    with its exit code. Nothing happens where fork is missing, or where the budget cannot be
    read: cli.main then reports that error, placed, once it has read the arguments."""
    from . import watchdog
    from .errors import KcostError

    hold_closed_streams()
    if not watchdog.available():
        return
    started = process_start()
    try:
        budget = watchdog.budget_seconds()
    except KcostError:
        return
    child, read_end = watchdog.fork_watched()
    if child == 0:
        watchdog.stage("importing sympy and kernelcost")
        return
    # a timeout before the arguments are read is reported as JSON where --json is among them
    code = watchdog.watch(child, read_end, budget, started + budget, "--json" in sys.argv[1:])
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)
