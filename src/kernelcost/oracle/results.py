"""What the enumeration finds, and how a closed form compares with it."""

from __future__ import annotations

from fractions import Fraction

from ..base.kinds import Reuse
from ..base.records import record
from .grid_blocks import BlockCounts

ACCUMULATIONS = ("+=", "max=", "min=")
DEFAULT_MAX_STEPS = 5_000_000  # loop iterations plus statement executions, per enumeration
SAMPLE_MAX_STEPS = 200_000  # what sample_sizes aims for, so that a property test stays fast
MAX_SUM_TERMS = 1_000_000  # terms of an unevaluated Sum added up one by one in `evaluate`

Value = int | Fraction  # a size, an iterator or an index component
Env = dict[str, Value]  # iterator name -> current value
Element = tuple  # one element of a tensor: its index values



# --- results -----------------------------------------------------------------------------


@record
class ScopeEntry:
    """One run of a keep scope."""

    outer_values: dict[str, Value]  # iterator of each loop around the scope -> its value
    read_elements: dict[str, int]  # kept tensor -> distinct elements filled (skip rule applied)
    write_elements: dict[str, int]  # kept tensor -> distinct elements written back


@record
class ScopeCounts:
    """One `keep ... in LEVEL { }` scope, enumerated."""

    index: int  # position among the kernel's keep scopes, in source order
    level: str
    tensors: tuple[str, ...]
    outer_iterators: tuple[str, ...]  # loops around the scope, outermost first
    entries: tuple[ScopeEntry, ...]  # every run of the scope, in execution order
    # bytes of elements read or written at the first entry (0: none); None when that entry
    # is not the one at every outer lower bound, where the closed form takes it
    held_bytes_first: Fraction | None

    @property
    def entry_count(self) -> int:
        return len(self.entries)


@record
class Counts:
    """What the enumeration found, at one size assignment and one reuse mode."""

    kernel: str
    sizes: dict[str, Value]  # every size name (parameters, defaults, `let` sizes) -> value
    reuse: Reuse
    work: dict[str, int]  # class (fma, vector, sfu) -> FLOP
    traffic: dict[str, Fraction]  # level -> bytes moved at that level (levels with traffic)
    footprints: dict[str, tuple[int, int]]  # tensor -> (distinct read, distinct written)
    scopes: tuple[ScopeCounts, ...]
    statement_executions: int
    steps: int  # loop iterations plus statement executions: what the budget limits
    blocks: tuple[BlockCounts, ...] = ()  # a parallel spec's thread blocks, in grid order
    compulsory_B: Fraction = Fraction(0)  # read elements of in/inout tensors homed in global
    # memory and written elements of every one, once each: what t_floor charges HBM

    @property
    def total_work(self) -> int:
        return sum(self.work.values())


@record
class Mismatch:
    """A closed form that disagrees with the enumeration."""

    quantity: str  # e.g. `traffic[global]`, `scope 0 read[A] at i0=0, k0=2`
    closed_form: Fraction | None  # its value at the sizes; None when it gave no number
    enumerated: Fraction
    relation: str  # `==` for an exact form, `>=` for an upper bound (a bounding box)
    expression: str = ""  # the closed form as sympy prints it

    def __str__(self) -> str:
        expected = {"==": "equal", ">=": "be at least", "<=": "be at most"}[self.relation]
        closed = "no number" if self.closed_form is None else str(self.closed_form)
        return (f"{self.quantity}: closed form {self.expression} = {closed} should {expected} "
                f"the enumeration {self.enumerated}")


@record
class Comparison:
    """One closed form evaluated against the enumeration: a row of `kernelcost check`."""

    quantity: str  # e.g. `traffic[global]`, `scope 0 (A in shared) read[A]`
    where: str  # the entry's outer iterator values (`i0=0, k0=2`), or "" for the whole kernel
    unit: str  # FLOP, B, elements, entries
    closed_form: Fraction | None  # its value at the sizes; None when it gave no number
    enumerated: Fraction
    relation: str  # `==` for an exact form, `>=` for an upper bound (a bounding box)
    form: object  # the closed form (sympy), printed only when a mismatch is reported

    @property
    def expression(self) -> str:
        return str(self.form)

    @property
    def holds(self) -> bool:
        if self.closed_form is None:
            return False
        if self.relation == "==":
            return self.closed_form == self.enumerated
        if self.relation == "<=":
            return self.closed_form <= self.enumerated
        return self.closed_form >= self.enumerated

    def mismatch(self) -> Mismatch:
        quantity = f"{self.quantity} at {self.where}" if self.where else self.quantity
        return Mismatch(quantity, self.closed_form, self.enumerated, self.relation,
                        self.expression)


