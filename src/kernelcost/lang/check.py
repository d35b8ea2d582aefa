"""Stage 2: AST -> CheckedKernel. Resolves every name, checks ranks, types, levels, loop
steps and reuse scopes, and collects every diagnostic before raising them together."""

from __future__ import annotations

import re

import sympy

from ..base import tree as ast
from ..base.errors import Code, Diagnostic, ErrorCode, SpecCheckError, did_you_mean
from ..base.levels import Level
from ..base.records import record
from ..base.symbols import (
    ELEMENT_BYTES,
    FUNCTIONS,
    LEVELS,
    PRECISION_OF_TYPE,
    size_symbol,
)
from .check_decls import KEYWORDS, MAX_LOOP_DEPTH, DeclarationChecks, ItemCount, Tensor, place_of
from .check_exprs import ExpressionChecks
from .check_lanes import LaneChecks
from .contraction import unit_problem
from .parallel import Grid, header_iterators, read_grid
from .scopes import Scope


@record
class CheckedKernel:
    kernel: ast.Kernel
    parameters: tuple[sympy.Symbol, ...]
    defaults: dict[sympy.Symbol, int]
    sizes: dict[str, sympy.Expr]  # every size name (parameters and `let` sizes) -> expression
    tensors: dict[str, Tensor]
    locals: dict[str, str]  # register local -> element type
    divisibility: tuple[tuple[sympy.Expr, sympy.Expr], ...]  # (divisor, dividend) pairs
    bounds: tuple[sympy.Basic, ...]  # assumed relations such as T <= N
    reuse: str  # the kernel's default reuse for tensors outside keep scopes
    grid: Grid | None = None  # the thread blocks of a parallel spec
    items: ItemCount | None = None  # `per token = b`: what one run of the kernel handles
    precision_override: str | None = None  # set where --precision mapped the types

    @property
    def name(self) -> str:
        return self.kernel.name

    @property
    def precision(self) -> str:
        """The precision the kernel computes in: the element type most of its tensors are
        declared with, the first one declared breaking ties (or the precision its types
        were mapped to, precisions.at_precision)."""
        if self.precision_override is not None:
            return self.precision_override
        types = [tensor.dtype for tensor in self.tensors.values() if tensor.role != "local"]
        if not types:
            types = list(self.locals.values()) or ["f32"]
        return PRECISION_OF_TYPE[max(types, key=types.count)]


def check(kernel: ast.Kernel) -> CheckedKernel:
    """Check a parsed kernel; raise KcostError with every problem found."""
    return _Checker(kernel).run()


