"""The statements of a Triton kernel, walked once in order into spec statements.

Integer values, pointers and masks are tracked (triton_values); data is kept as an
expression and written into the spec where it lands: a `tl.store` (a loop over the block's
lanes, clipped by the masks of the store and of the loads it reads), a `tl.sum` / `tl.max` /
`tl.min` (a scalar register local and a loop that accumulates into it), an accumulation into
a `tl.zeros` block or a `tl.dot` (a register array), or a block named once and read twice
(a register array, so that its work is counted once). A lane's loop runs over the index it
reaches, `for offsets in pid_start..min(pid_start + BLOCK_SIZE, n_elements)`, the idiom of
the spec library's clipped tiles. Memory accesses are decomposed along the stride arguments
(`row * stride + cols` is `X[row, cols]`), and the extent of each axis is read from a mask
(`cols < N`) or from the loop or grid its index runs over."""

from __future__ import annotations

import ast
from collections import Counter

import sympy

from ..base.errors import Code
from ..base.watchdog import stage
from .triton_body_exprs import Statement
from .triton_grid import Axis, grid_strides
from .triton_locals import Locals
from .triton_source import Source, dotted, import_error, span_of
from .triton_values import BlockPointer, Data, Index, Local, Pointer, Read, symbol

LOOPS = ("range", "tl.range", "tl.static_range")


