"""The page: what is printed fits the width of the terminal. A sentence wraps between words,
never inside one, with a number kept on the line of its unit; a table keeps every row on one
line by leaving out its optional columns, the last first, and says that `--wide` shows them."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...base.records import record

if TYPE_CHECKING:
    from rich.console import JustifyMethod

# a non-breaking space: textwrap breaks only at ASCII whitespace, so the pairs it joins stay
# on one line
_JOIN = "\u00a0"
_UNIT_AFTER_NUMBER = re.compile(
    r"(?<=[\d∞]) (?=(?:[kMGTPEmµn]|[KMGT]i)?"
    r"(?:FLOP/s|FLOP/B|FLOP|OP/s|B/s|B|s|%|cycles|words|elements|registers)(?![\w/]))")
_RELATION = re.compile(r" (=|>=|<=|→) (?=\S)")
# `statement  acc[i] += ...`: a label, then two spaces or more; its continuation lines start
# under the text after the label
_LABEL = re.compile(r"(\s*)(\S+ {2,})?")


def wrap(line: str, width: int | None) -> str:
    """One line of prose fitted to `width` columns (None: as it is). The continuation lines
    hang under the text after a label (`program    maximise ...`), or two columns in."""
    if width is None or len(line) <= width:
        return line
    joined = _RELATION.sub(lambda m: f"{_JOIN}{m.group(1)}{_JOIN}",
                           _UNIT_AFTER_NUMBER.sub(_JOIN, line))
    matched = _LABEL.match(line)
    assert matched is not None  # every part of the pattern may be empty
    indent, label = matched.groups()
    hang = len(indent) + (len(label) if label else 2)
    lines = textwrap.wrap(joined, width=width, subsequent_indent=" " * hang,
                          break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines).replace(_JOIN, " ")


def wrap_lines(lines, width: int | None) -> str:
    return "\n".join(wrap(line, width) for line in lines)


@record
class Column:
    """A table column: its header (a unit on a second line), its justification, and whether
    a narrow page may leave it out."""

    header: str
    justify: JustifyMethod = "left"
    optional: bool = False


def fitted_table(title: str, columns: list[Column], rows: Sequence[Sequence[str | None]],
                 width: int | None):
    """A rich Table whose rows are one line each: the optional columns that do not fit
    `width` are left out, the last first (None: every column). Returns the table and the
    headers left out."""
    content = _content_widths(columns, rows)
    kept, left_out = _kept(columns, content, width)
    return _table(title, columns, rows, {index: content[index] for index in kept}), left_out


def _kept(columns: list[Column], content: list[int],
          width: int | None) -> tuple[list[int], list[str]]:
    """The columns kept, the optional ones that do not fit left out (the last first), and
    the headers of those left out."""
    kept = list(range(len(columns)))
    optional = [index for index, column in enumerate(columns) if column.optional]
    while width is not None and optional and _natural_width(
            [content[index] for index in kept]) > width:
        kept.remove(optional.pop())
    return kept, [columns[index].header.replace("\n", " ") for index in range(len(columns))
                  if index not in kept]


def noted_table(title: str, columns: list[Column], rows: Sequence[Sequence[str | None]],
                width: int | None, noted: Sequence[int]):
    """fitted_table, and where the kept columns still do not fit, the longest cells of the
    `noted` columns (formulas, names; the first column first) moved under the table as notes,
    `[1] N = 19800*K*M/(...)`, a mark in their place, until the table fits: no cell is cut.
    Returns the table, the headers left out and the notes (the same cell, one note)."""
    cells: list[list[str]] = [["" if cell is None else cell for cell in row] for row in rows]
    content = _content_widths(columns, cells)
    kept, left_out = _kept(columns, content, width)
    moved: dict[int, set[str]] = {column: set() for column in noted}
    for column in noted:
        while width is not None and _natural_width([content[i] for i in kept]) > width:
            longest = max((row[column] for row in cells
                           if row[column] not in moved[column]), key=_cells, default="")
            if _cells(longest) <= _cells(columns[column].header) + 4:
                break
            moved[column].add(longest)
            content[column] = max(_cells(columns[column].header), 4, *(
                _cells(row[column]) for row in cells if row[column] not in moved[column]))
    marks: dict[str, str] = {}  # numbered in the order of the rows
    for row in cells:
        for column in noted:
            if row[column] in moved[column]:
                row[column] = marks.setdefault(row[column], f"[{len(marks) + 1}]")
    if marks and width is not None:  # as wide as the page, so that the title fits on it
        content[noted[0]] += max(0, width - _natural_width([content[i] for i in kept]))
    table = _table(title, columns, cells, {index: content[index] for index in kept})
    return table, left_out, [f"{mark} {cell}" for cell, mark in marks.items()]


def left_out_note(left_out: list[str]) -> str | None:
    """`(--wide adds: attainable FLOP/s)`, or None when every column is shown."""
    return f"(--wide adds: {', '.join(left_out)})" if left_out else None


def _table(title: str, columns: list[Column], rows: Sequence[Sequence[str | None]],
           kept: dict[int, int]):
    """The kept columns (index -> content width): each is as wide as its widest cell, as
    rich would measure it, so rich measures no cell again."""
    from rich import box
    from rich.table import Table

    # no outer frame, a rule under the header: four columns more than a boxed table
    table = Table(title=_text(title), title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                  pad_edge=False)
    for index, content in kept.items():
        table.add_column(_text(columns[index].header), justify=columns[index].justify,
                         no_wrap=True, width=content)
    for row in rows:
        table.add_row(*[_text(row[index]) for index in kept])
    return table


def _text(cell):
    """A cell or header as rich Text, its characters as they are: a formula's `[` is no
    markup tag (rich reads a str as markup and emoji codes). None is empty, as add_row takes
    it."""
    from rich.text import Text

    return cell if isinstance(cell, Text) else Text("" if cell is None else cell)


def _content_widths(columns: list[Column],
                    rows: Sequence[Sequence[str | None]]) -> list[int]:
    """The widest cell of each column, header included, as rich measures a Text: its
    longest line in terminal cells (`_table` makes every cell a Text)."""
    return [max(_cells(cell) for cell in (column.header, *(row[index] for row in rows)))
            for index, column in enumerate(columns)]


def _cells(cell) -> int:
    from rich.cells import cell_len

    text = "" if cell is None else getattr(cell, "plain", cell)
    return max((cell_len(line) for line in text.splitlines()), default=0)


def _natural_width(content: list[int]) -> int:
    """The width of a table of `_table`'s style with columns this wide: a space of padding
    on each side of a column but the outer two, and a one-column rule between columns."""
    return sum(content) + 3 * max(len(content) - 1, 0)
