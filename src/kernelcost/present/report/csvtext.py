"""Figures to CSV text a whole column at a time, with numpy.

A sweep of 10^7 sizes has some 10^8 figures; Python formats one float in about half a
microsecond, so a row loop (or `map(repr, ...)`) spends a minute on what numpy does in a few
seconds. Every figure is written exactly as Python's `'%.16g' % x` writes it: whole numbers up
to 2^53 as integers, 16 significant digits otherwise, trailing zeros dropped, `1e-05` and
`2e+21` beyond the positional range, `nan`, `inf`. Sixteen digits are what `repr` prints for
most doubles, without its seventeen-digit tails (0.30000000000000004).

A column becomes a Field: a byte matrix with one row per figure, laid out the same way for
every figure (sign, `0.000`, the 16 digits with a point after each, `e+308`; the columns no
figure of the chunk shows left out), and which bytes each figure keeps, which depends only
on its layout (exponent and last non-zero digit): a row of a small table. csv_rows places
every column in one matrix and drops the unkept bytes of all of them at once. The digits
come from a decimal mantissa M in [10^15, 10^16) computed in doubles, exactly enough to round
it right (an error-free product with the power of ten as a sum of two doubles); the rows it
cannot settle (exact ties, which go to the even digit, and magnitudes beyond 10^+-280) are
formatted by Python itself, so the text never differs from '%.16g'."""

from __future__ import annotations

import numpy

from ...base.records import record

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

_NUMBERS = numpy.arange(10_000)
_FOUR_DIGITS = (numpy.stack([_NUMBERS // 1000, _NUMBERS // 100 % 10, _NUMBERS // 10 % 10,
                             _NUMBERS % 10], axis=1) + ord("0")).astype(numpy.uint8)  # "0042"
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
_TRAILING_ZEROS = numpy.where(_NUMBERS == 0, 4, sum(  # of each four digits
    (_NUMBERS % 10**k == 0).astype(numpy.int64) for k in (1, 2, 3)))
# 10^k = high + low exactly enough (2^-106), for every scale the magnitudes in range need;
# high split in two halves of 26 bits (Veltkamp) for the exact product of Dekker
_LOWEST_SCALE = -270
_SMALLEST, _LARGEST = 1e-280, 1e280  # beyond, Python formats (the splits would overflow)
_SPLITTER = 2.0**27 + 1


def _powers_of_ten():
    # 10^k as numerator / denominator, and what its nearest double leaves, both divided
    # in Python's integers, which round the quotient correctly (as a Fraction's float does)
    high, low = [], []
    for k in range(_LOWEST_SCALE, 300):
        numerator, denominator = (10**k, 1) if k >= 0 else (1, 10**-k)
        high.append(numerator / denominator)
        top, bottom = high[-1].as_integer_ratio()
        low.append((numerator * bottom - top * denominator) / (denominator * bottom))
    high = numpy.array(high)
    split = _SPLITTER * high
    high_high = split - (split - high)
    return high, numpy.array(low), high_high, high - high_high


_POWER_HIGH, _POWER_LOW, _POWER_HIGH_HIGH, _POWER_HIGH_LOW = _powers_of_ten()
# the leftover f is known to a few 10^-16: this close to a half, Python rounds (to even)
_TIE_WIDTH = 1e-9


@record
class Field:
    """A column of text for csv_rows: the bytes of each row (the template's columns the
    column uses), which of them each row keeps (a row of a small table, by layout), and
    `patches`, rows written whole instead, (row, bytes)."""

    text: numpy.ndarray  # (rows, width) uint8: the template's columns this field uses
    keep_table: numpy.ndarray  # (layouts, width) bool
    layout: numpy.ndarray  # (rows,) index into keep_table
    patches: tuple[tuple[int, bytes], ...] = ()
    blank: numpy.ndarray | None = None  # (rows,) bool: rows whose field is left empty

    @property
    def width(self) -> int:
        return self.text.shape[1]


