"""Errors are data: a diagnostic has a span, a message, a hint and a stable code, and renders
itself with the source line and a caret. Every user-facing failure is a KcostError (of the
subclass of its code's family) carrying diagnostics; the codes are in error_codes and
docs/errors.md."""

from __future__ import annotations

import dataclasses
import functools

from .error_codes import FAMILIES, Code, ErrorCode
from .records import record
from .tree import MAX_NAME_LENGTH, Span

__all__ = ["BudgetError", "Code", "Diagnostic", "ErrorCode", "InputOutputError",
           "InternalError", "KcostError", "MachineFileError", "MeasurementError",
           "ModelFileError", "SizeError", "SpecCheckError", "SpecSyntaxError", "error_for",
           "option_span", "placed", "quoted"]


@record
class Diagnostic:
    span: Span | None  # None for errors with no place in a file (a missing file, say)
    message: str
    hint: str | None = None
    code: ErrorCode | None = None  # the checker's own; else the code of the error raised

    def render(self, source: str | None, label: str = "error") -> str:
        """`file:line:col: error[KC203]: message`, the source line, a caret under the place,
        the hint. The place stays first, as compilers write it, for editors that jump to it."""
        tag = f"{label}[{self.code}]" if self.code else label
        if self.span is None:
            lines = [f"{tag}: {self.message}"]
        else:
            lines = [f"{self.span}: {tag}: {self.message}"]
            excerpt = _excerpt(source, self.span)
            if excerpt:
                lines.extend(excerpt)
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


EXCERPT_WIDTH = 100  # columns of a long source line shown around an error


