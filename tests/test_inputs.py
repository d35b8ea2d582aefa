"""Hostile and unusual input text (issue 15.3, 15.5, 15.7, 15.8): files that are not regular,
bytes that are not UTF-8, byte-order marks, CR line endings, Unicode digits and --set values
that overflow. Each ends in a positioned exit-2 error or is read as meant."""

import os
import threading

import pytest

from kernelcost.analysis.api import analyze, loads
from kernelcost.base import inputs
from kernelcost.base.errors import KcostError
from kernelcost.cli import main
from kernelcost.lang.parse import MAX_SOURCE_BYTES, parse, parse_file

COPY = "kernel copy(n) {\n  in x: f32[n]  # the input\n  out y: f32[n]\n" \
       "  for i in 0..n { y[i] = x[i] }\n}\n"
SPECS = os.path.join(os.path.dirname(__file__), "..", "specs")


def error_of(call) -> KcostError:
    with pytest.raises(KcostError) as raised:
        call()
    return raised.value


def finishes(call, seconds=10):
    """Run `call` in a thread; a hang fails the test instead of the suite."""
    outcome = []

    def target():
        try:
            outcome.append(("ok", call()))
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            outcome.append(("raised", error))

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"still running after {seconds} s"
    return outcome[0]


# --- files that are not regular ------------------------------------------------------------

def test_fifo_spec_is_refused_without_opening(tmp_path):
    fifo = tmp_path / "spec.kcost"
    os.mkfifo(fifo)
    kind, error = finishes(lambda: parse_file(fifo))
    assert kind == "raised" and "is a FIFO, not a regular file" in str(error)


def test_dev_zero_is_refused(tmp_path):
    kind, error = finishes(lambda: parse_file("/dev/zero"))
    assert kind == "raised" and "is a device" in str(error)


def test_directory_is_refused(tmp_path):
    assert "is a directory" in str(error_of(lambda: parse_file(tmp_path)))


def test_read_stops_at_limit_plus_one(tmp_path, monkeypatch):
    big = tmp_path / "big.kcost"
    with open(big, "wb") as file:
        file.truncate(50 * MAX_SOURCE_BYTES)  # sparse: costs no disk
    read = []
    real_read = os.read
    monkeypatch.setattr(inputs.os, "read", lambda fd, n: read.append(n) or real_read(fd, n))
    assert "larger than" in str(error_of(lambda: parse_file(big)))
    assert sum(read) <= MAX_SOURCE_BYTES + 1


def test_cli_exit_2_for_fifo_and_device(tmp_path, capsys):
    fifo = tmp_path / "m.toml"
    os.mkfifo(fifo)
    assert finishes(lambda: main(["analyze", str(fifo)])) == ("ok", 2)
    assert finishes(lambda: main(["machines", str(fifo)])) == ("ok", 2)
    assert finishes(lambda: main(["machines", "/dev/zero"])) == ("ok", 2)
    assert "FIFO" in capsys.readouterr().err


# --- text ----------------------------------------------------------------------------------

def test_invalid_utf8_gives_line_and_column(tmp_path):
    path = tmp_path / "bad.kcost"
    path.write_bytes(COPY.encode().replace(b"the input", b"th\xe9 input"))
    error = error_of(lambda: parse_file(path))
    span = error.diagnostics[0].span
    assert (span.line, span.column) == (2, 21)
    assert "^" in error.render()


def test_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.kcost"
    path.write_bytes(b"\xef\xbb\xbf" + COPY.encode())
    assert parse_file(path).name == "copy"
    assert parse("\ufeff" + COPY).name == "copy"


def test_cr_only_line_endings_read_as_newlines(tmp_path):
    path = tmp_path / "mac.kcost"
    path.write_bytes(COPY.replace("\n", "\r").encode())
    assert parse_file(path).name == "copy"  # the comment ends at its line
    assert parse(COPY.replace("\n", "\r\n")).name == "copy"


def test_cr_only_error_positions_count_lines():
    broken = COPY.replace("out y", "out y y").replace("\n", "\r")
    span = error_of(lambda: parse(broken)).diagnostics[0].span
    assert span.line == 3


def test_unicode_digits_in_a_spec_are_refused_with_a_hint():
    error = error_of(lambda: parse(COPY.replace("x[i] }", "x[i] * ２ }")))
    assert "ASCII digits" in error.diagnostics[0].hint
    assert error.diagnostics[0].span.line == 4


# --- --set values ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def copy_spec():
    return loads(COPY)


@pytest.mark.parametrize("value, message", [
    ("１２", "cannot read"),
    ("1e1001", "too large"),
    ("9" * 5000, "too large"),
    ("0", "is not positive"),
    ("-3", "is not positive"),
    ("n+1", "refers to itself"),
    ("m", "unknown size"),
    ("+".join(["1"] * 3000), "nests more than"),
])
def test_bad_set_values_are_positioned(copy_spec, value, message):
    error = error_of(lambda: analyze(copy_spec, {"n": value}))
    diagnostic = error.diagnostics[0]
    assert message in diagnostic.message
    assert diagnostic.span is not None and str(diagnostic.span).startswith("--set n:1:")
    assert "^" in error.render()


def test_unicode_digit_hint(copy_spec):
    error = error_of(lambda: analyze(copy_spec, {"n": "１２"}))
    assert "ASCII digits" in error.diagnostics[0].hint


def test_cli_set_errors_exit_2(capsys):
    spec = os.path.join(SPECS, "vector_add.kcost")
    for value in ("n=1e1001", "n=" + "9" * 5000, "n=１２", "n=" + "+".join(["1"] * 3000)):
        assert main(["analyze", spec, "--set", value, "--json"]) == 2
    assert "internal error" not in capsys.readouterr().err


def test_a_nul_byte_in_a_name_is_an_error():
    from kernelcost.hardware.machinefile import load_machine
    from kernelcost.present.plot import check_figure_path

    for call in (lambda: parse_file("a\0b.kcost"), lambda: load_machine("a\0b.toml"),
                 lambda: check_figure_path("a\0b.svg")):
        assert "NUL" in str(error_of(call)) or "usable path" in str(error_of(call))
