"""Why `tune` leaves a candidate out of its ranking, as data: the reason (in the order the
checks run, and the code the vectorised arrays carry) and the figures of the first candidates
each reason rejects. present.tune_report writes the sentences."""

from __future__ import annotations

from enum import StrEnum

import sympy

from ..base.records import record


class Rejected(StrEnum):
    """Why a candidate is not ranked, in the order the checks run (its code in the arrays is
    its place in REJECTED, from 1; 0: it fits)."""

    ASSUMPTION = "assumption"  # it breaks one of the spec's `assume a | b` facts
    SHARED = "shared memory"  # a block needs more shared memory than it may have
    REGISTERS = "register file"  # a block needs more registers than it may have
    OCCUPANCY = "occupancy"  # an SM holds no block at once
    THREADS = "threads"  # a block of more threads or warps than a block or an SM may have
    CLUSTER = "cluster"  # a cluster larger than the machine forms, or one that does not
    # tile the grid along its axis


REJECTED = tuple(Rejected)
CODES = {reason: code for code, reason in enumerate(REJECTED, 1)}


@record
class BrokenFact:
    """`assume divisor | dividend` at a candidate's values."""

    divisor: sympy.Expr
    dividend: sympy.Expr
    divisor_value: float
    dividend_value: float


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


Figures = BrokenFact | SharedOver | SharedHeld | RegistersOver


@record
class Rejection:
    values: tuple[int, ...]
    reason: Rejected
    figures: Figures | None  # None: the reason alone says it
