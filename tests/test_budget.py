"""One time budget for the whole command (issue 15.2): the work runs in a watched child,
killed at the budget, with an error naming the stage and the place; a budget that is not a
positive number of seconds is an error, never silently off."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernelcost.base import watchdog
from kernelcost.cli import main

ROOT = Path(__file__).resolve().parent
SLOW = ROOT / "specs_slow" / "slow.kcost"
pytestmark = pytest.mark.skipif(not watchdog.available(), reason="the watchdog needs fork")


def test_run_watched_kills_within_half_a_second():
    def spin():
        watchdog.stage("spinning")
        while True:
            pass

    started = time.monotonic()
    assert watchdog.run_watched(spin, 0.5) == 2
    assert time.monotonic() - started < 1.0


def test_run_watched_passes_the_exit_code_through():
    assert watchdog.run_watched(lambda: 0, 10) == 0
    assert watchdog.run_watched(lambda: 2, 10) == 2


def test_the_worker_ends_with_its_code_when_it_closed_its_streams():
    def close_stderr():  # as the command does when its reader has left (`| head`)
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (closed on the next line)
        sys.stderr.close()
        return 0

    assert watchdog.run_watched(close_stderr, 10) == 0


@pytest.mark.parametrize("arguments, code", [
    (["analyze", "specs/gemm_tiled.kcost", "--json", "--machine", "all"], 0),
    (["analyze", "specs/gemm_tiled.kcost", "--set", "T=0"], 2),
])
def test_the_program_ends_with_the_whole_output_and_the_code(arguments, code, capsys):
    """The program ends without Python's teardown (os._exit): nothing it wrote may be lost,
    and the command's code is the process's."""
    assert main(arguments) == code
    expected = capsys.readouterr()
    completed = subprocess.run([sys.executable, "-m", "kernelcost.cli", *arguments],
                               check=False, capture_output=True, text=True, cwd=ROOT.parent,
                               timeout=120)
    assert completed.returncode == code
    assert (completed.stdout, completed.stderr) == (expected.out, expected.err)
    assert len(expected.out if code == 0 else expected.err) > 100


def test_whole_command_stops_at_the_budget():
    # the budget counts from the process's start: start-up (about 1 s on a quiet machine,
    # several on a loaded one) is inside it, and the spec runs on for more than 45 s
    budget = 5.0
    environment = dict(os.environ, KERNELCOST_BUDGET_S=str(budget))
    started = time.monotonic()
    completed = subprocess.run(
        [sys.executable, "-m", "kernelcost.cli", "analyze", str(SLOW), "--json"],
        capture_output=True, text=True, env=environment, timeout=120)
    elapsed = time.monotonic() - started
    assert completed.returncode == 2, completed.stderr
    assert "the time budget of 5 s ran out while" in completed.stderr
    assert f"{SLOW}:" in completed.stderr and "^" in completed.stderr
    # under --json, stdout holds the JSON error object and nothing of the stopped work
    assert json.loads(completed.stdout)["error"]["code"] == "KC701"
    assert elapsed < budget + 5.0  # the kill and the report; generous for a loaded machine


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf", "abc", ""])
def test_budget_that_is_not_seconds_is_an_error(monkeypatch, capsys, value):
    monkeypatch.setenv("KERNELCOST_BUDGET_S", value)
    assert main(["machines", "--json"]) == 2
    assert "KERNELCOST_BUDGET_S" in capsys.readouterr().err


def test_recursion_fallback_names_the_stage(monkeypatch, capsys):
    from kernelcost import cli

    def deep(args):
        watchdog.stage("reading the machine file")
        raise RecursionError

    monkeypatch.setitem(cli.COMMANDS, "machines", deep)
    assert main(["machines"]) == 2
    assert "while reading the machine file" in capsys.readouterr().err


def test_an_announced_long_task_extends_the_budget():
    def announced():
        watchdog.extend(1.0)
        time.sleep(0.8)
        return 0

    assert watchdog.run_watched(announced, 0.5) == 0


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGKILL"])
def test_the_worker_dies_with_its_watcher(tmp_path, signal_name):
    """`timeout` or a closed terminal ends the watcher: the worker must not live on."""
    import signal

    marker = tmp_path / "worker.pid"
    code = ("import os, sys\nfrom kernelcost.base import watchdog\n"
            "def spin():\n"
            f"    open({str(marker)!r}, 'w').write(str(os.getpid()))\n"
            "    while True:\n        pass\n"
            "sys.exit(watchdog.run_watched(spin, 60))\n")
    watcher = subprocess.Popen([sys.executable, "-c", code])
    try:
        for _ in range(200):
            if marker.exists() and marker.read_text():
                break
            time.sleep(0.05)
        worker = int(marker.read_text())
        watcher.send_signal(getattr(signal, signal_name))
        watcher.wait(timeout=30)
        for _ in range(100):
            if not _running(worker):
                break
            time.sleep(0.05)
        assert not _running(worker)
    finally:
        watcher.kill()


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for init to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


# --- the budget from the process's start (issue 35) ----------------------------------------

def test_a_search_past_the_budget_says_what_would_end_it_sooner():
    """A stage may carry its own hint through the watching parent: a tune search stopped by
    the budget says to search fewer combinations, not to `--set` sizes it already has or to
    split min/max bounds. A billion combinations pass the up-front check at 3 s (10^9 a
    second) and take some 19 s here."""
    environment = dict(os.environ, KERNELCOST_BUDGET_S="3")
    completed = subprocess.run(
        [sys.executable, "-m", "kernelcost.cli", "tune",
         str(ROOT.parent / "specs" / "gemm_hopper.kcost"), "--machine", "h100", "--vary",
         "TM=16..4096:16,TN=16..4096:16,TK=16..4096:16,split_k=1..60",
         "--set", "M=8192,N=8192,K=8192", "--json"],
        capture_output=True, text=True, env=environment, timeout=120)
    assert completed.returncode == 2, completed.stderr
    error = json.loads(completed.stdout)["error"]
    assert error["code"] == "KC701"
    assert "ran out while searching 1,006,632,960 combinations" in completed.stderr
    assert "search fewer combinations (fewer values in --vary" in completed.stderr
    assert "--set" not in completed.stderr and "min/max" not in completed.stderr


def test_the_clock_starts_with_the_process():
    """launch.process_start() is the process's exec, read from /proc: before the
    interpreter's own start-up, never after the moment it is asked."""
    code = ("import time\nfrom kernelcost.base import launch\n"
            "print(time.monotonic() - launch.process_start())")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               check=True, timeout=120)
    assert 0 <= float(completed.stdout) < 30


