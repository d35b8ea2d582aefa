"""Every way of asking a command for JSON gets one JSON document on stdout: each command that
takes --json, in each of its modes (`validate` reads a CSV of runs or, with --published, the
corpus), with nothing else printed there. A mode that ignored the option and printed its table
(`validate --published --json` did) fails here; a new command taking --json must add its
invocations, or the first test fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelcost.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"
# command -> its invocations, one per mode, each given --json
INVOCATIONS: dict[str, list[list[str]]] = {
    "analyze": [["analyze", str(SPECS / "gemm_tiled.kcost")],
                ["analyze", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100",
                 "--set", "M=2048,N=2048,K=2048"],
                ["analyze", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100",
                 "--set", "M=N,K=N"],  # times and crossings that stay symbolic
                ["analyze", str(SPECS / "llm_decode.kcost"), "--machine", "h100",
                 "--set", "b=1"]],
    "solve": [["solve", str(SPECS / "gemm.kcost"), "--for", "N", "--machine", "h100",
               "--set", "M=4096,K=4096"]],
    "machines": [["machines"], ["machines", "h100"]],
    "model": [["model", "llama3_8b", "--machine", "h100"]],
    "bound": [["bound", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100"]],
    "validate": [["validate", str(ROOT / "validate" / "results" / "h200-2026-12-04.csv"),
                  "--machine", "h200"],
                 ["validate", "--published", "--split", "calibration"]],
}


def test_every_command_that_takes_json_has_its_invocations():
    parser = build_parser()
    [commands] = [action for action in parser._actions if action.dest == "command"]
    taking = {name for name, sub in commands.choices.items()
              if any("--json" in action.option_strings for action in sub._actions)}
    assert taking == set(INVOCATIONS)


@pytest.mark.parametrize("argv", [argv for each in INVOCATIONS.values() for argv in each],
                         ids=lambda argv: " ".join(Path(a).name for a in argv))
def test_json_is_one_document(argv, capsys):
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert code in (0, 1), out[-2000:]
    document = json.loads(out)  # one document, nothing printed around it
    assert list(unstable_types(document)) == []


# words a value must not be in place of a number or a boolean
_NOT_WORDS = {"oo", "-oo", "zoo", "nan", "inf", "-inf", "True", "False"}


def unstable_types(value, path="$"):
    """Where a document's types would vary with the sizes: infinity or a truth value written
    as a word, a quantity whose `_expr` sibling exists but which is not a number or null, an
    `_expr` that is not a string or null, a count that is a float."""
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}"
            if f"{key}_expr" in value and not (item is None or isinstance(item, (int, float))):
                yield where, item
            if key.endswith("_expr") and not (item is None or isinstance(item, str)):
                yield where, item
            if key in ("blocks", "resident_per_sm", "busiest_sm_blocks", "waves") \
                    and isinstance(item, float):
                yield where, item
            yield from unstable_types(item, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from unstable_types(item, f"{path}[{index}]")
    elif isinstance(value, str) and value in _NOT_WORDS:
        yield path, value


def test_the_type_scan_finds_what_varied():
    # what the JSON wrote before: a time as its Max(...), a condition as "True", a limit
    # "oo", a count 2048.0
    found = dict(unstable_types({"t_min": "Max(N, 2)", "t_min_expr": None,
                                 "c": {"condition": "True", "limit": "oo"},
                                 "grid": {"blocks": 2048.0}}))
    assert set(found) == {"$.t_min", "$.c.condition", "$.c.limit", "$.grid.blocks"}
