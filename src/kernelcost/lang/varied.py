"""What `tune --vary` varies, each name with its own values, placed in the option's text:

    --vary TM=16..512:16,TN=16..512/16,TK=32,64,stages=1..8,raster=row,column,grouped
    --vary TM,TN,TK            (the older form: every name takes --values)

A piece with `=` starts a name; a piece after it that is a number or a range (or, after
`raster=`, a raster order) is another value of that name; a bare name takes the values of
--values. A range LOW..HIGH runs in steps of STEP (`:STEP` or `/STEP`), of LOW without one.
Every number is a whole number from 1 to 2^53, and a name takes at most MAX_VALUES values."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..base.errors import Code, Diagnostic, SizeError
from ..base.kinds import Raster
from ..base.records import record
from ..base.tree import Span
from .settings import FLOAT_SIZES, MAX_FLOAT_SIZE
from .sizerange import MAX_VALUES, refuse_other_digits

OPTION = "--vary"
RASTER = "raster"  # the name whose values are raster orders
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_RANGE = re.compile(r"(\d+)\s*\.\.\s*(\d+)\s*(?:[:/]\s*(\d+))?")
_NUMBER = re.compile(r"\d+")


@record
class Varied:
    name: str  # a size parameter, a schedule setting's word, or `raster`
    values: tuple[int, ...] | None  # None: the values of --values
    span: Span  # the name in the option's text
    rasters: tuple[Raster, ...] = ()  # for `raster`


def parse_vary(text: str) -> tuple[Varied, ...]:
    """The names of `--vary` with their values (module doc); a SizeError placed on the
    piece that cannot be read."""
    refuse_other_digits(OPTION, text)
    found: list[Varied] = []
    for word, span in _pieces(OPTION, text):
        start = span.column
        if not word:
            raise _refuse(text, span, "an empty piece", "separate names and values by one "
                                                        "comma: TM=16..512:16,TK=32,64")
        name, equals, rest = word.partition("=")
        name, rest = name.strip(), rest.strip()
        if equals:
            if not _NAME.fullmatch(name):
                raise _refuse(text, span, f"`{name}` is not a name",
                              "write NAME=VALUES, for example TM=16..512:16")
            found.append(Varied(name, (), Span(OPTION, 1, start, 1, start + len(name))))
            values_span = Span(OPTION, 1, start + word.index("=") + 1, 1, span.end_column)
            found[-1] = _with_value(found[-1], rest, text, values_span)
        elif found and found[-1].values is not None and (_NUMBER.fullmatch(word) or
                                                         _RANGE.fullmatch(word) or
                                                         found[-1].name == RASTER):
            found[-1] = _with_value(found[-1], word, text, span)
        elif _NAME.fullmatch(word):
            found.append(Varied(word, None, span))
        else:
            raise _refuse(text, span, f"cannot read `{word}`",
                          "write NAME=LOW..HIGH:STEP or NAME=V1,V2, for example TM=16..512:16")
    seen: set[str] = set()
    for each in found:
        if each.name in seen:
            raise _refuse(text, each.span, f"`{each.name}` is varied twice",
                          "give each name once, with all its values")
        seen.add(each.name)
        if each.values is not None and len(each.values) > MAX_VALUES:
            raise _refuse(text, each.span, f"`{each.name}` takes {len(each.values):,} values, "
                          f"more than {MAX_VALUES:,}", "give a larger STEP")
    return tuple(found)


def _with_value(varied: Varied, word: str, text: str, span: Span) -> Varied:
    """The varied name with the values one piece adds."""
    if varied.name == RASTER:
        if word not in tuple(Raster):
            raise _refuse(text, span, f"`{word}` is not a raster order",
                          "raster orders: " + ", ".join(Raster))
        if Raster(word) in varied.rasters:
            raise _refuse(text, span, f"raster `{word}` is given twice", "give each once")
        return Varied(varied.name, (), varied.span, (*varied.rasters, Raster(word)))
    match = _RANGE.fullmatch(word)
    if match:
        low, high = int(match.group(1)), int(match.group(2))
        step = int(match.group(3) or low or 1)
        if not 0 < low <= high or step <= 0:
            raise _refuse(text, span, f"`{word}`: a range needs 0 < LOW <= HIGH and a "
                          "positive STEP", "for example 16..512:16")
        if (high - low) // step + 1 > MAX_VALUES:
            raise _refuse(text, span, f"`{word}` gives {(high - low) // step + 1:,} values, "
                          f"more than {MAX_VALUES:,}", "give a larger STEP")
        added = tuple(range(low, high + 1, step))
    elif _NUMBER.fullmatch(word):
        added = (int(word),)
        if added[0] <= 0:
            raise _refuse(text, span, f"`{word}` is not positive", "sizes are at least 1")
    else:
        raise _refuse(text, span, f"cannot read the values `{word}`",
                      "write LOW..HIGH:STEP, LOW..HIGH/STEP or a whole number")
    if max(added) > MAX_FLOAT_SIZE:
        raise _refuse(text, span, f"`{word}` goes beyond {FLOAT_SIZES}",
                      "give values of at most 2^53")
    values = tuple(sorted({*(varied.values or ()), *added}))
    return Varied(varied.name, values, varied.span)


def _pieces(option: str, text: str) -> Iterator[tuple[str, Span]]:
    """Each comma-separated piece of an option's text, stripped, with its place (at least
    one column wide, so that an empty piece has a caret)."""
    column = 1
    for piece in text.split(","):
        start = column + len(piece) - len(piece.lstrip())
        column += len(piece) + 1
        word = piece.strip()
        yield word, Span(option, 1, start, 1, start + max(len(word), 1))


def parse_values(option: str, text: str, most: int) -> tuple[int, ...]:
    """An option's whole numbers from 1 to `most`, written as --vary writes a name's values
    (`--batch 1..512`, `--context 128..32768:128,65536`), sorted, each once; a SizeError
    placed on the piece that cannot be read, or that gives more than MAX_VALUES values."""
    refuse_other_digits(option, text)
    found: set[int] = set()
    for word, span in _pieces(option, text):
        match = _RANGE.fullmatch(word)
        if match:
            low, high = int(match.group(1)), int(match.group(2))
            step = int(match.group(3) or low or 1)
            if not 0 < low <= high or step <= 0:
                raise _refused(option, text, span, f"`{word}`: a range needs 0 < LOW <= HIGH "
                               "and a positive STEP", "for example 128..32768:128")
            if (high - low) // step + 1 > MAX_VALUES:
                raise _refused(option, text, span, f"`{word}` gives {(high - low) // step + 1:,}"
                               f" values, more than {MAX_VALUES:,}", "give a larger STEP")
            added = range(low, high + 1, step)
        elif _NUMBER.fullmatch(word):
            added = range(int(word), int(word) + 1)
        else:
            raise _refused(option, text, span, f"cannot read `{word:.20}`",
                           "whole numbers and ranges LOW..HIGH:STEP, separated by commas: "
                           "1,8,64 or 1..512 or 128..32768:128")
        if added[0] < 1 or added[-1] > most:
            raise _refused(option, text, span, f"`{word}` is not between 1 and {most:,}",
                           f"give values from 1 to {most:,}")
        found.update(added)
        if len(found) > MAX_VALUES:
            raise _refused(option, text, span, f"more than {MAX_VALUES:,} values",
                           "give a larger STEP")
    return tuple(sorted(found))


def _refuse(text: str, span: Span, message: str, hint: str) -> SizeError:
    return _refused(OPTION, text, span, message, hint)


def _refused(option: str, text: str, span: Span, message: str, hint: str) -> SizeError:
    return SizeError(Code.BAD_RANGE, Diagnostic(span, f"{option}: {message}", hint), text)


def value_span(option: str, text: str, value: int) -> Span:
    """Where an option's text (parse_values's) gives `value`: its number, or the range that
    holds it; the whole text where no piece does."""
    for word, span in _pieces(option, text):
        match = _RANGE.fullmatch(word)
        held = match is not None and int(match.group(1)) <= value <= int(match.group(2))
        if word == str(value) or held:
            return span
    return Span(option, 1, 1, 1, max(2, len(text) + 1))
