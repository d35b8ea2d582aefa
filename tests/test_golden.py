"""Golden files: `analyze --json` of every shipped spec, the terminal report at 80 and 120
columns and the Markdown report of a few, byte for byte as tools/regen_golden.py wrote them.
A change of output is reviewed as the diff of tests/golden after running that script."""

from __future__ import annotations

import functools
import json
import re

import pytest
from regen_golden import GOLDEN, ROOT, golden_cases, markdown_cases, rendered_cases, run
from specs_once import specs_read_once

CASES = golden_cases()
RENDERS = rendered_cases()
MARKDOWN = markdown_cases()


@pytest.fixture(scope="module", autouse=True)
def specs_read_once_a_module():
    """A spec's JSON, its reports at 80 and 120 columns and its wide page read it once."""
    with specs_read_once():
        yield


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
    argv, width, exit_code = RENDERS[name]
    monkeypatch.setenv("COLUMNS", str(width))
    text = run(argv, width, exit_code)
    assert text == (GOLDEN / name).read_text()


@pytest.mark.parametrize("name", sorted(RENDERS))
def test_a_page_fits_its_width_and_splits_no_word(name, monkeypatch):
    """Every line within the width (but a word longer than the page, a URL, on a line of its
    own), and every word of it a word of the same page printed without a width limit: a word
    wrapped in two (`compute-bou|nd`) or cut short (`attain…`) is one the wide page lacks."""
    monkeypatch.chdir(ROOT)
    argv, width, exit_code = RENDERS[name]
    lines = (GOLDEN / name).read_text().splitlines()
    assert [line for line in lines if len(line) > width and len(line.split()) > 1] == []
    wide = _wide_words(tuple(argv), exit_code)
    split = [word for line in lines if not line.startswith("(--wide adds:")
             for word in _words(line) if word not in wide]
    assert split == []


@functools.cache
def _wide_words(argv: tuple[str, ...], exit_code: int) -> frozenset[str]:
    """The words of the page printed without a width limit: once a process for the 80- and
    the 120-column page of one command."""
    return frozenset(_words(run(list(argv), 1000, exit_code)))


def _words(text: str) -> list[str]:
    """The words of a page; the rules drawn under a table's header change length with it,
    and a narrow page marks the cells it moves under a table ([1])."""
    return [word for word in text.split() if set(word) - set("─━│┃┏┓┗┛┡┩╇╈┳┻┃")
            and not _NOTE_MARK.fullmatch(word)]


_NOTE_MARK = re.compile(r"\[\d+\]")
