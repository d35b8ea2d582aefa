"""One time budget for a whole command, enforced from outside the work.

sympy cannot be interrupted from inside: a SIGALRM handler's exception is swallowed by the
many `except Exception` blocks in sympy and lands late or never. So the command runs in a
forked child and the parent waits on a pipe with a deadline; at the deadline the child is
killed (within a few milliseconds of it) and the parent reports the stage the child last
announced, with the place in the spec it was working on.

A command's own process forks at its very start (launch, called by the package before sympy
is imported), so that the budget counts from the process's start: the imports, the reading
of the arguments and the work. The child posts the stage it enters on a board, a page of
memory the two share, which the parent reads once the child has ended (a command enters some
two hundred stages, and a line through the pipe for each woke the parent as often, for
milliseconds of system time). Through the pipe it tells the parent an extension of the
budget for work whose length the user chose (`+SECONDS`), whether the command prints JSON
(so that a timeout is reported in it too), and the temporary output files it holds under a
name (`tmp`, then `kept` once renamed over their target): the parent removes those left
behind by a child it killed or that died on a signal.

The stages are announced by `stage(...)` calls in the pipeline; outside a watchdog (the API,
the tests) a call only records the stage, which the recursion fallback names as well."""

from __future__ import annotations

import math
import mmap
import os
import select
import signal
import sys
import time
from typing import NoReturn

from .errors import BudgetError, Code, Diagnostic, InternalError, KcostError
from .records import record
from .tree import Span

DEFAULT_BUDGET_S = 60.0
# The most a budget may be: select's timeout and the clocks hold nanoseconds in 64 bits
# (about 292 years); a budget of weeks is a typo for one of seconds.
MAX_BUDGET_S = 1e6
BUDGET_VARIABLE = "KERNELCOST_BUDGET_S"
REAP_S = 0.1  # how long the parent waits for a killed child's exit before ending itself


@record(frozen=False)
class _Stage:
    name: str = "starting"
    span: Span | None = None
    hint: str | None = None  # what would end this stage sooner, where the general hint misleads


_current = _Stage()
_channel: int | None = None  # the pipe to the watching parent, in a watched child
_board: _Board | None = None  # the stage board the watching parent reads, in a watched child


def stage(name: str, span: Span | None = None, hint: str | None = None) -> None:
    """Announce the stage the work is entering (and the spec place it concerns, and the
    hint a budget running out in it gives)."""
    _current.name, _current.span, _current.hint = name, span, hint
    if _board is not None:
        where = "" if span is None else f"{span.file}\t{span.line}\t{span.column}"
        _board.post(f"{name}\t{(hint or '').replace(chr(9), ' ')}\t{where}")


class _Board:
    """The stage last posted, in memory a watched child shares with its parent: two slots,
    each a length and a line, and a byte naming the slot written last, set once its line is
    whole, so that a child killed while writing leaves the line before readable."""

    SLOT = 4096

    def __init__(self) -> None:
        self.memory = mmap.mmap(-1, 1 + 2 * self.SLOT)  # shared with a child forked later

    def post(self, line: str) -> None:
        data = line.encode("utf-8", "replace")[:self.SLOT - 2]
        slot = 1 - self.memory[0]
        start = 1 + slot * self.SLOT
        self.memory[start:start + 2] = len(data).to_bytes(2, "little")
        self.memory[start + 2:start + 2 + len(data)] = data
        self.memory[0] = slot

    def read(self) -> str | None:
        """The line posted last, or None where none was."""
        start = 1 + self.memory[0] * self.SLOT
        length = int.from_bytes(self.memory[start:start + 2], "little")
        if not length:
            return None
        return self.memory[start + 2:start + 2 + length].decode("utf-8", "replace")


def extend(seconds: float) -> None:
    """Add `seconds` to the budget: for work whose length the user chose and was told before
    it started (a sweep of 10^8 points), not for symbolic work, which the budget is for."""
    if math.isfinite(seconds) and seconds > 0:
        _tell(f"+{min(seconds, MAX_BUDGET_S):.3f}")


def tell_json(wanted: bool) -> None:
    """Tell the watching parent whether the command prints JSON (its timeout report does)."""
    _tell(f"!json\t{int(bool(wanted))}")


