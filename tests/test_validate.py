"""`kernelcost validate`: the CSV reader, the comparison and its flags.

The input is tests/data/validate_hand_written.csv: HAND-WRITTEN TEST INPUT, NOT
MEASUREMENTS (the file says so in its first line). Its times were chosen around the
predictions: a copy slower than t_bound, the same copy faster than it (a falsified bound),
a GEMV with counters, and a GEMM slower than its bound."""

import json
from pathlib import Path

import pytest

from kernelcost.cli import main

DATA = Path(__file__).resolve().parent / "data"
HAND_WRITTEN = DATA / "validate_hand_written.csv"
ROOT = Path(__file__).resolve().parent.parent
HEADER = "kernel,spec,sizes,dtype,time_s,dram_bytes,l2_bytes,flop"
COPY_BOUND = 8 * 2**28 / 4.8e12  # copy at n = 2^28 on the H200: 8n bytes at 4.8e12 B/s


def validate(capsys, path, *extra) -> tuple[int, str, str]:
    code = main(["validate", str(path), "--machine", "h200", *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def document():
    from kernelcost.answers.validate import compare
    from kernelcost.present.report.validation import validation_json

    return validation_json("h200", compare(HAND_WRITTEN, "h200"))


def row(document, line):
    (found,) = [r for r in document["rows"] if r["line"] == line]
    return found


def test_the_test_input_says_it_is_hand_written():
    assert "HAND-WRITTEN TEST INPUT" in HAND_WRITTEN.read_text().splitlines()[0]
    assert "NOT MEASUREMENTS" in HAND_WRITTEN.read_text().splitlines()[0]


def test_a_run_slower_than_the_bound_is_fine(document):
    copy = row(document, 5)
    assert copy["t_bound"] == pytest.approx(COPY_BOUND)
    assert copy["roof_fraction"] == pytest.approx(COPY_BOUND / 5.2e-4)
    assert copy["model_error"] == pytest.approx((copy["t_model"] - 5.2e-4) / 5.2e-4)
    assert copy["bound"] == "global bandwidth"
    assert not copy["falsified"]
    assert not row(document, 8)["falsified"]  # the GEMM at 1.40 ms, t_bound 1.15 ms


def test_a_run_faster_than_the_bound_is_flagged(document, capsys):
    assert row(document, 6)["falsified"]
    assert row(document, 6)["roof_fraction"] > 1
    assert document["falsified"] == 1
    code, out, _ = validate(capsys, HAND_WRITTEN)
    assert code == 1
    assert "line 6 copy: FALSIFIED" in out
    assert "4 rows, 1 falsified" in out


def test_counters_are_set_against_the_predictions(document):
    counters = row(document, 7)["counters"]
    assert set(counters) == {"dram_bytes", "l2_bytes", "flop"}
    # gemv_decode at N = K = 4096, b = 1: 2 (NK + bK + bN) B, 2 bNK FLOP
    assert counters["dram_bytes"]["predicted"] == 2 * (4096 * 4096 + 4096 + 4096)
    assert counters["dram_bytes"]["ratio"] == pytest.approx(3.5e7 / counters["dram_bytes"]
                                                            ["predicted"])
    assert counters["flop"]["predicted"] == 2 * 4096 * 4096
    assert counters["l2_bytes"]["measured"] == 4.0e7
    assert row(document, 5)["counters"] == {}  # empty cells: not measured


def test_all_rows_within_their_bounds_exit_zero(tmp_path, capsys):
    path = tmp_path / "ok.csv"
    path.write_text(f"# hand-written test input, not measurements\n{HEADER}\n"
                    f"copy,{ROOT / 'specs/copy.kcost'},n=268435456,fp32,5.2e-4,,,\n")
    code, out, err = validate(capsys, path)
    assert code == 0, err
    assert "1 rows, 0 falsified" in out


def test_json_output(capsys):
    code, out, _ = validate(capsys, HAND_WRITTEN, "--json")
    assert code == 1
    parsed = json.loads(out)
    assert parsed["machine"] == "h200" and len(parsed["rows"]) == 4


GOOD = f"copy,{ROOT / 'specs/copy.kcost'},n=1024,fp32,1e-3,,,"
SPEC = ROOT / "specs/copy.kcost"


@pytest.mark.parametrize("body, line, message", [
    (f"{HEADER}\ncopy,{SPEC},n=1024,fp32,abc,,,", 2, "not a positive number of seconds"),
    (f"{HEADER}\ncopy,{SPEC},n=1024,fp32,0,,,", 2, "not a positive number of seconds"),
    (f"{HEADER}\n{GOOD}\ncopy,{SPEC},n=1024,fp32,1e-3,,", 3, "7 fields where the header has 8"),
    (f"{HEADER}\ncopy,{SPEC},n1024,fp32,1e-3,,,", 2, "cannot read the size `n1024`"),
    (f"{HEADER}\ncopy,{SPEC},m=1024,fp32,1e-3,,,", 2, "`m` is not a parameter"),
    (f"{HEADER}\ncopy,{SPEC},BLK=8,fp32,1e-3,,,", 2, "leave n unset"),
    (f"{HEADER}\ncopy,nowhere/none.kcost,n=1024,fp32,1e-3,,,", 2, "not found"),
    (f"{HEADER}\ncopy,{SPEC},n=1024,fp32,1e-3,-5,,", 2, "dram_bytes `-5`"),
    ("# a comment\nkernel,spec,sizes\ncopy,x,n=1", 2, "the header lacks dtype"),
    (f"{HEADER}\n", 1, "followed by no rows"),
])
def test_malformed_input_is_one_error_at_its_line(tmp_path, capsys, body, line, message):
    path = tmp_path / "bad.csv"
    path.write_text(body + "\n")
    code, out, err = validate(capsys, path)
    assert code == 2
    assert f"{path}:{line}:" in err
    assert message in err
    assert "hint:" in err
    assert "Traceback" not in err and out == ""


def test_a_missing_file_is_an_error(tmp_path, capsys):
    code, _, err = validate(capsys, tmp_path / "absent.csv")
    assert code == 2 and "no such file" in err


# -- validate/run_h200.py on a machine without a GPU ----------------------------------------

HARNESS = ROOT / "validate" / "run_h200.py"


def test_the_harness_without_a_gpu_says_so_and_exits_2():
    import os
    import subprocess
    import sys

    environment = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}  # no GPU, even on one
    done = subprocess.run([sys.executable, str(HARNESS), "--no-counters"], capture_output=True,
                          text=True, timeout=120, env=environment)
    assert done.returncode == 2, done.stderr
    assert "Nothing was measured and no CSV was written" in done.stderr


def test_every_harness_case_meets_its_spec():
    # the sizes of each measured case satisfy the spec's assumptions and set every size
    # without a default, so that `kernelcost validate` can analyse each row
    import importlib.util

    import kernelcost
    from kernelcost.analysis.api import _numeric_values, broken_assumptions
    from kernelcost.lang.settings import resolve_settings

    loader = importlib.util.spec_from_file_location("run_h200", HARNESS)
    harness = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(harness)
    specs = {}
    for kernel, name, sizes, dtype, _ in harness.cases():
        spec = specs.setdefault(name, kernelcost.load(ROOT / "specs" / f"{name}.kcost"))
        settings = resolve_settings({k: str(v) for k, v in sizes.items()}, spec.parameters)
        values = _numeric_values(spec, settings)
        assert not broken_assumptions(spec.checked, values), (kernel, sizes)
        assert set(spec.parameters.values()) <= set(values), (kernel, sizes)
        assert dtype == spec.cost().precision, (kernel, dtype)


def test_the_help_names_the_columns_the_reader_needs(capsys):
    from kernelcost.answers.validate import COLUMNS  # the parser is built without loading validate

    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    assert ",".join(COLUMNS) in capsys.readouterr().out


def test_the_notes_are_data_and_the_report_words_them(tmp_path, capsys):
    """A row in another element type than the spec's, and one that does not fit (T x T tiles
    of A and B in shared memory at T = 1024: 4 MiB, over H200's 228 KiB an SM)."""
    from kernelcost.answers.validate import NoFit, NotRun, OtherPrecision, compare
    from kernelcost.base.levels import Level
    from kernelcost.present.report.validation import note_text, notes_text

    path = tmp_path / "notes.csv"
    path.write_text(f"{HEADER}\n"
                    f"copy,{ROOT / 'specs/copy.kcost'},n=268435456,bf16,5.2e-4,,,\n"
                    f"gemm,{ROOT / 'specs/gemm_tiled.kcost'},M=8192;N=8192;K=8192;T=1024,"
                    "bf16,1.0,,,\n")
    other, too_big = compare(path, "h200")
    assert other.notes == (OtherPrecision("bf16", "fp32"),)
    assert notes_text(other) == ["measured in bf16, the spec counts fp32"]
    (no_fit,) = too_big.notes
    assert isinstance(no_fit, NoFit) and no_fit.misfits[0].level == Level.SHARED
    assert note_text(no_fit) == ("the spec does not fit the machine: shared needs 4.1943e+06 B "
                                 "of 233472 per sm")
    assert note_text(NotRun((Level.TMEM,))) == ("the machine does not run the spec: it needs "
                                                "tmem")
