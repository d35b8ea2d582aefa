"""Golden files: `analyze --json` of every shipped spec, the terminal report at 80 and 120
columns and the Markdown report of a few, byte for byte as tests/regen_golden.py wrote them.
A change of output is reviewed as the diff of tests/golden after running that script."""

from __future__ import annotations

import json

import pytest

from regen_golden import GOLDEN, ROOT, golden_cases, markdown_cases, rendered_cases, run

CASES = golden_cases()
RENDERS = rendered_cases()
MARKDOWN = markdown_cases()


def test_every_golden_file_has_its_case_and_back():
    files = {path.name for path in GOLDEN.iterdir()}
    assert files == set(CASES) | set(RENDERS) | set(MARKDOWN)


@pytest.mark.parametrize("name", sorted(MARKDOWN))
def test_markdown_report_is_as_recorded(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert run(MARKDOWN[name]) == (GOLDEN / name).read_text()


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_is_as_recorded(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    document = json.loads(run(CASES[name]))
    expected = (GOLDEN / name).read_text()
    assert json.dumps(document, indent=2, sort_keys=True) + "\n" == expected


@pytest.mark.parametrize("name", sorted(RENDERS))
def test_terminal_report_is_as_recorded(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    argv, width = RENDERS[name]
    monkeypatch.setenv("COLUMNS", str(width))
    text = run(argv, width)
    assert all(len(line) <= width for line in text.splitlines())
    assert text == (GOLDEN / name).read_text()