def holding(path: str) -> None:
    """Tell the watching parent that a temporary file exists under `path` until `released`."""
    _tell(f"!tmp\t{path}")


def released(path: str) -> None:
    _tell(f"!kept\t{path}")


def watched() -> bool:
    """Whether this process is a watched child (its parent enforces the budget)."""
    return _channel is not None


def _tell(line: str) -> None:
    if _channel is None:
        return
    try:
        os.write(_channel, (line.replace("\n", " ") + "\n").encode("utf-8", "replace")[:4000])
    except OSError:
        pass


def current_stage() -> str:
    return _current.name


def current() -> tuple[str, Span | None]:
    """The stage announced last and its place, to announce again when a sub-stage ends."""
    return _current.name, _current.span


def budget_seconds() -> float:
    """KERNELCOST_BUDGET_S as seconds; a value that is not a positive number of seconds, at
    most MAX_BUDGET_S, is an error placed on the value, never a silently disabled budget."""
    text = os.environ.get(BUDGET_VARIABLE)
    if text is None:
        return DEFAULT_BUDGET_S
    try:  # float() reads other scripts' digits (`٣` as 3) and underscores (`1_0` as 10)
        value = float(text) if text.isascii() and "_" not in text else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 < value <= MAX_BUDGET_S:
        shown = text if len(text) <= 60 and text.isprintable() else repr(text[:60])
        reason = (f"more than {MAX_BUDGET_S:,.0f} seconds" if value > MAX_BUDGET_S
                  else "not a positive number of seconds")
        raise BudgetError(Code.BAD_BUDGET, Diagnostic(
            Span(BUDGET_VARIABLE, 1, 1, 1, max(2, len(shown) + 1)),
            f"{BUDGET_VARIABLE}={shown} is {reason}",
            f"unset it for the default of {DEFAULT_BUDGET_S:g} s, or give seconds, e.g. 120"),
            shown)
    return value


def available() -> bool:
    return hasattr(os, "fork") and hasattr(select, "select")


def run_watched(work, budget_s: float, deadline: float | None = None) -> int:
    """Run work() -> exit code in a child process; kill it at the budget (at `deadline`, a
    time.monotonic() value, where the budget started before this call). Returns the exit
    code: the child's, 2 when the budget ran out, 130 on Ctrl-C."""
    child, read_end = fork_watched()
    if child == 0:  # the worker
        code = 3
        try:
            code = work()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        finally:
            end_child(code)
    return watch(child, read_end, budget_s,
                 time.monotonic() + budget_s if deadline is None else deadline)


def fork_watched() -> tuple[int, int]:
    """Fork a watched child: (0, -1) in the child (its stages go to the parent); in the
    parent, the child's pid and the end of the pipe to read it from, to give to watch()."""
    global _channel, _board
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    board = _Board()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        _channel, _board = write_end, board
        _die_with_parent()
        return 0, -1
    os.close(write_end)
    _boards[child] = board
    return child, read_end


_boards: dict[int, _Board] = {}  # in the parent: each watched child's stage board


