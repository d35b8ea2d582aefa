"""Outputs (issue 15.4, 15.5, 15.6): strict JSON whatever the sizes, every output path
checked before any is written, files replaced whole or not at all, unwritable outputs and bad
measurements an exit-2 error."""

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelcost import plot
from kernelcost.cli import main
from kernelcost.errors import KcostError
from kernelcost.jsonout import Exact, dumps, number

SPECS = Path(__file__).resolve().parent.parent / "specs"
GEMM = str(SPECS / "gemm.kcost")


def strict_load(text: str):
    def refuse(constant):
        raise ValueError(f"bare {constant} in JSON")

    return json.loads(text, parse_constant=refuse)


def json_of(arguments, capsys):
    assert main(arguments) == 0
    captured = capsys.readouterr()
    return strict_load(captured.out), captured.err


@pytest.mark.parametrize("arguments", [
    ["analyze", str(SPECS / "gemm_tiled.kcost"), "--set", "N=1e200,M=1e200,K=1e200",
     "--machine", "h100"],
    ["analyze", str(SPECS / "vector_add.kcost"), "--set", "n=1e999", "--machine", "h100"],
    ["solve", str(SPECS / "gemm_tiled.kcost"), "--for", "T", "--set", "M=N,K=N,N=1e300"],
])
def test_huge_sizes_give_strict_json_with_exact_strings(arguments, capsys):
    _, err = json_of(arguments + ["--json"], capsys)
    assert "does not fit a double" in err or arguments[0] == "solve"


def test_exact_value_of_an_overflowing_quantity(capsys):
    document, err = json_of(["analyze", str(SPECS / "vector_add.kcost"), "--set", "n=1e400",
                             "--json"], capsys)
    assert document["parameters"]["n"] == "1" + "0" * 400
    assert document["work"]["value"] == "1" + "0" * 400
    assert any("work.value" in w for w in document["warnings"])
    assert "warning: `work.value`" in err


def test_huge_default(tmp_path, capsys):
    spec = tmp_path / "big.kcost"
    spec.write_text("kernel big(n, T = 1%s) { in x: f32[n]  out y: f32[n]\n"
                    "  for i in 0..n * T { y[0] = x[0] } }\n" % ("0" * 400))
    document, _ = json_of(["analyze", str(spec), "--set", "n=4", "--machine", "h100",
                           "--json"], capsys)
    assert document["parameters"]["T"] == "1" + "0" * 400


def test_number_and_strict():
    assert number(2.5) == 2.5 and isinstance(number(float("inf")), Exact)
    text, warnings = dumps({"a": [float("nan"), float("-inf"), 1.0], "warnings": []})
    assert strict_load(text) == {"a": ["nan", "-inf", 1.0], "warnings": warnings}
    assert len(warnings) == 2


# --- measurements and unwritable output ------------------------------------------------------

@pytest.mark.parametrize("measured", ["0us", "0TFLOP/s", "0TB/s", "1e400us"])
def test_measurement_must_be_positive_and_finite(measured, capsys):
    arguments = ["analyze", GEMM, "--set", "M=N,K=N,N=4096", "--machine", "h100",
                 "--measured", measured]
    assert main(arguments) == 2
    assert "must be positive and finite" in capsys.readouterr().err