def figure_field(values, blank_nan: bool = False) -> Field:
    """Each value as '%.16g' writes it; with `blank_nan`, a NaN as an empty field (a figure
    not given)."""
    x = numpy.asarray(values, dtype=float)
    if blank_nan:
        missing = numpy.isnan(x)
        if missing.any():
            field = figure_field(numpy.where(missing, 1.0, x))
            return Field(field.text, field.keep_table, field.layout,
                         tuple(p for p in field.patches if not missing[p[0]]), missing)
    if _whole(x):
        return _whole_field(x.astype(numpy.int64))
    regular = numpy.isfinite(x) & (x != 0)
    mantissa, exponent, unsure = _decimal(numpy.where(regular, numpy.abs(x), 1.0))
    groups = _four_digit_groups(mantissa)
    layout = _layout(exponent, _last_nonzero_digit(groups))
    # the template's columns that no figure of this column shows are dropped before any
    # further work: most columns need neither an exponent nor leading zeros
    shown = _KEEP[numpy.bincount(layout, minlength=len(_KEEP)) > 0].any(axis=0)
    layout = layout + len(_KEEP) * numpy.signbit(x)  # the second half of _KEEP: with "-"
    patches = _python_texts(x, ~regular | unsure)
    columns = _widened(numpy.flatnonzero(shown | _SIGN_COLUMN), patches)
    text = numpy.take(_template(groups, exponent).view(numpy.uint8), columns, axis=1)
    return Field(text, _KEEP_SIGNED[:, columns], layout, patches)


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
    return Field(text[codes], keep, codes)


def csv_rows(fields: list[Field]) -> bytes:
    """The fields side by side, comma-separated, a newline after each row: each field's
    bytes and keep flags go straight into one matrix, whose kept bytes are the text."""
    if not fields or not len(fields[0].layout):
        return b""
    rows = len(fields[0].layout)
    total = sum(field.width + 1 for field in fields)
    # the separators written once in the whole matrix (contiguous), the fields over them
    text = numpy.full((rows, total), ord(","), dtype=numpy.uint8)
    text[:, -1] = ord("\n")
    keep = numpy.ones((rows, total), dtype=bool)
    start = 0
    for field in fields:
        end = start + field.width
        text[:, start:end] = field.text
        keep[:, start:end] = field.keep_table[field.layout]
        for row, patch in field.patches:
            keep[row, start:end] = False
            keep[row, start:start + len(patch)] = True
            text[row, start:start + len(patch)] = numpy.frombuffer(patch, dtype=numpy.uint8)
        if field.blank is not None:
            keep[field.blank, start:end] = False
        start = end + 1
    return text[keep].tobytes()


def _whole(x: numpy.ndarray) -> bool:
    """Whether every figure is a whole number that '%.16g' writes with all its digits."""
    return bool(numpy.all((numpy.abs(x) < 2.0**53) & (x == numpy.rint(x)))) and not bool(
        numpy.signbit(x[x == 0]).any())


def _whole_field(values: numpy.ndarray) -> Field:
    """Whole numbers (sizes, counts of FLOP and bytes): three unused bytes, the sign and 16
    digits as five 4-byte words, shown from the first non-zero digit (the last one of 0).
    Layout: the digit count, plus 16 when negative."""
    magnitude = numpy.abs(values)
    words = numpy.empty((len(values), 5), dtype=numpy.uint32)
    words[:, 0] = numpy.frombuffer(b"\0\0\0-", dtype=numpy.uint32)[0]
    for position, group in enumerate(_four_digit_groups(magnitude), start=1):
        words[:, position] = _FOUR_DIGIT_WORDS[group]
    digits = numpy.searchsorted(_WHOLE_POWERS, magnitude, side="right")
    layout = numpy.maximum(digits, 1) + SIGNIFICANT * (values < 0)
    present = numpy.bincount(layout, minlength=len(_WHOLE_KEEP)) > 0
    # numpy's stubs give any(axis=...) a scalar's type too
    used = _words_for(_WHOLE_KEEP[present].any(axis=0), (), 4)  # type: ignore[arg-type]
    return Field(numpy.ascontiguousarray(words[:, used]).view(numpy.uint8),
                 _WHOLE_KEEP[:, _bytes_of(used, 4)],
                 layout)


def _decimal(magnitude: numpy.ndarray):
    """M in [10^15, 10^16) and the decimal exponent X with magnitude = (M + f) 10^(X - 15),
    |f| <= 1/2, M rounded to nearest; and which rows to leave to Python: too near a half
    unit to round here, or beyond the range the scaling works in."""
    in_range = (magnitude > _SMALLEST) & (magnitude < _LARGEST)
    magnitude = numpy.where(in_range, magnitude, 1.0)
    exponent = numpy.floor(numpy.log10(magnitude)).astype(numpy.int64)
    mantissa, fraction = _scaled(magnitude, exponent)
    # log10 can miss by one near a power of ten, and the rounding can reach 10^16 (in that
    # order: the first correction can lead to the second)
    low, high = 10**(SIGNIFICANT - 1), 10**SIGNIFICANT
    for step, is_wrong in ((-1, lambda m, f: (m < low) | ((m == low) & (f < 0))),
                           (1, lambda m, f: m >= high)):
        wrong = is_wrong(mantissa, fraction)
        if wrong.any():
            exponent[wrong] += step
            mantissa[wrong], fraction[wrong] = _scaled(magnitude[wrong], exponent[wrong])
    unsure = ~in_range | (numpy.abs(numpy.abs(fraction) - 0.5) < _TIE_WIDTH)
    return mantissa, exponent, unsure