class _Checker(DeclarationChecks, ExpressionChecks, LaneChecks):
    """Walks the kernel once, collecting diagnostics. A declaration that is itself wrong (a bad
    shape, an unknown type) is still recorded, so its uses do not report the same mistake
    again; the checked kernel is built only when nothing was reported."""

    def __init__(self, kernel: ast.Kernel):
        self.kernel = kernel
        self.lines = (kernel.source or "").split("\n")  # where names stand in declarations
        self.diagnostics: list[Diagnostic] = []
        self.sizes: dict[str, sympy.Expr] = {}
        self.defaults: dict[sympy.Symbol, int] = {}
        self.tensors: dict[str, Tensor] = {}
        self.locals: dict[str, str] = {}  # every register local, whatever its scope
        self.local_spans: dict[str, ast.Span] = {}
        self.declared_at: dict[str, ast.Span] = {}  # sizes and tensors: kernel-wide names
        self.divisibility: list[tuple[sympy.Expr, sympy.Expr]] = []
        self.bounds: list[sympy.Basic] = []
        self.reuse = "perfect"
        self.items: ItemCount | None = None
        self.grid: Grid | None = None
        self.grid_header: ast.Parallel | None = None
        self.grid_outermost = True

    def error(self, code: ErrorCode, span: ast.Span | None, message: str,
              hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(span, message, hint, code))

    def run(self) -> CheckedKernel:
        self._parameters()
        kernel_scope = Scope()
        for item in self.kernel.items:
            self._kernel_item(item, kernel_scope)
        if self.grid_header is not None and self.grid_outermost:
            self._all_inside_grid()
        if not self.diagnostics:
            self._has_work()
        if self.diagnostics:
            self.diagnostics.sort(key=lambda d: (d.span.line, d.span.column) if d.span else (0, 0))
            code = self.diagnostics[0].code  # the error's; each diagnostic keeps its own
            assert code is not None  # `error` gives every diagnostic its code
            raise SpecCheckError(code, self.diagnostics, self.kernel.source)
        parameters = tuple(size_symbol(p.name) for p in self.kernel.params)
        return CheckedKernel(
            self.kernel, parameters, self.defaults, self.sizes, self.tensors, self.locals,
            tuple(self.divisibility), tuple(self.bounds), self.reuse, self.grid, self.items,
        )

    def _all_inside_grid(self) -> None:
        """A parallel spec is its grid: every statement runs in some block."""
        for stmt in self.kernel.statements:
            if isinstance(stmt, ast.Let) and stmt.dtype is None:
                continue  # a derived size
            if not (isinstance(stmt, ast.For) and stmt.parallel is self.grid_header):
                self.error(Code.WRONG_PARALLEL, stmt.span, "statement outside the parallel loops",
                           "in a parallel spec every statement runs in a thread block: move "
                           "it inside the `parallel` loops")

    def _has_work(self) -> None:
        # the caret goes under the `kernel` keyword: the whole kernel would underline a page
        span = self.kernel.span
        keyword = ast.Span(span.file, span.line, span.column, span.line, span.column + 6)
        if not self.kernel.statements:
            self.error(Code.NO_WORK, keyword, f"kernel `{self.kernel.name}` has no statements",
                       "add the loop nest: `for i in 0..n { y[i] = x[i] }`")
        elif not _has_assignment(self.kernel.statements):
            self.error(Code.NO_WORK, keyword, f"kernel `{self.kernel.name}` does no work",
                       "a kernel needs at least one assignment, such as `y[i] = x[i]`")

    # --- source positions ----------------------------------------------------------------

    def _name_span(self, span: ast.Span, name: str) -> ast.Span:
        """The span of `name` inside a declaration's span (the AST keeps only the whole
        declaration), so that the caret sits under the name and not under the keyword."""
        if not 1 <= span.line <= len(self.lines):
            return span
        line = self.lines[span.line - 1]
        keyword = re.match(r"(in|out|inout|let|for)\b", line[span.column - 1:])
        start = _word_at(line, name, span.column - 1 + (keyword.end() if keyword else 0))
        if start < 0:
            return span
        return ast.Span(span.file, span.line, start + 1, span.line, start + len(name) + 1)

    def _source_text(self, span: ast.Span) -> str:
        if span.line != span.end_line:
            return "..."
        line = self.lines[span.line - 1]
        return line[span.column - 1:span.end_column - 1]

    # --- statements ----------------------------------------------------------------------

    def _statement(self, stmt: ast.Statement, scope: Scope) -> None:
        if isinstance(stmt, ast.For):
            self._for(stmt, scope)
        elif isinstance(stmt, ast.Keep):
            self._keep(stmt, scope)
        elif isinstance(stmt, ast.Let):
            self._local(stmt, scope)
        elif isinstance(stmt, ast.Assign):
            self._assign(stmt, scope)

    def _block(self, body: tuple[ast.Statement, ...], scope: Scope) -> None:
        """A block's locals are visible after their `let`, to the end of the block."""
        inner = scope.child()
        for stmt in body:
            self._statement(stmt, inner)

    def _local(self, let: ast.Let, scope: Scope) -> None:
        if let.dtype is not None and (let.shape or let.level is not None):
            self._local_array(let, scope)
            return
        if let.dtype is None:
            self.error(Code.WRONG_LOCAL, let.span, f"`let {let.name}` inside a loop needs a type",
                       f"a register local: `let {let.name}: f32 = ...`")
            return
        self._value(let.value, scope)
        if let.dtype not in ELEMENT_BYTES:
            self.error(Code.UNKNOWN_ELEMENT_TYPE, let.span, f"unknown element type `{let.dtype}`",
                       did_you_mean(let.dtype, ELEMENT_BYTES)
                       or "element types: " + ", ".join(ELEMENT_BYTES))
        place = self._name_span(let.span, let.name)
        if let.name in KEYWORDS or let.name in FUNCTIONS or let.name in self.declared_at:
            self._declare(let.name, let.span, "local")
            return
        if let.name in scope.locals or let.name in scope.iterators:
            first = scope.locals.get(let.name) or scope.iterators[let.name]
            self.error(Code.DUPLICATE_NAME, place,
                       f"`{let.name}` is already declared at {place_of(first, place)}",
                       "rename this local, or assign to the one in scope")
            return
        if self.locals.get(let.name, let.dtype) != let.dtype:
            first = self.local_spans[let.name]
            self.error(Code.WRONG_LOCAL, place,
                       f"local `{let.name}` is `{self.locals[let.name]}` at line "
                       f"{first.line}, `{let.dtype}` here", "give one of them another name")
            scope.locals[let.name] = let.span  # its uses are checked all the same
            return
        self.locals[let.name] = let.dtype
        self.local_spans.setdefault(let.name, let.span)
        scope.locals[let.name] = let.span

    def _local_array(self, let: ast.Let, scope: Scope) -> None:
        """`let acc: f32[TM, TN] in registers = 0`: an array in an on-chip level, per block."""
        assert let.dtype is not None  # _local sends only typed lets
        self._value(let.value, scope)
        element_bytes = ELEMENT_BYTES.get(let.dtype)
        if element_bytes is None:
            self.error(Code.UNKNOWN_ELEMENT_TYPE, let.span, f"unknown element type `{let.dtype}`",
                       did_you_mean(let.dtype, ELEMENT_BYTES)
                       or "element types: " + ", ".join(ELEMENT_BYTES))
        level = Level.REGISTERS
        if let.level is not None:
            if let.level.id not in LEVELS:
                self._unknown_level(let.level)
            elif let.level.id == Level.GLOBAL:
                self.error(Code.UNKNOWN_LEVEL, let.level.span,
                           "a local array lives on chip, not in `global`",
                           "declare a tensor (`out x: f32[...]`) for data in global memory")
            else:
                level = Level(let.level.id)
        shape = tuple(self._extent(extent) for extent in let.shape)
        if not shape:
            self.error(Code.WRONG_LOCAL, let.span, f"local array `{let.name}` needs a shape",
                       f"write `let {let.name}: {let.dtype}[T] in {level} = 0`")
        if let.swizzle is not None:
            self._swizzle(let, level, shape, element_bytes)
        if self._declare(let.name, let.span, "local array"):
            self.tensors[let.name] = Tensor(let.name, "local", let.dtype,
                                            element_bytes or sympy.Integer(1), shape, level,
                                            let.span, let.swizzle is not None)
            scope.locals[let.name] = let.span

    def _for(self, loop: ast.For, scope: Scope) -> None:
        if loop.parallel is not None and loop.parallel is not self.grid_header:
            self._grid(loop, scope)
        bound_names = {**self.sizes, **scope.iterator_symbols()}
        for bound in (loop.lo, loop.hi):
            if self._names_known(bound, bound_names, "a loop bound", scope):
                self._to_sympy(bound, bound_names)
        if loop.step is not None:
            self._step(loop.step, scope)
        if scope.depth >= MAX_LOOP_DEPTH:
            self.error(Code.LOOPS_TOO_DEEP, loop.span,
                       f"loops nest more than {MAX_LOOP_DEPTH} deep",
                       "a kernel's loop nest is a handful of loops; merge or drop some")
            return
        place = self._name_span(loop.span, loop.var)
        inner = scope.child()
        if loop.var in scope.iterators:
            self.error(Code.DUPLICATE_NAME, place,
                       f"iterator `{loop.var}` is already used by an outer loop "
                       f"(line {scope.iterators[loop.var].line})", "rename the inner iterator")
        elif loop.var in self.declared_at or loop.var in scope.locals or loop.var in KEYWORDS:
            first = self.declared_at.get(loop.var) or scope.locals.get(loop.var)
            where = f" at line {first.line}" if first else ""
            self.error(Code.DUPLICATE_NAME, place,
                       f"iterator `{loop.var}` is already declared{where}", "rename the iterator")
        inner.iterators[loop.var] = place
        inner.depth = scope.depth + 1
        inner.in_grid = scope.in_grid or (loop.parallel is not None
                                          and loop.parallel is self.grid_header)
        if loop.lanes is not None:
            self._lanes(loop, scope, inner)
        self._block(loop.body, inner)

    def _grid(self, loop: ast.For, scope: Scope) -> None:
        assert loop.parallel is not None  # _for sends only the loops of a header
        if self.grid_header is not None:
            self.error(Code.WRONG_PARALLEL, loop.parallel.span, "a kernel has one parallel header",
                       f"the grid is declared at line {self.grid_header.span.line}; mark "
                       "the loops of one header `parallel`")
            return
        self.grid_header = loop.parallel
        self.grid_outermost = scope.depth == 0 and not scope.keeps
        if not self.grid_outermost:
            self.error(Code.WRONG_PARALLEL, loop.parallel.span,
                       "the parallel loops must be the outermost loops",
                       "the grid of thread blocks comes first: `for b in 0..n by T "
                       "parallel(threads = 256) { ... }`")
        grid, diagnostics = read_grid(loop.parallel, header_iterators(loop), self._size_expr)
        self.diagnostics.extend(diagnostics)
        self.grid = grid

    def _step(self, step: ast.Expr, scope: Scope) -> None:
        if not self._names_known(step, self.sizes, "a loop step", scope):
            return
        value = self._to_sympy(step, self.sizes)
        if value is not None and (value.is_positive is False or value == 0):
            self.error(Code.NOT_POSITIVE, step.span, f"loop step must be positive, not {value}",
                       "write the loop upward: `for i in lo..hi by s` with s > 0")

    def _keep(self, keep: ast.Keep, scope: Scope) -> None:
        level = keep.level.id
        inner = scope.child()
        if keep.stages is not None:
            stages = self._size_expr(keep.stages, "a stage count")
            if stages is not None and (stages.is_positive is False or stages == 0):
                self.error(Code.NOT_POSITIVE, keep.stages.span,
                           f"stages must be positive, not {stages}",
                           "a pipeline holds at least one stage")
        if level not in LEVELS:
            self._unknown_level(keep.level)
            self._block(keep.body, inner)
            return
        for name in keep.tensors:
            if name.id in self.tensors and self.tensors[name.id].role == "local":
                self.error(Code.WRONG_KEEP, name.span, f"`{name.id}` is a local array; it lives in "
                           f"`{self.tensors[name.id].level}` and is not kept",
                           "keep stages tensors declared with in, out or inout")
                continue
            if name.id not in self.tensors:
                hint = did_you_mean(name.id, self.tensors) or (
                    "keep stages declared tensors: " + ", ".join(self.tensors)
                    if self.tensors else "declare the tensor first: `in x: f32[n]`")
                self.error(Code.UNDEFINED_NAME, name.span, f"keep of unknown tensor `{name.id}`",
                           hint)
                continue
            current = scope.keeps.get(name.id, self.tensors[name.id].level)
            if LEVELS.index(level) <= LEVELS.index(current):
                self._keep_not_faster(keep, name.id, current)
                continue
            inner.keeps[name.id] = level
        self._block(keep.body, inner)

    def _keep_not_faster(self, keep: ast.Keep, tensor: str, current: str) -> None:
        level = keep.level.id
        faster = LEVELS[LEVELS.index(current) + 1:]
        if faster:
            hint = (f"a keep stages data into a level faster than `{current}`: "
                    + " or ".join(f"`{name}`" for name in faster))
        else:
            hint = f"`{current}` is the fastest level; remove this keep"
        self.error(Code.WRONG_KEEP, keep.level.span,
                   f"`{tensor}` is already in `{current}` here; keeping it in `{level}` "
                   "moves nothing", hint)

    def _assign(self, assign: ast.Assign, scope: Scope) -> None:
        target = assign.target
        if isinstance(target, ast.Name):
            self._assign_name(target, scope)
        else:
            self._access(target, scope, role="out")
            tensor = self.tensors.get(target.tensor)
            if tensor is not None and tensor.role == "in":
                self._write_to_input(target.span, tensor)
        self._value(assign.value, scope)
        problem = unit_problem(assign, list(scope.iterators))
        if problem is not None and assign.unit is not None:
            self.error(Code.WRONG_UNIT, assign.unit.span, *problem)

    def _assign_name(self, target: ast.Name, scope: Scope) -> None:
        name = target.id
        if name in self.tensors:
            tensor = self.tensors[name]
            if tensor.shape:
                indices = ", ".join(f"i{axis}" for axis in range(len(tensor.shape)))
                self.error(Code.WRONG_RANK, target.span,
                           f"`{name}` is a tensor of rank {len(tensor.shape)}; "
                           "assign to one element", f"write `{name}[{indices}] = ...`")
            elif tensor.role == "in":
                self._write_to_input(target.span, tensor)
        elif name in self.sizes:
            self.error(Code.WRONG_ASSIGNMENT, target.span, f"cannot assign to size `{name}`",
                       "sizes are fixed; for a value that changes, declare a local: "
                       "`let total: f32 = 0`")
        elif name in scope.iterators:
            self.error(Code.WRONG_ASSIGNMENT, target.span, f"cannot assign to iterator `{name}`",
                       "its loop sets it; for a value that changes, declare a local: "
                       "`let total: f32 = 0`")
        elif name not in scope.locals:
            self._unknown(target, {**self.tensors, **scope.locals},
                          f"declare it first: `out {name}: f32[...]` or "
                          f"`let {name}: f32 = 0`")

    def _write_to_input(self, span: ast.Span, tensor: Tensor) -> None:
        self.error(Code.WRONG_ASSIGNMENT, span,
                   f"`{tensor.name}` is declared `in` (line {tensor.span.line}) and "
                   "cannot be written",
                   "declare it `out` (written) or `inout` (read, then written)")

def _has_assignment(statements) -> bool:
    for stmt in statements:
        if isinstance(stmt, ast.Assign):
            return True
        if isinstance(stmt, (ast.For, ast.Keep)) and _has_assignment(stmt.body):
            return True
    return False


_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789")


def _word_at(line: str, name: str, start: int) -> int:
    """Where `name` first stands as a whole word in line from `start` (no letter, digit or
    underscore on either side), or -1: a regular expression compiled for each name cost
    more than the checking of a spec's names."""
    position = line.find(name, start)
    while position >= 0:
        end = position + len(name)
        if ((position == 0 or line[position - 1] not in _WORD)
                and (end == len(line) or line[end] not in _WORD)):
            return position
        position = line.find(name, position + 1)
    return -1
