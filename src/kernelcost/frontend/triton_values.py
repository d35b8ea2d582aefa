"""The values a Triton kernel's statements compute, as the import tracks them, and their text
in a spec.

A Triton program works on blocks: `tl.arange(0, B)` is a block of B lanes, and every value
built from it is one value a lane. The import keeps integer values (sizes, program ids, loop
iterators, lane offsets) as sympy expressions in which each `tl.arange` is a lane symbol, so
that `pid * BLOCK + tl.arange(0, BLOCK)` is the expression `pid*BLOCK + l0`; a pointer is a
tensor (a pointer argument) and such an offset; a mask is the bounds `offset < limit` it
keeps; and data (what `tl.load` gives and arithmetic on it) is a small tree of `Read`,
`Local`, `Number`, `SizeTerm` and `Op` nodes that prints as a spec expression once each lane
is given its loop iterator.

    Index(expr, axes)             an integer value; axes: the lane along each block axis
    Pointer(tensor, offset)       a pointer argument plus an Index
    Mask(bounds)                  lanes where every Bound(lhs < limit) holds
    Data(node, axes, bounds)      a block of values; bounds: the masks of the loads it reads
      Read(tensor, offset, bounds)  one tl.load
      Local(name, axes)             a register array (axes) or scalar (no axes) of the spec
      Number(text) | SizeTerm(expr) | Op(name, args)
"""

from __future__ import annotations

import sympy

from ..base.records import record


class NotPrintable(Exception):
    """An integer expression the spec language has no way to write (a division that does not
    cancel, a floor): the caller places it at the statement it came from."""


RESERVED = frozenset({"assume", "by", "for", "in", "inout", "keep", "kernel", "lanes", "let",
                      "mma", "needs", "on", "out", "parallel", "per", "reuse", "serial",
                      "stages", "swizzle", "target", "exp", "log", "sqrt", "rsqrt", "tanh",
                      "sin", "cos", "max", "min", "fma"})


def spec_name(name: str) -> str:
    """A Python name as a spec may write it: a keyword or built-in function of the language
    takes a trailing underscore (`out` is `out_`)."""
    return name + "_" if name in RESERVED else name


def symbol(name: str) -> sympy.Symbol:
    """An integer symbol of the import: sizes, iterators and lanes alike."""
    return sympy.Symbol(name, integer=True)


@record
class Lane:
    """One `tl.arange(0, extent)`: its symbol, its extent, and the name its loop takes."""

    symbol: sympy.Symbol
    extent: sympy.Expr
    name: str


Axes = tuple[Lane | None, ...]  # the lane along each axis of a block; None: broadcast


@record
class Index:
    expr: sympy.Expr
    axes: Axes = ()
    wrap: sympy.Expr | None = None  # the modulus of an index written `(...) % M`


@record
class Pointer:
    tensor: str
    offset: Index


@record
class BlockAxis:
    """One axis of a `tl.make_block_ptr`: where the block starts, its lane, the axis's stride
    and the parent tensor's extent along it."""

    position: sympy.Expr
    lane: Lane
    stride: sympy.Expr
    shape: sympy.Expr


@record
class BlockPointer:
    """`tl.make_block_ptr(base, shape, strides, offsets, block_shape)`, moved by tl.advance."""

    tensor: str
    base: sympy.Expr
    axes: tuple[BlockAxis, ...]

    def offset(self) -> Index:
        expr = self.base + sum((a.stride * (a.position + a.lane.symbol) for a in self.axes),
                               sympy.Integer(0))
        return Index(expr, tuple(a.lane for a in self.axes))

    def bounds(self, checked: tuple[int, ...]) -> tuple[Bound, ...]:
        """The masks of `boundary_check=checked`: position + lane < shape on those axes."""
        return tuple(Bound(a.position + a.lane.symbol, a.shape)
                     for number, a in enumerate(self.axes) if number in checked)

    def advanced(self, deltas: tuple[sympy.Expr, ...]) -> BlockPointer:
        return BlockPointer(self.tensor, self.base, tuple(
            BlockAxis(a.position + delta, a.lane, a.stride, a.shape)
            for a, delta in zip(self.axes, deltas)))