def _scaled(magnitude: numpy.ndarray, exponent: numpy.ndarray):
    """magnitude x 10^(15 - exponent) as the nearest integer and what is left over, from an
    exact product with the power of ten as a sum of two doubles (Dekker): the leftover is
    known to about 10^-15, so only exact ties and near-ties of that width are unsure."""
    index = SIGNIFICANT - 1 - exponent - _LOWEST_SCALE
    power_high, power_low = _POWER_HIGH[index], _POWER_LOW[index]
    product = magnitude * power_high
    split = _SPLITTER * magnitude
    magnitude_high = split - (split - magnitude)
    magnitude_low = magnitude - magnitude_high
    high_high, high_low = _POWER_HIGH_HIGH[index], _POWER_HIGH_LOW[index]
    error = (((magnitude_high * high_high - product) + magnitude_high * high_low
              + magnitude_low * high_high) + magnitude_low * high_low)
    rest = error + magnitude * power_low
    rounded = numpy.rint(product)
    fraction = (product - rounded) + rest  # above 2^53 the product is even: |rest| up to 2
    carry = numpy.rint(fraction)
    return rounded.astype(numpy.int64) + carry.astype(numpy.int64), fraction - carry


def _template(groups: list[numpy.ndarray], exponent: numpy.ndarray) -> numpy.ndarray:
    """Every character any layout of the figure could show, in the template's columns (the
    sign's byte is shown for negative figures only), as (rows, 6) 8-byte words."""
    words = numpy.empty((len(exponent), _WIDTH // 8), dtype=_WORD)
    words[:, 0] = _PREFIX_WORD
    for position, group in enumerate(groups, start=1):
        words[:, position] = _DIGIT_WORDS[group]
    words[:, 5] = _EXPONENT_WORDS[exponent - _LOWEST_EXPONENT]  # over the last digit's point
    return words


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


def _last_nonzero_digit(groups: list[numpy.ndarray]) -> numpy.ndarray:
    """The index (0..15) of the last non-zero digit of M, from its four-digit groups."""
    trailing = _TRAILING_ZEROS[groups[0]] + 12
    for position, group in enumerate(groups[1:], start=1):
        trailing = numpy.where(group != 0, _TRAILING_ZEROS[group] + 4 * (3 - position),
                               trailing)
    return SIGNIFICANT - 1 - trailing


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
_SIGN_COLUMN = numpy.arange(_WIDTH) == _SIGN
_KEEP_SIGNED = numpy.concatenate([_KEEP, _KEEP | _SIGN_COLUMN])
# whole numbers of 1..16 digits, then the same with "-": the last `digits` columns of 20
_WHOLE_KEEP = numpy.array([[False] * 20] + [
    [(column == 3 and negative) or column >= 20 - digits for column in range(20)]
    for negative in (False, True) for digits in range(1, SIGNIFICANT + 1)])


def _widened(columns: numpy.ndarray, patches) -> numpy.ndarray:
    """Enough columns for the longest patch: unused template columns, which no layout
    keeps, make room for `-inf` in a column of single digits."""
    missing = max((len(text) for _, text in patches), default=0) - len(columns)
    if missing <= 0:
        return columns
    spare = numpy.setdiff1d(numpy.arange(_WIDTH), columns)[:missing]
    return numpy.sort(numpy.concatenate([columns, spare]))


def _words_for(shown: numpy.ndarray, patches, size: int) -> numpy.ndarray:
    """The template's words (of `size` bytes) holding a shown byte, and enough more for the
    longest patch (`-inf` in a column of single digits)."""
    used = shown.reshape(-1, size).any(axis=1)
    longest = max((len(text) for _, text in patches), default=0)
    for word in numpy.flatnonzero(~used):
        if size * numpy.count_nonzero(used) >= longest:
            break
        used[word] = True  # type: ignore[index]  # an array: any(axis=1) of a 2-D one
    return numpy.flatnonzero(used)


def _bytes_of(words: numpy.ndarray, size: int) -> numpy.ndarray:
    return (size * words[:, None] + numpy.arange(size)).ravel()


def _python_texts(values: numpy.ndarray, rows: numpy.ndarray) -> tuple[tuple[int, bytes], ...]:
    """Python's own '%.16g' for the rows the vector path leaves out (0, nan, inf) or cannot
    be sure of (ties)."""
    return tuple((int(row), format(values[row], ".16g").encode())
                 for row in numpy.flatnonzero(rows))
