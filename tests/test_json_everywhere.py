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
                 "--set", "M=2048,N=2048,K=2048"]],
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
    json.loads(out)  # one document, nothing printed around it
