"""Errors are data: a diagnostic has a span, a message and a hint, and renders itself with
the source line and a caret. Every user-facing failure is a KcostError carrying diagnostics."""

from __future__ import annotations

from .ast import Span
from .records import record


@record
class Diagnostic:
    span: Span | None  # None for errors with no place in a file (a missing file, say)
    message: str
    hint: str | None = None

    def render(self, source: str | None) -> str:
        """`file:line:col: error: message`, the source line, a caret under the place, the hint."""
        if self.span is None:
            lines = [f"error: {self.message}"]
        else:
            lines = [f"{self.span}: error: {self.message}"]
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
    source_lines = source.split("\n")
    if not 1 <= span.line <= len(source_lines):
        return []
    text = _printable(source_lines[span.line - 1].removesuffix("\r"))
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
    gutter = f"{span.line:>4} | "
    return [(gutter + text).rstrip(), " " * (len(gutter) + column - 1) + "^" * width]


def _printable(line: str) -> str:
    return "".join(" " if char == "\t" else char if char.isprintable() else "\ufffd"
                   for char in line)


class KcostError(Exception):
    """The one exception the tool raises for bad input: one or more diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic, source: str | None = None):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        self.source = source
        super().__init__(self.render())

    def render(self) -> str:
        return "\n\n".join(d.render(self.source) for d in self.diagnostics)


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
