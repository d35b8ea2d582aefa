"""Triton sources a careless user gives: a launch or config with a block size of 0 or
below, a `tl.arange` that runs backwards, import options that name no parameter or are not
ASCII digits. Each was taken as it came (BLOCK left symbolic, the last value kept without a
word) or ended in a traceback (exit 3); each now ends in one error placed in the source or
the option (exit 2)."""

from __future__ import annotations

import pytest
from hostile_runs import TRITON, run, write


@pytest.mark.parametrize(("old", "new", "column", "message"), [
    ("BLOCK=1024)", "BLOCK=0)", 28, "`BLOCK` = 0"),
    ("BLOCK=1024)", "BLOCK=-4)", 28, "`BLOCK` = -4"),
    ("BLOCK=1024)", "BLOCK=1024.5)", 28, "`BLOCK` = 1024.5"),
    ("tl.arange(0, BLOCK)", "tl.arange(BLOCK, 0)", 26, "tl.arange from BLOCK to 0"),
])
def test_a_triton_size_that_is_none_is_placed_in_the_source(capsys, tmp_path, old, new, column,
                                                            message):
    """The launch's `BLOCK=0` was dropped as no constant, and BLOCK left symbolic (the
    verdict then took any BLOCK); `tl.arange(BLOCK, 0)`, which Triton does not compile,
    became a loop over no lane whose bounding box still counted 8n bytes."""
    source = write(tmp_path, "k.py", TRITON.replace(old, new))
    line = 1 + TRITON.replace(old, new).splitlines().index(
        next(text for text in TRITON.replace(old, new).splitlines() if new in text))
    code, out, err = run(capsys, "import", f"{source}::k", "--dtype", "f32")
    assert code == 2 and "error[KC226]" in err and message in err, err
    assert err.startswith(f"{source}:{line}:{column}:"), err
    assert out == ""


def test_a_config_with_a_block_of_zero_is_placed_at_its_value(capsys, tmp_path):
    """`triton.Config({'BLOCK': 0})` under --config 0 wrote `kernel k(n, BLOCK = 0, ...)`."""
    text = TRITON.replace("@triton.jit", "@triton.autotune(configs=[triton.Config({'BLOCK': 0}"
                          "), triton.Config({'BLOCK': -64})], key=['n'])\n@triton.jit")
    source = write(tmp_path, "k.py", text.replace(", BLOCK=1024)", ")"))
    for index, column, value in ((0, 51, "0"), (1, 80, "-64")):
        code, _, err = run(capsys, "import", f"{source}::k", "--config", index)
        assert code == 2 and f"--config {index} gives `BLOCK` = {value}" in err, err
        assert err.startswith(f"{source}:4:{column}:"), err
    code, out, _ = run(capsys, "import", f"{source}::k", "--config", 0, "--set", "BLOCK=256")
    assert code == 0 and "BLOCK = 256" in out


@pytest.mark.parametrize(("option", "value", "start", "message"), [
    ("--set", "BLOCK=²", "--set:1:1:", "error[KC311]"),  # int('²'): a traceback, exit 3
    ("--set", "BLOCK=١٢٨", "--set:1:1:", "ASCII digits"),  # read as 128
    ("--set", "BLOCK=128,BLOCK=256", "--set:1:11:", "`BLOCK` is set twice"),
    ("--set", "BLCK=128", "--set:1:1:", "did you mean `BLOCK`?"),  # BLOCK stayed 1024
    ("--dtype", "f16,x_pt=f32", "--dtype:1:1:", "did you mean `x_ptr`?"),  # x_ptr stayed f16
    ("--dtype", "f16,f32", "--dtype:1:1:", "two element types, f16 and f32"),
])
def test_import_options_are_read_strictly(capsys, tmp_path, option, value, start, message):
    source = write(tmp_path, "k.py", TRITON)
    code, out, err = run(capsys, "import", f"{source}::k", option, value)
    assert code == 2 and message in err and err.startswith(start), err
    assert out == ""


