"""Every command's page at 80 columns on every shipped spec (issue 40): each line within the
width and no word split or cut, the test_golden pages' rule applied to all the specs and the
commands that print tables about them (analyze with a machine, solve for a size on every
machine, bound, sweep). The goldens hold a few pages byte for byte; this holds the rule
everywhere. Slow: about 300 runs."""

from __future__ import annotations

import io
import math
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import sympy
from conftest import sample_spent, size
from test_golden import _words
from test_three_times import _free, documented_sizes

import kernelcost
from kernelcost.cli import main

SPECS = sorted((Path(__file__).resolve().parent.parent / "specs").glob("*.kcost"))
WIDTH = 80


def _page(argv: list[str], columns: int) -> tuple[int, str]:
    """The exit code and the page (stdout). A diagnostic on stderr is one line a place, as
    compilers write them: not wrapped, not held to the width."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(columns)
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    finally:  # a later test's page (an argparse usage line) is not this one's width
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before
    return code, out.getvalue()


def _swept_extent(checked, name: str) -> str:
    """8..4096, or from the multiple the spec's `assume` makes `name` where it is past 4096
    (llm_decode's `d * d | Theta`: 67,108,864): sweep refuses a range that holds no multiple
    (KC308)."""
    known = {symbol: sympy.Integer(value) for symbol, value in checked.defaults.items()}
    step = 1
    for divisor, dividend in checked.divisibility:
        value = divisor.xreplace(known)
        if dividend == size(name) and value.is_Integer:
            step = math.lcm(step, int(value))
    return "8..4096" if step <= 4096 else f"{step}..{512 * step}"


def _commands(spec: Path) -> list[list[str]]:
    loaded = kernelcost.load(spec)
    free = _free(loaded.cost())
    sizes = documented_sizes(spec.stem, free)[0]
    setting = ",".join(f"{name}={value}" for name, value in sizes.items())
    commands = [["analyze", str(spec), "--set", setting, "--machine", "h100", "--no-verify"],
                ["bound", str(spec), "--machine", "h100"]]
    if free:
        others = ",".join(f"{name}={value}" for name, value in sizes.items()
                          if name != free[0])
        rest = ["--set", others] if others else []
        commands += [["solve", str(spec), "--for", free[0], "--machine", "all", *rest],
                     ["sweep", str(spec), "--sweep",
                      f"{free[0]}={_swept_extent(loaded.checked, free[0])}", "--points", "5",
                      "--machine", "h100", *rest]]
    return commands


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS, ids=lambda path: path.stem)
def test_every_command_fits_80_columns_and_splits_no_word(spec, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    for argv in _commands(spec):
        if sample_spent():
            return
        code, page = _page(argv, WIDTH)
        if code == 2 and argv[0] == "solve":  # a machine of `all` does not run its schedule
            argv = [*argv[:argv.index("all")], "h100,h200", *argv[argv.index("all") + 1:]]
            code, page = _page(argv, WIDTH)
        # bound and solve may refuse (a spec outside bound's class, a crossing with no closed
        # form, a schedule no machine asked runs): a diagnostic, no page; the others print
        assert code == 0 or (argv[0] in ("bound", "solve") and code == 2), (argv, code)
        lines = page.splitlines()
        long = [line for line in lines if len(line) > WIDTH and len(line.split()) > 1]
        assert long == [], (argv, long[:3])
        _, wide = _page(argv, 1000)
        known = set(_words(wide))
        split = [word for line in _without_wide_note(lines)
                 for word in _words(line) if word not in known]
        assert split == [], (argv, split[:5])


def _without_wide_note(lines: list[str]) -> list[str]:
    """The page less the note of the columns a narrow page leaves out (`(--wide adds: ...)`,
    wrapped over as many lines as it takes), which the wide page has no need of."""
    kept, in_note = [], False
    for line in lines:
        in_note = in_note or line.startswith("(--wide adds:")
        if not in_note:
            kept.append(line)
        elif line.rstrip().endswith(")"):
            in_note = False
    return kept
