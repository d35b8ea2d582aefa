"""The syntax tree of a .kcost spec: frozen dataclasses, each with the span it came from.

    Kernel(name, params, items)
    ├── Param(name, default)
    ├── ReuseSetting(mode)                       reuse perfect | none
    ├── Assume(facts)                            Divides(divisor, dividend) | Compare(l, op, r)
    ├── TensorDecl(role, name, dtype, shape, level)
    ├── PerItem(item, count)                     per token = b: items one run handles
    └── statements
        ├── Let(name, dtype | None, shape, level | None, value, swizzle | None)
        │                                        a derived size (no type), a register local,
        │                                        or a local array in a level
        ├── For(var, lo, hi, step | None, body, parallel | None, lanes | None)
        │                                        one iterator; `for i in .., j in ..` nests;
        │                                        a parallel header's loops share its Parallel;
        │                                        a `lanes` loop spreads over a warp's lanes
        ├── Keep(tensors, level, stages | None, body)   a reuse scope
        └── Assign(target, op, value, unit | None)   op: = += max= min=; unit: `on tensor`
                                                 or `on fma`, the units the spec names
    expressions: Number, Name, Access(tensor, indices), BinOp(op, left, right), Neg,
                 Call(func, args)
"""

from __future__ import annotations

from .kinds import Role
from .records import record

# the characters of a name: a spec's (kernel, size, tensor, local, iterator), a Triton
# kernel's the import turns into one, a machine's, topology's or model's; a name is printed
# in every sentence about it, so a longer one is refused where it is written
MAX_NAME_LENGTH = 128


@record
class Span:
    """Where a node stands in its file: 1-based line and column, end exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    # made by a rewrite (lang.split_k's bounds and assume): placed at the text that asked for
    # it, but that text is not the node's own, so a message writes the node, not the text
    synthetic: bool = False

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


# --- expressions -------------------------------------------------------------------------


@record
class Number:
    text: str  # as written, so that 1e8 and 0.5 keep their exact decimal meaning
    span: Span


@record
class Name:
    id: str
    span: Span


@record
class Access:
    tensor: str
    indices: tuple[Expr, ...]
    span: Span


@record
class BinOp:
    op: str  # + - * /
    left: Expr
    right: Expr
    span: Span


@record
class Neg:
    operand: Expr
    span: Span


@record
class Call:
    func: str
    args: tuple[Expr, ...]
    span: Span


Expr = Number | Name | Access | BinOp | Neg | Call


# --- statements --------------------------------------------------------------------------


@record
class Let:
    name: str
    dtype: str | None  # None: a derived size; a type: a local
    value: Expr
    span: Span
    shape: tuple[Expr, ...] = ()  # a local array's extents; () for a scalar local
    level: Name | None = None  # the level a local array lives in (registers when None)
    swizzle: Span | None = None  # `swizzle`: a shared array's rows in an XOR-swizzled layout


@record
class BlockOption:
    """One setting of a parallel header: `threads = 256`, `cluster i0 = 2`, `raster = row`."""

    name: Name
    axis: Name | None  # the iterator a `cluster` setting runs along
    value: Expr
    span: Span


@record
class Parallel:
    """`parallel(...)` after a loop header: its loops are the grid of thread blocks."""

    options: tuple[BlockOption, ...]
    span: Span


@record
class For:
    var: str
    lo: Expr
    hi: Expr
    step: Expr | None
    body: tuple[Statement, ...]
    span: Span
    parallel: Parallel | None = None  # the same object on every loop of a parallel header
    lanes: Span | None = None  # `lanes`: consecutive iterations run on consecutive lanes


@record
class Keep:
    tensors: tuple[Name, ...]
    level: Name
    body: tuple[Statement, ...]
    span: Span
    stages: Expr | None = None  # pipeline stages: the level holds this many tiles at once


@record
class Assign:
    target: Name | Access
    op: str  # = += max= min=
    value: Expr
    span: Span
    unit: Name | None = None  # `on tensor` / `on fma`: the units the spec names for it


Statement = Let | For | Keep | Assign


# --- kernel-level declarations -----------------------------------------------------------


@record
class Param:
    name: str
    default: int | None
    span: Span


@record
class ReuseSetting:
    mode: Name
    span: Span


@record
class Target:
    """`target sm_90a`: the architecture the spec's on-chip pattern is written for."""

    architecture: Name
    span: Span


@record
class Needs:
    """`needs wgmma, tma`: hardware features the spec's on-chip pattern uses."""

    features: tuple[Name, ...]
    span: Span


@record
class Serial:
    """`serial tensor, sfu`: roofs whose times add in the estimate, the kernel's warps issuing
    their work one after another with nothing to hide it."""

    roofs: tuple[Name, ...]
    span: Span


@record
class MmaLine:
    """`mma sync`: how the spec issues its matrix multiply-adds (`sync`, `wgmma`, `tcgen05`)."""

    path: Name
    span: Span


@record
class Divides:
    divisor: Expr
    dividend: Expr
    span: Span


@record
class Compare:
    left: Expr
    op: str  # <= < >= >
    right: Expr
    span: Span


@record
class Assume:
    facts: tuple[Divides | Compare, ...]
    span: Span


@record
class TensorDecl:
    role: Role  # in | out | inout
    name: str
    dtype: Name
    shape: tuple[Expr, ...]  # empty for a scalar
    level: Name | None  # home level; None means global
    span: Span


@record
class PerItem:
    """`per token = b`: one run of the kernel handles `count` items named `item` (a token, a
    row, an image), so that a time becomes a rate in items per second."""

    item: Name
    count: Expr
    span: Span


Item = ReuseSetting | Target | Needs | Serial | MmaLine | Assume | TensorDecl | PerItem | Statement


@record
class Kernel:
    name: str
    params: tuple[Param, ...]
    items: tuple[Item, ...]
    span: Span
    source: str  # the text it was parsed from, for error excerpts

    @property
    def statements(self) -> tuple[Statement, ...]:
        return tuple(item for item in self.items if isinstance(item, (Let, For, Keep, Assign)))

    @property
    def tensors(self) -> tuple[TensorDecl, ...]:
        return tuple(item for item in self.items if isinstance(item, TensorDecl))


def header_loops(loop: For) -> list[For]:
    """The loops of the parallel header that starts at `loop` (they share one Parallel
    object), outermost first."""
    loops = [loop]
    while (len(loops[-1].body) == 1 and isinstance(loops[-1].body[0], For)
           and loops[-1].body[0].parallel is loop.parallel):
        loops.append(loops[-1].body[0])
    return loops


def names_in(*exprs: Expr | None) -> set[str]:
    """The names the expressions hold (None: no expression, as a loop's missing step)."""
    return {node.id for expr in exprs if expr is not None for node in walk_expr(expr)
            if isinstance(node, Name)}


def walk_expr(expr: Expr):
    """Yield expr and every sub-expression, parents first."""
    yield expr
    if isinstance(expr, Access):
        for index in expr.indices:
            yield from walk_expr(index)
    elif isinstance(expr, BinOp):
        yield from walk_expr(expr.left)
        yield from walk_expr(expr.right)
    elif isinstance(expr, Neg):
        yield from walk_expr(expr.operand)
    elif isinstance(expr, Call):
        for arg in expr.args:
            yield from walk_expr(arg)
