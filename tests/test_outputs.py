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
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.algebra.jsonout import Exact, dumps, indented, number
from kernelcost.base.errors import KcostError
from kernelcost.cli import main
from kernelcost.present import plot

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
        def savefig(self, file, **options):
            file.write(b"trunc")
            raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(KcostError) as raised:
        plot.save(Failing(), target)
    assert "No space left on device" in str(raised.value)
    assert target.read_text() == "the good figure"
    assert [p.name for p in tmp_path.iterdir()] == ["figure.svg"]


def test_the_figure_is_written_through_the_descriptor_opened_once(tmp_path):
    """The renderer gets the open file, never a name to open again."""
    given = []

    class Recording:
        def savefig(self, file, **options):
            given.append(file)
            file.write(b"<svg/>")

    plot.save(Recording(), tmp_path / "figure.svg")
    assert not isinstance(given[0], (str, Path)) and given[0].closed
    assert (tmp_path / "figure.svg").read_bytes() == b"<svg/>"


# a shell's background job starts its children with SIGINT ignored, which Python keeps: the
# child takes Ctrl-C's default back, as a command run in a terminal has it
KILLED_WHILE_WRITING = """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
from kernelcost.base.outputs import write_via_temporary
def write(file):
    file.write(b"half a figure")
    file.flush()
    print("writing", flush=True)
    time.sleep(60)
write_via_temporary(sys.argv[1], write)
"""


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM", "SIGINT"])
def test_a_process_killed_while_writing_leaves_no_temporary_file(tmp_path, signal_name):
    """The new file has no name while it is written (O_TMPFILE): whatever ends the process,
    the directory holds what it held before."""
    import signal

    target = tmp_path / "figure.svg"
    target.write_text("the old figure")
    process = subprocess.Popen([sys.executable, "-c", KILLED_WHILE_WRITING, str(target)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "writing\n"
    process.send_signal(getattr(signal, signal_name))
    process.wait(timeout=60)
    process.stdout.close()
    process.stderr.close()
    assert [p.name for p in tmp_path.iterdir()] == ["figure.svg"]
    assert target.read_text() == "the old figure"


def test_a_named_temporary_file_of_a_killed_child_is_removed_by_its_watcher(tmp_path,
                                                                          monkeypatch):
    """Where the file system makes no unnamed file, the temporary file has a name from the
    start: the watching parent, told of it, removes it when the budget kills the child."""
    import time

    from kernelcost.base import watchdog
    from kernelcost.base.outputs import write_via_temporary

    monkeypatch.delattr(os, "O_TMPFILE", raising=False)

    def work():
        def write(file):
            file.write(b"half")
            time.sleep(60)

        write_via_temporary(tmp_path / "figure.svg", write)
        return 0

    assert watchdog.run_watched(work, 1.0) == 2
    assert list(tmp_path.iterdir()) == []


def test_without_unnamed_files_the_figure_is_still_written_whole(tmp_path, monkeypatch):
    from kernelcost.base.outputs import write_via_temporary

    monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    write_via_temporary(tmp_path / "figure.svg", lambda file: file.write(b"<svg/>"))
    assert [p.name for p in tmp_path.iterdir()] == ["figure.svg"]
    assert (tmp_path / "figure.svg").read_bytes() == b"<svg/>"


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


def test_where_no_link_is_allowed_the_bytes_are_copied_under_a_name(tmp_path, monkeypatch):
    """A sandbox may refuse both ways of naming an unnamed file: its bytes then go into a
    named temporary file, renamed over the target."""
    from kernelcost.base import outputs

    monkeypatch.setattr(outputs, "_link_empty_path", lambda descriptor, name: False)
    monkeypatch.setattr(outputs.os, "link", lambda *args, **kwargs: (_ for _ in ()).throw(
        OSError(errno.EXDEV, "Invalid cross-device link")))
    outputs.write_via_temporary(tmp_path / "figure.svg", lambda file: file.write(b"x" * 70000))
    assert [p.name for p in tmp_path.iterdir()] == ["figure.svg"]
    assert (tmp_path / "figure.svg").read_bytes() == b"x" * 70000


_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6),
                    st.text(max_size=4).map(Exact))
_DOCUMENTS = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(st.text(max_size=5), inner, max_size=4),
    st.fixed_dictionaries({"warnings": st.lists(st.text(max_size=3), max_size=2)},
                          optional={"value": inner})), max_leaves=20)


@tiered(300)
@given(_DOCUMENTS)
def test_the_indented_writer_writes_what_dumps_writes(document):
    """print_json's one-pass writer: the same text and warnings as strict JSON through
    json.dumps(indent=2), exact values and infinities included (those go to dumps)."""
    expected = dumps(_copy(document), indent=2)
    assert indented(_copy(document)) == expected


def _copy(document):
    """A fresh copy (dumps adds the warnings to the document's own list)."""
    if isinstance(document, dict):
        return {key: _copy(value) for key, value in document.items()}
    if isinstance(document, list):
        return [_copy(value) for value in document]
    if isinstance(document, tuple):
        return tuple(_copy(value) for value in document)
    return document


def test_the_indented_writer_leaves_a_key_json_converts_to_dumps():
    document = {1: "a", "b": {None: 2.5, True: [1]}}
    assert indented(dict(document)) == dumps(dict(document), indent=2)