def test_json_to_a_full_device_is_exit_2():
    with open("/dev/full", "w") as full:
        completed = subprocess.run(
            [sys.executable, "-m", "kernelcost.cli", "analyze", str(SPECS / "vector_add.kcost"),
             "--json"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert completed.returncode == 2
    assert "No space left on device" in completed.stderr
    assert "Traceback" not in completed.stderr and "Exception ignored" not in completed.stderr


@pytest.mark.parametrize("arguments", [
    ["analyze", str(SPECS / "gemm_tiled.kcost")],  # tables, printed by rich
    ["analyze", str(SPECS / "gemm_tiled.kcost"), "--json"],
    ["machines"],
])
def test_a_reader_that_leaves_early_is_no_error(arguments):
    """`kernelcost ... | head -1`: the command ends quietly with 0, as `--json` does."""
    process = subprocess.Popen([sys.executable, "-m", "kernelcost.cli", *arguments],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.read(1)
    process.stdout.close()
    assert process.wait(timeout=120) == 0
    assert process.stderr.read() == b""
    process.stderr.close()


# --- figures: every path checked first, each file replaced whole -----------------------------

PLOT = ["plot", GEMM, "--machine", "h100", "--set", "M=N,K=N,N=4096"]


@pytest.fixture
def outputs(tmp_path):
    (tmp_path / "adir.svg").mkdir()
    readonly = tmp_path / "ro.svg"
    readonly.write_text("old")
    readonly.chmod(0o444)
    os.symlink("/dev/full", tmp_path / "full.pdf")
    return tmp_path


@pytest.mark.parametrize("bad, message", [
    ("nodir/x.svg", "does not exist"), ("adir.svg", "is a directory"),
    ("ro.svg", "read-only"), ("full.pdf", "not a regular file"), ("x.txt", ".svg, .png"),
])
def test_a_bad_output_writes_nothing(outputs, capsys, bad, message):
    good = outputs / "a.svg"
    assert main(PLOT + ["-o", str(good), "-o", str(outputs / bad)]) == 2
    assert message in capsys.readouterr().err
    assert not good.exists()
    assert (outputs / "ro.svg").read_text() == "old"


def test_failed_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "figure.svg"
    target.write_text("the good figure")

    class Failing:
        def savefig(self, path, **options):
            Path(path).write_text("trunc")
            raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(KcostError) as raised:
        plot.save(Failing(), target)
    assert "No space left on device" in str(raised.value)
    assert target.read_text() == "the good figure"
    assert [p.name for p in tmp_path.iterdir()] == ["figure.svg"]


def test_written_figures_are_whole_and_readable(tmp_path, capsys):
    names = [tmp_path / "a.svg", tmp_path / "b.pdf", tmp_path / "c.png"]
    assert main(PLOT + [arg for name in names for arg in ("-o", str(name))]) == 0
    for name in names:
        assert name.stat().st_size > 1000 and name.stat().st_mode & 0o444 == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.svg", "b.pdf", "c.png"]


# --- numbers beyond what can be printed --------------------------------------------------------

def test_count_with_a_5000_digit_constant_is_refused(tmp_path, capsys):
    spec = tmp_path / "big.kcost"
    spec.write_text("kernel big(n) { in x: f32[n]  out y: f32[n]\n  for i in 0..n * 1e1000 * "
                    "1e1000 * 1e1000 * 1e1000 * 1e1000 { y[0] += x[i] } }\n")
    for command in (["analyze", str(spec), "--set", "n=4", "--json", "--machine", "h100"],
                    ["sweep", str(spec), "--sweep", "n=1..100", "--csv"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert (f"{spec}:1:1: error[KC706]: the counts of `big` hold a number of about 5,000 "
                "digits") in err


def test_a_value_beyond_4000_digits_is_written_to_30_digits(tmp_path, capsys):
    spec = tmp_path / "deep.kcost"
    spec.write_text("kernel deep(n) { in x: f32[n]  out y: f32[n]\n  for a in 0..n, b in 0..n, "
                    "c in 0..n, d in 0..n, e in 0..n { y[a] += x[b] } }\n")
    document, _ = json_of(["analyze", str(spec), "--set", "n=1e999", "--machine", "h100",
                           "--json"], capsys)
    assert document["work"]["value"] == "1.00000000000000000000000000000e+4995"
    for arguments in ([], ["--markdown"], ["--latex"]):
        assert main(["analyze", str(spec), "--set", "n=1e999", "--machine", "h100",
                     *arguments]) == 0
