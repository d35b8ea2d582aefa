"""Figures to CSV text a whole column at a time, with numpy.

A sweep of 10^7 sizes has some 10^8 figures; Python formats one float in about half a
microsecond, so a row loop (or `map(repr, ...)`) spends a minute on what numpy does in a few
seconds. Every figure is written exactly as Python's `'%.16g' % x` writes it: whole numbers up
to 2^53 as integers, 16 significant digits otherwise, trailing zeros dropped, `1e-05` and
`2e+21` beyond the positional range, `nan`, `inf`. Sixteen digits are what `repr` prints for
most doubles, without its seventeen-digit tails (0.30000000000000004).

A column becomes a Field: a byte matrix with one row per figure, laid out the same way for
every figure (sign, `0.000`, the 16 digits with a point after each, `e+308`), and a mask of
the bytes the figure keeps. The mask depends only on the figure's layout (its exponent and
last non-zero digit), so it is a row of a small table. Dropping the unkept bytes of all
columns at once makes the rows. The digits come from a decimal mantissa M in [10^15, 10^16)
computed in extended precision (numpy.longdouble); a product within rounding error of a half
unit could round either way, and those few rows (under one in a hundred) are formatted by
Python itself, so the text never differs from '%.16g'."""

from __future__ import annotations

from dataclasses import dataclass

import numpy

SIGNIFICANT = 16
_LOWEST_POSITIONAL = -4  # C's %g: positional for decimal exponents -4 .. precision - 1

# The template of a figure, 48 bytes written as six 8-byte words: two unused bytes, the sign,
# "0.000", the 16 digits with a point after each, "e", the exponent's sign and three digits.
_SIGN, _ZERO, _DOT, _ZEROS = 2, 3, 4, 5
_DIGITS = 8  # digit k at _DIGITS + 2k, the point after it at _DIGITS + 2k + 1
_E = _DIGITS + 2 * SIGNIFICANT
_EXPONENT_SIGN, _EXPONENT = _E + 1, _E + 2
_WIDTH = 48
_WORD = numpy.uint64

_FOUR_DIGITS = numpy.array([[ord(c) for c in f"{n:04d}"] for n in range(10_000)],
                           dtype=numpy.uint8)
_FOUR_DIGITS_AND_POINTS = numpy.repeat(_FOUR_DIGITS, 2, axis=1)  # "1.2.3.4."
_FOUR_DIGITS_AND_POINTS[:, 1::2] = ord(".")
_DIGIT_WORDS = _FOUR_DIGITS_AND_POINTS.view(_WORD).ravel()
_FOUR_DIGIT_WORDS = _FOUR_DIGITS.view(numpy.uint32).ravel()
_PREFIX_WORD = numpy.frombuffer(b"\0\0-0.000", dtype=_WORD)[0]
_LOWEST_EXPONENT = -400
_EXPONENT_WORDS = numpy.frombuffer(b"".join(
    f"e{exponent:+04d}".encode() + b"\0\0\0" for exponent in range(_LOWEST_EXPONENT, 401)),
    dtype=_WORD)
_WHOLE_POWERS = 10 ** numpy.arange(SIGNIFICANT, dtype=numpy.int64)  # k digits: >= 10^(k-1)
# 10^k for every scale a double needs, each correctly rounded (parsed, not raised to a power)
_LOWEST_SCALE = -300
_POWERS_OF_TEN = numpy.array([numpy.longdouble(f"1e{k}") for k in range(_LOWEST_SCALE, 346)])
# M = magnitude x 10^k rounds twice (the power, the product), half a unit of the last place of
# a longdouble each: a fraction this close to a half may round the wrong way
_TIE_WIDTH = 2 * float(numpy.finfo(numpy.longdouble).eps) * 10.0**SIGNIFICANT
_EXTENDED = _TIE_WIDTH < 0.01  # False where longdouble is a plain double: Python formats all


@dataclass(frozen=True)
class Field:
    """A column of text: bytes (rows, width) and which of them each row keeps."""

    text: numpy.ndarray  # uint8
    keep: numpy.ndarray  # bool, same shape


