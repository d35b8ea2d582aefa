"""Sizes from options: a range to sweep (`N=64..65536`), spaced over `points` values, a chunk
at a time for long sweeps (`sweep`, `plot --sweep`, `phase`'s axes), and the values and names
`tune` varies (`--values 16..512:16`, `--vary TM,TN`); every error placed on the option's
text."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import NoReturn

import numpy

from ..base.errors import Code, Diagnostic, SizeError, option_span
from ..base.magnitude import MAX_LITERAL_DIGITS
from ..base.records import record
from ..base.tree import Span
from .settings import FLOAT_SIZES, MAX_FLOAT_SIZE

DEFAULT_POINTS = 20
MAX_POINTS = 10**10  # hours of CSV; more is a typo
CHUNK_POINTS = 65_536  # sizes evaluated and written at a time: under 50 MB of arrays

_RANGE = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=\s*([^.\s][^\s]*?)\s*\.\.\s*(\S+)\s*$")


@record
class SizeRange:
    """The sizes of one parameter to sweep: `points` values from `low` to `high`, equally
    spaced, or geometrically spaced when `log`. Integer sizes are rounded to the nearest
    multiple of `step` (the spec's `assume T | N` makes N a multiple of T) in the range, and
    deduplicated: 1..1000 at a step of 1024 holds none (`multiples` is then 0)."""

    parameter: str
    low: float
    high: float
    points: int = DEFAULT_POINTS
    log: bool = False
    integer: bool = True
    step: int = 1

    def values(self) -> numpy.ndarray:
        if self._every_multiple():
            first, count = self._multiples()
            return first + float(self.step) * numpy.arange(count, dtype=float)
        if self.log:
            sizes = numpy.geomspace(self.low, self.high, self.points)
        else:
            sizes = numpy.linspace(self.low, self.high, self.points)
        return self._rounded(sizes)

    def _rounded(self, sizes: numpy.ndarray) -> numpy.ndarray:
        if not self.integer:
            return sizes
        first, last = self._multiple_bounds()
        return numpy.unique(numpy.clip(numpy.rint(sizes / float(self.step)), first, last)
                            * float(self.step)) if last >= first else numpy.empty(0)

    def with_step(self, step: int) -> SizeRange:
        return replace(self, step=step) if self.integer else self

    @property
    def made(self) -> int:
        """How many sizes are made before rounding merges them: `points`, or the multiples
        of the step in the range where the points are denser than those."""
        return self._multiples()[1] if self._every_multiple() else self.points

    def _every_multiple(self) -> bool:
        """Whether integer points lie closer than one step everywhere, so that rounded they
        are every multiple of the step from the first to the last (two points less than a
        step apart round at most one step apart): those are then made directly, in time and
        memory that do not grow with the points (10^10 points over 1..10^6)."""
        if not self.integer or self.points <= 2:
            return False
        if self.log:  # the widest gap is the last
            widest = self.high * (1 - (self.low / self.high) ** (1 / (self.points - 1)))
        else:
            widest = (self.high - self.low) / (self.points - 1)
        return widest < self.step and self._multiples()[1] < self.points

    def _multiples(self) -> tuple[float, int]:
        """The first multiple of the step in the range, and how many there are."""
        first, last = self._multiple_bounds()
        return first * float(self.step), max(int(last - first) + 1, 0)

    def _multiple_bounds(self) -> tuple[float, float]:
        """The least and the largest k with k step in the range (and k >= 1): a size past the
        range's ends, 1024 for 1..1000, is not one the user asked for."""
        step = float(self.step)
        return max(math.ceil(self.low / step), 1.0), float(math.floor(self.high / step))

    @property
    def multiples(self) -> int:
        """How many multiples of the step the range holds (integer sizes)."""
        return self._multiples()[1] if self.integer else self.points

    def chunk_count(self, length: int = CHUNK_POINTS) -> int:
        return -(-self.made // length)

    def chunks(self, length: int = CHUNK_POINTS):
        """The same sizes as values(), `length` points at a time (chunk_count() arrays), so
        that memory stays bounded whatever the point count. Rounded sizes are deduplicated
        across chunk edges too: a chunk whose sizes all round onto earlier ones is empty."""
        if self.made <= length:
            yield self.values()
            return
        if self._every_multiple():
            first, count = self._multiples()
            for start in range(0, count, length):
                yield first + float(self.step) * numpy.arange(start, min(start + length, count),
                                                              dtype=float)
            return
        last = None
        for start in range(0, self.points, length):
            index = numpy.arange(start, min(start + length, self.points), dtype=float)
            fraction = index / (self.points - 1)
            if self.log:
                sizes = self.low * (self.high / self.low) ** fraction
            else:
                sizes = self.low + (self.high - self.low) * fraction
            if start + length >= self.points:
                sizes[-1] = self.high  # exact at the end, as numpy's spacing functions are
            if self.integer:
                sizes = self._rounded(sizes)
                if last is not None:
                    sizes = sizes[sizes > last]
                if len(sizes):
                    last = sizes[-1]
            yield sizes

    def ends(self, count: int) -> tuple[numpy.ndarray, numpy.ndarray, int]:
        """The first `count` and the last `count` sizes of values() and how many there are,
        a chunk at a time (a table's summary of 10^8 points). The two overlap when there
        are fewer than 2 count sizes."""
        first, last, total = numpy.empty(0), numpy.empty(0), 0
        for sizes in self.chunks():
            total += len(sizes)
            if len(first) < count:
                first = numpy.concatenate([first, sizes[:count - len(first)]])
            last = numpy.concatenate([last, sizes])[-count:]
        return first, last, total

    def dense(self, points: int = 400) -> SizeRange:
        """The same range, geometric and continuous: a smooth path for a figure."""
        return SizeRange(self.parameter, self.low, self.high, points, log=True, integer=False)


def refuse_other_digits(option: str, text: str) -> None:
    """A SizeError placed at the first digit of another script in an option's text (`١٢٨`,
    `１２`): int() and float() read them as numbers, and `--set` refuses them; every option
    reads numbers as `--set` does, in ASCII digits. And at a number of more digits than a
    spec's literal may have: int() refuses past 4,300 digits (a ValueError, exit 3)."""
    for index, char in enumerate(text):
        if char.isnumeric() and not char.isascii():
            raise SizeError(Code.BAD_RANGE, Diagnostic(
                Span(option, 1, index + 1, 1, index + 2),
                f"{option}: `{char}` is not an ASCII digit",
                f"numbers are written with ASCII digits 0-9; {char} is not one"), text)
    long = re.search(rf"[0-9]{{{MAX_LITERAL_DIGITS + 1},}}", text)
    if long is not None:
        raise SizeError(Code.BAD_RANGE, Diagnostic(
            Span(option, 1, long.start() + 1, 1, long.end() + 1),
            f"{option}: a number of {len(long.group()):,} digits",
            f"numbers have at most {MAX_LITERAL_DIGITS} digits, as a spec's do"), text)


def parse_range(text: str, points: int = DEFAULT_POINTS, log: bool = True,
                label: str = "--sweep") -> SizeRange:
    """`N=64..65536` -> SizeRange('N', 64, 65536, points, log). Bounds may be written 1e8.
    Geometric spacing unless `log` is False: sizes span decades, as a roofline's axes do.
    A KcostError placed in the text (`label` names the option) when it is not one."""
    refuse_other_digits(label, text)
    match = _RANGE.match(text)
    if match is None:
        equals = text.find("=")
        column = 1 if equals <= 0 else equals + 2
        raise SizeError(Code.BAD_RANGE, Diagnostic(
            Span(label, 1, column, 1, max(column + 1, len(text) + 1)),
            f"not a size range: `{text}`", "write NAME=LOW..HIGH, for example N=64..65536"),
            text)
    name, low_text, _ = match.groups()
    low, high = (_bound(text, match, group, label) for group in (2, 3))
    if not low >= 1:  # a size under 1 is none: a log plane drew decades of them
        _refuse_bound(text, match, 2, label, "LOW must be at least 1", "sizes are at least 1")
    if not low < high:
        _refuse_bound(text, match, 3, label, "HIGH must be greater than LOW",
                      f"for example {name}={low_text}..{max(2 * low, 2):g}")
    if high > MAX_FLOAT_SIZE:
        _refuse_bound(text, match, 3, label, f"sizes stop at 2^53 = {MAX_FLOAT_SIZE:,}",
                      "swept sizes are doubles, which hold every whole number only up to "
                      "2^53: give a smaller HIGH")
    if not 2 <= points <= MAX_POINTS:
        shown = str(points)
        raise SizeError(Code.TOO_MANY_POINTS, Diagnostic(
            Span("--points", 1, 1, 1, len(shown) + 1),
            f"a sweep takes 2 to {MAX_POINTS:,} points, not {points:,}",
            "10^8 points already make 12 GB of CSV" if points > MAX_POINTS else
            f"a sweep's points include both ends of {name}'s range: --points 2 gives "
            "those two"), shown)
    return SizeRange(name, low, high, points, log)


def _bound(text: str, match: re.Match, group: int, label: str) -> float:
    try:
        value = float(match.group(group))
    except ValueError:
        _refuse_bound(text, match, group, label, f"`{match.group(group)}` is not a number",
                      "bounds are plain numbers: 64, 1e8")
    if not math.isfinite(value):
        _refuse_bound(text, match, group, label, f"`{match.group(group)}` is not finite",
                      "bounds are plain numbers: 64, 1e8")
    return value


def _refuse_bound(text: str, match: re.Match, group: int, label: str, reason: str,
                  hint: str) -> NoReturn:
    start, end = match.start(group) + 1, match.end(group) + 1
    raise SizeError(Code.BAD_RANGE, Diagnostic(
        Span(label, 1, start, 1, end), f"size range `{text}`: {reason}", hint), text)


MAX_VALUES = 100_000  # of one varied parameter


def parse_values(text: str | None, pow2: bool) -> numpy.ndarray:
    """`16..512` (multiples of the low end), `16..512:16`, `64,128,256`; --pow2 keeps the
    powers of two in the range (16..512 when no range is given). An error placed on the
    text (`--values`) when it cannot be read or gives no value."""
    text = text or "16..512"
    refuse_other_digits("--values", text)

    def refuse(message: str, hint: str) -> SizeError:
        return SizeError(Code.BAD_RANGE, Diagnostic(option_span("--values", text), message,
                                                    hint), text)

    match = re.fullmatch(r"\s*(\d+)\s*\.\.\s*(\d+)\s*(?::\s*(\d+))?\s*", text)
    if match:
        low, high = int(match.group(1)), int(match.group(2))
        step = int(match.group(3) or low)
        if not 0 < low <= high or step <= 0:
            raise refuse(f"bad --values `{text}`", "LOW..HIGH with 0 < LOW <= HIGH, "
                                                   "optionally :STEP")
        if high > MAX_FLOAT_SIZE:
            raise refuse(f"--values `{text}` goes beyond {FLOAT_SIZES}",
                         "give a HIGH of at most 2^53")
        if pow2:
            values = [1 << e for e in range(64) if low <= (1 << e) <= high]
        elif (high - low) // step + 1 > MAX_VALUES:
            raise refuse(f"--values `{text}` gives {(high - low) // step + 1:,} values, more "
                         f"than {MAX_VALUES:,}", "give a larger :STEP, or use --pow2")
        else:
            values = list(range(low, high + 1, step))
    elif re.fullmatch(r"\s*\d+(\s*,\s*\d+)*\s*", text):
        values = sorted({int(v) for v in text.split(",")})
        if pow2:
            values = [v for v in values if v & (v - 1) == 0]
        if values and max(values) > MAX_FLOAT_SIZE:
            raise refuse(f"--values `{text}` goes beyond {FLOAT_SIZES}",
                         "give values of at most 2^53")
    else:
        raise refuse(f"cannot read --values `{text}`", "write 16..512, 16..512:16 or 64,128,256")
    if not values or min(values) <= 0:
        raise refuse(f"--values `{text}` gives no positive value",
                     "for example 16..512, or 64,128,256")
    return numpy.array(values, dtype=numpy.float64)


def names_and_places(text: str, option: str) -> tuple[list[str], dict]:
    """The names of a comma-separated option (--vary TM,TN) with the place of each in it."""
    names, places, column = [], {}, 1
    for part in text.split(","):
        name = part.strip()
        if name:
            start = column + len(part) - len(part.lstrip())
            names.append(name)
            places[name] = (Span(option, 1, start, 1, start + len(name)), text)
        column += len(part) + 1
    return names, places
