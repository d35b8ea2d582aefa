"""Where a key stands in a TOML file, for machine-file errors with a line, column and caret.

tomllib reports positions only for syntax errors; a value it parsed has no position. This
reads the text again line by line, following table headers (`[launch]`, `[[compute]]` with
its running index) and `key = value` lines, and maps each dotted key as the machine reader
names it (`id`, `launch.mode`, `compute[2].peak_FLOPps`) to its place. Machine files are flat,
so a line scan suffices; a key it cannot find (a multi-line value, an inline table) falls back
to its table's header, then to no place at all.

The shipped files are also kept parsed, in each package's `parsed.json` (written by
tools/regen_shipped_toml.py, checked by a test): tomllib reads about 15 kB a millisecond, and
`--machine all` reads eight machines. A text is taken from there only where its length and
CRC-32 are the ones recorded (zlib is loaded already; hashlib costs more to import than the
parsing it would save), so an edited file is read as it stands."""

from __future__ import annotations

import functools
import importlib
import json
import re
import zlib
from pathlib import Path

from .errors import Diagnostic, ErrorCode, error_for
from .inputs import read_text
from .tree import Span

_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')\s*=\s*")
_SYNTAX_PLACE = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_SYNTAX_END = re.compile(r"\s*\(at end of document\)\s*$")


def key_places(text: str, keys: bool = False) -> dict[str, tuple[int, int, int]]:
    """{dotted key: (line, first column of the value, column after the value)}, 1-based, or
    of the key itself when `keys`; table names map to their header line."""
    places: dict[str, tuple[int, int, int]] = {}
    counts: dict[str, int] = {}
    prefix = ""
    for number, line in enumerate(text.split("\n"), start=1):
        header = _HEADER.match(line)
        if header:
            name = header.group(2).strip().strip("\"'")
            if header.group(1) == "[[":
                index = counts.get(name, 0)
                counts[name] = index + 1
                prefix = f"{name}[{index}]"
                places.setdefault(name, (number, 1, len(line.rstrip()) + 1))
            else:
                prefix = name
            places.setdefault(prefix, (number, 1, len(line.rstrip()) + 1))
            continue
        key = _KEY.match(line)
        if key:
            name = key.group(1).strip("\"'")
            value = line[key.end():]
            value = value.split(" #", 1)[0].rstrip() if not value.startswith(("\"", "'")) \
                else value.rstrip()
            start = key.end() + 1
            end = start + max(1, len(value))
            if keys:
                start = key.start(1) + 1
                end = key.end(1) + 1
            places.setdefault(f"{prefix}.{name}" if prefix else name, (number, start, end))
    return places


def place_of(text: str, filename: str, where: str, key: bool = False) -> Span | None:
    """The span of the value of `where` (of the key itself when `key`), else of its
    enclosing table, else None."""
    places = key_places(text, key)
    candidate = where
    while candidate:
        if candidate in places:
            line, start, end = places[candidate]
            return Span(filename, line, start, line, end)
        if "." in candidate:
            candidate = candidate.rsplit(".", 1)[0]
        elif candidate.endswith("]"):
            candidate = candidate[:candidate.rindex("[")]
        else:
            break
    return None


def missing_place(text: str, filename: str, where: str) -> Span:
    """Where a missing key belongs: its table (place_of), the figure a missing `x_source`
    would give the source of, else where it could be added: before the first table (a
    top-level key), or at the end of the file."""
    span = place_of(text, filename, where) or (
        place_of(text, filename, where.removesuffix("_source"), key=True)
        if where.endswith("_source") else None)
    if span is not None:
        return span
    lines = text.split("\n")
    if "." not in where and "[" not in where:  # a top-level key goes before the first table
        first_table = next((number for number, line in enumerate(lines, start=1)
                            if _HEADER.match(line)), None)
        if first_table is not None:
            return Span(filename, first_table, 1, first_table, 2)
    line = len(lines) if lines[-1] or len(lines) == 1 else len(lines) - 1
    return Span(filename, line, 1, line, 2)


def syntax_place(message: str, text: str, filename: str) -> tuple[str, Span | None]:
    """A tomllib error message without its `(at line L, column C)` tail, and that place."""
    match = _SYNTAX_PLACE.search(message)
    if match:
        line, column = int(match.group(1)), int(match.group(2))
        return message[:match.start()], Span(filename, line, column, line, column + 1)
    match = _SYNTAX_END.search(message)
    if match:
        lines = text.split("\n")
        line = len(lines)
        column = len(lines[-1]) + 1
        return message[:match.start()], Span(filename, line, column, line, column + 1)
    return message, None


@functools.cache
def _folder(package: str) -> Path:
    """Where a package of shipped files lies: importlib.resources and tomllib cost more to
    import (about 5 ms) than reading the few files they would serve."""
    file = importlib.import_module(package).__file__
    assert file is not None  # each a regular package, with its __init__.py
    return Path(file).parent


def shipped_ids(package: str) -> list[str]:
    """Ids of the TOML files shipped in a package (`kernelcost.machines`), sorted."""
    return list(_shipped(package))


@functools.cache
def _shipped(package: str) -> tuple[str, ...]:
    return tuple(sorted(path.name.removesuffix(".toml") for path in _folder(package).iterdir()
                        if path.name.endswith(".toml")))


