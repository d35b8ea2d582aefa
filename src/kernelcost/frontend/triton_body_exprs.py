"""Expressions of a Triton kernel as import values, and the spec statements data lands in.

`Expressions` is the walker's state and its expression half: `evaluate` turns a Python
expression into a value (triton_values), and `write` turns a statement (a target, an
operator, data) into a loop over the lanes it runs on, clipped by the masks it carries."""

from __future__ import annotations

import ast
import itertools
import math
from dataclasses import replace

import sympy

from ..base.errors import Code
from ..base.records import record
from .triton_grid import Axis, grid_axes
from .triton_source import Source, dotted, import_error
from .triton_values import (
    RESERVED,
    BlockPointer,
    Bound,
    Data,
    Decoded,
    Index,
    Lane,
    Local,
    Mask,
    Node,
    NotPrintable,
    Number,
    Op,
    Pointer,
    Read,
    SizeTerm,
    Value,
    broadcast,
    data_text,
    joined,
    node_lanes,
    spec_name,
    symbol,
    text,
)

FUNCTIONS = {"exp": "exp", "exp2": "exp", "log": "log", "log2": "log", "sqrt": "sqrt",
             "sqrt_rn": "sqrt", "rsqrt": "rsqrt", "cos": "cos", "sin": "sin",
             "maximum": "max", "minimum": "min"}
REDUCTIONS = {"sum": "+=", "max": "max=", "min": "min="}
MAX_PIECES = 8  # a statement over three wrapped lanes is eight loops; more is refused


@record
class Piece:
    """A lane's loop, or one of the two of a wrapped lane: its images in global indices
    (shifted back by the modulus past it) and in register arrays (its place in the block)."""

    lane: Lane
    name: str
    low: sympy.Expr
    high: sympy.Expr
    global_image: sympy.Expr
    local_image: sympy.Expr


@record
class Statement:
    target: Read | Local
    op: str
    value: Data
    node: ast.AST


