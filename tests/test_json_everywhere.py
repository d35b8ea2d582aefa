"""Every way of asking a command for JSON gets one JSON document on stdout: each command that
takes --json, in each of its modes (`validate` reads a CSV of runs or, with --published, the
corpus or, with --ncu, an Nsight Compute export), with nothing else printed there. A mode that
ignored the option and printed its table (`validate --published --json` and `validate --ncu
--json` did) fails here; a new command taking --json must add its invocations, or the first
test fails."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import tempfile
from pathlib import Path

import pytest
from published_results import published_once

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
    "model": [["model", "llama3_8b", "--machine", "h100"],
              ["model", "mixtral_8x7b", "--machine", "h100", "--tp", "2", "--ep", "2",
               "--batch", "8"],  # the collectives of tensor and expert parallelism
              ["model", "llama3_8b", "--batch", "1,256", "--context", "128,4096", "--tp",
               "1,2", "--grid", str(Path(tempfile.gettempdir()) / "kernelcost-grid.csv")]],
    "bound": [["bound", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100"]],
    "tune": [["tune", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100", "--vary",
              "TM=64,128,TN=128,256,stages=2..4,raster=row,grouped", "--set",
              "M=N,K=N,N=4096", "--rescore", "8", "--pareto"],
             ["tune", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100", "--vary",
              "TM=64,128,TN=128,256", "--set", "M=N,K=N", "--shape", "N=4096", "--shape",
              "N=8192", "--rescore", "4"]],
    "validate": [["validate", str(ROOT / "validate" / "results" / "h200-2026-12-04.csv"),
                  "--machine", "h200"],
                 ["validate", "--published", "--split", "calibration"],
                 ["validate", "--ncu", str(ROOT / "tests" / "data" / "ncu" / "hopper_gemm.csv"),
                  "--spec", str(SPECS / "gemm_hopper.kcost"), "--set", "M=2048,N=2048,K=2048",
                  "--machine", "h200"]],
}


def test_every_command_that_takes_json_has_its_invocations():
    parser = build_parser()
    [commands] = [action for action in parser._actions if action.dest == "command"]
    taking = {name for name, sub in commands.choices.items()
              if any("--json" in action.option_strings for action in sub._actions)}
    assert taking == set(INVOCATIONS)


@functools.cache
def json_output(argv: tuple[str, ...]) -> tuple[int, str]:
    """(exit code, stdout) of the command with --json, run once a process however many
    tests read it (test_json_schema validates the same documents); `validate --published`
    on the process's one comparison of the corpus (published_results)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            published_once():
        code = main([*argv, "--json"])
    return code, out.getvalue()


@pytest.mark.parametrize("argv", [argv for each in INVOCATIONS.values() for argv in each],
                         ids=lambda argv: " ".join(Path(a).name for a in argv))
def test_json_is_one_document(argv):
    code, out = json_output(tuple(argv))
    assert code in (0, 1), out[-2000:]
    document = json.loads(out)  # one document, nothing printed around it
    assert list(unstable_types(document)) == []


# words a value must not be in place of a number or a boolean
_NOT_WORDS = {"oo", "-oo", "zoo", "nan", "inf", "-inf", "True", "False"}


def _exact_text(value) -> bool:
    """A number past a double, as its exact text (algebra.jsonout: announced on stderr)."""
    return isinstance(value, str) and re.fullmatch(
        r"-?[0-9]+(/[0-9]+)?|-?[0-9]+\.[0-9]+(e[+-]?[0-9]+)?", value) is not None


def unstable_types(value, path="$"):
    """Where a document's types would vary with the sizes: infinity or a truth value written
    as a word, a quantity whose `_expr` sibling exists but which is not a number, its exact
    text or null, an `_expr` that is not a string or null, a count that is a float."""
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}"
            if f"{key}_expr" in value and not (item is None or isinstance(item, (int, float))
                                               or _exact_text(item)):
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


def _json_of(argv, capsys) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_time_past_a_double_is_its_exact_text_in_the_verdict_rows_too(capsys):
    # the rows' t_floor ... t_model were floats overflowing to `inf` at 1e200^3 FLOP, where
    # the answers gave the exact text: both give it now (and warn on stderr)
    document = _json_of(["analyze", str(SPECS / "gemm.kcost"), "--machine", "h100",
                         "--set", "M=1e200,N=1e200,K=1e200", "--no-verify"], capsys)
    [answer] = document["answers"]
    for row in document["verdicts"]:
        for key in ("t_floor", "t_bound", "t_model", "t_min"):
            # an integer or a fraction, exactly (jsonout.exact_text)
            assert row[key] == answer[key] and re.fullmatch(r"[0-9]+(/[0-9]+)?", row[key])
    assert list(unstable_types(document)) == []


def test_warm_l2_bytes_are_numbers_or_null_beside_their_expressions(capsys):
    # `read_B` was a number at set sizes and the expression's text at symbolic ones
    symbolic = _json_of(["analyze", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100",
                         "--warm-l2", "A,B", "--no-verify"], capsys)
    [warm] = [answer["warm_l2"] for answer in symbolic["answers"]]
    assert warm["read_B"] is None and warm["read_B_expr"] == "2*K*M + 2*K*N"
    assert warm["t_bound_from_l2_B"] is None and "Min" in warm["t_bound_from_l2_B_expr"]
    numeric = _json_of(["analyze", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100",
                        "--warm-l2", "A", "--set", "M=2048,N=2048,K=2048", "--no-verify"],
                       capsys)
    [warm] = [answer["warm_l2"] for answer in numeric["answers"]]
    # A is 2048 x 2048 bf16: 8 MiB read once
    assert warm["read_B"] == 2048 * 2048 * 2 and warm["read_B_expr"] is None
