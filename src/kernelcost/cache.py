"""Files kernelcost keeps between runs to start faster: the built parser tables.

They live in the user cache directory ($XDG_CACHE_HOME/kernelcost, else ~/.cache/kernelcost;
KERNELCOST_CACHE_DIR overrides it, and an empty value turns caching off). A cache is only ever
a speed-up, and never a way in:

- the tables are stored as JSON (lark's own serialised form, tuples and integer keys tagged),
  never as a pickle, so a planted file can at worst fail to load, not run code;
- a file is read only when it is a regular file (not a link, FIFO or device) owned by the
  current user, in a directory owned by the current user that no one else can write, and
  only up to MAX_CACHE_BYTES;
- it is written through a temporary file beside it and an atomic rename, so a link planted at
  the cache name is replaced, never followed.

Whenever any of this fails the parser is built in memory (about 30 ms) and nothing is said."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
from pathlib import Path

import lark
from lark import Lark

from .inputs import read_at_most

MAX_CACHE_BYTES = 4_000_000  # the kcost tables are about 80 kB
_FORMAT = "1"  # bumped when the encoding below changes


def cache_dir() -> Path | None:
    """The cache directory, created if needed, or None when caching is off, impossible or the
    directory is not private to the current user."""
    configured = os.environ.get("KERNELCOST_CACHE_DIR")
    try:
        if configured is not None:
            if not configured:
                return None
            directory = Path(configured)
        else:
            base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
            directory = Path(base) / "kernelcost"
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.stat(directory)
    except (OSError, RuntimeError, ValueError):  # RuntimeError: no home directory to expand
        return None
    if not _private(info) or not stat.S_ISDIR(info.st_mode):
        return None
    if not os.access(directory, os.W_OK | os.X_OK):
        return None
    return directory


def _private(info: os.stat_result) -> bool:
    """Owned by the current user and writable by no one else."""
    return info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def cache_file(kind: str, *keys: str) -> str | None:
    """A path in the cache directory named after `kind` and a digest of `keys` (the grammar
    text, library versions), so a changed input never reads a stale file; None when off."""
    directory = cache_dir()
    if directory is None:
        return None
    digest = hashlib.sha256("\0".join((_FORMAT, *keys)).encode("utf-8")).hexdigest()[:20]
    version = "%d%d" % sys.version_info[:2]
    return str(directory / f"{kind}-{digest}-py{version}.json")


def lark_parser(kind: str, grammar: str, **options) -> Lark:
    """Lark(grammar, parser="lalr", **options), its tables loaded from or saved to the cache."""
    options = dict(parser="lalr", **options)
    path = cache_file(kind, grammar, lark.__version__, repr(sorted(options.items())))
    if path is not None:
        data = read_private(path)
        if data is not None:
            try:
                document = _decode(json.loads(data))
                return Lark._load_from_dict(document["data"], document["memo"])
            except Exception:  # any damage to the file: rebuild, as without a cache
                pass
    parser = Lark(grammar, **options)
    if path is not None:
        try:
            from lark.grammar import Rule
            from lark.lexer import TerminalDef

            data, memo = parser.memo_serialize([TerminalDef, Rule])
            write_atomic(path, json.dumps(_encode({"data": data, "memo": memo})).encode())
        except Exception:  # the tables took a form the encoding does not know: no cache
            pass
    return parser


def read_private(path: str, limit: int = MAX_CACHE_BYTES) -> bytes | None:
    """The bytes of a private regular file, or None for anything else. The file is opened
    without following links and without blocking (a FIFO would hang a plain open), then
    checked on its descriptor, so it cannot be swapped between the check and the read."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or not _private(info) or info.st_size > limit:
            return None
        data = read_at_most(descriptor, limit)
        return None if len(data) > limit else data
    except OSError:
        return None
    finally:
        os.close(descriptor)


def write_atomic(path: str, data: bytes) -> None:
    """Write to a temporary file in the same directory, then rename it over `path`."""
    directory, name = os.path.split(path)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", dir=directory or ".")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


# JSON has neither tuples nor integer keys; lark's tables use both, so they travel tagged

def _encode(value):
    if isinstance(value, dict):
        if all(isinstance(key, str) and not key.startswith("~") for key in value):
            return {key: _encode(item) for key, item in value.items()}
        return {"~d": [[_encode(key), _encode(item)] for key, item in value.items()]}
    if isinstance(value, tuple):
        return {"~t": [_encode(item) for item in value]}
    if isinstance(value, list):
        return [_encode(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot store {type(value).__name__} in the parser cache")


def _decode(value):
    if isinstance(value, dict):
        if "~d" in value:
            return {_decode(key): _decode(item) for key, item in value["~d"]}
        if "~t" in value:
            return tuple(_decode(item) for item in value["~t"])
        return {key: _decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decode(item) for item in value]
    return value
