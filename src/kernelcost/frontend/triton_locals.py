"""The locals a Triton kernel's assignments declare (a `tl.zeros` block, a scalar, a block
read twice) and what accumulates into them, a `tl.dot` among it, written as spec statements:
the walker's side of evaluation, apart from the expressions themselves."""

from __future__ import annotations

import ast

import sympy

from .triton_body_exprs import Statement
from .triton_eval import Evaluator
from .triton_values import Data, Local, Op, joined, renamed


class Locals(Evaluator):
    def zeros(self, name: str, call: ast.Call, node: ast.AST) -> Data:
        shape = call.args[0] if call.args else None
        items = shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else None
        if not items:
            raise self.unsupported(call, "tl.zeros without a shape", "tl.zeros([BLOCK_SIZE], "
                                                                      "dtype=tl.float32)")
        extents = tuple(self.size(self.evaluate(item), item) for item in items)
        spec_name = self.fresh(name)
        self.line(f"let {spec_name}: f32[{', '.join(self.text(e) for e in extents)}] in "
                  "registers = 0", node)
        local = Local(spec_name, (None,) * len(extents), extents)
        return Data(local, local.axes)

    def scalar_local(self, name: str, value: Data, node: ast.AST) -> Data:
        spec_name = self.fresh(name)
        self.write(Statement(Local(spec_name), "=", value, node))
        depth, content = self.lines[-1]
        if content.startswith(f"{spec_name} = "):  # no lanes: one line, a `let` of its value
            self.lines[-1] = (depth, f"let {spec_name}: f32 = {content[len(spec_name) + 3:]}")
        else:
            self.lines.insert(-3, (depth, f"let {spec_name}: f32 = 0"))
        return Data(Local(spec_name))

    def block_local(self, name: str, value: Data, node: ast.AST) -> Data:
        lanes = [a for a in value.axes if a is not None]
        if len(lanes) != len(value.axes):
            raise self.unsupported(node, "a broadcast block read twice",
                                   "name the block before it is broadcast")
        spec_name = self.fresh(name)
        extents = tuple(lane.extent for lane in lanes)
        self.line(f"let {spec_name}: f32[{', '.join(self.text(e) for e in extents)}] in "
                  "registers = 0", None)
        target = Local(spec_name, value.axes, extents)
        self.write(Statement(target, "=", value, node))
        return Data(target, value.axes, value.bounds)

    def accumulate(self, current: Data, value: Data, node: ast.AST) -> None:
        self.write(Statement(current.node, "+=", value, node))  # type: ignore[arg-type]

    def contraction(self, accumulator: Data, call: ast.Call, node: ast.AST) -> None:
        """acc += a @ b: a loop over m, n and k whose statement is a matrix contraction."""
        if len(call.args) < 2:
            raise self.unsupported(call, "tl.dot without two blocks")
        first = self.as_data(self.evaluate(call.args[0]), call.args[0])
        second = self.as_data(self.evaluate(call.args[1]), call.args[1])
        if len(first.axes) != 2 or len(second.axes) != 2 or None in first.axes + second.axes:
            raise self.unsupported(call, "tl.dot of blocks that are not two-axis tiles",
                                   "a: [BM, BK], b: [BK, BN]")
        rows, inner = first.axes
        shared, columns = second.axes
        assert inner is not None and shared is not None
        if shared != inner:  # b's rows run over a's columns: one lane for k
            if sympy.expand(shared.extent - inner.extent) != 0:
                raise self.unsupported(call, "tl.dot of blocks whose inner extents differ")
            second = renamed(second, shared, inner)
        value = Data(Op("*", (first.node, second.node)), (rows, columns),
                     joined(first.bounds, second.bounds))
        self.write(Statement(accumulator.node, "+=", value, node))  # type: ignore[arg-type]
