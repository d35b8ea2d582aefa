"""The blocks of each wave as a few products of ranges, for arrays of waves at once.

A wave is a run of consecutive blocks in launch order. In a row-major raster (the last axis
fastest) a run from s to e, written in the digits of the grid's axes, is a partial row, whole
rows, a partial row, and so on up the axes: with l the first axis where s and e differ,

    middle:   s_1 .. s_(l-1) fixed, axis l from s_l + 1 to e_l - 1, the axes after it whole
    left k:   s_1 .. s_(k-1) fixed, axis k from s_k + 1 to its end, the axes after it whole
    right k:  e_1 .. e_(k-1) fixed, axis k from 0 to e_k - 1, the axes after it whole

for k > l; on the last axis the left and right runs take s_d and e_d themselves, and where l
is the last axis the middle is s_d .. e_d (a run inside one row). That is 2d - 1 products of
ranges, disjoint, some empty (their `valid` is False). A column raster is the row-major one
over the axes reversed. Triton's grouped raster (2-D) takes `group` rows of blocks at a time,
column by column inside a group: a wave inside one group is a run in the group's
column-major order (3 products), one across groups adds the whole groups between and the
first one's tail and the last one's head (7 products, some empty). Axes before the last two
are batches, the slowest (a split-K grid's splits): each batch runs its grouped order, then
the next, so a wave is a grouped run in its first batch, one in its last, and the whole
batches between."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..base.kinds import Raster
from ..base.records import record

Array = np.ndarray
Radix = Array | int


@record
class Product:
    """Blocks whose position along each axis k lies in ranges[k] = (first, last), per wave;
    where valid is False the product is empty for that wave."""

    ranges: tuple[tuple[Array, Array], ...]
    valid: Array


def raster_products(raster: Raster, counts: Sequence[int], group: int, start: Array,
                    end: Array) -> list[Product]:
    """Each wave's blocks (positions start .. end in launch order) as products of ranges."""
    if raster == Raster.COLUMN:
        found = mixed_radix(start, end, list(reversed(counts)))
        return [Product(tuple(reversed(product.ranges)), product.valid) for product in found]
    if raster == Raster.GROUPED and len(counts) > 2:
        return _batched_grouped(start, end, counts[:-2], counts[-2], counts[-1], group)
    if raster == Raster.GROUPED:
        return _grouped(start, end, counts[0], counts[1], group)
    return mixed_radix(start, end, list(counts))


def _digits(value: Array, radices: Sequence[Radix]) -> list[Array]:
    digits: list[Array] = []
    for radix in reversed(radices[1:]):
        value, digit = np.divmod(value, radix)
        digits.append(digit)
    digits.append(value)
    return digits[::-1]


def mixed_radix(start: Array, end: Array, radices: Sequence[Radix]) -> list[Product]:
    """The run start .. end of a row-major grid with these radices (the last fastest)."""
    depth = len(radices)
    first, last = _digits(start, radices), _digits(end, radices)
    level = np.full(np.shape(start), depth - 1)
    found = np.zeros(np.shape(start), dtype=bool)
    for k in range(depth):
        differ = (first[k] != last[k]) & ~found
        level = np.where(differ, k, level)
        found |= differ
    inner = (level < depth - 1).astype(np.int64)
    products = []
    ranges = []
    for k in range(depth):
        whole_low, whole_high = 0, _like(radices[k], start) - 1
        before, at = k < level, k == level
        low = np.where(before, first[k], np.where(at, first[k] + inner, whole_low))
        high = np.where(before, first[k], np.where(at, last[k] - inner, whole_high))
        ranges.append((low, high))
    valid = np.ones(np.shape(start), dtype=bool)
    for low, high in ranges:
        valid &= low <= high
    products.append(Product(tuple(ranges), valid))
    for k in range(1, depth):
        step = int(k < depth - 1)
        for side in (first, last):
            ranges = []
            for j in range(depth):
                if j < k:
                    ranges.append((side[j], side[j]))
                elif j > k:
                    ranges.append((_like(0, start), _like(radices[j], start) - 1))
                elif side is first:
                    ranges.append((side[k] + step, _like(radices[k], start) - 1))
                else:
                    ranges.append((_like(0, start), side[k] - step))
            low, high = ranges[k]
            products.append(Product(tuple(ranges), (k > level) & (low <= high)))
    return products


def _like(value: Radix, like: Array) -> Array:
    return np.broadcast_to(np.asarray(value), np.shape(like))


def _grouped(start: Array, end: Array, rows: int, cols: int, group: int) -> list[Product]:
    """Triton's grouped order: group g holds rows g G .. g G + size - 1 (size = G, or what is
    left for the last group), and runs through them column by column."""
    span = group * cols
    first_group, first_offset = np.divmod(start, span)
    last_group, last_offset = np.divmod(end, span)
    first_size = np.minimum(rows - first_group * group, group)
    last_size = np.minimum(rows - last_group * group, group)
    same = first_group == last_group
    head_end = np.where(same, last_offset, first_size * cols - 1)
    products = [_in_group(product, first_group * group, same | ~same)
                for product in mixed_radix(first_offset, head_end, (cols, first_size))]
    products += [_in_group(product, last_group * group, ~same)
                 for product in mixed_radix(np.zeros_like(end), last_offset, (cols, last_size))]
    whole_rows = ((first_group + 1) * group, last_group * group - 1)
    whole_cols = (_like(0, start), _like(cols - 1, start))
    products.append(Product((whole_rows, whole_cols), last_group - first_group >= 2))
    return products


def _batched_grouped(start: Array, end: Array, batches: Sequence[int], rows: int, cols: int,
                     group: int) -> list[Product]:
    """The grouped order over the last two axes inside each batch (module doc)."""
    per_batch = rows * cols
    first_batch, first_offset = np.divmod(start, per_batch)
    last_batch, last_offset = np.divmod(end, per_batch)
    same = first_batch == last_batch
    head_end = np.where(same, last_offset, per_batch - 1)
    head = _grouped(first_offset, head_end, rows, cols, group)
    tail = _grouped(np.zeros_like(end), last_offset, rows, cols, group)
    products = [_in_batch(p, _digits(first_batch, batches), same | ~same) for p in head]
    products += [_in_batch(p, _digits(last_batch, batches), ~same) for p in tail]
    between = last_batch - first_batch >= 2
    low = np.where(between, first_batch + 1, first_batch)  # in range where not between
    high = np.where(between, last_batch - 1, first_batch)
    whole = ((_like(0, start), _like(rows - 1, start)), (_like(0, start), _like(cols - 1, start)))
    products += [Product((*product.ranges, *whole), product.valid & between)
                 for product in mixed_radix(low, high, list(batches))]
    return products


def _in_batch(product: Product, digits: list[Array], valid: Array) -> Product:
    """A product of one batch's last two axes, with the batch's own position before them."""
    return Product((*((digit, digit) for digit in digits), *product.ranges),
                   product.valid & valid)


def _in_group(product: Product, first_row: Array, valid: Array) -> Product:
    """A product in a group's (column, row in the group) order, as (row, column) ranges."""
    (col_low, col_high), (row_low, row_high) = product.ranges
    return Product(((first_row + row_low, first_row + row_high), (col_low, col_high)),
                   product.valid & valid)
