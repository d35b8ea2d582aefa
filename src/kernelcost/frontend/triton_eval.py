"""A Python expression of a Triton kernel as an import value: integer arithmetic on sizes and
lanes, pointers, masks, loads, element-wise math, reductions and casts."""

from __future__ import annotations

import ast

import sympy

from .triton_body_exprs import FUNCTIONS, REDUCTIONS, Expressions, Statement
from .triton_source import dotted
from .triton_values import (
    BlockAxis,
    BlockPointer,
    Bound,
    Data,
    Decoded,
    DType,
    Index,
    Local,
    Mask,
    Number,
    Op,
    Pointer,
    Read,
    Value,
    broadcast,
    joined,
    symbol,
)

ARITHMETIC = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


class Evaluator(Expressions):
    def evaluate(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            if node.id not in self.env:
                raise self.unsupported(node, f"`{node.id}` is not set in the kernel",
                                       "the import reads the kernel alone: a global or a "
                                       "helper's value is not known")
            return self.env[node.id]
        if isinstance(node, ast.BinOp):
            return self.binary(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            value = self.evaluate(node.operand)
            if isinstance(value, Index):
                return Index(-value.expr, value.axes)
            data = self.as_data(value, node)
            return Data(Op("neg", (data.node,)), data.axes, data.bounds)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            return self.both([self.evaluate(v) for v in node.values], node)
        if isinstance(node, ast.Subscript):
            return self.reshape(node)
        if isinstance(node, ast.Attribute) and dotted(node).startswith("tl."):
            return DType(node.attr)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.unsupported(node, f"a `{type(node).__name__}` expression has no form in a "
                                     "spec")

    def constant(self, node: ast.Constant) -> Value:
        if type(node.value) is int:
            return Index(sympy.Integer(node.value))
        if type(node.value) is float:
            return Data(Number(repr(node.value) if repr(node.value)[0].isdigit() else "0"))
        raise self.unsupported(node, f"the constant {node.value!r} has no form in a spec")

    def binary(self, node: ast.BinOp) -> Value:
        left, right = self.evaluate(node.left), self.evaluate(node.right)
        if isinstance(left, Decoded) or isinstance(right, Decoded):
            return self.decoding(left, right, node)
        if isinstance(node.op, ast.BitAnd):
            return self.both([left, right], node)
        if isinstance(left, Index) and isinstance(right, Index):
            axes = broadcast(left.axes, right.axes)
            if isinstance(node.op, ast.Add):
                return Index(left.expr + right.expr, axes)
            if isinstance(node.op, ast.Sub):
                return Index(left.expr - right.expr, axes)
            if isinstance(node.op, ast.Mult):
                return Index(left.expr * right.expr, axes)
            if isinstance(node.op, ast.Mod) and len(self.lanes_in(left.expr)) == 1:
                return self.wrapped(left, right, node)
            if isinstance(node.op, ast.FloorDiv) and not self.lanes_in(left.expr):
                quotient = sympy.cancel(left.expr / right.expr)
                return Index(quotient if sympy.fraction(quotient)[1] == 1
                             else sympy.floor(quotient), axes)
            raise self.unsupported(node, "an integer operation the import cannot write as an "
                                         "affine index (`%` and `//` of offsets)",
                                   "offsets are sums of program ids, loop indices and lanes "
                                   "times sizes")
        if isinstance(left, Pointer) and isinstance(right, Index) and isinstance(
                node.op, (ast.Add, ast.Sub)):
            sign = 1 if isinstance(node.op, ast.Add) else -1
            return Pointer(left.tensor, Index(left.offset.expr + sign * right.expr,
                                              broadcast(left.offset.axes, right.axes)))
        if isinstance(right, Pointer) and isinstance(left, Index) and isinstance(node.op, ast.Add):
            return Pointer(right.tensor, Index(right.offset.expr + left.expr,
                                               broadcast(left.axes, right.offset.axes)))
        if isinstance(left, Pointer) or isinstance(right, Pointer):
            raise self.unsupported(node, "an address computed from loaded data or a mask: an "
                                         "indirect access has no form in a spec",
                                   "addresses are a pointer argument plus offsets of program "
                                   "ids, loop indices and lanes")
        if type(node.op) not in ARITHMETIC:
            raise self.unsupported(node, "an operation on data the import does not count")
        first, second = self.as_data(left, node.left), self.as_data(right, node.right)
        return Data(Op(ARITHMETIC[type(node.op)], (first.node, second.node)),
                    broadcast(first.axes, second.axes), joined(first.bounds, second.bounds))

    def decoding(self, left: Value, right: Value, node: ast.BinOp) -> Value:
        """Arithmetic on a decoded program id: still decoded, until it is multiplied by the
        block size of one of the grid's tiled axes, which makes it that axis's offset."""
        decoded = left if isinstance(left, Decoded) else right
        other = right if decoded is left else left
        assert isinstance(decoded, Decoded)
        if not isinstance(other, (Index, Decoded)) or (
                isinstance(other, Index) and self.lanes_in(other.expr)):
            raise self.unsupported(node, "a program id decoded into tiles, used other than "
                                         "times a tile's size",
                                   "pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)")
        if isinstance(node.op, ast.Mult) and isinstance(other, Index):
            for part in self.axes[decoded.axis].parts:
                if sympy.expand(other.expr - part.step) == 0:
                    return Index(symbol(part.iterator))
        return decoded

    def wrapped(self, value: Index, modulus: Index, node: ast.BinOp) -> Index:
        """`(start + lane) % M`: a lane of its own, whose rows past M read rows 0, 1, ...
        again (write runs it in two pieces)."""
        lane = self.lanes_in(value.expr)[0]
        if sympy.expand(value.expr).coeff(lane.symbol) != 1 or self.lanes_in(modulus.expr):
            raise self.unsupported(node, "`%` of what is not a program's offsets plus a lane",
                                   "(pid * BLOCK + tl.arange(0, BLOCK)) % M")
        twin = self.new_lane(lane.extent, lane.name)
        self.wraps[twin.symbol] = modulus.expr
        axes = tuple(twin if axis == lane else axis for axis in value.axes)
        return Index(value.expr.subs(lane.symbol, twin.symbol), axes)

    def both(self, values: list[Value], node: ast.AST) -> Mask:
        bounds: tuple[Bound, ...] = ()
        axes: tuple = ()
        for value in values:
            if not isinstance(value, Mask):
                raise self.unsupported(node, "`&` of what is not a mask")
            bounds = joined(bounds, value.bounds)
            axes = broadcast(axes, value.axes)
        return Mask(bounds, axes)

    def compare(self, node: ast.Compare) -> Value:
        if len(node.ops) != 1:
            raise self.unsupported(node, "a chained comparison", "compare two values")
        left, right = self.evaluate(node.left), self.evaluate(node.comparators[0])
        op = node.ops[0]
        if isinstance(left, Index) and isinstance(right, Index):
            if isinstance(op, (ast.Gt, ast.GtE)):
                left, right = right, left
            if not self.lanes_in(left.expr) or self.lanes_in(right.expr):
                raise self.unsupported(node, "a comparison of sizes that is no mask of lanes",
                                       "a mask compares offsets with a bound: offsets < n")
            limit = right.expr + (1 if isinstance(op, (ast.LtE, ast.GtE)) else 0)
            if not isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                raise self.unsupported(node, "a mask other than <, <=, > or >=")
            return Mask((Bound(left.expr, limit),), broadcast(left.axes, right.axes))
        first, second = self.as_data(left, node.left), self.as_data(right, node.comparators[0])
        return Data(Op("max", (first.node, second.node)), broadcast(first.axes, second.axes),
                    first.bounds + second.bounds)  # a comparison: one vector operation

    def reshape(self, node: ast.Subscript) -> Value:
        value = self.evaluate(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        old = list(getattr(value, "axes", ()) or ())
        new = []
        for item in items:
            if isinstance(item, ast.Slice) and item.lower is None and item.upper is None:
                if not old:
                    raise self.unsupported(node, "a block indexed along more axes than it has")
                new.append(old.pop(0))
            elif isinstance(item, ast.Constant) and item.value is None:
                new.append(None)
            else:
                raise self.unsupported(node, "indexing a block other than by `:` and `None`",
                                       "x[:, None] and x[None, :] broadcast a block")
        axes = tuple(new + old)
        if isinstance(value, Index):
            return Index(value.expr, axes)
        if isinstance(value, Mask):
            return Mask(value.bounds, axes)
        if isinstance(value, Data):
            return Data(value.node, axes, value.bounds)
        raise self.unsupported(node, "indexing what is not a block")

    def call(self, node: ast.Call) -> Value:
        name = dotted(node.func)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "to":
            return self.evaluate(node.func.value)  # a cast: no work, no traffic in the spec
        short = name.rsplit(".", 1)[-1]
        if name in ("tl.program_id",):
            return self.program_id(node)
        if name == "tl.num_programs":
            return Index(symbol("num_programs"))
        if name == "tl.arange":
            return self.arange(node)
        if name in ("tl.cdiv", "triton.cdiv") and len(node.args) == 2:
            low, high = (self.size(self.evaluate(a), a) for a in node.args)
            return Index(sympy.ceiling(low / high))
        if name in ("min", "max") and len(node.args) == 2:
            values = [self.evaluate(a) for a in node.args]
            decoded = [v for v in values if isinstance(v, Decoded)]
            if decoded:
                return decoded[0]
            if all(isinstance(v, Index) for v in values):
                join = sympy.Min if name == "min" else sympy.Max
                return Index(join(*(self.size(v, a) for v, a in zip(values, node.args))))
            short, name = name, "tl." + name
        if name == "tl.load":
            return self.load(node)
        if name == "tl.make_block_ptr":
            return self.block_pointer(node)
        if name == "tl.advance":
            return self.advance(node)
        if name.startswith(("tl.", "tl.math.")) and short in FUNCTIONS:
            arguments = [self.as_data(self.evaluate(a), a) for a in node.args]
            if not arguments or node.keywords:
                raise self.unsupported(node, f"tl.{short} with keywords or no argument")
            axes: tuple = ()
            for argument in arguments:
                axes = broadcast(axes, argument.axes)
            return Data(Op(FUNCTIONS[short], tuple(a.node for a in arguments)), axes,
                        joined(*(a.bounds for a in arguments)))
        if name in ("tl.sum", "tl.max", "tl.min"):
            return self.reduce(node, REDUCTIONS[short])
        if name == "tl.where" and len(node.args) == 3:
            return self.where(node)
        raise self.unsupported(node, f"`{name or type(node.func).__name__}` has no mapping to "
                                     "a spec", "docs/triton.md lists what the import maps")

    def arange(self, node: ast.Call) -> Index:
        if len(node.args) != 2 or node.keywords:
            raise self.unsupported(node, "tl.arange without a start and an end",
                                   "tl.arange(0, BLOCK_SIZE)")
        start, end = (self.size(self.evaluate(a), a) for a in node.args)
        extent = end - start  # its bounds are constexpr sizes, at least 1
        sizes = {name: sympy.Dummy(positive=True, integer=True) for name in extent.free_symbols}
        if extent.xreplace(sizes).is_nonpositive:  # Triton refuses to compile it: no lane
            raise self.unsupported(node, f"tl.arange from {start} to {end} has no element: its "
                                         "end must be above its start",
                                   "tl.arange(0, BLOCK_SIZE)")
        lane = self.new_lane(end - start, f"lane{len(self.lanes)}")
        return Index(start + lane.symbol, (lane,))

    def load(self, node: ast.Call) -> Data:
        arguments = self.call_arguments(node, ("pointer", "mask", "other"))
        pointer = self.evaluate(arguments["pointer"]) if "pointer" in arguments else None
        if isinstance(pointer, BlockPointer):
            bounds = pointer.bounds(self.boundary_check(node))
            offset = pointer.offset()
            return Data(Read(pointer.tensor, offset, bounds), offset.axes, bounds)
        if not isinstance(pointer, Pointer):
            raise self.unsupported(node, "tl.load of what is not a pointer argument plus an "
                                         "offset", "tl.load(pointer + offsets, mask=mask)")
        bounds = self.mask_bounds(arguments.get("mask"))  # `other=` fills lanes: no traffic
        return Data(Read(pointer.tensor, pointer.offset, bounds), pointer.offset.axes, bounds)

    def boundary_check(self, call: ast.Call) -> tuple[int, ...]:
        """A block pointer's `boundary_check=(0, 1)`: the axes its masks clip."""
        given = next((k.value for k in call.keywords if k.arg == "boundary_check"), None)
        if given is None:
            return ()
        items = given.elts if isinstance(given, (ast.Tuple, ast.List)) else [given]
        found = []
        for item in items:
            if not (isinstance(item, ast.Constant) and type(item.value) is int):
                raise self.unsupported(given, "a boundary_check that is not a tuple of axes",
                                       "boundary_check=(0, 1)")
            found.append(item.value)
        return tuple(found)

    def block_pointer(self, node: ast.Call) -> BlockPointer:
        names = ("base", "shape", "strides", "offsets", "block_shape", "order")
        arguments = self.call_arguments(node, names)
        missing = [name for name in names[:5] if name not in arguments]
        if missing:
            raise self.unsupported(node, f"tl.make_block_ptr without {', '.join(missing)}")
        base = self.evaluate(arguments["base"])
        if not isinstance(base, Pointer) or self.lanes_in(base.offset.expr):
            raise self.unsupported(arguments["base"], "a block pointer's base that is not a "
                                                      "pointer argument plus a size")
        shape, strides, offsets, block = (self.sizes_of(arguments[name]) for name in names[1:5])
        if not len(shape) == len(strides) == len(offsets) == len(block) <= 4:
            raise self.unsupported(node, "a block pointer whose shape, strides, offsets and "
                                         "block shape differ in length")
        axes = []
        for number, (extent, stride, start, size) in enumerate(zip(shape, strides, offsets,
                                                                     block)):
            lane = self.new_lane(size, f"{base.tensor}_{'ijkl'[number]}")
            axes.append(BlockAxis(start, lane, stride, extent))
            key = str(stride) if stride in self.strides else ("" if stride == 1 else None)
            if key is not None:
                self.shape_of[(base.tensor, key)] = extent
        return BlockPointer(base.tensor, base.offset.expr, tuple(axes))

    def sizes_of(self, node: ast.expr) -> tuple[sympy.Expr, ...]:
        if not isinstance(node, (ast.Tuple, ast.List)):
            raise self.unsupported(node, "a tuple of sizes is needed here", "(M, K)")
        return tuple(self.size(self.evaluate(item), item) for item in node.elts)

    def advance(self, node: ast.Call) -> BlockPointer:
        if self.depth > 1:  # not the loop's own `p = tl.advance(p, ...)`, which it holds
            raise self.unsupported(node, "tl.advance inside a loop, other than `p = "
                                         "tl.advance(p, deltas)` at the loop's top level",
                                   "advance the block pointer once an iteration, at the top "
                                   "level of the loop's body")
        pointer = self.evaluate(node.args[0]) if len(node.args) == 2 else None
        if not isinstance(pointer, BlockPointer):
            raise self.unsupported(node, "tl.advance of what is not a block pointer",
                                   "tl.advance(block_ptr, (0, BLOCK_K))")
        deltas = self.sizes_of(node.args[1])
        if len(deltas) != len(pointer.axes):
            raise self.unsupported(node.args[1], "an advance of another rank than the block's")
        return pointer.advanced(deltas)

    def where(self, node: ast.Call) -> Data:
        condition = self.evaluate(node.args[0])
        chosen = self.as_data(self.evaluate(node.args[1]), node.args[1])
        other = self.as_data(self.evaluate(node.args[2]), node.args[2])
        if isinstance(condition, Mask):  # the lanes kept: the other value is padding
            return Data(chosen.node, broadcast(chosen.axes, condition.axes),
                        joined(chosen.bounds, condition.bounds))
        test = self.as_data(condition, node.args[0])
        parts = [test, chosen] + ([] if isinstance(other.node, Number) else [other])
        axes: tuple = ()
        for part in parts:
            axes = broadcast(axes, part.axes)
        # a select: one vector operation a lane (two with a data operand on each side)
        return Data(Op("max", tuple(p.node for p in parts)), axes,
                    joined(*(p.bounds for p in parts)))

    def reduce(self, node: ast.Call, op: str) -> Data:
        if not node.args:
            raise self.unsupported(node, "a reduction of nothing")
        value = self.as_data(self.evaluate(node.args[0]), node.args[0])
        if len([a for a in value.axes if a is not None]) > 1 or len(value.axes) > 1:
            raise self.unsupported(node, "a reduction of a block of more than one axis",
                                   "the import reduces one-axis blocks to a scalar")
        base = node.args[0].id if isinstance(node.args[0], ast.Name) else "block"
        name = self.fresh(f"{base}_{dotted(node.func).rsplit('.', 1)[-1]}")
        self.line(f"let {name}: f32 = 0", node)
        target = Local(name)
        self.write(Statement(target, op, value, node))
        return Data(target)