def figure_field(values) -> Field:
    """Each value as '%.16g' writes it."""
    x = numpy.asarray(values, dtype=float)
    regular = numpy.isfinite(x) & (x != 0)
    if not _EXTENDED:
        return _python_field(x, numpy.ones(x.shape, dtype=bool), _empty(len(x)))
    if _whole(x):
        return _whole_field(x.astype(numpy.int64))
    magnitude = numpy.where(regular, numpy.abs(x), 1.0)
    mantissa, exponent, unsure = _decimal(magnitude)
    text = _template(mantissa, exponent)
    digits = text[:, _DIGITS:_E:2]
    last = SIGNIFICANT - 1 - numpy.argmax(digits[:, ::-1] != ord("0"), axis=1)
    layout = _layout(exponent, last)
    # the template's columns that no figure of this column shows are dropped before any
    # further work: most columns need neither an exponent nor leading zeros
    shown = _KEEP[numpy.bincount(layout, minlength=len(_KEEP)) > 0].any(axis=0)
    shown[_SIGN] = True  # the first column shown
    keep = _KEEP[:, shown][layout]
    keep[:, 0] = numpy.signbit(x)
    field = Field(text[:, shown], keep)
    return _python_field(x, ~regular | unsure, field)


def label_field(codes, labels: tuple[str, ...]) -> Field:
    """labels[code] for each code (the binding roof of each size)."""
    encoded = [label.encode() for label in labels]
    width = max(map(len, encoded), default=1) or 1
    text = numpy.zeros((len(labels), width), dtype=numpy.uint8)
    keep = numpy.zeros((len(labels), width), dtype=bool)
    for row, label in enumerate(encoded):
        text[row, :len(label)] = numpy.frombuffer(label, dtype=numpy.uint8)
        keep[row, :len(label)] = True
    codes = numpy.asarray(codes, dtype=numpy.intp)
    return Field(text[codes], keep[codes])


def csv_rows(fields: list[Field]) -> bytes:
    """The fields side by side, comma-separated, a newline after each row."""
    if not fields or not len(fields[0].text):
        return b""
    rows = len(fields[0].text)
    texts, keeps = [], []
    for position, field in enumerate(fields):
        separator = ord("\n") if position == len(fields) - 1 else ord(",")
        texts += [field.text, numpy.full((rows, 1), separator, dtype=numpy.uint8)]
        keeps += [field.keep, numpy.ones((rows, 1), dtype=bool)]
    text = numpy.concatenate(texts, axis=1)
    keep = numpy.concatenate(keeps, axis=1)
    return text[keep].tobytes()


def _whole(x: numpy.ndarray) -> bool:
    """Whether every figure is a whole number that '%.16g' writes with all its digits."""
    return bool(numpy.all((numpy.abs(x) < 2.0**53) & (x == numpy.rint(x)))) and not bool(
        numpy.signbit(x[x == 0]).any())


def _whole_field(values: numpy.ndarray) -> Field:
    """Whole numbers (sizes, counts of FLOP and bytes): three unused bytes, the sign and 16
    digits as five 4-byte words, shown from the first non-zero digit (the last one of 0)."""
    magnitude = numpy.abs(values)
    words = numpy.empty((len(values), 5), dtype=numpy.uint32)
    words[:, 0] = numpy.frombuffer(b"\0\0\0-", dtype=numpy.uint32)[0]
    for position, group in enumerate(_four_digit_groups(magnitude), start=1):
        words[:, position] = _FOUR_DIGIT_WORDS[group]
    length = numpy.maximum(numpy.searchsorted(_WHOLE_POWERS, magnitude, side="right"), 1)
    keep = numpy.arange(20)[None, :] >= (20 - length)[:, None]
    keep[:, 3] = values < 0
    return Field(words.view(numpy.uint8), keep)


def _decimal(magnitude: numpy.ndarray):
    """M in [10^15, 10^16) and the decimal exponent X with magnitude ~ M * 10^(X - 15),
    rounded to nearest; and which rows sit too near a half unit to trust."""
    exponent = numpy.floor(numpy.log10(magnitude)).astype(numpy.int64)
    scaled = _scaled(magnitude, exponent)
    # log10 can miss by one near a power of ten, and rounding up can reach 10^16 (in that
    # order: the first correction can lead to the second)
    for step, is_wrong in ((-1, lambda scaled: scaled < 10.0**(SIGNIFICANT - 1)),
                           (1, lambda scaled: numpy.rint(scaled) >= 10.0**SIGNIFICANT)):
        wrong = is_wrong(scaled)
        if wrong.any():
            exponent[wrong] += step
            scaled[wrong] = _scaled(magnitude[wrong], exponent[wrong])
    mantissa = numpy.rint(scaled)
    unsure = numpy.abs(numpy.abs(scaled - mantissa) - 0.5) < _TIE_WIDTH
    return mantissa.astype(numpy.int64), exponent, unsure


def _scaled(magnitude: numpy.ndarray, exponent: numpy.ndarray) -> numpy.ndarray:
    power = _POWERS_OF_TEN[SIGNIFICANT - 1 - exponent - _LOWEST_SCALE]
    return magnitude.astype(numpy.longdouble) * power


