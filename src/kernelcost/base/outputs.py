"""Writing output files: all checked before any is written, each written whole or not at all.

A figure is rendered into a new file beside its destination (without a name where the
system allows) and renamed over it, so a write that fails (a full disk, a renderer error, a
kill) leaves the old file as it was and no truncated or temporary one; every destination of
a command is checked first, so `-o a.svg -o nodir/b.svg` writes nothing instead of half the
set."""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from pathlib import Path

from . import watchdog
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
            None, f"cannot write {path}: {directory} is not a directory",
            f"{directory} is a file: give a path in a directory"))
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the name
        reason = getattr(error, "strerror", None) or "the name is not a usable path"
        raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
            None, f"cannot write {str(path)!r}: {reason}",
            "choose another path")) from None
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
            None, f"cannot write {path}: the directory {directory} is not writable",
            "give a path in a directory you can write"))
    return path


def write_via_temporary(path: str | Path, write) -> Path:
    """Call write(file) with a binary file open on a new file in `path`'s directory, then put
    that file in `path`'s place; on any failure `path` is untouched and the new file goes.

    The file is opened once and written through its descriptor, never reopened by name. On
    Linux it is made without a name (O_TMPFILE): a process killed while it writes (the
    budget, a signal, a kill -9) leaves nothing behind; only once written is it linked under
    a temporary name and renamed over `path` at once. Where the file system cannot make such
    a file, it has a temporary name from the start, which the watching parent is told
    (watchdog.holding) and removes should the child die before renaming it."""
    path = check_output(path)
    descriptor, name = _open_new(path)
    try:
        with os.fdopen(descriptor, "wb", closefd=False) as file:
            write(file)
        if name is None:
            name = _link(descriptor, path)
        else:
            os.fchmod(descriptor, 0o666 & ~_umask())
        os.replace(name, path)
    except OSError as error:
        _remove(name)
        raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
            None, f"cannot write {path}: {error.strerror or error}")) from None
    except BaseException:
        _remove(name)
        raise
    finally:
        os.close(descriptor)
        if name is not None:
            watchdog.released(name)
    return path


def _open_new(path: Path) -> tuple[int, str | None]:
    """A descriptor open for writing on a new file in path's directory, and its name: None
    for a file without one (O_TMPFILE, whose mode the umask sets as for any new file)."""
    unnamed = getattr(os, "O_TMPFILE", 0)
    if unnamed:
        try:
            return os.open(path.parent, unnamed | os.O_RDWR | os.O_CLOEXEC, 0o666), None
        except OSError as error:
            if error.errno not in _NO_UNNAMED_FILES:
                raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
                    None, f"cannot write {path}: {error.strerror or error}")) from None
    try:
        descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix,
                                            dir=path.parent)
    except OSError as error:
        raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
            None, f"cannot write {path}: {error.strerror or error}")) from None
    watchdog.holding(name)
    return descriptor, name


# what open(O_TMPFILE) answers where the kernel or the file system cannot make such a file
_NO_UNNAMED_FILES = (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT)


def _link(descriptor: int, path: Path) -> str:
    """Give the unnamed file a temporary name beside `path`, to rename over it: linkat with
    AT_EMPTY_PATH (Linux 6.10 lets the process that opened it do so), else through /proc as
    open(2) describes for O_TMPFILE; where neither is allowed (a sandbox's /proc), its bytes
    are copied into a named temporary file at once."""
    for _ in range(100):
        # os.urandom as secrets.token_hex draws it: importing secrets loads hashlib and
        # OpenSSL, milliseconds of every command's start for a file few commands write
        name = str(path.parent / f".{path.name}.{os.urandom(4).hex()}{path.suffix}")
        watchdog.holding(name)
        try:
            if _link_empty_path(descriptor, name):
                return name
            os.link(f"/proc/self/fd/{descriptor}", name, follow_symlinks=True)
            return name
        except FileExistsError:
            watchdog.released(name)
        except OSError:
            watchdog.released(name)
            return _copied(descriptor, path)
    raise OSError(errno.EEXIST, "no free temporary name")


def _link_empty_path(descriptor: int, name: str) -> bool:
    """linkat(descriptor, "", AT_FDCWD, name, AT_EMPTY_PATH); False where it is refused."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        at_fdcwd, at_empty_path = -100, 0x1000
        done = libc.linkat(descriptor, b"", at_fdcwd, os.fsencode(name), at_empty_path) == 0
    except (OSError, AttributeError):
        return False
    if not done and ctypes.get_errno() == errno.EEXIST:
        raise FileExistsError(errno.EEXIST, "exists", name)
    return done


def _copied(descriptor: int, path: Path) -> str:
    """A named temporary file beside `path` holding the unnamed file's bytes."""
    target, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix,
                                    dir=path.parent)
    watchdog.holding(name)
    try:
        os.fchmod(target, 0o666 & ~_umask())
        size, offset = os.fstat(descriptor).st_size, 0
        while offset < size:
            sent = os.sendfile(target, descriptor, offset, size - offset)
            if sent == 0:
                raise OSError(errno.EIO, "the new file ended early")
            offset += sent
    except BaseException:
        _remove(name)
        watchdog.released(name)
        raise
    finally:
        os.close(target)
    return name


def _remove(path: str | None) -> None:
    if path is None:
        return
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