def _excerpt(source: str | None, span: Span) -> list[str]:
    """The span's source line and a caret line under it. Lines are split on "\\n" only, as
    the parser counts them; tabs and control characters become one visible character each so
    that the caret stays under the column the parser reported."""
    if source is None:
        return []
    source_lines = _lines(source)
    if not 1 <= span.line <= len(source_lines):
        return []
    text = source_lines[span.line - 1].removesuffix("\r")
    width = 1
    if span.end_line == span.line and span.end_column > span.column:
        width = span.end_column - span.column
    width = max(1, min(width, len(text) - span.column + 1))
    column = span.column
    if len(text) > EXCERPT_WIDTH:  # show a window around the place, not a 10,000-column line
        start = max(0, min(column - 1 - EXCERPT_WIDTH // 2, len(text) - EXCERPT_WIDTH))
        window = text[start:start + EXCERPT_WIDTH]
        prefix = "…" if start > 0 else ""
        suffix = "…" if start + EXCERPT_WIDTH < len(text) else ""
        text = prefix + window + suffix
        column = column - start + len(prefix)
        width = max(1, min(width, EXCERPT_WIDTH - (column - 1 - len(prefix))))
    text = _printable(text)  # one character for one: the window first, on a long line
    gutter = f"{span.line:>4} | "
    return [(gutter + text).rstrip(), " " * (len(gutter) + column - 1) + "^" * width]


@functools.lru_cache(maxsize=4)
def _lines(source: str) -> list[str]:
    """The source's lines, split once for all its diagnostics (a spec with thousands of
    errors renders each against the same lines)."""
    return source.split("\n")


def _printable(line: str) -> str:
    return "".join(" " if char == "\t" else char if char.isprintable() else "\ufffd"
                   for char in line)


MAX_DIAGNOSTICS = 100  # shown of one error; the rest are counted


class KcostError(Exception):
    """Bad input (or, as InternalError, a bug): one or more diagnostics under a stable code.
    `except KcostError` catches every family; a script tests `error.code`."""

    family = "input"
    exit_code = 2  # the command line's: 2 bad input, 3 a bug
    label = "error"

    def __init__(self, code: ErrorCode, diagnostics: list[Diagnostic] | Diagnostic,
                 source: str | None = None):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        if len(diagnostics) > MAX_DIAGNOSTICS:  # the first ones say what is wrong
            more = len(diagnostics) - MAX_DIAGNOSTICS
            diagnostics = [*diagnostics[:MAX_DIAGNOSTICS], Diagnostic(
                None, f"{more:,} more errors like these", "fix the ones above and run again",
                code)]
        self.code = code
        self.diagnostics = [d if d.code else Diagnostic(d.span, d.message, d.hint, code)
                            for d in diagnostics]
        self.source = source
        super().__init__(self.render())

    def render(self) -> str:
        return "\n\n".join(d.render(self.source, self.label) for d in self.diagnostics)

    def as_json(self) -> dict:
        """The JSON error object `--json` prints: the first diagnostic's fields, then all."""
        first = self.diagnostics[0]
        return {"error": {"code": str(self.code), "family": self.code.family,
                          "summary": self.code.summary, "exit_code": self.exit_code,
                          **_diagnostic_json(first),
                          "diagnostics": [_diagnostic_json(d) for d in self.diagnostics]}}


def _diagnostic_json(diagnostic: Diagnostic) -> dict:
    span = diagnostic.span
    place = None if span is None else {
        "file": span.file, "line": span.line, "column": span.column,
        "end_line": span.end_line, "end_column": span.end_column}
    return {"code": str(diagnostic.code), "message": diagnostic.message,
            "hint": diagnostic.hint, "place": place}


class SpecSyntaxError(KcostError):
    family = "syntax"


class SpecCheckError(KcostError):
    family = "check"


class SizeError(KcostError):
    family = "size"


class MachineFileError(KcostError):
    family = "machine"


class ModelFileError(KcostError):
    family = "model"


class MeasurementError(KcostError):
    family = "measurement"


class BudgetError(KcostError):
    family = "budget"


class InputOutputError(KcostError):
    family = "io"


class InternalError(KcostError):
    family = "internal"
    exit_code = 3
    label = "internal error"


FAMILY_CLASSES: dict[str, type[KcostError]] = {
    cls.family: cls for cls in (SpecSyntaxError, SpecCheckError, SizeError, MachineFileError,
                                ModelFileError, MeasurementError, BudgetError,
                                InputOutputError, InternalError)}
assert set(FAMILY_CLASSES) == {name for name, _ in FAMILIES.values()}


def error_for(code: ErrorCode, diagnostics: list[Diagnostic] | Diagnostic,
              source: str | None = None) -> KcostError:
    """The error of `code`'s family, for code shared by families (TOML of machines and of
    models)."""
    return FAMILY_CLASSES[code.family](code, diagnostics, source)


def placed(error: KcostError, span: Span, source: str) -> KcostError:
    """`error` placed at `span` in `source` (an option's value) where none of its
    diagnostics has a place: raised by a stage that got the value as a number, not as the
    text the user wrote. An error with a place of its own is returned as it is."""
    if any(d.span is not None for d in error.diagnostics):
        return error
    diagnostics = [dataclasses.replace(d, span=span) for d in error.diagnostics]  # codes kept
    return type(error)(error.code, diagnostics, source)


def option_span(option: str, text: str) -> Span:
    """The whole value of a command-line option, as the place of an error about it."""
    return Span(option, 1, 1, 1, max(2, len(text) + 1))


def closest(name: str, candidates) -> str | None:
    """The candidate a typo most likely meant, for 'did you mean' hints."""
    import difflib

    candidates = sorted(set(candidates))
    exact_case = [c for c in candidates if c.lower() == name.lower()]
    if exact_case:
        return exact_case[0]
    matches = difflib.get_close_matches(name, candidates, n=1, cutoff=0.5)
    return matches[0] if matches else None


def did_you_mean(name: str, candidates) -> str | None:
    match = closest(name, candidates)
    if match is None:
        return None
    return f"did you mean `{match}`?"


def quoted(value: object, width: int = 20) -> str:
    """A user's value as an error shows it, in quotes, cut to `width` characters with `…`
    inside the quotes: `{text!r:.20}` cut the closing quote off a long value."""
    text = repr(value)
    if len(text) <= width:
        return text
    if isinstance(value, str):
        cut = repr(value[:max(1, width - 3)])
        return cut[:-1] + "…" + cut[-1]
    return text[:width - 1] + "…"


def too_long_a_name(value: str) -> tuple[str, str] | None:
    """The message and hint refusing a file's `name` past MAX_NAME_LENGTH, else None."""
    if len(value) <= MAX_NAME_LENGTH:
        return None
    return (f"{quoted(value, 40)} is {len(value):,} characters long",
            f"a name has at most {MAX_NAME_LENGTH} characters: every sentence about it "
            "prints it whole")