def _template(mantissa: numpy.ndarray, exponent: numpy.ndarray) -> numpy.ndarray:
    """Every character any layout of the figure could show, in the template's columns (the
    sign's byte is shown for negative figures only)."""
    words = numpy.empty((len(mantissa), _WIDTH // 8), dtype=_WORD)
    words[:, 0] = _PREFIX_WORD
    for position, group in enumerate(_four_digit_groups(mantissa), start=1):
        words[:, position] = _DIGIT_WORDS[group]
    words[:, 5] = _EXPONENT_WORDS[exponent - _LOWEST_EXPONENT]  # over the last digit's point
    return words.view(numpy.uint8)


def _four_digit_groups(values: numpy.ndarray) -> list[numpy.ndarray]:
    """A whole number under 10^16 as four numbers under 10^4, most significant first. One
    integer division; the rest in doubles, exact below 2^53 (and faster than integers)."""
    high = values // 10**8
    groups = []
    for half in (high, values - high * 10**8):
        half = half.astype(float)
        upper = numpy.floor(half / 1e4)
        groups += [upper.astype(numpy.intp), (half - upper * 1e4).astype(numpy.intp)]
    return groups


def _layout(exponent: numpy.ndarray, last: numpy.ndarray) -> numpy.ndarray:
    """The row of _KEEP for each figure: positional layouts by exponent and last digit, then
    scientific ones by the exponent's sign and width and the last digit."""
    positional = (exponent >= _LOWEST_POSITIONAL) & (exponent < SIGNIFICANT)
    width = 2 * (exponent < 0) + (numpy.abs(exponent) >= 100)
    return numpy.where(positional, SIGNIFICANT * (exponent - _LOWEST_POSITIONAL) + last,
                       _POSITIONAL_LAYOUTS + SIGNIFICANT * width + last)


def _every_layout() -> numpy.ndarray:
    """The bytes each layout keeps, in _layout's order, built once: which bytes a figure
    shows depends on its exponent (in scientific notation, on the exponent's sign and width
    only) and on its last non-zero digit, not on the digits themselves."""
    rows = []
    for exponent in range(_LOWEST_POSITIONAL, SIGNIFICANT):
        rows += [_positional_keep(exponent, last) for last in range(SIGNIFICANT)]
    for exponent in (20, 100, -20, -100):
        rows += [_scientific_keep(exponent, last) for last in range(SIGNIFICANT)]
    return numpy.array(rows, dtype=bool)


def _positional_keep(exponent: int, last: int) -> list[bool]:
    """123.45 keeps digits 0..4 and the point after digit 2; 0.0012345 keeps `0.00` and
    digits 0..4."""
    keep = [False] * _WIDTH  # the sign's byte is the figure's own
    if exponent < 0:
        keep[_ZERO] = keep[_DOT] = True
        for zero in range(-exponent - 1):
            keep[_ZEROS + zero] = True
    for digit in range(max(exponent, last) + 1):
        keep[_DIGITS + 2 * digit] = True
    if 0 <= exponent < last:
        keep[_DIGITS + 2 * exponent + 1] = True
    return keep


def _scientific_keep(exponent: int, last: int) -> list[bool]:
    """1.2345e-12 and 2e+21: at least two exponent digits."""
    keep = _positional_keep(0, last)
    keep[_E] = keep[_EXPONENT_SIGN] = keep[_EXPONENT + 1] = keep[_EXPONENT + 2] = True
    keep[_EXPONENT] = abs(exponent) >= 100
    return keep


_POSITIONAL_LAYOUTS = SIGNIFICANT * (SIGNIFICANT - _LOWEST_POSITIONAL)
_KEEP = _every_layout()


def _empty(rows: int) -> Field:
    return Field(numpy.zeros((rows, _WIDTH), dtype=numpy.uint8),
                 numpy.zeros((rows, _WIDTH), dtype=bool))


def _python_field(values: numpy.ndarray, rows: numpy.ndarray, field: Field) -> Field:
    """Python's own '%.16g' in the rows the vector path leaves out (0, nan, inf) or cannot
    be sure of (near-ties)."""
    chosen = numpy.flatnonzero(rows)
    encoded = [format(values[row], ".16g").encode() for row in chosen]
    missing = max(map(len, encoded), default=0) - field.text.shape[1]
    if missing > 0:
        field = Field(numpy.pad(field.text, ((0, 0), (0, missing))),
                      numpy.pad(field.keep, ((0, 0), (0, missing))))
    for row, text in zip(chosen, encoded):
        field.text[row, :len(text)] = numpy.frombuffer(text, dtype=numpy.uint8)
        field.keep[row, :] = False
        field.keep[row, :len(text)] = True
    return field
