"""Hostile input, the sixth round: a process whose streams the shell closed or narrowed, a
machine file whose shared-memory figures leave no block resident, loop steps that are not
whole, a closed form too long for sympy's limit, numbers in other scripts' digits or with
underscores, Nsight Compute figures no launch has, and options naming one file twice."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_runs import TRITON, run, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
COPY = ROOT / "specs" / "copy.kcost"
GEMM = ROOT / "specs" / "gemm_hopper.kcost"
H100 = (ROOT / "src" / "kernelcost" / "machines" / "h100.toml").read_text("utf-8")


@pytest.mark.parametrize(("redirect", "arguments", "stderr"), [
    (">&-", ["analyze", COPY, "--set", "n=1024"], "error[KC812]: cannot write the output"),
    (">&-", ["machines", "--json"], "error[KC812]: cannot write the output"),
    ("2>&-", ["analyze", COPY, "--set", "n=10x"], ""),  # the error has nowhere to go
    ("<&-", ["analyze", COPY, "--set", "n=10x"], "error[KC301]"),
])
def test_a_stream_the_shell_closed_is_no_traceback(redirect, arguments, stderr):
    """`kernelcost ... >&-` ended in `AttributeError: 'NoneType' object has no attribute
    'flush'` at import (Python makes a closed stream None), a traceback and exit 1; its
    descriptor is now held, so the output fails as a full disk does."""
    command = " ".join([f"'{sys.executable}'", "-m", "kernelcost.cli",
                        *(f"'{a}'" for a in arguments), redirect])
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert stderr in done.stderr and (stderr or done.stderr == ""), done.stderr


@pytest.mark.parametrize("command", [["machines"], ["model", "llama3_8b", "--batch", "1"]])
def test_a_page_of_no_columns_is_a_page_of_80(capsys, monkeypatch, command):
    """COLUMNS=0 (what some shells export where the width is unknown) made rich's page 0
    wide: `internal error: ValueError: invalid width 0` from the wrapping."""
    monkeypatch.setenv("COLUMNS", "0")
    code, out, _ = run(capsys, *command)
    widest = max(len(line) for line in out.splitlines())
    assert code == 0 and 60 < widest <= 80, out


def test_an_output_encoding_without_a_character_is_an_output_error(capsys, monkeypatch):
    """PYTHONIOENCODING=ascii: the report's `→` was `internal error: UnicodeEncodeError`
    (exit 3, `a bug in kernelcost`)."""
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="ascii"))
    code, _, err = run(capsys, "analyze", GEMM, "--set", "M=N,K=N,N=4096", "--machine", "h100")
    assert code == 2 and err.startswith("error[KC812]: cannot write the output: its encoding, "
                                        "ascii, has no `→` (U+2192)"), err
    assert "PYTHONIOENCODING=utf-8" in err


RESERVED = "shared_reserved_per_block_B = 1024"
PER_BLOCK = "shared_per_block_max_B = 232448"


def test_a_reservation_past_the_sm_s_shared_memory_is_refused(capsys, tmp_path):
    """232,448 B a block and 1,000,000 reserved in 233,472 B an SM: no block resides, and
    gemm_hopper's verdict was `internal error: TypeError: Invalid comparison of non-real
    zoo`. The shipped files add up exactly (232,448 + 1,024 = 233,472)."""
    machine = write(tmp_path, "m.toml", H100.replace(RESERVED,
                                                     "shared_reserved_per_block_B = 1000000"))
    line = H100[:H100.index(RESERVED)].count("\n") + 1
    code, out, err = run(capsys, "analyze", GEMM, "--set", "M=N,K=N,N=4096", "--machine",
                         machine)
    assert code == 2 and out == "", err
    assert err.startswith(f"{machine}:{line}:31: error[KC406]: "
                          "`execution.shared_reserved_per_block_B`: 1000000 B reserved"), err


# a block of 58,250 f32 in shared memory: 233,000 B, under the SM's 233,472 but not beside
# the 1,024 B CUDA reserves a block
TILE = """kernel k(n, T = 58250) {
    assume T | n
    in  x: f32[n]
    out y: f32[n]
    for b in 0..n by T parallel(threads = 256) {
        keep x in shared { for i in b..b + T { y[i] = x[i] * 2 } }
    }
}
"""


def _without_a_block_limit(tmp_path) -> Path:
    lines = [line for line in H100.splitlines()
             if not line.startswith(("shared_per_block_max_B", "shared_per_block_max_source"))]
    return write(tmp_path, "m.toml", "\n".join(lines) + "\n")


def test_a_block_that_fits_the_sm_but_not_beside_its_reservation_does_not_fit(capsys,
                                                                              tmp_path):
    """Without shared_per_block_max_B a block was held to the SM's 233,472 B alone: 233,000
    B fit, floor(233472 / (233000 + 1024)) = 0 blocks resided, and the verdict compared zoo
    (exit 3). tune said `228 KiB allowed` of the same block."""
    machine = _without_a_block_limit(tmp_path)
    spec = write(tmp_path, "k.kcost", TILE)
    code, out, err = run(capsys, "analyze", spec, "--set", "n=58250000", "--machine", machine)
    out = " ".join(out.split())
    assert code == 0 and "does not fit on H100 FP32: shared memory needs 228 KiB per SM" in out
    assert "the 227 KiB" in out  # 233,472 - 1,024 = 232,448 B = 227 KiB
    code, out, err = run(capsys, "tune", spec, "--set", "n=58250000", "--machine", machine,
                         "--vary", "T", "--values", "58250")
    assert code == 2 or "no candidate fits" in out, err
    assert "227.539 KiB per block, 227 KiB allowed" in out, out  # 233,000 B of 232,448 B


STEPPED = "kernel k(n{extra}) {{\n    in x: f32[n]\n    out y: f32[n]\n" \
          "    for i in 0..n by {step} {{ y[i] = x[i] }}\n}}\n"


@pytest.mark.parametrize(("step", "shown"), [("1/2", "1/2"), ("0.5", "1/2"), ("3/2", "3/2")])
def test_a_step_that_is_no_whole_number_is_refused_at_it(capsys, tmp_path, step, shown):
    """`by 1/2` ran i over 0, 1/2, 1, ...: Q = 16n, x read at 2n places of its n elements,
    and `check` agreed (its enumeration stepped by halves too)."""
    spec = write(tmp_path, "k.kcost", STEPPED.format(extra="", step=step))
    for command in ("analyze", "check"):
        code, _, err = run(capsys, command, spec, "--set", "n=8")
        assert code == 2 and err.startswith(f"{spec}:4:22: error[KC208]: loop step must be a "
                                            f"whole number, not {shown}"), err


def test_a_step_that_is_no_whole_number_at_the_sizes_is_refused_there(capsys, tmp_path):
    """`by T/2` at T = 3 counted 16n/3 bytes over 3/2-steps; at T = 4 it is a step of 2: n =
    8 runs i = 0, 2, 4, 6, and moves 4 x (4 + 4) = 32 B."""
    spec = write(tmp_path, "k.kcost", STEPPED.format(extra=", T = 3", step="T/2"))
    for command in (["analyze", spec, "--set", "n=8"], ["check", spec, "--set", "n=8"],
                    ["sweep", spec, "--sweep", "n=2..64", "--points", "3"]):
        code, _, err = run(capsys, *command)
        assert code == 2 and err.startswith(f"{spec}:4:22: error[KC321]: step `T/2` of loop "
                                            "`i` is 3/2 at T = 3, not a whole number"), err
    code, out, _ = run(capsys, "analyze", spec, "--set", "n=8,T=4", "--json")
    assert code == 0 and '"value": 32.0' in out


def _sequential_loops(count: int) -> str:
    body = "".join(f"    for i{j} in {j}..n {{ y[i{j}] += x[i{j} - {j}] }}\n"
                   for j in range(count))
    return f"kernel k(n) {{\n    in x: f32[n]\n    out y: f32[n]\n{body}}}\n"


def test_a_form_too_long_to_read_is_not_handed_to_sympys_limit(capsys, tmp_path, monkeypatch):
    """200 loops `for i in j..n`: W holds 200 terms Max(0, n - j), past the 500 operations
    the asymptotic forms read. `analyze --machine h100` handed it to sympy.limit for the
    ridge crossing, which ran past the 60 s budget (170 loops: 20 s, then KC314 anyway),
    where `analyze` alone finished in 2 s. The hint named `the other sizes`: there are
    none."""
    import sympy

    def refused(*arguments, **options):
        raise AssertionError("sympy.limit of a form past the readable operations")

    monkeypatch.setattr(sympy, "limit", refused)
    spec = write(tmp_path, "k.kcost", _sequential_loops(200))
    code, out, err = run(capsys, "analyze", spec, "--machine", "h100")
    assert code == 2 and out == "", err
    assert err.startswith("error[KC314]: cannot find where the intensity of `k` at `global` "
                          "goes as n grows"), err
    assert "hint: set n (--set) for the verdict at a size" in err


@pytest.mark.parametrize(("arguments", "variable", "start"), [
    (["analyze", COPY, "--set", "n=1024"], "1_0", "KERNELCOST_BUDGET_S:1:1: error[KC702]"),
    (["analyze", COPY, "--set", "n=1024"], "٣", "KERNELCOST_BUDGET_S:1:1: error[KC702]"),
    (["analyze", ROOT / "specs" / "softmax.kcost", "--machine", "h100", "--exp-on-fma",
      "0.1_0"], None, "--exp-on-fma:1:1: error[KC311]"),
    (["analyze", ROOT / "specs" / "softmax.kcost", "--machine", "h100", "--exp-on-fma",
      "0.٥"], None, "--exp-on-fma:1:1: error[KC311]"),
])
def test_a_number_with_an_underscore_or_another_script_s_digit_is_refused(
        capsys, monkeypatch, arguments, variable, start):
    """float() reads `1_0` as 10 and `٣` as 3: KERNELCOST_BUDGET_S=1_0 gave 10 s, and
    --exp-on-fma 0.1_0 (fractions.Fraction reads both) moved a tenth of the exponentials."""
    if variable is not None:
        monkeypatch.setenv("KERNELCOST_BUDGET_S", variable)
    code, _, err = run(capsys, *arguments)
    assert code == 2 and err.startswith(start), err


@pytest.mark.parametrize("arguments", [
    ["model", "llama3_8b", "--batch", "1", "--memory-fraction", "0.1_0"],
    ["model", "llama3_8b", "--batch", "1", "--chunk", "1_000"],
    ["model", "llama3_8b", "--batch", "1", "--pp", "1_0"],
    ["tune", GEMM, "--machine", "h100", "--set", "M=N,K=N,N=4096", "--vary", "TM",
     "--values", "64", "--top", "1_0"],
    ["check", COPY, "--samples", "1_0"],
])
def test_an_option_s_number_with_an_underscore_is_a_usage_error(capsys, arguments):
    """int() and float() read `1_0` as 10: --pp 1_0 ran 10 stages, --top 1_0 10 rows."""
    code, _, err = run(capsys, *arguments)
    assert code == 2 and "usage:" in err and "error[KC322]" in err, err


NCU = ROOT / "tests" / "data" / "ncu" / "hopper_gemm.csv"
NCU_RUN = ["--spec", GEMM, "--set", "M=2048,N=2048,K=2048", "--machine", "h200"]


@pytest.mark.parametrize(("old", "new", "message"), [
    ('"64.5"', '"1e300"', "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_"
                          "active `1e300` is more than 100 %"),
    ('"27968"', '"0"', "gpu__time_duration.sum `0` is not a launch's duration (from 0.001 to "
                       "1e+15 ns)"),
    ('"27968"', '"1e300"', "gpu__time_duration.sum `1e300` is not a launch's duration"),
])
def test_an_ncu_figure_no_launch_has_is_refused_at_its_cell(capsys, tmp_path, old, new,
                                                             message):
    """1e300 % of the tensor peak read a tensor work of `∞ FLOP` (`infx`); a duration of
    1e300 ns printed `duration: 1e273 Es`, one of 0 ns `duration: 0 s`."""
    rows = NCU.read_text("utf-8").splitlines()
    column = rows[3].index(old) + 1
    rows[3] = rows[3].replace(old, new, 1)
    export = write(tmp_path, "ncu.csv", "\n".join(rows) + "\n")
    code, out, err = run(capsys, "validate", "--ncu", export, *NCU_RUN)
    assert code == 2 and out == "", err
    assert err.startswith(f"{export}:4:{column}: error[KC612]: {message}"), err


def test_a_published_figure_of_no_format_is_refused_before_the_rows(capsys, tmp_path):
    """`validate --published --figure x.txt` compared the corpus, then matplotlib raised
    `ValueError: Format 'txt' is not supported` (exit 3)."""
    code, _, err = run(capsys, "validate", "--published", "--figure", tmp_path / "x.txt")
    assert code == 2 and err.startswith("--figure:1:1: error[KC811]: cannot write"), err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("arguments", [
    ["tune", GEMM, "--machine", "h100,a100", "--set", "M=N,K=N,N=4096", "--vary", "TM",
     "--values", "64"],
    ["sweep", COPY, "--sweep", "n=1024..4096", "--machine", "h100,a100"],
    ["model", "llama3_8b", "--batch", "1", "--machine", "h100,a100"],
])
def test_a_list_where_one_machine_is_read_is_placed_and_said(capsys, arguments):
    """`unknown machine h100,a100` had no place (the option's value was split at its comma
    and neither part was the name), and its hint `did you mean h100?`."""
    code, _, err = run(capsys, *arguments)
    assert code == 2 and err.startswith("--machine:1:1: error[KC401]: unknown machine "
                                        "`h100,a100`"), err
    assert "   1 | h100,a100\n       ^^^^^^^^^\n" in err
    assert "this command takes one machine" in err


def test_two_figures_of_one_file_are_refused(capsys, tmp_path):
    """`model --curve c.svg -o ./c.svg` wrote the stacked bars, then the curve over them,
    and printed both names."""
    code, out, err = run(capsys, "model", "llama3_8b", "--batch", "1,2", "--curve",
                         tmp_path / "c.svg", "-o", f"{tmp_path}/./c.svg")
    assert code == 2 and out == "" and not list(tmp_path.iterdir()), err
    assert err.startswith("--curve:1:1: error[KC311]: --curve names the file -o writes"), err
    assert re.search(r"hint: give each figure a name of its own", err)


# --- the class: a number read with int(), float() or Fraction() takes what no option means

# texts of digits of three scripts, digit-group underscores and the marks of a decimal number
_NUMBER_TEXTS = st.text(alphabet="0123456789_.e-+ ٠١٢٣٤٥٦٧٨٩０１２３", min_size=1, max_size=8)


def _readers(monkeypatch) -> dict[str, Callable[[str], object]]:
    """Every reader of a number a user writes in an option or the environment, each raising
    (or answering None) where it refuses the text."""
    from kernelcost.base import watchdog
    from kernelcost.base.csvcells import cell_number
    from kernelcost.base.units import parse_measurement
    from kernelcost.cli.model_cmd import _fraction
    from kernelcost.cli.shared import whole_number
    from kernelcost.gpu.polyexp import parse_exp_on_fma

    def budget(text: str) -> float:
        monkeypatch.setenv(watchdog.BUDGET_VARIABLE, text)
        return watchdog.budget_seconds()

    def kept(read: Callable[[str], object]) -> Callable[[str], object]:
        def reader(text: str) -> object:
            found = read(text)
            if found is None:
                raise ValueError(text)
            return found
        return reader

    return {"whole_number": whole_number, "fraction": _fraction, "budget": budget,
            "exp_on_fma": parse_exp_on_fma, "cell_number": kept(cell_number),
            "measurement": kept(lambda text: parse_measurement(f"{text}us"))}


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_NUMBER_TEXTS)
def test_no_reader_takes_an_underscore_or_another_script_s_digit(monkeypatch, text):
    """Python's int(), float() and Fraction() read `1_0` as 10 and `٣` as 3; the budget,
    --exp-on-fma and the options of whole numbers and fractions took them so (found by
    hand for each; the readers are held together here). A text with either is refused by
    every reader, and one without is read as its ASCII digits say."""
    import argparse

    from kernelcost.base.errors import KcostError

    foreign = "_" in text or not text.isascii()
    for name, read in _readers(monkeypatch).items():
        try:
            read(text)
        except (KcostError, ValueError, argparse.ArgumentTypeError):
            continue
        assert not foreign, f"{name} read {text!r}"


@pytest.mark.parametrize("fraction", ["5e-324", "1e-300"])
def test_an_achievable_fraction_below_the_figures_least_is_refused(capsys, tmp_path, fraction):
    """`fraction = 5e-324` of the global roof: copy's t_model of 8.39 MB at 3.35 TB/s x
    5e-324 was past a double (JSON wrote it as a string of 330 digits, tune's table `inf
    ms`); 1e-300 printed `t_model = 2.5e276 Es`. A fraction lies where the figures do."""
    old = "fraction = 0.8657"
    machine = write(tmp_path, "m.toml", H100.replace(old, f"fraction = {fraction}"))
    line = H100[:H100.index(old)].count("\n") + 1
    code, out, err = run(capsys, "analyze", COPY, "--set", "n=1048576", "--machine", machine)
    assert code == 2 and out == "", err
    assert err.startswith(f"{machine}:{line}:12: error[KC405]: `achievable[1].fraction`: "
                          f"expected a fraction from 1e-15 to 1, got {fraction}"), err


@pytest.mark.parametrize(("old", "new", "column", "message"), [
    ("    tl.store(y_ptr + offs, x * 2, mask=mask)",
     "    for i in range(0, n, 0):\n        tl.store(y_ptr + offs, x * 2, mask=mask)", 26,
     "error[KC226]: a range of step 0: spec loops run upward"),
    ("    tl.store(y_ptr + offs, x * 2, mask=mask)",
     "    for i in range(n, 0, -1):\n        tl.store(y_ptr + offs, x * 2, mask=mask)", 26,
     "error[KC226]: a range of step -1: spec loops run upward"),
])
def test_a_range_no_spec_loop_runs_is_refused_at_its_step(capsys, tmp_path, old, new, column,
                                                          message):
    """`range(0, n, 0)` and `range(n, 0, -1)` were imported (exit 0) as `for i in 0..n by 0`
    and `for i in n..0 by -1`, specs that `analyze` then refused (KC211)."""
    source = write(tmp_path, "k.py", TRITON.replace(old, new))
    code, out, err = run(capsys, "import", f"{source}::k")
    assert code == 2 and out == "", err
    assert err.startswith(f"{source}:10:{column}: {message}"), err


def test_a_launch_size_given_as_text_is_refused_at_it(capsys, tmp_path):
    """`BLOCK='1024'` was dropped as a float's is not: the spec kept BLOCK without a
    default, and its counts stayed symbolic in it."""
    source = write(tmp_path, "k.py", TRITON.replace("BLOCK=1024", "BLOCK='1024'"))
    code, _, err = run(capsys, "import", f"{source}::k")
    assert code == 2 and err.startswith(f"{source}:14:28: error[KC226]: the launch gives "
                                        "`BLOCK` = '1024'"), err


def test_an_import_is_not_written_over_its_own_source(capsys, tmp_path):
    """`import k.py::k -o k.py` replaced the kernel's Python with the spec."""
    source = write(tmp_path, "k.py", TRITON)
    code, _, err = run(capsys, "import", f"{source}::k", "-o", source)
    assert code == 2 and err.startswith("-o:1:1: error[KC810]: cannot write"), err
    assert source.read_text() == TRITON


@pytest.mark.parametrize(("old", "new", "target", "column"), [
    ("def k(", "def kérnel(", "kérnel", 6),
    ("n, BLOCK: tl.constexpr", "ñ, BLOCK: tl.constexpr", "k", 21),
])
def test_a_python_name_of_other_letters_is_placed_in_the_kernel(capsys, tmp_path, old, new,
                                                                target, column):
    """Python names may hold `é`; spec names may not. The error had no place (the header
    the name lands in names no line of the kernel) and a hint about long expressions."""
    text = TRITON.replace(old, new).replace("k[grid]", f"{target}[grid]").replace(
        "offs < n", "offs < ñ" if "ñ" in new else "offs < n").replace(
        "cdiv(n,", "cdiv(ñ," if "ñ" in new else "cdiv(n,").replace(
        "(x, y, n, BLOCK", "(x, y, ñ, BLOCK" if "ñ" in new else "(x, y, n, BLOCK")
    source = write(tmp_path, "k.py", text)
    code, _, err = run(capsys, "import", f"{source}::{target}")
    assert code == 2 and err.startswith(f"{source}:5:{column}: error[KC104]"), err
    assert "hint: spec names are ASCII letters, digits and _" in err


def test_a_check_past_the_enumeration_budget_at_the_defaults_is_placed(capsys, tmp_path):
    """`check` of a spec whose default n is 10^30 - 1 said `raise max_steps` (an argument of
    the Python API) with no place; with --set it was placed already (round 4)."""
    spec = write(tmp_path, "k.kcost", "kernel k(n = " + "9" * 30 + ") {\n    in x: f32[n]\n"
                 "    out y: f32[n]\n    for i in 0..n { y[i] = x[i] }\n}\n")
    code, _, err = run(capsys, "check", spec)
    assert code == 2 and err.startswith(f"{spec}:1:1: error[KC704]"), err
    assert "max_steps" not in err and "give smaller sizes with --set" in err


@pytest.mark.parametrize("arguments, option", [
    (["plot", str(COPY), "--machine", "h100", "--set", "n=4096", "-o", "{dir}/no/x.svg"], "-o"),
    (["model", "llama3_8b", "--machine", "h100", "--batch", "1", "--context", "128", "--grid",
      "{dir}/no/g.csv"], "--grid"),
    (["import", "{dir}/k.py::k", "-o", "{dir}/no/k.kcost"], "-o"),
])
def test_a_file_that_cannot_be_written_is_placed_at_its_option(capsys, tmp_path, arguments,
                                                               option):
    """KC810 said `cannot write no/x.svg: the directory no does not exist` with no place;
    the option that named the file is its place, as every other option's error has."""
    write(tmp_path, "k.py", TRITON)
    arguments = [item.replace("{dir}", str(tmp_path)) for item in arguments]
    code, _, err = run(capsys, *arguments)
    path = arguments[-1]
    assert code == 2 and err.startswith(f"{option}:1:1: error[KC810]: cannot write {path}: "
                                        "the directory"), err
    assert f"   1 | {path}\n" in err
