"""Hostile machine files (issue 15.3, 15.5, 15.7, 15.8): every one is an exit-2 error with the
file, line, column and a caret under the value, or is read as meant."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kernelcost.base import tomlplaces
from kernelcost.base.errors import Code, KcostError
from kernelcost.cli import main
from kernelcost.hardware.machinefile import load_machine, parse_machine

H100 = (Path(__file__).resolve().parent.parent / "src" / "kernelcost" / "machines"
        / "h100.toml").read_text("utf-8")
BIG = "9" * 400


def error_of(text: str) -> KcostError:
    with pytest.raises(KcostError) as raised:
        parse_machine(text, "evil.toml")
    return raised.value


@pytest.mark.parametrize("old, new, where, line", [
    ("peak_FLOPps = 33.5e12", "peak_FLOPps = nan", "compute[0].peak_FLOPps", 36),
    ("peak_FLOPps = 33.5e12", "peak_FLOPps = inf", "compute[0].peak_FLOPps", 36),
    ("peak_FLOPps = 33.5e12", f"peak_FLOPps = {BIG}", "compute[0].peak_FLOPps", 36),
    ("bandwidth_Bps = 3.35e12", "bandwidth_Bps = nan", "memory[0].bandwidth_Bps", 145),
    ("bandwidth_Bps = 3.35e12", "bandwidth_Bps = inf", "memory[0].bandwidth_Bps", 145),
    ("bandwidth_Bps = 3.35e12", "bandwidth_Bps = 5e-324", "memory[0].bandwidth_Bps", 145),
    ("launch_overhead_s = 4e-6", "launch_overhead_s = nan", "launch.launch_overhead_s", 21),
    ("launch_overhead_s = 4e-6", "launch_overhead_s = -inf", "launch.launch_overhead_s", 21),
    ("sm_count = 132", f"sm_count = {BIG}", "device.sm_count", 13),
])
def test_bad_values_are_positioned(old, new, where, line):
    assert old in H100
    error = error_of(H100.replace(old, new, 1))
    diagnostic = error.diagnostics[0]
    assert f"`{where}`" in diagnostic.message
    assert diagnostic.span.line == line and diagnostic.span.column > 1
    rendered = error.render()
    assert rendered.startswith(f"evil.toml:{line}:") and "^" in rendered


@pytest.mark.parametrize("entries", ["compute = [1, 2]", "memory = [1]",
                                     "compute = [\"fp32\"]"])
def test_arrays_of_non_tables_are_refused(entries):
    compute = "" if entries.startswith("compute") else (
        "compute = [{precision = \"fp32\", unit = \"vector\", peak_FLOPps = 1e12, "
        "source = \"s\"}]\n")
    text = (f"id = \"evil\"\nname = \"Evil\"\nvendor = \"X\"\n{compute}{entries}\n"
            "[device]\nsm_count = 1\nsource = \"s\"\n")
    error = error_of(text)
    assert "expected a table" in error.diagnostics[0].message
    assert error.diagnostics[0].span.line == text.split("\n").index(entries) + 1


def test_syntax_error_has_line_and_column():
    error = error_of("id = \"x\"\nname = \n")
    span = error.diagnostics[0].span
    assert (span.line, span.column) == (2, 8)
    assert "(at line" not in error.diagnostics[0].message


def test_deep_nesting_names_the_machine_file():
    error = error_of("id = " + "[" * 5000 + "]" * 5000 + "\n")
    assert "machine file nests" in error.diagnostics[0].message


def test_invalid_utf8_machine_file(tmp_path):
    path = tmp_path / "evil.toml"
    path.write_bytes(H100.encode().replace(b'name = "NVIDIA', b'name = "\xffNVIDIA'))
    with pytest.raises(KcostError) as raised:
        load_machine(path)
    span = raised.value.diagnostics[0].span
    assert (span.line, span.column) == (9, 9)


def test_bom_and_cr_line_endings_are_read(tmp_path):
    path = tmp_path / "mac.toml"
    path.write_bytes(b"\xef\xbb\xbf" + H100.replace("\n", "\r").encode())
    assert load_machine(path).id == "h100"


@pytest.mark.parametrize("old, new", [
    ("bandwidth_Bps = 3.35e12", "bandwidth_Bps = nan"),
    ("peak_FLOPps = 33.5e12", f"peak_FLOPps = {BIG}"),
    ("[device]", "compute = [1, 2]\n[device]"),
])
def test_cli_exits_2(tmp_path, capsys, old, new):
    path = tmp_path / "evil.toml"
    path.write_text(H100.replace(old, new, 1))
    spec = os.path.join(os.path.dirname(__file__), "..", "specs", "vector_add.kcost")
    assert main(["machines", str(path), "--json"]) == 2
    assert main(["analyze", spec, "--machine", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert "internal error" not in err and "evil.toml:" in err


@pytest.mark.parametrize("old, new, table, message", [
    # the second table is a second `global`: the error is there, not at the first table
    ('[[memory]]\nlevel = "l2"', '[[memory]]\nlevel = "global"', 1,
     "`memory[1].level`: a second `global` level"),
    ('[[memory]]\nlevel = "l2"', '[[memory]]\nlevel = "registers"', 2,
     "`memory[2].level`: `shared` after `registers`"),
    ('[[memory]]\nlevel = "global"', '[[memory]]\nlevel = "mall"', 0,
     "`memory[0].level`: the first level must be `global`"),
])
def test_levels_out_of_order_are_placed_at_the_offending_table(old, new, table, message):
    """The caret is on the `level` value of the offending table (the table-th [[memory]])."""
    assert old in H100
    error = error_of(H100.replace(old, new, 1))
    tables = [number for number, text in enumerate(H100.split("\n"), 1) if text == "[[memory]]"]
    line = tables[table] + 1  # `level = ...` follows its table's header
    (diagnostic,) = error.diagnostics
    assert error.code == Code.MACHINE_INCONSISTENT
    assert diagnostic.message.startswith(message)
    assert (diagnostic.span.line, diagnostic.span.column) == (line, 9)  # the level's value
    assert "global, mall, l2, shared, tmem, registers" in diagnostic.hint
    assert error.render().startswith(f"evil.toml:{line}:9:")


def test_unknown_key_caret_is_under_the_key():
    error = error_of(H100.replace("sm_count = 132", "sm_cont = 132", 1))
    span = error.diagnostics[0].span
    assert (span.line, span.column, span.end_column) == (13, 1, 8)


def test_the_shipped_files_are_kept_parsed_as_tomllib_reads_them():
    """parsed.json holds each shipped machine and model file as tomllib reads it now (its
    script, run again, writes the same bytes)."""
    script = Path(__file__).resolve().parent.parent / "tools" / "regen_shipped_toml.py"
    completed = subprocess.run([sys.executable, str(script), "--check"], capture_output=True,
                               text=True, check=False)
    assert completed.returncode == 0, completed.stderr


TOML = Code.MACHINE_NOT_TOML


def test_a_shipped_text_is_taken_parsed_and_an_edited_one_read_again(monkeypatch):
    read, loads = [], tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: read.append(text) or loads(text))
    kept = tomlplaces.toml_data(H100, "h100.toml", "machine file", TOML)
    assert read == [] and repr(kept) == repr(loads(H100))  # ints and floats as read
    kept["device"]["sm_count"] = 1  # a caller's change stays its own
    read_again = tomlplaces.toml_data(H100, "h100.toml", "machine file", TOML)
    assert read_again["device"]["sm_count"] == 132
    edited = H100.replace("sm_count = 132", "sm_count = 114")
    read_edited = tomlplaces.toml_data(edited, "h100.toml", "machine file", TOML)
    assert read_edited["device"]["sm_count"] == 114
    assert read == [edited]


def _with_name(kind: str, name: str, tmp_path: Path):
    """The shipped h100 machine, hgx_h100 topology or llama3_8b model, named `name`."""
    from kernelcost.hardware.modelfile import parse_model
    from kernelcost.hardware.topology import load_topology

    folder = {"machine": "machines", "topology": "topologies", "model": "models"}[kind]
    stem = {"machine": "h100", "topology": "hgx_h100", "model": "llama3_8b"}[kind]
    text = (Path(__file__).resolve().parent.parent / "src" / "kernelcost" / folder
            / f"{stem}.toml").read_text("utf-8")
    [line] = [line for line in text.splitlines() if line.startswith("name = ")]
    text = text.replace(line, f'name = "{name}"')
    number = text.splitlines().index(f'name = "{name}"') + 1
    if kind == "machine":
        return number, lambda: parse_machine(text, "evil.toml")
    if kind == "model":
        return number, lambda: parse_model(text, "evil.toml")
    path = tmp_path / "evil.toml"
    path.write_text(text, "utf-8")
    return number, lambda: load_topology(path)


@pytest.mark.parametrize("kind", ["machine", "topology", "model"])
def test_a_name_past_the_limit_is_refused_at_its_key(kind, tmp_path):
    from kernelcost.base.tree import MAX_NAME_LENGTH

    assert _with_name(kind, "N" * MAX_NAME_LENGTH, tmp_path)[1]().name == "N" * MAX_NAME_LENGTH
    number, read = _with_name(kind, "N" * 50_000, tmp_path)  # files hold 100 kB
    with pytest.raises(KcostError) as raised:
        read()
    [diagnostic] = raised.value.diagnostics
    assert raised.value.code in (Code.MACHINE_BAD_VALUE, Code.MODEL_BAD_VALUE)
    assert (diagnostic.span.line, diagnostic.span.column) == (number, 8)  # at the value
    assert diagnostic.message.endswith("is 50,000 characters long")
    assert len(raised.value.render()) < 1000