def test_a_command_is_watched_from_before_sympy_is_imported():
    """The console script and `python -m kernelcost.cli` fork the watchdog in the package's
    __init__, before sympy: a budget smaller than the start-up runs out while importing,
    and the message names that stage."""
    environment = dict(os.environ, KERNELCOST_BUDGET_S="0.05")
    completed = subprocess.run([sys.executable, "-m", "kernelcost.cli", "machines", "--json"],
                               capture_output=True, text=True, env=environment, timeout=120)
    assert completed.returncode == 2, completed.stderr
    assert "the time budget of 0.05 s ran out while" in completed.stderr
    assert "Traceback" not in completed.stderr
    # --json is honoured before the arguments are read
    assert json.loads(completed.stdout)["error"]["code"] == "KC701"


def test_the_watching_parent_imports_no_sympy():
    """launch.start() in a process that calls itself `kernelcost`: the parent only watches."""
    code = ("import sys\nsys.argv[0] = 'kernelcost'\nimport os\nparent = os.getpid()\n"
            "import kernelcost\n"
            "print('child' if os.getpid() != parent else 'parent', 'sympy' in sys.modules)")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               check=True, timeout=120)
    assert completed.stdout.split() == ["child", "True"]


@pytest.mark.parametrize("value, message", [
    ("1e10", "is more than 1,000,000 seconds"),
    ("1e400", "is more than 1,000,000 seconds"),
    ("-3", "is not a positive number of seconds"),
])
def test_a_budget_beyond_what_the_clocks_hold_is_placed_on_the_value(monkeypatch, capsys,
                                                                     value, message):
    monkeypatch.setenv("KERNELCOST_BUDGET_S", value)
    assert main(["machines"]) == 2
    err = capsys.readouterr().err
    assert f"KERNELCOST_BUDGET_S:1:1: error[KC702]: KERNELCOST_BUDGET_S={value} {message}" in err
    assert f"   1 | {value}\n       ^" in err


def test_a_budget_too_large_is_refused_by_the_program_too():
    environment = dict(os.environ, KERNELCOST_BUDGET_S="1e10")
    completed = subprocess.run([sys.executable, "-m", "kernelcost.cli", "machines"],
                               capture_output=True, text=True, env=environment, timeout=120)
    assert completed.returncode == 2
    assert "error[KC702]" in completed.stderr and "Traceback" not in completed.stderr


def test_main_with_watch_runs_the_command_in_a_watched_child(capsys):
    """What the fuzz campaign calls: the CLI's entry point with the watchdog, in a test's
    process (called with arguments, the budget counts from the call)."""
    assert main(["machines", "--json"], watch=True) == 0


def test_a_worker_killed_by_the_system_is_out_of_memory(capsys):
    """SIGKILL that the watchdog did not send is what the kernel's out-of-memory killer sends:
    a limit of the work (exit 2), not a bug; another signal is one (exit 3)."""
    import signal

    assert watchdog.run_watched(lambda: os.kill(os.getpid(), signal.SIGKILL), 10) == 2
    assert "error[KC708]: the analysis was killed (signal 9" in capsys.readouterr().err
    assert watchdog.run_watched(lambda: os.kill(os.getpid(), signal.SIGTERM), 10) == 3
    assert "error[KC902]: the analysis ended on signal 15" in capsys.readouterr().err