class Expressions:
    def __init__(self, source: Source, axes: dict[int, Axis], pointers: set[str]):
        self.source = source
        self.axes = axes
        self.lines: list[tuple[int, str]] = []  # (depth, text), the block's body
        self.depth = 1
        self.taken = set(RESERVED) | {spec_name(p.name) for p in source.params}
        self.taken |= {axis.iterator for axis in grid_axes(axes)}
        self.env: dict[str, Value] = {}
        for param in source.params:
            name = spec_name(param.name)  # `out` is a keyword of the spec: `out_`
            self.env[param.name] = (Pointer(name, Index(sympy.Integer(0)))
                                    if param.name in pointers else Index(symbol(name)))
        self.strides = [symbol(spec_name(p.name)) for p in source.params
                        if "stride" in p.name and not p.constexpr and p.name not in pointers]
        self.lanes: dict[sympy.Symbol, Lane] = {}
        self.lane_names: dict[sympy.Symbol, str] = {}
        self.ranges: dict[sympy.Symbol, tuple[sympy.Expr, sympy.Expr, sympy.Expr]] = {
            symbol(a.iterator): (a.low, a.high, a.step) for a in grid_axes(axes)}
        # a statement advancing a pointer each iteration: the pointer's name and its value after
        self.advanced: dict[int, tuple[str, Pointer | BlockPointer]] = {}
        self.wraps: dict[sympy.Symbol, sympy.Expr] = {}  # a lane of `(...) % M`: M
        self.assumptions: set[str] = set()  # facts the spec states: `BLOCK_SIZE_M <= M`
        self.clip_wrapped = False  # `--wrap clip`: a `% M` index as a mask
        self.iterators: set[str] = set()  # every loop's iterator, lanes' and sequential
        self.size_symbols: set[sympy.Symbol] = set()
        self.data_symbols: set[sympy.Symbol] = set()
        self.tensor_dims: dict[str, tuple[str, ...]] = {}
        self.shape_of: dict[tuple[str, str], sympy.Expr] = {}  # a block pointer's shape=
        self.extents: dict[tuple[str, int], sympy.Expr] = {}
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.node: ast.AST = source.function

    # --- helpers ---------------------------------------------------------------------------

    def fresh(self, name: str) -> str:
        base = name if name not in RESERVED else name + "_"
        candidate, count = base, 1
        while candidate in self.taken:
            count += 1
            candidate = f"{base}_{count}"
        self.taken.add(candidate)
        return candidate

    def line(self, content: str, node: ast.AST | None) -> None:
        number = getattr(node, "lineno", None)
        if number is not None:
            source_line = self.source.text.split("\n")[number - 1].strip()
            if len(source_line) > 70:
                source_line = source_line[:67] + "..."
            content = f"{content}  # line {number}: {source_line}"
        self.lines.append((self.depth, content))

    def text(self, expr: sympy.Expr) -> str:
        self.size_symbols |= expr.free_symbols if isinstance(expr, sympy.Basic) else set()
        try:
            return text(expr)
        except NotPrintable as problem:
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, self.node,
                               f"an index or bound with no form in a spec: {problem}",
                               "indices must be affine: a program id or loop index times a size, "
                               "plus a lane") from None

    def size(self, value: Value, node: ast.AST) -> sympy.Expr:
        if isinstance(value, Index) and not self.lanes_in(value.expr):
            return value.expr
        raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                           "a size is needed here: an integer of the kernel's parameters, "
                           "program ids and loop indices", None)

    def lanes_in(self, expr: sympy.Expr) -> list[Lane]:
        return [self.lanes[s] for s in sorted(expr.free_symbols, key=str) if s in self.lanes]

    def name_lanes(self, name: str, value: Index) -> None:
        for lane in self.lanes_in(value.expr):
            self.lane_names.setdefault(lane.symbol, name)

    def as_data(self, value: Value, node: ast.AST) -> Data:
        if isinstance(value, Data):
            return value
        if isinstance(value, Index) and not self.lanes_in(value.expr):
            self.data_symbols |= value.expr.free_symbols
            if value.expr.is_Integer:
                return Data(Number(str(int(value.expr))))
            return Data(SizeTerm(value.expr))
        raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                           "a block of offsets or a pointer used as data",
                           "the import counts data loaded with tl.load and arithmetic on it")

    def call_arguments(self, call: ast.Call, names: tuple[str, ...]) -> dict[str, ast.expr]:
        found = dict(zip(names, call.args))
        found.update({k.arg: k.value for k in call.keywords if k.arg in names})
        return found

    def mask_bounds(self, node: ast.expr | None) -> tuple[Bound, ...]:
        if node is None:
            return ()
        mask = self.evaluate(node)
        if not isinstance(mask, Mask):
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                               "a mask that is not a comparison of offsets with a bound",
                               "mask=offsets < n (masks joined with &)")
        return mask.bounds

    def target_read(self, pointer: Pointer, bounds: tuple[Bound, ...]) -> Read:
        return Read(pointer.tensor, pointer.offset, bounds)

    # --- memory layout ---------------------------------------------------------------------

    def dims(self, tensor: str, expr: sympy.Expr) -> list[sympy.Expr]:
        """An offset split along the stride arguments, the unit-stride axis last."""
        parts: dict[str, sympy.Expr] = {}
        for term in sympy.Add.make_args(sympy.expand(expr)):
            strides = [s for s in self.strides if s in term.free_symbols]
            if len(strides) > 1 or (strides and sympy.degree(term, strides[0]) != 1):
                raise import_error(Code.TRITON_UNSUPPORTED, self.source, self.node,
                                   f"an offset of `{tensor}` that multiplies strides together",
                                   "offsets are sums of an index times one stride argument")
            key = str(strides[0]) if strides else ""
            parts[key] = parts.get(key, sympy.Integer(0)) + (term / strides[0] if strides
                                                             else term)
        order = [str(s) for s in self.strides if str(s) in parts]
        keys = tuple(order + ([""] if "" in parts else []))
        known = self.tensor_dims.setdefault(tensor, keys)
        if known != keys:
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, self.node,
                               f"`{tensor}` is reached along strides ({', '.join(keys) or 'none'}) "
                               f"here and ({', '.join(known) or 'none'}) elsewhere",
                               "address a tensor along the same stride arguments everywhere")
        return [parts[key] for key in keys]

    # --- statements ------------------------------------------------------------------------

    def write(self, statement: Statement, extra: tuple[Bound, ...] = ()) -> None:
        """The statement as a loop over its lanes, clipped by every mask it carries; a lane
        wrapped with `% M` runs in two pieces, the rows under M and those wrapped past it
        (read again from row 0), so that a wrapped tile is counted whole, not clipped."""
        self.node = statement.node
        target_axes = (statement.target.axes if isinstance(statement.target, Local)
                       else statement.target.offset.axes)
        axes = broadcast(statement.value.axes, target_axes)
        fresh: dict[tuple[str, int], Lane] = {}
        value = self.bind(statement.value.node, axes, fresh)
        target = self.bind(statement.target, axes, fresh)
        lanes = node_lanes(value, self.lanes) + [
            lane for lane in node_lanes(target, self.lanes)
            if lane not in node_lanes(value, self.lanes)]
        reads = self.global_reads(value) + ([target] if isinstance(target, Read) else [])
        bounds = joined(statement.value.bounds, extra)
        pieces_of_lanes = []
        extents: dict[sympy.Symbol, sympy.Expr] = {}
        for lane in lanes:
            base = self.base_of(lane, reads)
            name = self.fresh(self.lane_names.get(lane.symbol, lane.name))
            self.iterators.add(name)
            iterator = symbol(name)
            high = base + lane.extent
            for bound in bounds:
                rest = bound.lhs - lane.symbol
                if lane.symbol in bound.lhs.free_symbols and not rest.free_symbols & set(
                        self.lanes):
                    limit = sympy.expand(bound.limit - rest + base)
                    extents[iterator] = limit
                    high = sympy.Min(high, limit)
            image = iterator - base
            wrap = self.wraps.get(lane.symbol)
            if wrap is not None and self.clip_wrapped:  # `--wrap clip`: rows past M dropped
                high = sympy.Min(high, wrap)
                extents[iterator] = wrap
                wrap = None
            if wrap is None:
                pieces_of_lanes.append([Piece(lane, name, base, high, image, image)])
            else:  # a tile wraps once at most: the spec assumes it is no larger than M
                self.assumptions.add(f"{self.text(lane.extent)} <= {self.text(wrap)}")
                extents[iterator] = wrap
                pieces_of_lanes.append([
                    Piece(lane, name, base, sympy.Min(high, wrap), image, image),
                    Piece(lane, name, wrap, high, image - wrap, image)])
        if math.prod(len(pieces) for pieces in pieces_of_lanes) > MAX_PIECES:
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, self.node,
                               "a statement over more than three lanes wrapped with `%`",
                               "wrap the rows and columns of a tile, not more")
        for combination in itertools.product(*pieces_of_lanes):
            images = {p.lane.symbol: p.global_image for p in combination}
            for read in reads:
                self.record(read, images, extents, read is target)
            self.emit(statement, combination, value, target)
        for lane_pieces in pieces_of_lanes:
            self.taken.discard(lane_pieces[0].name)
        if statement.op != "=" and isinstance(target, Read):  # an atomic's read-modify-write
            self.reads.add(target.tensor)

    def emit(self, statement: Statement, pieces, value: Node, target: Read | Local) -> None:
        global_images = {p.lane.symbol: p.global_image for p in pieces}
        local_images = {p.lane.symbol: p.local_image for p in pieces}

        def indices(node: Read | Local) -> str:
            if isinstance(node, Read):
                offset = node.offset.expr.subs(global_images)
                return ", ".join(self.text(sympy.expand(e)) for e in self.dims(node.tensor,
                                                                               offset))
            return ", ".join(self.text(sympy.expand(lane.symbol.subs(local_images)))
                             for lane in node.axes if lane is not None)

        body = f"{data_text(target, indices)} {statement.op} {data_text(value, indices)}"
        if not pieces:
            self.line(body, statement.node)
            return
        header = ", ".join(f"{p.name} in {self.text(p.low)}..{self.text(p.high)}"
                           for p in pieces)
        self.line(f"for {header} {{", statement.node)
        self.lines.append((self.depth + 1, body))
        self.lines.append((self.depth, "}"))

    def bind(self, node, axes, fresh):
        """A tl.zeros block takes the lanes of the statement it is used in, by axis."""
        if isinstance(node, Local) and node.extents and all(a is None for a in node.axes):
            bound = []
            for position, extent in enumerate(node.extents):
                at = len(axes) - len(node.extents) + position
                lane = axes[at] if 0 <= at < len(axes) else None
                if lane is None or lane.extent != extent:
                    lane = fresh.get((node.name, position)) or self.new_lane(
                        extent, f"{node.name}_i")
                    fresh[(node.name, position)] = lane
                bound.append(lane)
            return replace(node, axes=tuple(bound))
        if isinstance(node, Op):
            return Op(node.name, tuple(self.bind(a, axes, fresh) for a in node.args))
        return node

    def global_reads(self, node: Node) -> list[Read]:
        if isinstance(node, Read):
            return [node]
        if isinstance(node, Op):
            return [read for a in node.args for read in self.global_reads(a)]
        return []

    def base_of(self, lane: Lane, reads: list[Read]) -> sympy.Expr:
        for read in reads:
            for index in self.dims(read.tensor, read.offset.expr):
                if lane.symbol in index.free_symbols:
                    coefficient = sympy.expand(index).coeff(lane.symbol)
                    rest = sympy.expand(index - lane.symbol)
                    if coefficient != 1 or lane.symbol in rest.free_symbols:
                        raise import_error(Code.TRITON_UNSUPPORTED, self.source, self.node,
                                           f"`{read.tensor}` is indexed by {coefficient} "
                                           "times a lane",
                                           "the import reads unit-stride lanes along each axis")
                    return rest
        return sympy.Integer(0)

    def record(self, read: Read, images: dict, limits: dict, written: bool) -> None:
        (self.writes if written else self.reads).add(read.tensor)
        offset = sympy.expand(read.offset.expr.subs(images))
        for axis, index in enumerate(self.dims(read.tensor, offset)):
            extent = self.shape_of.get((read.tensor, self.tensor_dims[read.tensor][axis]))
            if extent is not None:
                pass
            elif index in limits:
                extent = limits[index]
            elif index in self.ranges and self.ranges[index][0] == 0 and self.ranges[
                    index][2] == 1:
                extent = self.ranges[index][1]
            elif index.is_Integer:
                extent = index + 1
            if extent is not None:
                self.extents.setdefault((read.tensor, axis), extent)

    def new_lane(self, extent: sympy.Expr, name: str) -> Lane:
        """A lane of its own, numbered in the order lanes are made, named `name` in the spec."""
        lane = Lane(symbol(f"lane{len(self.lanes)}"), extent, name)
        self.lanes[lane.symbol] = lane
        return lane

    def evaluate(self, node: ast.expr) -> Value:
        raise NotImplementedError  # triton_eval.Evaluator's

    def unsupported(self, node: ast.AST, what: str, hint: str | None = None):
        return import_error(Code.TRITON_UNSUPPORTED, self.source, node, what, hint)

    def program_id(self, call: ast.Call) -> Index | Decoded:
        values = [*call.args, *(k.value for k in call.keywords if k.arg == "axis")]
        axis = values[0].value if len(values) == 1 and isinstance(values[0], ast.Constant) else None
        if not isinstance(axis, int) or axis not in self.axes:
            raise self.unsupported(call, f"tl.{dotted(call.func).rsplit('.', 1)[-1]} of an axis "
                                         "the grid does not have",
                                   "the grid (the launch or --grid) gives each axis used")
        if self.axes[axis].parts:
            return Decoded(axis)
        return Index(self.axes[axis].program_id)
