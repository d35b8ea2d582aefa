"""A fuzz campaign of the whole command path (issue 35): every command and option, driven the
way a user drives them, through the CLI's entry point with its watchdog.

The campaign process imports kernelcost and what the commands load (sympy, numpy, rich,
matplotlib) once, then forks a worker per input: the worker enters an empty folder holding
the input's files, points stdout and stderr at files, caps its memory, and calls
`cli.main(argv, watch=True)`, which runs the command in a watched child under the time
budget exactly as the console script does. The inputs come from tests/fuzz_inputs.py, one
kind after another (spec, set, machine, model, csv, measured, option).

An outcome is good when the exit code is 0, 1 (a documented mismatch) or 2 (bad input, or
the budget), stderr holds no traceback, no internal error and no library warning, and an
exit 2 whose code concerns the input of the case's kind (its `placed` codes: a --set value's
KC30x, a machine file's KC40x, ...) comes with a place (`file:line:col: error[...]`).
Anything else is a finding, written to the log with its case, to be run again:

    PYTHONPATH=src .venv/bin/python tests/fuzz_commands.py --inputs 100000 --jobs 2 \\
        --log findings.jsonl          # a long campaign; prints counts per kind and command
    PYTHONPATH=src .venv/bin/python tests/fuzz_commands.py --replay 1:4711   # one case
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fuzz_inputs import COMMANDS, KINDS, Case, draw  # beside this file: on the path

# each command's KERNELCOST_BUDGET_S, unless the case sets its own: the shipped specs count
# in a second or two; a command that runs to it (KC701) is an exit 2, counted apart
BUDGET_S = 10.0
HANG_S = 30.0  # beyond the budget: the watchdog failed to end the command
MEMORY_B = 3 << 30  # a worker's address space: a runaway allocation fails, not the machine
_ERROR_LINE = re.compile(r"^(?:(?P<place>.+):(\d+):(\d+): )?(?:internal )?error\[(?P<code>KC\d+)\]",
                         re.MULTILINE)
_WARNINGS = ("RuntimeWarning", "Traceback", "DeprecationWarning", "UserWarning",
             "Exception ignored", "SyntaxWarning")


@dataclass
class Outcome:
    exit_code: int | None  # None: a hang, killed
    seconds: float
    code: str | None  # the first error code on stderr
    placed: bool
    finding: str | None  # why the outcome is not good; None when it is


def prepare() -> None:
    """Import, once, what the commands load, so that each forked worker starts warm."""
    import matplotlib

    matplotlib.use("Agg")
    import kernelcost  # noqa: F401


def start(case: Case, folder: Path) -> int:
    """Fork the worker of `case` in `folder` (emptied and filled first); its pid."""
    for name, data in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 99
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the campaign's own, not the worker's
        os.chdir(folder)
        os.environ["KERNELCOST_BUDGET_S"] = f"{BUDGET_S:g}"
        os.environ.update(case.env)
        for number, name, mode in ((0, os.devnull, os.O_RDONLY),
                                   (1, "stdout", os.O_WRONLY | os.O_CREAT),
                                   (2, "stderr", os.O_WRONLY | os.O_CREAT)):
            descriptor = os.open(name, mode, 0o644)
            os.dup2(descriptor, number)
            os.close(descriptor)
        # the streams of the files, whatever stood in for them (a test's capture)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_B, MEMORY_B))
        from kernelcost import cli

        code = cli.main(case.argv, watch=True)
    except SystemExit as exit_:  # argparse's usage errors, --help
        code = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 2
    except BaseException:  # noqa: BLE001 (the finding is the traceback itself)
        import traceback

        traceback.print_exc()
        code = 99
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def judge(case: Case, exit_code: int | None, seconds: float, stderr: str) -> Outcome:
    found = _ERROR_LINE.search(stderr)
    code = found.group("code") if found else None
    placed = bool(found and found.group("place"))
    finding = None
    if exit_code is None:
        finding = "hang"
    elif exit_code not in (0, 1, 2):
        finding = f"exit {exit_code}"
    elif any(word in stderr for word in _WARNINGS):
        finding = "traceback or warning on stderr"
    elif exit_code == 2 and code and code.startswith(case.placed) and not placed:
        finding = f"{code} without a place"
    elif exit_code == 2 and code is None and "usage:" not in stderr:
        finding = "exit 2 without an error code"
    elif case.refused and exit_code in (0, 1):
        finding = "accepted: the input must be refused"
    return Outcome(exit_code, seconds, code, placed, finding)


def campaign(seed: int, first: int, count: int, jobs: int, log: Path | None,
             report_every: float = 60.0, stop: Callable[[], bool] = lambda: False,
             kinds: tuple[str, ...] = KINDS) -> dict:
    """Run inputs first .. first + count of `seed`, `jobs` at a time, of the `kinds` in turn;
    no input is started but the first once `stop()` is true (a bounded sample's budget
    spent); those running finish."""
    prepare()
    # SIGTERM (and SIGINT, which a shell's background job ignores) end the campaign cleanly:
    # its workers killed, the counts so far printed
    previous = signal.signal(signal.SIGTERM, _interrupt)
    root = Path(tempfile.mkdtemp(prefix="kcfuzz."))
    running: dict[int, tuple[int, Case, Path, float]] = {}
    totals = {"by_kind": defaultdict(Counter), "by_command": defaultdict(Counter),
              "findings": Counter(), "codes": Counter()}
    done, next_index, started, last_report = 0, first, time.monotonic(), time.monotonic()

    def more() -> bool:  # the first input always runs
        return next_index < first + count and (next_index == first or not stop())

    sink = log.open("a") if log else None
    try:
        while running or more():
            while len(running) < jobs and more():
                case = draw(seed, next_index, kinds)
                folder = root / str(next_index)
                folder.mkdir()
                running[start(case, folder)] = (next_index, case, folder, time.monotonic())
                next_index += 1
            pid, status = _wait_any(running)
            index, case, folder, began = running.pop(pid)
            seconds = time.monotonic() - began
            exit_code = None if status is None else os.waitstatus_to_exitcode(status)
            stderr = (folder / "stderr").read_text("utf-8", "replace") if \
                (folder / "stderr").exists() else ""
            outcome = judge(case, exit_code, seconds, stderr)
            _count(totals, case, outcome)
            if (outcome.finding or outcome.code == "KC701") and sink:
                sink.write(json.dumps({"seed": seed, "index": index, "kind": case.kind,
                                       "command": case.command,
                                       "finding": outcome.finding or outcome.code,
                                       "argv": case.argv, "env": case.env,
                                       "files": {k: v.decode("utf-8", "replace")[:20000]
                                                 for k, v in case.files.items()},
                                       "stderr": stderr[-3000:]}) + "\n")
                sink.flush()
            shutil.rmtree(folder, ignore_errors=True)
            done += 1
            if time.monotonic() - last_report > report_every:
                last_report = time.monotonic()
                rate = done / (last_report - started)
                print(f"{done:,} inputs, {rate:.2f}/s, findings {sum(totals['findings'].values())}",
                      file=sys.stderr, flush=True)
    except KeyboardInterrupt:  # the counts so far are the campaign's
        print(f"stopped after {done:,} inputs", file=sys.stderr, flush=True)
    finally:
        for pid in running:
            _kill(pid)
        signal.signal(signal.SIGTERM, previous)
        if sink:
            sink.close()
        shutil.rmtree(root, ignore_errors=True)
    totals["seconds"] = time.monotonic() - started
    totals["inputs"] = done
    return totals


def _interrupt(number, frame):
    raise KeyboardInterrupt


def _wait_any(running: dict) -> tuple[int, int | None]:
    """The next worker to end, and its status; a worker past the budget and HANG_S more is
    killed (status None): the watchdog did not end it."""
    while True:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid:
            return pid, status
        now = time.monotonic()
        for pid, (_, _, _, began) in running.items():
            if now - began > BUDGET_S + HANG_S:
                _kill(pid)
                return pid, None
        time.sleep(0.005)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _count(totals: dict, case: Case, outcome: Outcome) -> None:
    exit_key = "hang" if outcome.exit_code is None else f"exit {outcome.exit_code}"
    for table, key in (("by_kind", case.kind), ("by_command", case.command)):
        totals[table][key]["inputs"] += 1
        totals[table][key][exit_key] += 1
        if outcome.finding:
            totals[table][key]["findings"] += 1
        if outcome.exit_code == 2 and outcome.code and outcome.code.startswith(case.placed):
            totals[table][key]["placed" if outcome.placed else "unplaced"] += 1
    if outcome.finding:
        totals["findings"][outcome.finding] += 1
    if outcome.code:
        totals["codes"][outcome.code] += 1


def table(totals: dict) -> str:
    """The counts as Markdown: per kind and per command, inputs and exits, findings."""
    columns = ["inputs", "exit 0", "exit 1", "exit 2", "exit 3", "hang", "placed", "findings"]
    lines = []
    for name, keys in (("kind", KINDS), ("command", COMMANDS)):
        lines += [f"| {name} | " + " | ".join(columns) + " |",
                  "|---" * (len(columns) + 1) + "|"]
        for key in keys:
            row = totals[f"by_{name}"].get(key, Counter())
            lines.append(f"| {key} | " + " | ".join(f"{row[c]:,}" for c in columns) + " |")
        lines.append("")
    rate = totals["inputs"] / max(totals["seconds"], 1e-9)
    lines.append(f"{totals['inputs']:,} inputs in {totals['seconds']:,.0f} s ({rate:.2f}/s); "
                 f"findings: {dict(totals['findings']) or 'none'}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=700)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="the index of the first input")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--log", type=Path, help="append each finding as a JSON line")
    parser.add_argument("--replay", metavar="SEED:INDEX", help="run one case, show its output")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help=f"the kinds drawn, in turn (default all: {','.join(KINDS)}); "
                             "--replay draws from the same list")
    args = parser.parse_args()
    kinds = tuple(kind.strip() for kind in args.kinds.split(",") if kind.strip())
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown or not kinds:
        parser.error(f"--kinds: {', '.join(unknown) or 'none given'}; known: {', '.join(KINDS)}")
    if args.replay:
        seed, index = (int(part) for part in args.replay.split(":"))
        case = draw(seed, index, kinds)
        print(json.dumps({"kind": case.kind, "argv": case.argv, "env": case.env,
                          "files": {k: v.decode("utf-8", "replace")[:2000]
                                    for k, v in case.files.items()}}, indent=1))
        prepare()
        folder = Path(tempfile.mkdtemp(prefix="kcreplay."))
        pid = start(case, folder)
        _, status = os.waitpid(pid, 0)
        print((folder / "stderr").read_text("utf-8", "replace"))
        print("exit", os.waitstatus_to_exitcode(status))
        return
    totals = campaign(args.seed, args.first, args.inputs, args.jobs, args.log, kinds=kinds)
    print(table(totals))
    print("codes:", dict(totals["codes"].most_common()))


if __name__ == "__main__":
    main()