@record
class Bound:
    """lhs < limit, lhs holding one lane."""

    lhs: sympy.Expr
    limit: sympy.Expr


def joined(*groups: tuple[Bound, ...]) -> tuple[Bound, ...]:
    """The bounds of several values, each once: a block read twice carries its masks into
    both operands, so a chain of such blocks (`a1 = a0 * 3 + a0 * 5`, `a2 = a1 * 3 + a1 *
    5`, ...) doubled its bounds at every step, 2^n of them for n lines."""
    return tuple(dict.fromkeys(bound for group in groups for bound in group))


@record
class Mask:
    bounds: tuple[Bound, ...]
    axes: Axes = ()


@record
class Read:
    tensor: str
    offset: Index
    bounds: tuple[Bound, ...]


@record
class Local:
    name: str
    axes: Axes = ()  # a register array's lanes, by axis; () a scalar register local
    extents: tuple[sympy.Expr, ...] = ()


@record
class Number:
    text: str


@record
class SizeTerm:
    expr: sympy.Expr


@record
class Op:
    name: str  # + - * / neg, or a spec function: exp sqrt rsqrt max min log
    args: tuple[Node, ...]


Node = Read | Local | Number | SizeTerm | Op


@record
class Data:
    node: Node
    axes: Axes = ()
    bounds: tuple[Bound, ...] = ()


@record
class Decoded:
    """A program id of a 1-D grid over tiles, or arithmetic on it, not yet known as the tile's
    row or column: it becomes one when multiplied by that axis's block size."""

    axis: int


@record
class DType:
    """A `tl.float32`-like name: what a cast names; casts cost nothing in the spec."""

    name: str


Value = Index | Pointer | BlockPointer | Mask | Data | DType | Decoded


def lanes_of(expr: sympy.Expr, lanes: dict[sympy.Symbol, Lane]) -> list[Lane]:
    return [lanes[s] for s in sorted(expr.free_symbols, key=str) if s in lanes]


def node_lanes(node: Node, lanes: dict[sympy.Symbol, Lane]) -> list[Lane]:
    """Every lane a data tree runs over, in a fixed order."""
    found: dict[str, Lane] = {}
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Read):
            for lane in lanes_of(item.offset.expr, lanes):
                found[lane.name + str(lane.symbol)] = lane
        elif isinstance(item, Local):
            for axis in item.axes:
                if axis is not None:
                    found[axis.name + str(axis.symbol)] = axis
        elif isinstance(item, Op):
            stack.extend(item.args)
    return [found[key] for key in sorted(found)]


def broadcast(first: Axes, second: Axes) -> Axes:
    """The axes of a value built from two blocks: numpy's rule, by lane."""
    width = max(len(first), len(second))
    first = (None,) * (width - len(first)) + first
    second = (None,) * (width - len(second)) + second
    return tuple(a if a is not None else b for a, b in zip(first, second))


# --- printing ---------------------------------------------------------------------------


def text(expr: sympy.Expr) -> str:
    """A size or index expression in the spec's syntax: + - * / min max and integers."""
    if isinstance(expr, int):
        expr = sympy.Integer(expr)
    if expr.is_Integer:
        return str(int(expr))
    if expr.is_Symbol:
        return str(expr)
    if expr.is_Rational:
        return f"{expr.p}/{expr.q}"
    if isinstance(expr, sympy.Add):
        terms = sorted(expr.args, key=_term_order)
        out = text(terms[0])
        for term in terms[1:]:
            negated = -term
            if _is_negative(term):
                out += f" - {_factor_text(negated)}"
            else:
                out += f" + {text(term)}"
        return out
    if isinstance(expr, sympy.Mul):
        coefficient, factors = expr.as_coeff_mul()
        numerators, denominators = [], []
        for factor in factors:
            base, exponent = factor.as_base_exp()
            if exponent.is_Integer and exponent < 0:
                denominators.extend([base] * int(-exponent))
            else:
                numerators.append(factor)
        if denominators:
            raise NotPrintable(f"{expr} divides by {denominators[0]}")
        if coefficient == -1:
            return "-" + _factor_text(sympy.Mul(*numerators))
        parts = [] if coefficient == 1 else [text(coefficient)]
        parts += [_factor_text(f) for f in numerators]
        return " * ".join(parts)
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer and expr.exp > 0:
        return " * ".join([_factor_text(expr.base)] * int(expr.exp))
    if isinstance(expr, (sympy.Min, sympy.Max)):
        name = "min" if isinstance(expr, sympy.Min) else "max"
        return f"{name}({', '.join(text(a) for a in sorted(expr.args, key=str))})"
    raise NotPrintable(f"{expr} has no form in the spec language")


