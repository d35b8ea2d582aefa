"""The parser cache is only a speed-up and never a way in: a missing, unwritable, corrupt,
planted or unsafe cache parses the same, runs nothing and overwrites nothing (issue 15.1)."""

import os
import pickle
import stat
import threading

import pytest

from kernelcost import cache, parse, settings

SPEC = "kernel copy(n) { in x: f32[n]  out y: f32[n]  for i in 0..n { y[i] = x[i] } }"


@pytest.fixture
def fresh_parser():
    parse._parser.cache_clear()
    settings._expression_parser.cache_clear()
    yield
    parse._parser.cache_clear()
    settings._expression_parser.cache_clear()


@pytest.fixture
def private_cache(tmp_path, monkeypatch, fresh_parser):
    directory = tmp_path / "cache"
    directory.mkdir(mode=0o700)
    monkeypatch.setenv("KERNELCOST_CACHE_DIR", str(directory))
    return directory


def parses() -> bool:
    return parse.parse(SPEC).name == "copy"


def cache_path() -> str:
    """Where the spec parser's tables go: found by letting the parser save them once."""
    assert parses()
    parse._parser.cache_clear()
    (path,) = [p for p in os.listdir(os.environ["KERNELCOST_CACHE_DIR"])
               if p.startswith("lark-parser-")]
    return os.path.join(os.environ["KERNELCOST_CACHE_DIR"], path)


class Planted:
    """Unpickling this writes the marker file: the proof that a pickle ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_parser_is_saved_as_json_and_loaded(private_cache):
    assert parses()
    saved = list(private_cache.iterdir())
    assert len(saved) == 1 and saved[0].suffix == ".json" and saved[0].stat().st_size > 0
    assert saved[0].read_bytes().startswith(b"{")
    parse._parser.cache_clear()
    assert parses()  # from the file this time


def test_expression_parser_is_cached_too(private_cache):
    import sympy

    n = sympy.Symbol("n", positive=True, integer=True)
    assert settings.size_expression("2*n", {"n": n}, "--set n") == 2 * n
    settings._expression_parser.cache_clear()
    assert settings.size_expression("2*n", {"n": n}, "--set n") == 2 * n
    assert any(p.name.startswith("lark-expression-parser-") for p in private_cache.iterdir())


def test_planted_pickle_never_runs(private_cache, tmp_path):
    marker = tmp_path / "marker"
    path = cache_path()
    planted = pickle.dumps(Planted(marker))
    for name in (path, path.removesuffix(".json") + ".pickle"):
        with open(name, "wb") as file:
            file.write(planted)
    assert parses()
    assert not marker.exists()


def test_corrupt_cache_file_is_rebuilt(private_cache):
    path = cache_path()
    for damage in (b"not json\n\x00\x01", b'{"data": 1}', b'{"~d": [[[1], 2]]}', b"[]"):
        with open(path, "wb") as file:
            file.write(damage)
        parse._parser.cache_clear()
        assert parses()


def test_world_writable_directory_is_neither_read_nor_written(tmp_path, monkeypatch,
                                                             fresh_parser):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("KERNELCOST_CACHE_DIR", str(shared))
    assert cache.cache_dir() is None
    assert parses()
    assert list(shared.iterdir()) == []


def test_group_writable_file_is_not_read(private_cache):
    path = cache_path()
    os.chmod(path, 0o664)
    assert cache.read_private(path) is None
    assert parses()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file away needs root")
def test_file_of_another_user_is_not_read(private_cache):
    path = cache_path()
    os.chown(path, 65534, 65534)
    assert cache.read_private(path) is None
    assert parses()


def test_symlink_at_cache_name_is_replaced_not_followed(private_cache, tmp_path):
    path = cache_path()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    os.unlink(path)
    os.symlink(victim, path)
    assert parses()
    assert victim.read_text() == "precious"
    assert not os.path.islink(path) and stat.S_ISREG(os.lstat(path).st_mode)


def test_fifo_at_cache_path_does_not_hang(private_cache):
    path = cache_path()
    os.unlink(path)
    os.mkfifo(path)
    done = []
    worker = threading.Thread(target=lambda: done.append(cache.read_private(path)),
                              daemon=True)
    worker.start()
    worker.join(5)
    assert done == [None]
    assert parses()


def test_link_to_dev_zero_is_not_read(private_cache):
    path = cache_path()
    os.unlink(path)
    os.symlink("/dev/zero", path)
    assert cache.read_private(path) is None
    assert parses()


def test_oversized_file_is_not_read(private_cache):
    path = cache_path()
    with open(path, "wb") as file:
        file.truncate(cache.MAX_CACHE_BYTES + 1)
    assert cache.read_private(path) is None
    assert parses()


def test_unusable_cache_directory_is_skipped(tmp_path, monkeypatch, fresh_parser):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("KERNELCOST_CACHE_DIR", str(blocker / "below"))  # cannot be made
    assert cache.cache_dir() is None
    assert parses()


def test_cache_file_taken_by_a_directory(private_cache):
    path = cache_path()
    os.unlink(path)
    os.mkdir(path)  # neither readable nor replaceable as a file
    assert parses()
    assert [p for p in os.listdir(private_cache) if p.startswith(".")] == []  # no temp left


def test_empty_setting_turns_caching_off(monkeypatch):
    monkeypatch.setenv("KERNELCOST_CACHE_DIR", "")
    assert cache.cache_dir() is None and cache.cache_file("anything", "key") is None
