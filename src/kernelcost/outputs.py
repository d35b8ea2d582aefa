"""Writing output files: all checked before any is written, each written whole or not at all.

A figure is rendered into a temporary file beside its destination and renamed over it, so a
write that fails (a full disk, a renderer error) leaves the old file as it was and no
truncated one; every destination of a command is checked first, so `-o a.svg -o nodir/b.svg`
writes nothing instead of half the set."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

from .errors import Code, Diagnostic, InputOutputError


def check_output(path: str | Path) -> Path:
    """Refuse a destination that cannot be written, before anything is."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.exists():
        raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
            None, f"cannot write {path}: the directory {directory} does not exist",
            "create it first"))
    if not directory.is_dir():
        raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
            None, f"cannot write {path}: {directory} is not a directory"))
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the name
        reason = getattr(error, "strerror", None) or "the name is not a usable path"
        raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
            None, f"cannot write {str(path)!r}: {reason}")) from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
                None, f"cannot write {path}: it is a directory",
                "give a file name, e.g. out/figure.svg"))
        if not stat.S_ISREG(info.st_mode):
            raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
                None, f"cannot write {path}: it is not a regular file", "give a file name on disk"))
        if not os.access(path, os.W_OK) or not info.st_mode & 0o222:
            raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
                None, f"cannot write {path}: the file is read-only",
                "make it writable or choose another name"))
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
            None, f"cannot write {path}: the directory {directory} is not writable"))
    return path


def write_via_temporary(path: str | Path, write) -> Path:
    """Call write(temporary path) for a file beside `path`, then rename it over `path`; on
    any failure the temporary file goes and `path` is untouched."""
    path = check_output(path)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix,
                                             dir=path.parent)
    os.close(descriptor)
    try:
        write(temporary)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except OSError as error:
        _remove(temporary)
        raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
            None, f"cannot write {path}: {error.strerror or error}")) from None
    except BaseException:
        _remove(temporary)
        raise
    return path


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def drop_stdout() -> None:
    """Point stdout at /dev/null after a failed write (a full disk, a closed pipe), so that
    the unwritable rest is not retried, and reported again, at interpreter exit."""
    try:
        sys.stdout.flush()
    except OSError:
        pass
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (a test's capture)
        pass
