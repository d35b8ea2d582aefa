"""Why a grid's blocks fall into no classes, as data: the reason, one enum member, and the
figures its sentence names; presentation (present/model_text) writes the sentence. The class
engines (axis_classes, block_classes, wave_tables, wave_classes) raise Unclassified with it;
waves enumerates a small grid instead and, for a large one, adds how many blocks it has; the
execution model keeps a looser figure and records which stage fell back and why."""

from __future__ import annotations

from enum import StrEnum

from ..base.records import record


class Reason(StrEnum):
    """What the classes do not hold; the comment names the figures a Why carries for it."""

    AXIS_PIECES = "axis pieces"  # more than `limit` classes along one grid axis
    HIGH_DEGREE = "high degree"  # a polynomial of `degree` over `blocks`
    NO_VALUE = "no value"  # `subject`, a symbol, has no value
    OF_INDEX = "of index"  # `subject`, a function of a grid index the engine does not take
    CURVES = "curves"  # `subject` (a min or max) compares curves over `blocks`
    NO_EXTREME = "no extreme"  # `subject` has no single extreme over a run
    UNEVEN_STEPS = "uneven steps"  # `subject` (a floor or ceiling) over `blocks`
    NOT_RECTANGLE = "not rectangle"  # iterator `subject` runs by the grid indices `names`
    OPEN_SUM = "open sum"  # `subject` holds a sum left open
    NEEDS_VALUES = "needs values"  # `subject` needs values for `names`
    MANY_CELLS = "many cells"  # `subject` splits the grid into more than `limit` cells
    BEYOND_DIAGONAL = "beyond diagonal"  # `subject` mixes grid indices beyond one diagonal
    DIAGONAL_STEPS = "diagonal steps"  # `subject` runs along a diagonal of two steps
    OFF_DIAGONAL = "off diagonal"  # `subject` is no function of names[0] - names[1]
    NOT_POLYNOMIAL = "not polynomial"  # `subject` is no polynomial in the block index
    DIAGONAL_VARIES = "diagonal varies"  # `subject` varies along a diagonal, many blocks
    CELL_DEGREE = "cell degree"  # `subject` is of `degree` over a cell of `blocks`
    SUM_OVERFLOW = "sum overflow"  # `subject`'s sums pass 64-bit integers
    BOX_INDICES = "box indices"  # a bound of tensor `subject`'s box holds `count` indices
    BOX_SHAPE = "box shape"  # tensor `subject`'s boxes neither tile nor grow along an axis
    BOX_REVERSED = "box reversed"  # tensor `subject`'s box is reversed at some block
    WAVE_BYTES_OVERFLOW = "wave bytes overflow"  # a wave's bytes pass 64-bit integers
    WAVE_UNION_OVERFLOW = "wave union overflow"  # a wave's union passes 64-bit integers


@record
class Why:
    """A reason with its figures (Reason's comments say which each one names)."""

    reason: Reason
    subject: str = ""  # the expression (as sympy writes it), iterator or tensor concerned
    names: tuple[str, ...] = ()  # the symbols the reason names
    degree: int = 0  # a polynomial's degree
    blocks: int = 0  # the positions a run or cell holds
    limit: int = 0  # the most pieces or cells the engine takes
    count: int = 0  # the grid indices a box bound holds


@record
class TooLarge:
    """Blocks in no classes (`why`) and too many to enumerate one by one."""

    why: Why
    blocks: int | None  # the grid's blocks; None where the number is unknown
    at_most: int  # the most blocks enumerated


Unclassed = Why | TooLarge  # what an Unclassified carries


class Stage(StrEnum):
    """Which figure was bounded, not counted, where the blocks fall into no classes."""

    WAVE_UNION = "wave union"  # t_model's global traffic: compulsory bytes instead
    BUSIEST_SM = "busiest SM"  # a per-SM roof: the whole grid on the whole machine instead


@record
class Fallback:
    """A figure bounded, not counted (`stage`), since the blocks fall into no classes."""

    stage: Stage
    why: Unclassed


class Unclassified(Exception):
    """Blocks that do not fall into classes; `reason` says why, with its figures."""

    def __init__(self, reason: Unclassed) -> None:
        super().__init__(reason)
        self.reason = reason
