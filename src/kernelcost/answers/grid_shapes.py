"""The distinct shapes among the sizes of a model grid's kernels: which points of the
(batch, context) mesh take the same gemm_hopper sizes, so that the analysis is asked once a
shape (answers.model_grid)."""

from __future__ import annotations

import numpy

from ..base.records import record


def distinct_shapes(parts: list[list[numpy.ndarray]]) -> Shapes:
    """The sizes of kernels of one spec, precision and parameters, where they take
    gemm_hopper's estimate (`parts`: each kernel's column of each size). Each column is
    ranked among its values and the ranks put in mixed radix, one integer a point: no sort
    of rows of floats. A kernel's values of a size are sorted once however many kernels
    share them (the prefill GEMMs' tokens), and not at all where they are one number (the
    model's widths)."""
    columns = [numpy.concatenate(each) for each in zip(*parts)]
    key = numpy.zeros(len(columns[0]), dtype=numpy.int64)
    for k, column in enumerate(columns):
        if column.size and column.min() == column.max():  # a size of the model's: no sort
            continue
        pieces = [each[k] for each in parts]
        alike = _alike(pieces)
        values = _sorted_unique(numpy.concatenate([_held(pieces[i]) for i in
                                                   sorted(set(alike))]))
        ranks = {i: numpy.searchsorted(values, pieces[i]) for i in set(alike)}
        key = key * len(values) + numpy.concatenate([ranks[i] for i in alike])
    return Shapes(tuple(columns), _firsts(key))


def _alike(pieces: list[numpy.ndarray]) -> list[int]:
    """For each piece, the first piece equal to it."""
    found: list[int] = []
    for piece in pieces:
        found.append(next(i for i in [*found, len(found)] if i == len(found) or (
            pieces[i].shape == piece.shape and numpy.array_equal(pieces[i], piece))))
    return found


def _held(piece: numpy.ndarray) -> numpy.ndarray:
    """A kernel's values of one size: itself once where it is one number throughout."""
    return piece[:1] if piece.size and piece.min() == piece.max() else piece


def _sorted_unique(values: numpy.ndarray) -> numpy.ndarray:
    """numpy.unique of whole numbers by a sort (numpy 2's unique hashes first, which is
    slower on these)."""
    ordered = numpy.sort(values)
    return ordered[_starts(ordered)]


def _firsts(key: numpy.ndarray) -> numpy.ndarray:
    """The index of each distinct key's first point, in the order of the keys: one stable
    sort (an integer radix sort) where numpy.unique with its indices would take a second."""
    order = numpy.argsort(key, kind="stable")
    return order[_starts(key[order])] if key.size else order


def _starts(ordered: numpy.ndarray) -> numpy.ndarray:
    """Where each run of equal values of a sorted array starts (a mask)."""
    return numpy.concatenate(([True], ordered[1:] != ordered[:-1]))


@record
class Shapes:
    """The sizes of kernels of one spec, precision and parameters where they take
    gemm_hopper's estimate (each size's values there), and the first point of each distinct
    shape."""

    columns: tuple[numpy.ndarray, ...]
    firsts: numpy.ndarray
