"""Why `tune` leaves a candidate out of its ranking, as data: the reason (in the order the
checks run, and the code the vectorised arrays carry) and the figures of the first candidates
each reason rejects. present.tune_report writes the sentences."""

from __future__ import annotations

from enum import StrEnum

import numpy
import sympy

from ..base.records import record


class Rejected(StrEnum):
    """Why a candidate is not ranked, in the order the checks run (its code in the arrays is
    its place in REJECTED, from 1; 0: it fits)."""

    ASSUMPTION = "assumption"  # it breaks one of the spec's `assume` facts: `a | b`, or a
    # bound such as `n <= 4096` (the spec's counts hold only within it)
    HEADER = "header count"  # a count its parallel header states (threads, registers,
    # instructions, a cluster, a split, a group) is not a positive whole number there
    GRID = "no block"  # the grid holds no block there (a launch CUDA refuses)
    SHARED = "shared memory"  # a block needs more shared memory than it may have
    REGISTERS = "register file"  # a block needs more registers than it may have
    OCCUPANCY = "occupancy"  # an SM holds no block at once
    THREADS = "threads"  # a block of more threads or warps than a block or an SM may have
    CLUSTER = "cluster"  # a cluster larger than the machine forms, or one that does not
    # tile the grid along its axis


REJECTED = tuple(Rejected)
CODES = {reason: code for code, reason in enumerate(REJECTED, 1)}
CHUNK = 1 << 16  # candidates read at a time for the first of each reason


def first_rejected(codes: numpy.ndarray, counts: numpy.ndarray,
                   most: int) -> dict[int, list[int]]:
    """The flat indices of the first `most` candidates of each code (1 ..) in `codes`
    (flat, int8), in order; `counts`: how many each code has. Read a chunk at a time until
    each is found: the first of each reason is near the start where most candidates are
    rejected."""
    wanted = {code: min(most, int(counts[code])) for code in range(1, len(REJECTED) + 1)}
    found: dict[int, list[int]] = {code: [] for code in wanted}
    for start in range(0, codes.size, CHUNK):
        missing = [code for code in wanted if len(found[code]) < wanted[code]]
        if not missing:
            break
        chunk = codes[start:start + CHUNK]
        for code in missing:
            hits = numpy.flatnonzero(chunk == code)[:wanted[code] - len(found[code])]
            found[code] += [start + int(i) for i in hits]
    return found


@record
class BrokenFact:
    """`assume divisor | dividend` at a candidate's values."""

    divisor: sympy.Expr
    dividend: sympy.Expr
    divisor_value: float
    dividend_value: float


@record
class BrokenBound:
    """`assume left <op> right` at a candidate's values."""

    relation: sympy.Basic
    left_value: float
    right_value: float


@record
class HeaderCount:
    """A count of the parallel header at a candidate's values (lang.sizes.header_sizes)."""

    what: str  # `the thread count `threads``
    value: float


@record
class EmptyGrid:
    """The grid's block count at a candidate's values."""

    blocks: float


@record
class SharedOver:
    """Shared memory a block needs against what one block may have."""

    needed_B: float
    allowed_B: float


@record
class SharedHeld:
    """Shared memory a spec without a grid holds, over the level's capacity."""

    held_B: float


@record
class RegistersOver:
    """Registers a block needs (its threads' and its register arrays', the larger) against
    what one block may have."""

    needed: float
    allowed: float


Figures = (BrokenFact | BrokenBound | HeaderCount | EmptyGrid | SharedOver | SharedHeld
           | RegistersOver)


@record
class Rejection:
    values: tuple[int, ...]
    reason: Rejected
    figures: Figures | None  # None: the reason alone says it
