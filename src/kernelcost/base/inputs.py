"""Reading the text files a user names (specs, machine files) without trusting them.

A path is checked with stat before it is opened: a FIFO would block the open forever and a
device such as /dev/zero never ends, so only regular files are read, and never more than the
limit plus one byte. The bytes must be UTF-8 (an error gives the line and column of the first
bad byte); a byte-order mark is dropped and old-Mac CR-only line endings read as newlines."""

from __future__ import annotations

import os
import stat

from .errors import Code, Diagnostic, InputOutputError
from .tree import Span

BOM = "\ufeff"


def read_text(path: str, limit: int, what: str = "file") -> str:
    """The text of a regular file of at most `limit` bytes, normalised; else a KcostError."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputOutputError(Code.NO_SUCH_FILE, Diagnostic(
            None, f"no such file: `{path}`", "check the path")) from None
    except OSError as error:
        raise InputOutputError(Code.CANNOT_READ, Diagnostic(
            None, f"cannot read {path}: {error.strerror}")) from None
    except ValueError:  # a NUL byte in the name (from the API; argv cannot hold one)
        raise InputOutputError(Code.CANNOT_READ, Diagnostic(
            None, f"cannot read {path!r}: the name holds a NUL byte")) from None
    _refuse_special(path, info, what)
    try:
        # O_NONBLOCK: should the path become a FIFO after the stat, the open still returns
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise InputOutputError(Code.CANNOT_READ, Diagnostic(
            None, f"cannot read {path}: {error.strerror}")) from None
    try:
        _refuse_special(path, os.fstat(descriptor), what)
        data = read_at_most(descriptor, limit)
    except OSError as error:
        raise InputOutputError(Code.CANNOT_READ, Diagnostic(
            None, f"cannot read {path}: {error.strerror}")) from None
    finally:
        os.close(descriptor)
    if len(data) > limit:
        raise InputOutputError(Code.FILE_TOO_LARGE, Diagnostic(
            None, f"{path} is larger than {limit:,} bytes", f"a {what} is a few dozen lines"))
    return decode(data, path)


def read_at_most(descriptor: int, limit: int) -> bytes:
    """Up to limit + 1 bytes of an open file: one byte past the limit says it is too long,
    and no more is ever read (a link to /dev/zero cannot grow memory)."""
    chunks, total = [], 0
    while total <= limit:
        chunk = os.read(descriptor, min(1 << 20, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _refuse_special(path: str, info: os.stat_result, what: str) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise InputOutputError(Code.NOT_A_REGULAR_FILE, Diagnostic(
            None, f"{path} is a directory", f"give a {what}"))
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else
                "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else
                "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise InputOutputError(Code.NOT_A_REGULAR_FILE, Diagnostic(
            None, f"{path} is {kind}, not a regular file", f"give a {what} saved on disk"))


def decode(data: bytes, filename: str) -> str:
    """UTF-8 bytes -> normalised text; bad bytes are reported with their line and column."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = normalise(data[:error.start].decode("utf-8", "replace"))
        line = before.count("\n") + 1
        column = len(before) - before.rfind("\n")
        span = Span(filename, line, column, line, column + 1)
        shown = normalise(data.decode("utf-8", "replace"))
        raise InputOutputError(Code.NOT_UTF8, Diagnostic(
            span, f"the file is not UTF-8 text: byte 0x{data[error.start]:02X} here",
            "save it as UTF-8"), shown) from None
    return normalise(text)


def normalise(text: str) -> str:
    """Drop a byte-order mark; CRLF and lone CR line endings become LF."""
    text = text.removeprefix(BOM)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
