"""The parser cache is only a speed-up: a missing, unwritable or corrupt cache parses the same."""

import pytest

from kernelcost import parse
from kernelcost.cache import cache_dir, cache_file

SPEC = "kernel copy(n) { in x: f32[n]  out y: f32[n]  for i in 0..n { y[i] = x[i] } }"


@pytest.fixture
def fresh_parser():
    parse._parser.cache_clear()
    yield
    parse._parser.cache_clear()


def parses() -> bool:
    return parse.parse(SPEC).name == "copy"


def test_parser_is_saved_and_loaded(tmp_path, monkeypatch, fresh_parser):
    monkeypatch.setenv("KERNELCOST_CACHE_DIR", str(tmp_path / "cache"))
    assert parses()
    saved = list((tmp_path / "cache").iterdir())
    assert len(saved) == 1 and saved[0].stat().st_size > 0
    parse._parser.cache_clear()
    assert parses()  # from the file this time


def test_corrupt_cache_file_is_rebuilt(tmp_path, monkeypatch, fresh_parser):
    monkeypatch.setenv("KERNELCOST_CACHE_DIR", str(tmp_path))
    path = cache_file("lark-parser", parse.grammar_text(), parse.lark.__version__)
    with open(path, "wb") as file:
        file.write(b"not a pickle\n\x00\x01")
    assert parses()


def test_unusable_cache_directory_is_skipped(tmp_path, monkeypatch, fresh_parser):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("KERNELCOST_CACHE_DIR", str(blocker / "below"))  # cannot be made
    assert cache_dir() is None
    assert parses()


def test_cache_file_taken_by_a_directory(tmp_path, monkeypatch, fresh_parser):
    monkeypatch.setenv("KERNELCOST_CACHE_DIR", str(tmp_path))
    path = cache_file("lark-parser", parse.grammar_text(), parse.lark.__version__)
    (tmp_path / path.rsplit("/", 1)[1]).mkdir()  # neither readable nor writable as a file
    assert parses()


def test_empty_setting_turns_caching_off(monkeypatch):
    monkeypatch.setenv("KERNELCOST_CACHE_DIR", "")
    assert cache_dir() is None and cache_file("anything", "key") is None