class Walker(Locals):
    """Walks the function's body; `statements` holds the spec lines it wrote."""

    def __init__(self, source: Source, axes: dict[int, Axis], pointers: set[str]):
        super().__init__(source, axes, pointers)
        self.uses = Counter(node.id for node in ast.walk(source.function)
                            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load))
        self.strided = {id(s.loop): s for s in grid_strides(source.function)}
        self.pointer_depth: dict[str, int] = {}  # the loop depth a pointer was last set at

    def walk(self, body: list[ast.stmt]) -> None:
        for statement in body:
            # a limit met inside (time, memory, recursion) is placed at this statement
            stage("importing the Triton kernel", span_of(self.source.path, statement))
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return  # a docstring
        if isinstance(node, ast.Pass):
            return
        if id(node) in self.advanced:  # a pointer advanced each iteration, by the loop
            name, after = self.advanced[id(node)]
            self.env[name] = after
            return
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                                   "an assignment to what is not one name",
                                   "assign one value to one name a line")
            self.assign(node.targets[0].id, node.value, node)
        elif isinstance(node, ast.AugAssign):
            self.augmented(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and dotted(
                node.value.func) in ("tl.store", "tl.atomic_add"):
            self.store(node.value, node)
        elif isinstance(node, ast.For):
            self.loop(node)
        elif isinstance(node, ast.If):
            self.branch(node)
        else:
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                               f"a `{type(node).__name__}` statement has no form in a spec",
                               "the import reads assignments, tl.store and `for` loops over "
                               "range/tl.range/tl.static_range")

    def branch(self, node: ast.If) -> None:
        """An `if` on a meta-parameter whose value the launch, a config or --set gives: the
        branch taken, the other left out with a comment."""
        test = node.test
        name, wanted, equal = None, None, True
        if isinstance(test, ast.Name):
            name, wanted = test.id, None
        elif (isinstance(test, ast.Compare) and len(test.ops) == 1
              and isinstance(test.ops[0], (ast.Eq, ast.NotEq)) and isinstance(test.left, ast.Name)
              and isinstance(test.comparators[0], ast.Constant)):
            name, wanted = test.left.id, test.comparators[0].value
            equal = isinstance(test.ops[0], ast.Eq)
        constexpr = {p.name for p in self.source.params if p.constexpr}
        if name not in constexpr or name not in self.source.constants:
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                               "an `if` whose test is not a meta-parameter of known value",
                               "the import takes an `if` on a meta-parameter the launch, "
                               "--config or --set gives (`if ACTIVATION == \"leaky_relu\":`)")
        value = self.source.constants[name]
        taken = bool(value) if wanted is None else (value == wanted) == equal
        self.line(f"# {'taken' if taken else 'not taken'}: {name} = {value!r} at the launch",
                  node)
        self.walk(node.body if taken else node.orelse)

    # --- assignments ---------------------------------------------------------------------

    def assign(self, name: str, value_node: ast.expr, node: ast.stmt) -> None:
        if isinstance(value_node, ast.Call) and dotted(value_node.func) == "tl.zeros":
            self.env[name] = self.zeros(name, value_node, node)
            return
        if isinstance(value_node, ast.Call) and dotted(value_node.func) == "tl.dot":
            self.dot_into(name, value_node, node)
            return
        value = self.evaluate(value_node)
        if isinstance(value, Index):
            self.name_lanes(name, value)
        if isinstance(value, (Pointer, BlockPointer)):
            reads_itself = any(isinstance(n, ast.Name) and n.id == name
                               for n in ast.walk(value_node))
            if reads_itself and self.depth > 1:
                raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                                   "a pointer moved inside a loop other than by `p += step` "
                                   "or `p = tl.advance(p, ...)` at the loop's top level",
                                   "advance the pointer once an iteration, at the top level "
                                   "of the loop's body")
            self.pointer_depth[name] = self.depth
        if isinstance(value, Data) and not value.axes and not isinstance(value.node, Local):
            value = self.scalar_local(name, value, node)
        elif isinstance(value, Data) and value.axes and self.uses[name] > 1 and not isinstance(
                value.node, Local):
            value = self.block_local(name, value, node)
        self.env[name] = value

    def augmented(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name) or node.target.id not in self.env:
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                               "an augmented assignment to what is not a name the kernel set",
                               "write `name += value` to a name assigned before")
        name = node.target.id
        current = self.env[name]
        if isinstance(current, (Pointer, BlockPointer)) and self.depth > 1:
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                               "a pointer moved inside a loop other than by `p += step` "
                               "or `p = tl.advance(p, ...)` at the loop's top level",
                               "advance the pointer once an iteration, at the top level of "
                               "the loop's body")
        if isinstance(node.value, ast.Call) and dotted(node.value.func) == "tl.dot":
            if not isinstance(current, Data) or not isinstance(current.node, Local):
                raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                                   "tl.dot accumulates into what is not a tl.zeros block",
                                   "start the accumulator with "
                                   "tl.zeros((BM, BN), dtype=tl.float32)")
            self.contraction(current, node.value, node)
            return
        if (isinstance(current, Data) and isinstance(current.node, Local) and current.node.extents
                and isinstance(node.op, ast.Add)):
            value = self.as_data(self.evaluate(node.value), node.value)
            self.accumulate(current, value, node)
            return
        combined = ast.BinOp(left=ast.Name(id=name, ctx=ast.Load()), op=node.op,
                             right=node.value)
        ast.copy_location(combined, node)
        ast.fix_missing_locations(combined)
        self.assign(name, combined, node)

    def dot_into(self, name: str, call: ast.Call, node: ast.stmt) -> None:
        arguments = [*call.args, *(k.value for k in call.keywords if k.arg == "acc")]
        if len(arguments) != 3 or not (isinstance(arguments[2], ast.Name)
                                       and arguments[2].id == name):
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, call,
                               "tl.dot whose result is not accumulated into the block it is given",
                               "write `acc = tl.dot(a, b, acc)` or `acc += tl.dot(a, b)`")
        current = self.env.get(name)
        if not isinstance(current, Data) or not isinstance(current.node, Local):
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, call,
                               "tl.dot accumulates into what is not a tl.zeros block",
                               "start the accumulator with tl.zeros((BM, BN), dtype=tl.float32)")
        self.contraction(current, call, node)

    # --- stores ----------------------------------------------------------------------------

    def store(self, call: ast.Call, node: ast.stmt) -> None:
        """tl.store: `T[...] = value`; tl.atomic_add: `T[...] += value`, T read (its first
        contents) and written."""
        arguments = self.call_arguments(call, ("pointer", "value", "mask"))
        name = dotted(call.func)
        if "pointer" not in arguments or "value" not in arguments:
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, call,
                               f"{name} without a pointer and a value",
                               f"{name}(pointer, value, mask=mask)")
        pointer = self.evaluate(arguments["pointer"])
        if isinstance(pointer, BlockPointer):
            bounds = pointer.bounds(self.boundary_check(call))
            value = self.as_data(self.evaluate(arguments["value"]), arguments["value"])
            target = Read(pointer.tensor, pointer.offset(), bounds)
            self.write(Statement(target, "+=" if name == "tl.atomic_add" else "=", value, node),
                       bounds)
            return
        if not isinstance(pointer, Pointer):
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, arguments["pointer"],
                               "tl.store to what is not a pointer argument plus an offset",
                               "store to `pointer + offsets`")
        value = self.as_data(self.evaluate(arguments["value"]), arguments["value"])
        bounds = self.mask_bounds(arguments.get("mask"))
        operator = "+=" if name == "tl.atomic_add" else "="
        self.write(Statement(self.target_read(pointer, bounds), operator, value, node), bounds)

    # --- loops -----------------------------------------------------------------------------

    def loop(self, node: ast.For) -> None:
        if node.orelse:
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, node.orelse[0],
                               "a `for ... else` has no form in a spec", "drop the else")
        if not isinstance(node.target, ast.Name):
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, node.target,
                               "a loop over what is not one name", "for k in range(...)")
        stride = self.strided.get(id(node))
        if stride is not None:
            if self.depth != 1:
                raise import_error(Code.TRITON_UNSUPPORTED, self.source, node,
                                   "a grid-stride loop inside another loop",
                                   "the grid-stride loop must be the kernel's outermost")
            axis = self.axes[stride.axis]
            self.env[node.target.id] = Index(axis.program_id)
            self.walk(node.body)
            return
        call = node.iter
        if not (isinstance(call, ast.Call) and dotted(call.func) in LOOPS and 1 <= len(
                call.args) <= 3):
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, node.iter,
                               "a loop over what is not range, tl.range or tl.static_range",
                               "for k in range(0, K, BLOCK_K)")
        bounds = [self.size(self.evaluate(a), a) for a in call.args]
        low, high, step = (
            (sympy.Integer(0), bounds[0], sympy.Integer(1)) if len(bounds) == 1 else
            (bounds[0], bounds[1], sympy.Integer(1)) if len(bounds) == 2 else tuple(bounds))
        if step.is_positive is False or step == 0:  # range(0, n, 0) raises in Python;
            # a downward range has no spec loop (loops run upward): `by 0` and `by -1` were
            # written into a spec that kernelcost then refused
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, call.args[2],
                               f"a range of step {step}: spec loops run upward, by a "
                               "positive step", "for k in range(0, K, BLOCK_K)")
        name = self.fresh(node.target.id)
        iterator = symbol(name)
        value = iterator
        python_low, python_step = low, step
        if isinstance(high, sympy.ceiling) and low == 0 and step == 1:
            numerator, denominator = sympy.fraction(sympy.together(high.args[0]))
            if denominator != 1:  # range(cdiv(K, BK)): k0 in 0..K by BK, k = k0 / BK
                name = self.fresh(f"{node.target.id}_start")
                iterator = symbol(name)
                value, high, step = iterator / denominator, numerator, denominator
        self.ranges[iterator] = (low, high, step)
        self.iterators.add(name)
        self.advance_pointers(node, (value - python_low) / python_step)
        self.env[node.target.id] = Index(value)
        self.line(f"for {name} in {self.text(low)}..{self.text(high)}"
                  + ("" if step == 1 else f" by {self.text(step)}") + " {", node)
        self.depth += 1
        self.walk(node.body)
        self.depth -= 1
        self.line("}", None)
        self.env.pop(node.target.id, None)

    def advance_block_pointer(self, statement: ast.stmt, trip: sympy.Expr) -> None:
        """`p = tl.advance(p, deltas)` at the top of the body: p moved trip x deltas."""
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Call)
                and dotted(statement.value.func) == "tl.advance"
                and len(statement.value.args) == 2
                and isinstance(statement.value.args[0], ast.Name)
                and statement.value.args[0].id == statement.targets[0].id):
            return
        current = self.env.get(statement.targets[0].id)
        if not isinstance(current, BlockPointer):
            return
        self.refuse_carried(statement.targets[0].id, statement)
        deltas = self.sizes_of(statement.value.args[1])
        if len(deltas) == len(current.axes):
            name = statement.targets[0].id
            self.env[name] = current.advanced(tuple(trip * delta for delta in deltas))
            self.advanced[id(statement)] = (name, current.advanced(
                tuple((trip + 1) * delta for delta in deltas)))

    def refuse_carried(self, name: str, statement: ast.stmt) -> None:
        """A pointer set outside an enclosing loop and advanced in this one keeps moving
        across the enclosing loop's iterations, which the import does not follow."""
        if self.pointer_depth.get(name, 1) < self.depth:
            raise import_error(Code.TRITON_UNSUPPORTED, self.source, statement,
                               f"`{name}` advances in a loop inside another loop it was not "
                               "set in: it moves on across the outer loop's iterations",
                               f"set `{name}` again at the top of the outer loop's body")

    def advance_pointers(self, node: ast.For, trip: sympy.Expr) -> None:
        """`p += step` at the top of the body: p at iteration t is p + t * step, and past the
        statement, p + (t + 1) * step (a load after the advance reads the next block)."""
        for statement in node.body:
            self.advance_block_pointer(statement, trip)
            if not (isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name)
                    and isinstance(statement.op, ast.Add)):
                continue
            current = self.env.get(statement.target.id)
            if not isinstance(current, Pointer):
                continue
            self.refuse_carried(statement.target.id, statement)
            step = self.size(self.evaluate(statement.value), statement.value)
            axes = current.offset.axes
            self.env[statement.target.id] = Pointer(
                current.tensor, Index(current.offset.expr + trip * step, axes))
            self.advanced[id(statement)] = (statement.target.id, Pointer(
                current.tensor, Index(current.offset.expr + (trip + 1) * step, axes)))
