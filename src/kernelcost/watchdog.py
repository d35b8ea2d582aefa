"""One time budget for a whole command, enforced from outside the work.

sympy cannot be interrupted from inside: a SIGALRM handler's exception is swallowed by the
many `except Exception` blocks in sympy and lands late or never. So the command line runs the
work in a forked child and the parent waits on a pipe with a deadline; at the deadline the
child is killed (within a few milliseconds of it) and the parent reports the stage the child
last announced, with the place in the spec it was working on.

The stages are announced by `stage(...)` calls in the pipeline; outside a watchdog (the API,
the tests) a call only records the stage, which the recursion fallback names as well."""

from __future__ import annotations

import math
import os
import select
import signal
import sys
import time

from .ast import Span
from .errors import BudgetError, Code, Diagnostic, InternalError, KcostError
from .records import record

DEFAULT_BUDGET_S = 60.0
BUDGET_VARIABLE = "KERNELCOST_BUDGET_S"


@record(frozen=False)
class _Stage:
    name: str = "starting"
    span: Span | None = None


_current = _Stage()
_channel: int | None = None  # the pipe to the watching parent, in a watched child


def stage(name: str, span: Span | None = None) -> None:
    """Announce the stage the work is entering (and the spec place it concerns)."""
    _current.name, _current.span = name, span
    if _channel is not None:
        where = "" if span is None else f"{span.file}\t{span.line}\t{span.column}"
        try:
            os.write(_channel, f"{name}\t{where}\n".encode("utf-8", "replace")[:4000])
        except OSError:
            pass


def extend(seconds: float) -> None:
    """Add `seconds` to the budget: for work whose length the user chose and was told before
    it started (a sweep of 10^8 points), not for symbolic work, which the budget is for."""
    if _channel is not None and math.isfinite(seconds) and seconds > 0:
        try:
            os.write(_channel, f"+{seconds:.3f}\n".encode())
        except OSError:
            pass


def current_stage() -> str:
    return _current.name


def current() -> tuple[str, Span | None]:
    """The stage announced last and its place, to announce again when a sub-stage ends."""
    return _current.name, _current.span


def budget_seconds() -> float:
    """KERNELCOST_BUDGET_S as seconds; a value that is not a positive finite number is an
    error, never a silently disabled budget."""
    text = os.environ.get(BUDGET_VARIABLE)
    if text is None:
        return DEFAULT_BUDGET_S
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise BudgetError(Code.BAD_BUDGET, Diagnostic(
            None, f"{BUDGET_VARIABLE}={text!r:.40} is not a positive number of seconds",
            f"unset it for the default of {DEFAULT_BUDGET_S:g} s, or give seconds, e.g. 120"))
    return value


def available() -> bool:
    return hasattr(os, "fork") and hasattr(select, "select")


def run_watched(work, budget_s: float) -> int:
    """Run work() -> exit code in a child process; kill it at the budget. Returns the exit
    code: the child's, 2 when the budget ran out, 130 on Ctrl-C."""
    global _channel
    sys.stdout.flush()
    sys.stderr.flush()
    deadline = time.monotonic() + budget_s
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # the worker
        os.close(read_end)
        _channel = write_end
        _die_with_parent()
        code = 3
        try:
            code = work()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except (OSError, ValueError):  # a closed pipe, or a stream the work closed
                pass
            os._exit(code)
    os.close(write_end)
    previous = _kill_child_on_termination(child)
    try:
        last = _watch(read_end, deadline)
    except KeyboardInterrupt:
        _kill(child)
        return 130
    finally:
        os.close(read_end)
        for number, handler in previous.items():
            signal.signal(number, handler)
    if last is not None:  # out of time
        _kill(child)
        _report_timeout(last, budget_s)
        return 2
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        from .error_report import report

        return report(InternalError(Code.WORKER_DIED, Diagnostic(
            None, f"the analysis ended on signal {-code} while {_current.name}",
            "this is a bug in kernelcost, or the machine ran out of memory; please report it "
            "with the spec")))
    return code


def _die_with_parent() -> None:
    """Linux: the kernel kills the worker when the watching parent dies (`timeout`, a closed
    terminal), so that no orphan keeps computing."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the parent died before the line above
        os._exit(1)


def _kill_child_on_termination(child: int) -> dict:
    """SIGTERM or SIGHUP to the parent ends the child too, then the parent."""
    def terminate(number, frame):
        _kill(child)
        os._exit(128 + number)

    previous = {}
    for number in (signal.SIGTERM, signal.SIGHUP):
        previous[number] = signal.signal(number, terminate)
    return previous


def _watch(read_end: int, deadline: float) -> _Stage | None:
    """Follow the child's stages until it closes the pipe (None) or the deadline passes (the
    stage it was in)."""
    pending = b""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return _current
        ready, _, _ = select.select([read_end], [], [], remaining)
        if not ready:
            continue
        data = os.read(read_end, 65536)
        if not data:
            return None
        pending += data
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line.startswith(b"+"):
                deadline += float(line[1:])
            else:
                _take(line.decode("utf-8", "replace"))


def _take(line: str) -> None:
    name, *where = line.split("\t")
    span = None
    if len(where) == 3:
        try:
            file, number, column = where[0], int(where[1]), int(where[2])
            span = Span(file, number, column, number, column + 1)
        except ValueError:
            span = None
    _current.name, _current.span = name, span


def _kill(child: int) -> None:
    try:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _report_timeout(last: _Stage, budget_s: float) -> None:
    from .error_report import report

    source = None
    if last.span is not None:
        try:
            from .inputs import read_text

            source = read_text(last.span.file, 1_000_000)
        except KcostError:
            source = None
    report(BudgetError(Code.BUDGET_RAN_OUT, Diagnostic(
        last.span, f"the time budget of {budget_s:g} s ran out while {last.name}",
        f"give it longer with {BUDGET_VARIABLE}=SECONDS, set more sizes (--set), or split "
        "min/max bounds into simpler loops"), source))