def shipped_or_file(name_or_path: str | Path, package: str, max_bytes: int,
                    what: str) -> tuple[str, str] | None:
    """(text, name for errors) of a shipped file by id (`h100`) or of a file by path; None
    when it is neither."""
    name = str(name_or_path)
    if name.lower() in _shipped(package):
        resource = _folder(package) / f"{name.lower()}.toml"
        return (resource.read_text(encoding="utf-8"),
                f"{package.replace('.', '/')}/{name.lower()}.toml")
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        return read_text(str(path), max_bytes, what), str(path)
    return None


SHIPPED_PACKAGES = ("kernelcost.machines", "kernelcost.models", "kernelcost.topologies")
PARSED_FILE = "parsed.json"  # {text_digest of a shipped file's text: its tables}


def text_digest(text: str) -> str:
    """The text's length and CRC-32 of its UTF-8 bytes: `17658:1a2b3c4d`."""
    data = text.encode("utf-8")
    return f"{len(data)}:{zlib.crc32(data):08x}"


@functools.cache
def _parsed_shipped() -> dict[str, dict]:
    parsed = {}
    for package in SHIPPED_PACKAGES:
        resource = _folder(package) / PARSED_FILE
        if resource.is_file():
            parsed.update(json.loads(resource.read_text(encoding="utf-8")))
    return parsed


def _fresh(value):
    """A copy of parsed tables, so that no caller can change the kept ones."""
    if isinstance(value, dict):
        return {key: _fresh(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_fresh(item) for item in value]
    return value


MAX_TOML_DEPTH = 64  # brackets and braces open at once; a machine or model file needs 3


def too_deep(text: str) -> tuple[int, int] | None:
    """(line, column) of the first `[` or `{` nested more than MAX_TOML_DEPTH deep, outside
    strings and comments; None when there is none. tomllib reads nesting by recursion, so a
    deep file would end in a RecursionError, with no place; this finds the place first."""
    depth, line, start, index, size = 0, 1, 0, 0, len(text)
    while index < size:
        char = text[index]
        if char == "\n":
            line, start = line + 1, index + 1
        elif char == "#":
            index = text.find("\n", index)
            if index < 0:
                return None
            continue
        elif char in "\"'":
            quote = text[index:index + 3] if text[index:index + 3] in ('"""', "'''") else char
            end = _string_end(text, index + len(quote), quote)
            line += text.count("\n", index, end)
            start = text.rfind("\n", 0, end) + 1 if "\n" in text[index:end] else start
            index = end
            continue
        elif char in "[{":
            depth += 1
            if depth > MAX_TOML_DEPTH:
                return line, index - start + 1
        elif char in "]}":
            depth = max(0, depth - 1)
        index += 1
    return None


def _string_end(text: str, index: int, quote: str) -> int:
    """The index after the string that opened with `quote` and goes on from `index`."""
    escapes = quote[0] == '"'
    while index < len(text):
        if escapes and text[index] == "\\":
            index += 2
            continue
        if text.startswith(quote, index):
            return index + len(quote)
        if len(quote) == 1 and text[index] == "\n":  # a one-line string ends at its line
            return index
        index += 1
    return len(text)


def toml_data(text: str, path: str, what: str, code: ErrorCode) -> dict:
    """The tables of a TOML text (of a shipped file, as kept parsed); a syntax error at its
    line and column, and a file nested too deeply for the reader, as errors of `code` (the
    machine or the model file's)."""
    kept = _parsed_shipped().get(text_digest(text))
    if kept is not None:
        return _fresh(kept)
    deep = too_deep(text)
    if deep is not None:
        line, column = deep
        raise error_for(code, Diagnostic(
            Span(path, line, column, line, column + 1),
            f"the {what} nests arrays or tables more than {MAX_TOML_DEPTH} deep here",
            f"a {what} is flat: tables of numbers and strings"), text)
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message, span = syntax_place(str(error), text, path)
        where = "" if span else f"{path}: "
        raise error_for(code, Diagnostic(span, f"{where}not valid TOML: {message}"),
                        text) from None
    except ValueError:  # Python's limit on an integer's digits (4,300), not a TOMLDecodeError
        found = re.search(r"[0-9][0-9_]{4299,}", text)
        start = 0 if found is None else found.start()
        line = text.count("\n", 0, start) + 1
        column = start - text.rfind("\n", 0, start)
        digits = 0 if found is None else len(found.group().replace("_", ""))
        raise error_for(code, Diagnostic(
            Span(path, line, column, line, column + 1),
            f"an integer of {digits:,} digits, more than Python reads (4,300)",
            f"no figure of a {what} needs that many digits"),
            text) from None
    except RecursionError:
        raise error_for(code, Diagnostic(None, f"{path}: the {what} nests arrays or tables too "
                                               "deeply to read",
                                         f"a {what} is flat: tables of numbers and strings")
                        ) from None
    return data


# C0 and C1 controls (an escape `\u001b[31m` recolours the terminal a name is printed on, a
# newline splits a table's row) and the bidirectional overrides and isolates, which reorder
# the text printed after them
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def refuse_control_characters(data: dict, text: str, path: str, what: str,
                              code: ErrorCode) -> None:
    """An error of `code` (the file's bad value) at the first string of the document that
    holds a control character."""
    stack: list[tuple[str, object]] = [("", data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{where}.{key}" if where else key, item)
                         for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{where}[{index}]", item)
                         for index, item in reversed(list(enumerate(value))))
        elif isinstance(value, str) and _CONTROLS.search(value):
            found = _CONTROLS.search(value)
            assert found is not None
            raise error_for(code, Diagnostic(
                place_of(text, path, where), f"`{where}` holds the control character "
                f"U+{ord(found.group()):04X} at its character {found.start() + 1}",
                f"a {what}'s text is printed as it is written: give it without escapes of "
                "control characters"), text)