def end_child(code: int) -> NoReturn:
    """End a watched child with `code`, its output flushed, without Python's teardown."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe, or a stream the work closed
        pass
    os._exit(code)


def watch(child: int, read_end: int, budget_s: float, deadline: float,
          as_json: bool = False) -> int:
    """The parent's side: follow the child until it ends (its exit code) or the deadline
    passes (kill it, report the stage it was in: 2); 130 on Ctrl-C. `as_json`: whether the
    command prints JSON, until the child says (it reads the arguments)."""
    parent = _Parent(child, as_json)
    board = _boards.pop(child, None)
    previous = _kill_child_on_termination(parent)
    try:
        out_of_time = parent.follow(read_end, deadline)
    except KeyboardInterrupt:
        parent.end_child()
        return 130
    finally:
        os.close(read_end)
        for number, handler in previous.items():
            signal.signal(number, handler)
    if out_of_time:
        parent.end_child()
        _take_posted(board)
        _report_timeout(_current, budget_s, parent.json)
        return 2
    _, status = os.waitpid(child, 0)
    _take_posted(board)
    parent.remove_held()
    code = os.waitstatus_to_exitcode(status)
    if code == -signal.SIGKILL:  # not ours: the system's out-of-memory killer, most likely
        from .error_report import report

        return report(BudgetError(Code.OUT_OF_MEMORY, Diagnostic(
            None, f"the analysis was killed (signal 9, as the system does when memory runs "
                  f"out) while {_current.name}",
            "give it smaller sizes, or run it where more memory is free")))
    if code < 0:
        from .error_report import report

        return report(InternalError(Code.WORKER_DIED, Diagnostic(
            None, f"the analysis ended on signal {-code} while {_current.name}",
            "this is a bug in kernelcost, or the machine ran out of memory; please report it "
            "with the spec")))
    return code


class _Parent:
    """What the watching parent knows of its child: the pid, whether it prints JSON, and
    the temporary files it holds."""

    def __init__(self, child: int, as_json: bool):
        self.child = child
        self.json = as_json
        self.held: set[str] = set()

    def follow(self, read_end: int, deadline: float) -> bool:
        """Read the child's lines until it closes the pipe (False) or the deadline passes
        (True)."""
        pending = b""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return True
            ready, _, _ = select.select([read_end], [], [], min(remaining, MAX_BUDGET_S))
            if not ready:
                continue
            data = os.read(read_end, 65536)
            if not data:
                return False
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.startswith(b"+"):
                    deadline += float(line[1:])
                else:
                    self.take(line.decode("utf-8", "replace"))

    def take(self, line: str) -> None:
        name, *where = line.split("\t")
        if name == "!json":
            self.json = where == ["1"]
        elif name == "!tmp" and where:
            self.held.add("\t".join(where))
        elif name == "!kept" and where:
            self.held.discard("\t".join(where))
        else:
            _take_stage(name, where)

    def end_child(self) -> None:
        """Kill the child, wait a moment for it to go, and remove what it left."""
        try:
            os.kill(self.child, signal.SIGKILL)
        except ProcessLookupError:
            pass
        waited = time.monotonic() + REAP_S
        while time.monotonic() < waited:
            try:
                if os.waitpid(self.child, os.WNOHANG)[0]:
                    break
            except ChildProcessError:
                break
            time.sleep(0.002)
        self.remove_held()

    def remove_held(self) -> None:
        for path in self.held:
            try:
                os.unlink(path)
            except OSError:
                pass
        self.held.clear()


def _take_posted(board: _Board | None) -> None:
    """The stage an ended child posted last, taken as the current one."""
    if board is None:
        return
    line = board.read()
    board.memory.close()
    if line is not None:
        name, *where = line.split("\t")
        _take_stage(name, where)


def _take_stage(name: str, fields: list[str]) -> None:
    hint, where = (fields[0] or None, fields[1:]) if fields else (None, [])
    span = None
    if len(where) == 3:
        try:
            file, number, column = where[0], int(where[1]), int(where[2])
            span = Span(file, number, column, number, column + 1)
        except ValueError:
            span = None
    _current.name, _current.span, _current.hint = name, span, hint


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


def _kill_child_on_termination(parent: _Parent) -> dict:
    """SIGTERM or SIGHUP to the parent ends the child too (and removes its temporary files),
    then the parent."""
    def terminate(number, frame):
        parent.end_child()
        os._exit(128 + number)

    previous = {}
    for number in (signal.SIGTERM, signal.SIGHUP):
        previous[number] = signal.signal(number, terminate)
    return previous


def stage_source(span: Span | None) -> str | None:
    """The text of the file a stage's place is in, for its excerpt; None where it has none
    (an option's place), the file no longer reads, or memory has run out (the report of
    a MemoryError reads it)."""
    if span is None:
        return None
    try:
        from .inputs import read_text

        return read_text(span.file, 1_000_000)
    except (KcostError, MemoryError):
        return None


def _report_timeout(last: _Stage, budget_s: float, as_json: bool) -> None:
    from .error_report import report, request_json

    source = stage_source(last.span)
    if as_json:
        request_json(True)
    report(BudgetError(Code.BUDGET_RAN_OUT, Diagnostic(
        last.span, f"the time budget of {budget_s:g} s ran out while {last.name}",
        last.hint or f"give it longer with {BUDGET_VARIABLE}=SECONDS, set more sizes (--set), "
        "or split min/max bounds into simpler loops"), source))
