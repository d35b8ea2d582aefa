"""Hostile and unsupported Python under `kernelcost import`: each an exit 2 with the error's
code at its line and column and a caret under it, never a traceback; and mutated tutorials,
which end in a spec or a placed error."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from conftest import sample_spent
from error_examples import TRITON_ADD

from kernelcost import cli
from kernelcost.analysis.api import loads
from kernelcost.base.errors import KcostError
from kernelcost.base.tree import MAX_NAME_LENGTH

TUTORIALS = Path(__file__).resolve().parent / "triton_tutorials"

ADD = TRITON_ADD  # tutorial 01's shape, as the error examples write it
Y_LOAD = "    y = tl.load(y_ptr + offsets, mask=mask)\n"


def run(tmp_path: Path, capsys, text: str | bytes, function: str = "add_kernel",
        extra: tuple[str, ...] = ()) -> tuple[int, str]:
    """The exit code and stderr; what went to stdout is in `run.out`."""
    path = tmp_path / "kernel.py"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    code = cli.main(["import", f"{path}::{function}", *extra])
    captured = capsys.readouterr()
    run.out = captured.out  # type: ignore[attr-defined]
    return code, captured.err


def placed(err: str, code: str, line: int, column: int) -> None:
    assert re.search(rf"kernel\.py:{line}:{column}: error\[{code}\]", err), err
    assert "^" in err and "Traceback" not in err


# (what, the source, the code, line, column, words of the message)
CASES = [
    ("python syntax", ADD.replace("mask = offsets < n", "mask = offsets < n)"), "KC109", 8, 23,
     "cannot be parsed"),
    ("not a jit function", ADD, "KC225", 14, 1, "not a @triton.jit function"),
    ("a while loop", ADD.replace(Y_LOAD, Y_LOAD + "    while n > 0:\n        pass\n"), "KC226",
     11, 5, "`While` statement"),
    ("an if on a meta-parameter", ADD.replace(Y_LOAD, Y_LOAD + "    if BLOCK > 4:\n"
                                                       "        pass\n"), "KC226", 11, 5,
     "an `if` whose test is not a meta-parameter of known value"),
    ("tl.rand (tutorial 04's seeded dropout)",
     ADD.replace(Y_LOAD, Y_LOAD + "    r = tl.rand(7, offsets)\n"), "KC226", 11, 9,
     "`tl.rand` has no mapping"),
    ("a compare-and-swap", ADD.replace("tl.store(out_ptr + offsets, x + y, mask=mask)",
                                       "tl.atomic_cas(out_ptr + offsets, x, y)"), "KC226",
     11, 5, "`Expr` statement"),
    ("a global", ADD.replace("x + y, mask", "x + SCALE, mask"), "KC226", 11, 37,
     "`SCALE` is not set in the kernel"),
    ("a halved index", ADD.replace("x_ptr + offsets", "x_ptr + offsets // 2"), "KC226", 9, 25,
     "`%` and `//`"),
    ("an indirect load", ADD.replace("y_ptr + offsets", "y_ptr + x"), "KC226", 10, 17,
     "indirect access"),
    ("a two-axis reduction", ADD.replace(Y_LOAD, Y_LOAD + "    s = tl.sum(x[:, None] + y[None, :],"
                                                          " axis=0)\n"), "KC226", 11, 9,
     "more than one axis"),
    ("**meta (tutorial 02's first form)", ADD.replace("BLOCK: tl.constexpr", "**meta"),
     "KC226", 6, 44, "`**meta`"),
    ("a grid the import cannot read", ADD.replace("triton.cdiv(n, meta['BLOCK'])", "x.numel()"),
     "KC227", 16, 26, "not a size expression"),
    ("no launch", ADD.split("\n\ndef add(")[0] + "\n", "KC227", 6, 1, "no launch"),
    ("a pointer moved in an inner loop", ADD.replace(Y_LOAD, Y_LOAD + (
        "    for i in range(0, 4):\n        for j in range(0, 2):\n            x_ptr += n\n")),
     "KC226", 13, 13, "moves on across the outer loop's iterations"),
    ("a pointer moved deep in a loop", ADD.replace(Y_LOAD, Y_LOAD + (
        "    p = x_ptr\n    for i in range(0, 4):\n        p = p + n\n"
        "        for j in range(0, 2):\n            p += n\n")),
     "KC226", 13, 9, "a pointer moved inside a loop other than by `p += step`"),
    ("brackets nested past the limit", ADD + "z = " + "(" * 300 + ")" * 300 + "\n", "KC109",
     18, 205, "too deeply"),  # the 201st bracket
]


@pytest.mark.parametrize(("what", "text", "code", "line", "column", "words"), CASES,
                         ids=[case[0] for case in CASES])
def test_each_is_a_placed_error(tmp_path, capsys, what, text, code, line, column, words):
    function = "add" if what == "not a jit function" else "add_kernel"
    exit_code, err = run(tmp_path, capsys, text, function)
    assert exit_code == 2, err
    placed(err, code, line, column)
    assert words in err


LONG = "v" * (MAX_NAME_LENGTH + 1)
# (what, the source with one name written at the limit's length plus one, the function to
# import, line, column): the error stands at the name's first place in the file
LONG_NAMES = [
    ("the kernel's name", ADD.replace("add_kernel", LONG), LONG, 6, 5),
    ("a parameter", ADD.replace("n, BLOCK", f"{LONG}, BLOCK").replace("< n", f"< {LONG}"),
     "add_kernel", 6, 39),
    ("a meta-parameter", ADD.replace("BLOCK", LONG), "add_kernel", 6, 42),
    ("a local", ADD.replace("mask", LONG), "add_kernel", 8, 5),
    ("an attribute", ADD.replace("tl.arange", f"tl.{LONG}"), "add_kernel", 7, 45),
    ("a launch keyword", ADD.replace("BLOCK=1024", f"BLOCK=1024, {LONG}=2"), "add_kernel", 17,
     48),
]


@pytest.mark.parametrize(("what", "text", "function", "line", "column"), LONG_NAMES,
                         ids=[case[0] for case in LONG_NAMES])
def test_a_name_past_the_limit_is_refused_at_it(tmp_path, capsys, what, text, function, line,
                                                column):
    exit_code, err = run(tmp_path, capsys, text, function)
    assert exit_code == 2, err
    placed(err, "KC110", line, column)
    assert f"`vvvvvvvv...vvvvvvvv` is {MAX_NAME_LENGTH + 1} characters long" in err
    assert LONG not in err


def test_names_at_the_limit_import_and_read_back(tmp_path, capsys):
    names = {"add_kernel": "k" * MAX_NAME_LENGTH, "offsets": "o" * MAX_NAME_LENGTH,
             "BLOCK": "B" * MAX_NAME_LENGTH}
    text = ADD
    for old, new in names.items():
        text = text.replace(old, new)
    exit_code, err = run(tmp_path, capsys, text, names["add_kernel"])
    assert exit_code == 0, err
    kernel = loads(run.out).kernel  # type: ignore[attr-defined]
    assert kernel.name == names["add_kernel"]
    assert names["BLOCK"] in {param.name for param in kernel.params}


def test_a_missing_function_lists_the_kernels(tmp_path, capsys):
    exit_code, err = run(tmp_path, capsys, ADD, "sub_kernel")
    assert exit_code == 2
    assert re.search(r"argv:1:\d+: error\[KC225\]: no function `sub_kernel`", err), err
    assert "::sub_kernel\n" in err and "^" * len("sub_kernel") + "\n" in err, err
    assert "its @triton.jit functions: add_kernel" in err


def test_no_launch_is_mended_by_grid(tmp_path, capsys):
    text = ADD.split("\n\ndef add(")[0] + "\n"
    exit_code, err = run(tmp_path, capsys, text, extra=("--grid", "triton.cdiv(n, BLOCK)"))
    assert exit_code == 0, err
    assert "for pid0_start in 0..n by BLOCK parallel" in run.out  # type: ignore[attr-defined]


@pytest.mark.parametrize(("options", "words"), [
    (("--grid", "cdiv(n,"), "is not a Python expression"),
    (("--dtype", "float17"), "not an element type"),
    (("--set", "BLOCK=big"), "is not NAME=INT"),
])
def test_bad_options_are_placed_on_their_value(tmp_path, capsys, options, words):
    exit_code, err = run(tmp_path, capsys, ADD, extra=options)
    assert exit_code == 2
    assert "error[KC311]" in err and words in err and "Traceback" not in err


@pytest.mark.parametrize(("content", "code"), [
    (b"x = 1\x00\n", "KC"), (b"\xff\xfe bad", "KC805"),
])
def test_unreadable_files(tmp_path, capsys, content, code):
    exit_code, err = run(tmp_path, capsys, content)
    assert exit_code == 2 and f"error[{code}" in err and "Traceback" not in err


def test_a_missing_file_and_a_target_without_a_function(tmp_path, capsys):
    assert cli.main(["import", f"{tmp_path}/none.py::add_kernel"]) == 2
    assert "error[KC801]" in capsys.readouterr().err
    assert cli.main(["import", f"{tmp_path}/none.py"]) == 2
    assert "error[KC311]" in capsys.readouterr().err


# --- mutated tutorials ---------------------------------------------------------------------

PIECES = ["(", ")", "[:, None]", "% n", "// 2", "tl.sum(", "tl.exp(", "while x:\n", "0", "-1",
          "**", "if x:\n", "    ", "\n", ",", "=", "+=", "tl.dot(", "tl.load(", "mask=",
          "tl.arange(0, ", "axis=1", "None", ".to(tl.float16)", "tl.zeros([4], dtype=tl.int8)"]
KERNELS = [("01_vector_add.py", "add_kernel"), ("02_fused_softmax.py", "softmax_kernel"),
           ("05_layer_norm.py", "_layer_norm_fwd_fused")]


def mutate(text: str, chooser: random.Random) -> str:
    for _ in range(chooser.randint(1, 3)):
        at = chooser.randrange(len(text))
        kind = chooser.randrange(3)
        if kind == 0:  # delete a span
            text = text[:at] + text[at + chooser.randint(1, 12):]
        elif kind == 1:  # insert a piece
            text = text[:at] + chooser.choice(PIECES) + text[at:]
        else:  # a line twice
            lines = text.split("\n")
            row = chooser.randrange(len(lines))
            lines.insert(row, lines[row])
            text = "\n".join(lines)
    return text


def fuzz(tmp_path: Path, capsys, count: int, seed: int) -> dict[int, int]:
    chooser = random.Random(seed)
    outcomes: dict[int, int] = {}
    for case in range(count):
        if sample_spent():  # CI's bounded slow sample: no further case once its time is up
            break
        name, function = KERNELS[case % len(KERNELS)]
        text = mutate((TUTORIALS / name).read_text(), chooser)
        exit_code, err = run(tmp_path, capsys, text, function)
        assert exit_code in (0, 2), (text, err)
        assert "Traceback" not in err and "internal error" not in err, (text, err)
        if exit_code == 2:
            assert re.search(r"error\[KC\d{3}\]", err), err
        outcomes[exit_code] = outcomes.get(exit_code, 0) + 1
    return outcomes


def test_mutated_tutorials_import_or_fail_placed(tmp_path, capsys):
    outcomes = fuzz(tmp_path, capsys, 300, seed=44)
    assert outcomes.get(0, 0) > 20 and outcomes.get(2, 0) > 20  # both paths are exercised


@pytest.mark.slow
def test_ten_thousand_mutated_tutorials(tmp_path, capsys):
    outcomes = fuzz(tmp_path, capsys, 10_000, seed=4444)
    assert sum(outcomes.values()) == 10_000 or sample_spent()


def test_the_specs_of_mutated_tutorials_read_or_fail_as_bad_input(tmp_path):
    """What the import writes is read by the kcost parser and checker, which may refuse it
    (a bad input of another kind), never fail inside."""
    from kernelcost.frontend.triton_spec import import_triton

    chooser = random.Random(7)
    for case in range(150):
        name, function = KERNELS[case % len(KERNELS)]
        path = tmp_path / "kernel.py"
        path.write_text(mutate((TUTORIALS / name).read_text(), chooser))
        try:
            text = import_triton(str(path), function)
        except KcostError as error:
            assert error.exit_code == 2
            continue
        try:
            loads(text, "imported.kcost")
        except KcostError as error:
            assert error.exit_code == 2, error.render()


def test_a_keyword_of_the_spec_language_as_a_parameter_is_renamed(tmp_path, capsys):
    """`out` names a pointer here and is a keyword of the spec: the spec writes `out_`."""
    text = ADD.replace("out_ptr", "out")
    exit_code, err = run(tmp_path, capsys, text)
    assert exit_code == 0, err
    assert "out   out_: f32[n]" in run.out  # type: ignore[attr-defined]
    assert "out_[offsets] = x_ptr[offsets] + y_ptr[offsets]" in run.out  # type: ignore


def test_an_error_in_the_spec_the_import_wrote_names_the_python_line(tmp_path, capsys):
    """Loops nested deeper than a spec's nest may be: the spec checker refuses the spec the
    import wrote, and the hint names the Python line of the statement it points at."""
    loops = "".join(f"{'    ' * (depth + 1)}for i{depth} in range(0, 2):\n" for depth in range(17))
    store = "    tl.store(out_ptr + offsets, x + y, mask=mask)\n"
    text = ADD.replace(store, loops + "    " * 17 + store)
    path = tmp_path / "kernel.py"
    path.write_text(text)
    assert cli.main(["analyze", f"{path}::add_kernel"]) == 2
    err = capsys.readouterr().err
    assert "error[KC217]" in err and re.search(r"the statement of line \d+ of .*kernel\.py", err)
    assert "Traceback" not in err