def _is_negative(term: sympy.Expr) -> bool:
    coefficient, _ = term.as_coeff_mul()
    return bool(coefficient.is_negative)


def _term_order(term: sympy.Expr) -> tuple[str, int, str]:
    """Positive terms first, iterators and sizes before numbers: `pid0 + 1`, `1 - p`."""
    return ("1" if _is_negative(term) else "0", 1 if term.is_Number else 0, str(term))


def _factor_text(expr: sympy.Expr) -> str:
    out = text(expr)
    return f"({out})" if isinstance(expr, sympy.Add) else out


def data_text(node: Node, index_text) -> str:
    """A data tree as a spec expression; index_text prints a Read's or Local's indices."""
    if isinstance(node, Number):
        return node.text
    if isinstance(node, SizeTerm):
        return text(node.expr)
    if isinstance(node, (Read, Local)):
        indices = index_text(node)
        return f"{_name(node)}[{indices}]" if indices else _name(node)
    if node.name == "neg":
        return f"-{_operand(node.args[0], index_text, 3, True)}"
    if node.name in PRECEDENCE:
        precedence = PRECEDENCE[node.name]
        left = _operand(node.args[0], index_text, precedence, False)
        right = _operand(node.args[1], index_text, precedence, True)
        return f"{left} {node.name} {right}"
    return f"{node.name}({', '.join(data_text(a, index_text) for a in node.args)})"


PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}  # neg binds tighter: 3


def _name(node: Read | Local) -> str:
    return node.tensor if isinstance(node, Read) else node.name


def _operand(node: Node, index_text, outer: int, right: bool) -> str:
    """An operand in parentheses where its operator binds less tightly than the one around
    it, or as tightly on the right (`a - (b - c)`): a left-nested chain prints flat."""
    out = data_text(node, index_text)
    if isinstance(node, Op) and (node.name in PRECEDENCE or node.name == "neg"):
        inner = 3 if node.name == "neg" else PRECEDENCE[node.name]
    elif isinstance(node, SizeTerm) and isinstance(node.expr, sympy.Add):
        inner = 1
    elif isinstance(node, SizeTerm) and isinstance(node.expr, sympy.Mul):
        inner = 2
    else:
        return out
    return f"({out})" if inner < outer or (right and inner == outer) else out


def renamed(data: Data, old: Lane, new: Lane) -> Data:
    """Data whose lane `old` is `new`: the two operands of a tl.dot along k."""

    def bound(b: Bound) -> Bound:
        return Bound(b.lhs.subs(old.symbol, new.symbol), b.limit.subs(old.symbol, new.symbol))

    def axes(values: tuple) -> tuple:
        return tuple(new if axis == old else axis for axis in values)

    def node(item: Node) -> Node:
        if isinstance(item, Read):
            offset = Index(item.offset.expr.subs(old.symbol, new.symbol), axes(item.offset.axes))
            return Read(item.tensor, offset, tuple(bound(b) for b in item.bounds))
        if isinstance(item, Local):
            return Local(item.name, axes(item.axes), item.extents)
        if isinstance(item, Op):
            return Op(item.name, tuple(node(a) for a in item.args))
        return item

    return Data(node(data.node), axes(data.axes), tuple(bound(b) for b in data.bounds))
