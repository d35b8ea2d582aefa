"""Bad input to `validate --ncu`, `tune`, `model` and `phase`, as a hostile user gives it: each
case below ended in a traceback (exit 3), a wrong exit code or a figure taken as it came
(exit 0: negative bytes, a NaN duration, infinite predictions), and now ends in one error,
placed where the input holds it (exit 2)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from kernelcost.cli import main

ROOT = Path(__file__).resolve().parent.parent
NCU = ROOT / "tests" / "data" / "ncu" / "hopper_gemm.csv"
GEMM = ROOT / "specs" / "gemm_hopper.kcost"
SIZES = "M=2048,N=2048,K=2048"


def run(capsys, *arguments) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in arguments])
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    return code, captured.out, captured.err


def test_ncu_without_sizes_is_refused_not_a_traceback(capsys):
    """`validate --ncu X --spec gemm_hopper --machine h200` without --set: float() of the
    symbolic Q (TypeError, exit 3)."""
    code, _, err = run(capsys, "validate", "--ncu", NCU, "--spec", GEMM, "--machine", "h200")
    assert code == 2 and "error[KC305]" in err and "M, N, K" in err, err


@pytest.mark.parametrize("missing", ["--spec", "--machine"])
def test_ncu_without_its_spec_or_machine_is_a_usage_error(capsys, missing):
    """It was SystemExit with a sentence: exit 1, the code of a mismatch found."""
    arguments = {"--spec": GEMM, "--machine": "h200"}
    del arguments[missing]
    code, _, err = run(capsys, "validate", "--ncu", NCU, "--set", SIZES,
                       *[part for pair in arguments.items() for part in pair])
    assert code == 2 and f"give {missing}" in err and "usage:" in err, err


def test_validate_without_results_or_machine_is_a_usage_error(capsys):
    """`validate results.csv` without --machine was SystemExit with a sentence, exit 1."""
    code, _, err = run(capsys, "validate", "results.csv")
    assert code == 2 and "give RESULTS.csv and --machine" in err and "usage:" in err, err


@pytest.mark.parametrize(("sizes", "message"), [
    ("M=2049,N=2048,K=2048", "error[KC317]: `assume 2 * TM | M` does not hold at M = 2049"),
    ("M=1e400,N=2048,K=2048", "error[KC318]"),  # predicted ∞ B against 16.8 MB, 0.00x
    ("M=2048,N=2048,K=2048,Q=1", "error[KC302]: `Q` is not a parameter"),
    ("M=0,N=2048,K=2048", "error[KC303]"),
])
def test_ncu_sizes_a_verdict_cannot_take_are_placed(capsys, sizes, message):
    """The sizes were read with their own split on commas and went into the closed forms as
    they came: M = 1e400 predicted ∞ bytes and 0.00x, M = 2049 (the spec's tiles do not
    divide it) a prediction of tiles that do not exist."""
    code, _, err = run(capsys, "validate", "--ncu", NCU, "--spec", GEMM, "--set", sizes,
                       "--machine", "h200")
    assert code == 2 and message in err, err
    assert err.startswith(("--set", str(GEMM))), err  # placed


HEADER = NCU.read_text("utf-8").splitlines()[1:3]  # the column names and units
ROW = NCU.read_text("utf-8").splitlines()[3]


@pytest.mark.parametrize(("old", "new", "message"), [
    ('"16834560"', '"-1"', 'dram__bytes.sum `-1` is not a count: it is negative'),
    ('"110404800"', '"nan"', 'lts__t_bytes.sum `nan` is not a count: not a finite number'),
    ('"110404800"', '"1e400"', 'lts__t_bytes.sum `1e400` is not a count: not a finite number'),
    ('"27968"', '"-5"', 'gpu__time_duration.sum `-5` is not a count: it is negative'),
    ('"64.5"', '"inf"', 'is not a count: not a finite number'),
])
def test_ncu_metrics_that_are_no_counts_are_placed(capsys, tmp_path, old, new, message):
    """-1 B of DRAM read, a NaN of L2 bytes and a duration of -5 ns were compared as
    they came: `measured -1 B, -0.00x`, `nan nB, nanx`, `duration: -5 ns` (exit 0)."""
    assert old in ROW
    export = tmp_path / "ncu.csv"
    export.write_text("\n".join([*HEADER, ROW.replace(old, new, 1)]) + "\n")
    code, out, err = run(capsys, "validate", "--ncu", export, "--spec", GEMM, "--set", SIZES,
                         "--machine", "h200")
    assert code == 2 and "error[KC612]" in err and message in err, err
    assert err.startswith(f"{export}:3:{ROW.index(old) + 1}:"), err  # at the cell
    assert "nan" not in out


def test_ncu_with_good_input_still_compares(capsys):
    code, out, _ = run(capsys, "validate", "--ncu", NCU, "--spec", GEMM, "--set", SIZES,
                       "--machine", "h200", "--json")
    assert code == 0
    levels = {level["name"]: level for level in json.loads(out)["levels"]}
    assert levels["global"]["measured"] == 16834560


@pytest.mark.parametrize(("arguments", "option"), [
    (["tune", GEMM, "--machine", "h100", "--vary", "TM=١٢٨", "--set", "M=N,K=N,N=8192"],
     "--vary"),
    (["tune", GEMM, "--machine", "h100", "--vary", "TM", "--values", "٦٤,١٢٨", "--set",
      "M=N,K=N,N=8192"], "--values"),
    (["model", "llama3_8b", "--batch", "١٢"], "--batch"),
    (["model", "llama3_8b", "--context", "1..٤٠٩٦:128", "--grid", "-"], "--context"),
    (["phase", GEMM, "--x", "N=٦٤..4096", "--y", "M=64..4096", "--machine", "h100", "-o",
      "{out}/p.svg", "--set", "K=64"], "--x"),
    (["sweep", ROOT / "specs" / "copy.kcost", "--sweep", "n=1..١٠٠"], "--sweep"),
])
def test_digits_other_than_ascii_are_refused_in_every_option(capsys, tmp_path, arguments,
                                                              option):
    """`--set n=١٢٨` is refused (numbers are written with ASCII digits 0-9), but --vary,
    --values, --batch, --context and the ranges of phase and sweep read `١٢٨` (Arabic-Indic)
    as 128 and ran on it: int() and float() take any script's digits. Each option now reads
    as --set does, and says so at the digit."""
    code, _, err = run(capsys, *[str(a).replace("{out}", str(tmp_path)) for a in arguments])
    assert code == 2 and "error[KC308]" in err and "ASCII digits" in err, err
    assert err.startswith(f"{option}:1:"), err


@pytest.mark.parametrize("arguments", [
    ["tune", GEMM, "--machine", "h100", "--vary", "TM=128", "--set", "M=N,K=N,N=8192",
     "--top", "١٠"],
    ["tune", GEMM, "--machine", "h100", "--vary", "TM=128", "--set", "M=N,K=N,N=8192",
     "--rescore", "٤"],
    ["sweep", ROOT / "specs" / "copy.kcost", "--sweep", "n=1..100", "--points", "١٠"],
    ["check", ROOT / "specs" / "copy.kcost", "--samples", "٢"],
    ["model", "llama3_8b", "--pp", "٢"],
    ["model", "llama3_8b", "--memory-fraction", "٠.٥"],
])
def test_counts_of_options_in_other_digits_are_usage_errors(capsys, arguments):
    """argparse's int() took `١٠` as 10 (--top, --rescore, --points, --samples, --pp) and
    float() `٠.٥` as 0.5: usage errors now, as a word there is."""
    code, _, err = run(capsys, *arguments)
    assert code == 2 and "usage:" in err and "error: argument" in err, err


@pytest.mark.parametrize(("arguments", "option"), [
    (["phase", GEMM, "--x", "N=1e-300..4096", "--y", "M=64..4096", "--machine", "h100", "-o",
      "{out}/p.svg", "--set", "K=64"], "--x"),
    (["sweep", ROOT / "specs" / "vector_add.kcost", "--sweep", "n=0.001..10"], "--sweep"),
])
def test_a_range_below_one_is_refused(capsys, tmp_path, arguments, option):
    """`phase --x N=1e-300..4096` drew 300 decades of the plane, 296 of them sizes under 1
    (the hint of a LOW of 0 already said sizes are at least 1); a sweep from 0.001 took
    its sizes up to 1 without a word, 4 points drawn as 2."""
    code, _, err = run(capsys, *[str(a).replace("{out}", str(tmp_path)) for a in arguments])
    assert code == 2 and "error[KC308]" in err and "LOW must be at least 1" in err, err
    assert err.startswith(f"{option}:1:"), err


@pytest.mark.parametrize(("column", "unit", "message"), [
    (11, "Mbyte", "dram__bytes.sum is in `Mbyte`, not byte"),
    (12, "Kbyte", "lts__t_bytes.sum is in `Kbyte`, not byte"),
    (16, "usecond", "gpu__time_duration.sum is in `usecond`, not ns or nsecond"),
    (14, "", "is in ``, not %"),
])
def test_ncu_metrics_in_other_units_are_refused_at_the_unit(capsys, tmp_path, column, unit,
                                                            message):
    """ncu scales its units by default: 16.83 `Mbyte` of DRAM was read as 16.83 B
    (measured/predicted 0.00x), 27.97 `usecond` as a duration of 28 ns."""
    units = next(csv.reader([HEADER[1]]))
    units[column] = unit
    line = ",".join(f'"{cell}"' for cell in units)
    export = tmp_path / "ncu.csv"
    export.write_text("\n".join([HEADER[0], line, ROW]) + "\n")
    code, out, err = run(capsys, "validate", "--ncu", export, "--spec", GEMM, "--set", SIZES,
                         "--machine", "h200")
    assert code == 2 and "error[KC612]" in err and message in err, err
    start = len(",".join(line.split(",")[:column])) + 2  # the cell's opening quote
    assert err.startswith(f"{export}:2:{start}:"), err  # under the unit
    assert "--print-units base" in err and out == ""


def test_an_export_without_its_units_row_is_refused(capsys, tmp_path):
    """Without the units row, the first launch was skipped as one (and a file of one launch
    had none left)."""
    export = tmp_path / "ncu.csv"
    export.write_text("\n".join([HEADER[0], ROW]) + "\n")
    code, _, err = run(capsys, "validate", "--ncu", export, "--spec", GEMM, "--set", SIZES,
                       "--machine", "h200")
    assert code == 2 and "not ncu's units row" in err and err.startswith(f"{export}:2:1:"), err