def test_import_options_that_name_parameters_still_apply(capsys, tmp_path):
    source = write(tmp_path, "k.py", TRITON)
    code, out, _ = run(capsys, "import", f"{source}::k", "--set", "BLOCK=256,num_warps=8",
                       "--dtype", "f16,x_ptr=f32")
    assert code == 0 and "BLOCK = 256" in out and "num_warps = 8" in out
    assert "x_ptr: f32[n]" in out and "y_ptr: f16[n]" in out


@pytest.mark.parametrize(("grid", "start", "message"), [
    ("n;foo(n)", "--grid:1:3:", "error[KC227]"),  # the caret fell under `n;foo(` at column 1
    ("n; 0", "--grid:1:4:", "error[KC226]: a grid extent of 0: the launch runs no program"),
    ("n;n;n; n", "--grid:1:8:", "error[KC311]: --grid: a grid of 4 axes"),
])
def test_a_grid_option_is_placed_at_its_entry(capsys, tmp_path, grid, start, message):
    """`--grid 'n;n;n;n'` became four parallel loops (n^4 programs, where Triton's grid has
    three axes); an entry after the first was placed at column 1 of the option; a grid
    extent of 0 was `not a size expression`."""
    source = write(tmp_path, "k.py", TRITON)
    code, out, err = run(capsys, "import", f"{source}::k", "--grid", grid)
    assert code == 2 and out == "" and err.startswith(f"{start} {message}"), err


def test_a_launch_of_four_axes_is_placed_in_the_source(capsys, tmp_path):
    text = TRITON.replace("(triton.cdiv(n, meta['BLOCK']),)",
                          "(triton.cdiv(n, meta['BLOCK']), 1, 1, 2)")
    source = write(tmp_path, "k.py", text)
    code, _, err = run(capsys, "import", f"{source}::k")
    column = text.splitlines()[12].index(", 2)") + 3
    assert code == 2 and err.startswith(f"{source}:13:{column}: error[KC227]"), err
    assert "a grid of 4 axes, where a Triton grid has at most 3" in err
    code, out, _ = run(capsys, "import", f"{source}::k", "--grid", "n; 2")
    assert code == 0 and "for pid in 0..n, pid1 in 0..2 parallel" in out, out


LONG = "1" + "0" * 1500  # more digits than a spec's literal may hold (lang.parse: 1,000)


@pytest.mark.parametrize(("old", "new", "line"), [
    ("BLOCK=1024)", f"BLOCK={LONG})", 14),  # the launch's keyword, written as BLOCK's default
    ("x * 2,", f"x * {LONG},", 10),  # a constant of the body, written into its statement
    ("x * 2,", f"x * {'9' * 1000},", None),  # 1,000 digits: the spec reads it back
])
def test_an_integer_longer_than_a_spec_literal_is_placed_in_the_source(capsys, tmp_path, old,
                                                                       new, line):
    """The import wrote a 1,501-digit integer into the spec, and `analyze` of that spec then
    refused it (KC108) at a line of the spec, not of the Python file."""
    source = write(tmp_path, "k.py", TRITON.replace(old, new))
    code, out, err = run(capsys, "import", f"{source}::k")
    if line is None:
        assert code == 0 and "9" * 1000 in out, err
        spec = write(tmp_path, "k.kcost", out)
        assert run(capsys, "check", spec)[0] == 0
        return
    column = 1 + TRITON.replace(old, new).splitlines()[line - 1].index(LONG)
    assert code == 2 and out == "", err
    assert err.startswith(f"{source}:{line}:{column}: error[KC108]: an integer of 1,501 "
                          "digits"), err


def test_a_meta_parameter_past_eighteen_digits_is_refused_in_a_line(capsys, tmp_path):
    """`--set BLOCK=` with 2,000 digits was refused, but its message held all 2,000."""
    source = write(tmp_path, "k.py", TRITON)
    code, _, err = run(capsys, "import", f"{source}::k", "--set", f"BLOCK={'9' * 2000}")
    first = err.splitlines()[0]
    assert code == 2 and first.startswith("--set:1:1: error[KC311]: `BLOCK=99...99999999` is "
                                          "not NAME=INT") and len(first) < 200, first
