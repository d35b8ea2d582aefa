"""Every command block of the README runs as written, and the answer it quotes is what the
tool prints. The two setup commands create the virtual environment this suite runs in (CI
runs the second word for word); here their kernelcost part runs with this environment's
console script, and the test command itself is not run again from inside its own run."""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
KERNELCOST = str(Path(sys.executable).with_name("kernelcost"))
SETUP = re.compile(r"^python3 -m venv \.venv && \.venv/bin/pip install -q \S+ && (.*)$")


def command_lines() -> list[str]:
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            setup = SETUP.match(line)
            lines.append(setup.group(1) if setup else line)
    return lines


def runnable(line: str) -> list[str] | None:
    words = shlex.split(line)
    if words[0] == ".venv/bin/kernelcost":
        return [KERNELCOST, *words[1:]]
    if words[:3] == [".venv/bin/python", "-m", "pytest"]:
        return None  # the command running this very test
    return words


LINES = command_lines()


def test_the_readme_has_its_two_commands():
    assert sum(1 for line in README.splitlines() if SETUP.match(line.strip())) == 2
    assert any("pytest" in line for line in LINES)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A folder that sees the repository's files as its own, so that a figure a command
    writes (`--curve curve.svg`) lands there, not in the checkout."""
    path = tmp_path_factory.mktemp("readme")
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (path / entry.name).symlink_to(entry)
    return path


@functools.cache
def ran(line: str, folder: Path) -> subprocess.CompletedProcess:
    """The line run as a program in `folder`, once a process: the first command's run is
    also the one whose answer the README quotes."""
    return subprocess.run(runnable(line), cwd=folder, capture_output=True, text=True,
                          timeout=300)


def as_program(line: str) -> bool:
    """Whether the line runs as a program: every line that is not kernelcost's, and the
    first line of each kernelcost command (the console script's start, its streams and its
    exit code are those of a program); a later line of a command runs in process."""
    words = runnable(line)
    if words is None or words[0] != KERNELCOST:
        return True
    return next(other for other in LINES
                if (runnable(other) or [None])[:2] == words[:2]) == line


@pytest.mark.parametrize("line", [line for line in LINES if runnable(line)])
def test_each_command_runs(line, folder, monkeypatch, capsys):
    if as_program(line):
        done = ran(line, folder)
        code, out, err = done.returncode, done.stdout, done.stderr
    else:
        from kernelcost.cli import main

        monkeypatch.chdir(folder)
        code = main(runnable(line)[1:])
        out, err = capsys.readouterr()
    assert code == 0, f"{line}\n{out[-2000:]}\n{err[-2000:]}"
    assert "internal error" not in err


def test_the_quoted_answer_is_what_the_first_command_prints(folder):
    quoted = README.split("per\nmemory level:\n\n```\n", 1)[1].split("```", 1)[0]
    printed = " ".join(ran(LINES[0], folder).stdout.split())
    assert " ".join(quoted.split()) in printed
