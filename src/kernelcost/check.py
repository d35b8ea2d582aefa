"""Stage 2: AST -> CheckedKernel. Resolves every name, checks ranks, types, levels, loop
steps and reuse scopes, and collects every diagnostic before raising them together."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sympy

from . import ast
from .errors import Diagnostic, KcostError, did_you_mean
from .parallel import Grid, header_iterators, read_grid
from .symbols import (
    ELEMENT_BYTES,
    FUNCTION_ARITY,
    FUNCTIONS,
    LEVELS,
    PRECISION_OF_TYPE,
    iterator_symbol,
    size_symbol,
    to_sympy,
)

REUSE_MODES = ("perfect", "none")
ROLES = ("in", "out", "inout")
KEYWORDS = frozenset({"kernel", "reuse", "assume", "in", "out", "inout", "let", "for", "by",
                      "keep", "parallel", "stages"})
MAX_LOOP_DEPTH = 16  # loops inside one another; each adds a symbolic sum to every count


@dataclass(frozen=True)
class Tensor:
    name: str
    role: str  # in | out | inout, or local: an array declared with `let` inside the nest
    dtype: str
    element_bytes: sympy.Rational
    shape: tuple[sympy.Expr, ...]  # in the size parameters
    level: str  # home level
    span: ast.Span


@dataclass(frozen=True)
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

    @property
    def name(self) -> str:
        return self.kernel.name

    @property
    def precision(self) -> str:
        """The precision the kernel computes in: the element type most of its tensors are
        declared with, the first one declared breaking ties."""
        types = [tensor.dtype for tensor in self.tensors.values() if tensor.role != "local"]
        if not types:
            types = list(self.locals.values()) or ["f32"]
        return PRECISION_OF_TYPE[max(types, key=types.count)]


def check(kernel: ast.Kernel) -> CheckedKernel:
    """Check a parsed kernel; raise KcostError with every problem found."""
    return _Checker(kernel).run()


class _Checker:
    """Walks the kernel once, collecting diagnostics. A declaration that is itself wrong (a bad
    shape, an unknown type) is still recorded, so its uses do not report the same mistake
    again; the checked kernel is built only when nothing was reported."""

    def __init__(self, kernel: ast.Kernel):
        self.kernel = kernel
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
        self.grid: Grid | None = None
        self.grid_header: ast.Parallel | None = None
        self.grid_outermost = True

    def error(self, span: ast.Span | None, message: str, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(span, message, hint))

    def run(self) -> CheckedKernel:
        self._parameters()
        kernel_scope = _Scope()
        for item in self.kernel.items:
            self._kernel_item(item, kernel_scope)
        if self.grid_header is not None and self.grid_outermost:
            self._all_inside_grid()
        if not self.diagnostics:
            self._has_work()
        if self.diagnostics:
            self.diagnostics.sort(key=lambda d: (d.span.line, d.span.column) if d.span else (0, 0))
            raise KcostError(self.diagnostics, self.kernel.source)
        parameters = tuple(size_symbol(p.name) for p in self.kernel.params)
        return CheckedKernel(
            self.kernel, parameters, self.defaults, self.sizes, self.tensors, self.locals,
            tuple(self.divisibility), tuple(self.bounds), self.reuse, self.grid,
        )

    def _all_inside_grid(self) -> None:
        """A parallel spec is its grid: every statement runs in some block."""
        for stmt in self.kernel.statements:
            if isinstance(stmt, ast.Let) and stmt.dtype is None:
                continue  # a derived size
            if not (isinstance(stmt, ast.For) and stmt.parallel is self.grid_header):
                self.error(stmt.span, "statement outside the parallel loops",
                           "in a parallel spec every statement runs in a thread block: move "
                           "it inside the `parallel` loops")

    def _has_work(self) -> None:
        # the caret goes under the `kernel` keyword: the whole kernel would underline a page
        span = self.kernel.span
        keyword = ast.Span(span.file, span.line, span.column, span.line, span.column + 6)
        if not self.kernel.statements:
            self.error(keyword, f"kernel `{self.kernel.name}` has no statements",
                       "add the loop nest: `for i in 0..n { y[i] = x[i] }`")
        elif not _has_assignment(self.kernel.statements):
            self.error(keyword, f"kernel `{self.kernel.name}` does no work",
                       "a kernel needs at least one assignment, such as `y[i] = x[i]`")

    # --- source positions ----------------------------------------------------------------

    def _name_span(self, span: ast.Span, name: str) -> ast.Span:
        """The span of `name` inside a declaration's span (the AST keeps only the whole
        declaration), so that the caret sits under the name and not under the keyword."""
        lines = self.kernel.source.split("\n")
        if not 1 <= span.line <= len(lines):
            return span
        line = lines[span.line - 1]
        pattern = re.compile(rf"(?<![A-Za-z_0-9]){re.escape(name)}(?![A-Za-z_0-9])")
        keyword = re.match(r"(in|out|inout|let|for)\b", line[span.column - 1:])
        match = pattern.search(line, span.column - 1 + (keyword.end() if keyword else 0))
        if match is None:
            return span
        return ast.Span(span.file, span.line, match.start() + 1, span.line, match.end() + 1)

    def _source_text(self, span: ast.Span) -> str:
        if span.line != span.end_line:
            return "..."
        line = self.kernel.source.split("\n")[span.line - 1]
        return line[span.column - 1:span.end_column - 1]

    # --- declarations --------------------------------------------------------------------

    def _declare(self, name: str, span: ast.Span, what: str) -> bool:
        """Record a kernel-wide name (size or tensor); False when it cannot be declared."""
        place = self._name_span(span, name)
        if name in KEYWORDS:
            self.error(place, f"`{name}` is a keyword and cannot name a {what}",
                       f"rename this {what}")
            return False
        if name in FUNCTIONS:
            self.error(place, f"`{name}` is a built-in function and cannot name a {what}",
                       f"rename this {what}")
            return False
        first = self.declared_at.get(name) or self.local_spans.get(name)
        if first is not None:
            self.error(place, f"`{name}` is already declared at {_place(first, place)}",
                       f"rename this {what}: sizes, tensors, locals and iterators share "
                       "one namespace")
            return False
        self.declared_at[name] = span
        return True

    def _parameters(self) -> None:
        for param in self.kernel.params:
            if not self._declare(param.name, param.span, "size"):
                continue
            symbol = size_symbol(param.name)
            self.sizes[param.name] = symbol
            if param.default is not None:
                if param.default < 1:
                    self.error(param.span, f"default of `{param.name}` must be positive, "
                               f"not {param.default}", "sizes are positive integers")
                self.defaults[symbol] = param.default

    def _kernel_item(self, item: ast.Item, scope: _Scope) -> None:
        if isinstance(item, ast.ReuseSetting):
            if item.mode.id not in REUSE_MODES:
                self.error(item.mode.span, f"unknown reuse mode `{item.mode.id}`",
                           "write `reuse perfect` or `reuse none`")
            else:
                self.reuse = item.mode.id
        elif isinstance(item, ast.Assume):
            for fact in item.facts:
                self._assume(fact)
        elif isinstance(item, ast.TensorDecl):
            self._tensor(item)
        elif isinstance(item, ast.Let) and item.dtype is None:
            self._derived_size(item)
        else:
            self._statement(item, scope)

    def _size_expr(self, expr: ast.Expr, what: str) -> sympy.Expr | None:
        if not self._names_known(expr, self.sizes, what):
            return None
        return self._to_sympy(expr, self.sizes)

    def _to_sympy(self, expr: ast.Expr, names) -> sympy.Expr | None:
        try:
            return to_sympy(expr, names)
        except KcostError as error:
            self.diagnostics.extend(error.diagnostics)
            return None

    def _assume(self, fact: ast.Divides | ast.Compare) -> None:
        if isinstance(fact, ast.Divides):
            divisor = self._size_expr(fact.divisor, "an assumption")
            dividend = self._size_expr(fact.dividend, "an assumption")
            if divisor is not None and dividend is not None:
                self.divisibility.append((divisor, dividend))
            return
        left = self._size_expr(fact.left, "an assumption")
        right = self._size_expr(fact.right, "an assumption")
        if left is None or right is None:
            return
        relation = {"<=": sympy.Le, "<": sympy.Lt, ">=": sympy.Ge, ">": sympy.Gt}[fact.op]
        self.bounds.append(relation(left, right, evaluate=False))

    def _tensor(self, decl: ast.TensorDecl) -> None:
        element_bytes = ELEMENT_BYTES.get(decl.dtype.id)
        if element_bytes is None:
            self.error(decl.dtype.span, f"unknown element type `{decl.dtype.id}`",
                       did_you_mean(decl.dtype.id, ELEMENT_BYTES)
                       or "element types: " + ", ".join(ELEMENT_BYTES))
        level = "global"
        if decl.level is not None:
            if decl.level.id not in LEVELS:
                self._unknown_level(decl.level)
            else:
                level = decl.level.id
        shape = tuple(self._extent(extent) for extent in decl.shape)
        if self._declare(decl.name, decl.span, "tensor"):
            # recorded even when broken, so that its uses are checked against its rank
            self.tensors[decl.name] = Tensor(
                decl.name, decl.role, decl.dtype.id, element_bytes or sympy.Integer(1), shape,
                level, decl.span,
            )

    def _extent(self, extent: ast.Expr) -> sympy.Expr:
        value = self._size_expr(extent, "a tensor shape")
        if value is None:
            return sympy.nan
        if value.is_positive is False:
            self.error(extent.span, f"tensor extent `{self._source_text(extent.span)}` is "
                       f"{value}, not positive", "extents are sizes: positive integers")
        return value

    def _derived_size(self, let: ast.Let) -> None:
        value = self._size_expr(let.value, "a size")
        if self._declare(let.name, let.span, "size") and value is not None:
            self.sizes[let.name] = value

    def _unknown_level(self, level: ast.Name) -> None:
        self.error(level.span, f"unknown memory level `{level.id}`",
                   did_you_mean(level.id, LEVELS) or "levels, slowest first: "
                   + ", ".join(LEVELS))

    # --- statements ----------------------------------------------------------------------

    def _statement(self, stmt: ast.Statement, scope: _Scope) -> None:
        if isinstance(stmt, ast.For):
            self._for(stmt, scope)
        elif isinstance(stmt, ast.Keep):
            self._keep(stmt, scope)
        elif isinstance(stmt, ast.Let):
            self._local(stmt, scope)
        elif isinstance(stmt, ast.Assign):
            self._assign(stmt, scope)

    def _block(self, body: tuple[ast.Statement, ...], scope: _Scope) -> None:
        """A block's locals are visible after their `let`, to the end of the block."""
        inner = scope.child()
        for stmt in body:
            self._statement(stmt, inner)

    def _local(self, let: ast.Let, scope: _Scope) -> None:
        if let.dtype is not None and (let.shape or let.level is not None):
            self._local_array(let, scope)
            return
        if let.dtype is None:
            self.error(let.span, f"`let {let.name}` inside a loop needs a type",
                       f"a register local: `let {let.name}: f32 = ...`")
            return
        self._value(let.value, scope)
        if let.dtype not in ELEMENT_BYTES:
            self.error(let.span, f"unknown element type `{let.dtype}`",
                       did_you_mean(let.dtype, ELEMENT_BYTES)
                       or "element types: " + ", ".join(ELEMENT_BYTES))
        place = self._name_span(let.span, let.name)
        if let.name in KEYWORDS or let.name in FUNCTIONS or let.name in self.declared_at:
            self._declare(let.name, let.span, "local")
            return
        if let.name in scope.locals or let.name in scope.iterators:
            first = scope.locals.get(let.name) or scope.iterators[let.name]
            self.error(place, f"`{let.name}` is already declared at {_place(first, place)}",
                       "rename this local, or assign to the one in scope")
            return
        if self.locals.get(let.name, let.dtype) != let.dtype:
            first = self.local_spans[let.name]
            self.error(place, f"local `{let.name}` is `{self.locals[let.name]}` at line "
                       f"{first.line}, `{let.dtype}` here", "give one of them another name")
            scope.locals[let.name] = let.span  # its uses are checked all the same
            return
        self.locals[let.name] = let.dtype
        self.local_spans.setdefault(let.name, let.span)
        scope.locals[let.name] = let.span

    def _local_array(self, let: ast.Let, scope: _Scope) -> None:
        """`let acc: f32[TM, TN] in registers = 0`: an array in an on-chip level, per block."""
        self._value(let.value, scope)
        element_bytes = ELEMENT_BYTES.get(let.dtype)
        if element_bytes is None:
            self.error(let.span, f"unknown element type `{let.dtype}`",
                       did_you_mean(let.dtype, ELEMENT_BYTES)
                       or "element types: " + ", ".join(ELEMENT_BYTES))
        level = "registers"
        if let.level is not None:
            if let.level.id not in LEVELS:
                self._unknown_level(let.level)
            elif let.level.id == "global":
                self.error(let.level.span, "a local array lives on chip, not in `global`",
                           "declare a tensor (`out x: f32[...]`) for data in global memory")
            else:
                level = let.level.id
        shape = tuple(self._extent(extent) for extent in let.shape)
        if not shape:
            self.error(let.span, f"local array `{let.name}` needs a shape",
                       f"write `let {let.name}: {let.dtype}[T] in {level} = 0`")
        if self._declare(let.name, let.span, "local array"):
            self.tensors[let.name] = Tensor(let.name, "local", let.dtype,
                                            element_bytes or sympy.Integer(1), shape, level,
                                            let.span)
            scope.locals[let.name] = let.span

    def _for(self, loop: ast.For, scope: _Scope) -> None:
        if loop.parallel is not None and loop.parallel is not self.grid_header:
            self._grid(loop, scope)
        bound_names = {**self.sizes, **scope.iterator_symbols()}
        for bound in (loop.lo, loop.hi):
            if self._names_known(bound, bound_names, "a loop bound", scope):
                self._to_sympy(bound, bound_names)
        if loop.step is not None:
            self._step(loop.step, scope)
        if scope.depth >= MAX_LOOP_DEPTH:
            self.error(loop.span, f"loops nest more than {MAX_LOOP_DEPTH} deep",
                       "a kernel's loop nest is a handful of loops; merge or drop some")
            return
        place = self._name_span(loop.span, loop.var)
        inner = scope.child()
        if loop.var in scope.iterators:
            self.error(place, f"iterator `{loop.var}` is already used by an outer loop "
                       f"(line {scope.iterators[loop.var].line})", "rename the inner iterator")
        elif loop.var in self.declared_at or loop.var in scope.locals or loop.var in KEYWORDS:
            first = self.declared_at.get(loop.var) or scope.locals.get(loop.var)
            where = f" at line {first.line}" if first else ""
            self.error(place, f"iterator `{loop.var}` is already declared{where}",
                       "rename the iterator")
        inner.iterators[loop.var] = place
        inner.depth = scope.depth + 1
        self._block(loop.body, inner)

    def _grid(self, loop: ast.For, scope: _Scope) -> None:
        if self.grid_header is not None:
            self.error(loop.parallel.span, "a kernel has one parallel header",
                       f"the grid is declared at line {self.grid_header.span.line}; mark "
                       "the loops of one header `parallel`")
            return
        self.grid_header = loop.parallel
        self.grid_outermost = scope.depth == 0 and not scope.keeps
        if not self.grid_outermost:
            self.error(loop.parallel.span, "the parallel loops must be the outermost loops",
                       "the grid of thread blocks comes first: `for b in 0..n by T "
                       "parallel(threads = 256) { ... }`")
        grid, diagnostics = read_grid(loop.parallel, header_iterators(loop), self._size_expr)
        self.diagnostics.extend(diagnostics)
        self.grid = grid

    def _step(self, step: ast.Expr, scope: _Scope) -> None:
        if not self._names_known(step, self.sizes, "a loop step", scope):
            return
        value = self._to_sympy(step, self.sizes)
        if value is not None and (value.is_positive is False or value == 0):
            self.error(step.span, f"loop step must be positive, not {value}",
                       "write the loop upward: `for i in lo..hi by s` with s > 0")

    def _keep(self, keep: ast.Keep, scope: _Scope) -> None:
        level = keep.level.id
        inner = scope.child()
        if keep.stages is not None:
            stages = self._size_expr(keep.stages, "a stage count")
            if stages is not None and (stages.is_positive is False or stages == 0):
                self.error(keep.stages.span, f"stages must be positive, not {stages}",
                           "a pipeline holds at least one stage")
        if level not in LEVELS:
            self._unknown_level(keep.level)
            self._block(keep.body, inner)
            return
        for name in keep.tensors:
            if name.id in self.tensors and self.tensors[name.id].role == "local":
                self.error(name.span, f"`{name.id}` is a local array; it lives in "
                           f"`{self.tensors[name.id].level}` and is not kept",
                           "keep stages tensors declared with in, out or inout")
                continue
            if name.id not in self.tensors:
                hint = did_you_mean(name.id, self.tensors) or (
                    "keep stages declared tensors: " + ", ".join(self.tensors)
                    if self.tensors else "declare the tensor first: `in x: f32[n]`")
                self.error(name.span, f"keep of unknown tensor `{name.id}`", hint)
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
        self.error(keep.level.span,
                   f"`{tensor}` is already in `{current}` here; keeping it in `{level}` "
                   "moves nothing", hint)

    def _assign(self, assign: ast.Assign, scope: _Scope) -> None:
        target = assign.target
        if isinstance(target, ast.Name):
            self._assign_name(target, scope)
        else:
            self._access(target, scope, role="out")
            tensor = self.tensors.get(target.tensor)
            if tensor is not None and tensor.role == "in":
                self._write_to_input(target.span, tensor)
        self._value(assign.value, scope)

    def _assign_name(self, target: ast.Name, scope: _Scope) -> None:
        name = target.id
        if name in self.tensors:
            tensor = self.tensors[name]
            if tensor.shape:
                indices = ", ".join(f"i{axis}" for axis in range(len(tensor.shape)))
                self.error(target.span, f"`{name}` is a tensor of rank {len(tensor.shape)}; "
                           "assign to one element", f"write `{name}[{indices}] = ...`")
            elif tensor.role == "in":
                self._write_to_input(target.span, tensor)
        elif name in self.sizes:
            self.error(target.span, f"cannot assign to size `{name}`",
                       "sizes are fixed; for a value that changes, declare a local: "
                       "`let total: f32 = 0`")
        elif name in scope.iterators:
            self.error(target.span, f"cannot assign to iterator `{name}`",
                       "its loop sets it; for a value that changes, declare a local: "
                       "`let total: f32 = 0`")
        elif name not in scope.locals:
            self._unknown(target, {**self.tensors, **scope.locals},
                          f"declare it first: `out {name}: f32[...]` or "
                          f"`let {name}: f32 = 0`")

    def _write_to_input(self, span: ast.Span, tensor: Tensor) -> None:
        self.error(span, f"`{tensor.name}` is declared `in` (line {tensor.span.line}) and "
                   "cannot be written", "declare it `out` (written) or `inout` (read, then "
                   "written)")

    def _value(self, expr: ast.Expr, scope: _Scope) -> None:
        """Check a value expression: accesses, calls and names."""
        if isinstance(expr, ast.Access):
            self._access(expr, scope)
        elif isinstance(expr, ast.Name):
            self._value_name(expr, scope)
        elif isinstance(expr, ast.BinOp):
            self._value(expr.left, scope)
            self._value(expr.right, scope)
        elif isinstance(expr, ast.Neg):
            self._value(expr.operand, scope)
        elif isinstance(expr, ast.Call):
            self._call(expr, scope)

    def _value_name(self, name: ast.Name, scope: _Scope) -> None:
        known = {**self.sizes, **scope.iterators, **scope.locals, **self.tensors}
        if name.id not in known:
            hint = None
            if name.id in self.locals:
                line = self.local_spans[name.id].line
                hint = f"the local `{name.id}` declared at line {line} is out of scope here"
            self._unknown(name, known, hint)
        elif name.id in self.tensors and self.tensors[name.id].shape:
            rank = len(self.tensors[name.id].shape)
            self.error(name.span, f"`{name.id}` is a tensor of rank {rank}; read one element",
                       f"write `{name.id}[...]` with {rank} ind{'ex' if rank == 1 else 'ices'}")

    def _call(self, call: ast.Call, scope: _Scope) -> None:
        if call.func not in FUNCTIONS:
            place = ast.Span(call.span.file, call.span.line, call.span.column, call.span.line,
                             call.span.column + len(call.func))
            self.error(place, f"unknown function `{call.func}`",
                       did_you_mean(call.func, FUNCTIONS)
                       or "functions: " + ", ".join(sorted(FUNCTIONS)))
        else:
            self._arity(call)
        for arg in call.args:
            self._value(arg, scope)

    def _arity(self, call: ast.Call) -> None:
        arity = FUNCTION_ARITY.get(call.func)
        given = len(call.args)
        if arity is not None and given != arity:
            self.error(call.span, f"`{call.func}` takes {_count(arity, 'argument')}, "
                       f"not {given}", f"call it as `{_usage(call.func, arity)}`")
        elif arity is None and given < 2:
            self.error(call.span, f"`{call.func}` takes at least 2 arguments, not {given}",
                       f"call it as `{call.func}(a, b)`")

    def _access(self, access: ast.Access, scope: _Scope, role: str = "in") -> None:
        if access.tensor not in self.tensors:
            known = {**self.tensors, **scope.locals, **self.sizes, **scope.iterators}
            if access.tensor in known:
                self.error(access.span, f"`{access.tensor}` is not a tensor and takes no "
                           "indices", f"write `{access.tensor}` alone")
            else:
                hint = did_you_mean(access.tensor, self.tensors) or (
                    f"declare it: `{role} {access.tensor}: f32[...]`")
                self.error(access.span, f"unknown tensor `{access.tensor}`", hint)
            return
        tensor = self.tensors[access.tensor]
        if tensor.role == "local" and access.tensor not in scope.locals:
            line = tensor.span.line
            self.error(access.span, f"the local array `{access.tensor}` is out of scope here",
                       f"it is declared at line {line}; use it inside the block it is "
                       "declared in")
            return
        if len(access.indices) != len(tensor.shape):
            declared = self._source_text(tensor.span).split(":", 1)[-1].strip()
            self.error(access.span,
                       f"`{access.tensor}` has rank {len(tensor.shape)} but is indexed with "
                       f"{_count(len(access.indices), 'index')}",
                       f"declared at line {tensor.span.line}: `{access.tensor}: {declared}`")
        index_names = {**self.sizes, **scope.iterator_symbols()}
        for index in access.indices:
            if self._names_known(index, index_names, "an index", scope):
                self._affine(index, index_names, scope)

    # --- expression helpers --------------------------------------------------------------

    def _names_known(self, expr: ast.Expr, names, what: str, scope: _Scope | None = None) -> bool:
        """True when `expr` uses only `names` (sizes, and iterators where allowed)."""
        ok = True
        for node in ast.walk_expr(expr):
            if isinstance(node, ast.Name) and node.id not in names:
                self._not_a_size(node, names, what, scope)
                ok = False
            elif isinstance(node, ast.Access):
                self.error(node.span, f"{what} reads tensor `{node.tensor}`",
                           "indirect indexing is not modelled: indices and bounds are affine "
                           "in sizes and iterators")
                ok = False
            elif isinstance(node, ast.Call) and node.func not in ("min", "max"):
                self.error(node.span, f"{what} calls `{node.func}`",
                           "indices and bounds use only + - * / min max")
                ok = False
        return ok

    def _not_a_size(self, node: ast.Name, names, what: str, scope: _Scope | None) -> None:
        if node.id in self.tensors or node.id in self.locals:
            self.error(node.span, f"{what} uses `{node.id}`, which is data, not a size",
                       "indices and bounds are made of sizes and iterators")
        elif scope is not None and node.id in scope.iterators:
            self.error(node.span, f"{what} uses iterator `{node.id}`",
                       "a loop step stays fixed while the loop runs: use a size")
        else:
            self._unknown(node, names, "declare it as a size: a kernel parameter "
                          f"`kernel {self.kernel.name}(..., {node.id})` or `let {node.id} = ...`")

    def _unknown(self, name: ast.Name, known, fallback_hint: str | None = None) -> None:
        hint = did_you_mean(name.id, known) or fallback_hint
        self.error(name.span, f"undefined name `{name.id}`", hint)

    def _affine(self, expr: ast.Expr, names, scope: _Scope) -> None:
        """Indices must be affine in the iterators (sizes may multiply them)."""
        value = self._to_sympy(expr, names)
        if value is None or value.is_Symbol or value.is_Integer:
            return  # `i`, `N`, `0`: affine, and the most common index, without a Poly
        if value.has(sympy.Min, sympy.Max):
            self.error(expr.span, "min/max in an index", "clip the loop bound instead")
            return
        symbols = [iterator_symbol(name) for name in scope.iterators]
        if not symbols:
            return
        try:
            poly = sympy.Poly(value, *symbols)
        except sympy.PolynomialError:
            self.error(expr.span, "index is not affine in the iterators",
                       "a footprint needs indices like `i + 1`, `2*i` or `T*i0 + i`")
            return
        if poly.total_degree() > 1:
            self.error(expr.span, "index is not affine in the iterators",
                       "a product of iterators has no box footprint; write indices like "
                       "`i + 1`, `2*i` or `T*i0 + i`")
        elif any(sympy.denom(coefficient) != 1 for coefficient in poly.coeffs()):
            self.error(expr.span, "index divides an iterator",
                       "indices are integers: write `2*i` rather than `i/2`, or use a step")


@dataclass
class _Scope:
    """What a statement sees: iterators and locals in scope (name -> where declared), the
    level each kept tensor is in, and how many loops enclose it."""

    iterators: dict[str, ast.Span] = field(default_factory=dict)
    locals: dict[str, ast.Span] = field(default_factory=dict)
    keeps: dict[str, str] = field(default_factory=dict)
    depth: int = 0

    def child(self) -> _Scope:
        return _Scope(dict(self.iterators), dict(self.locals), dict(self.keeps), self.depth)

    def iterator_symbols(self) -> dict[str, sympy.Symbol]:
        return {name: iterator_symbol(name) for name in self.iterators}


def _has_assignment(statements) -> bool:
    for stmt in statements:
        if isinstance(stmt, ast.Assign):
            return True
        if isinstance(stmt, (ast.For, ast.Keep)) and _has_assignment(stmt.body):
            return True
    return False


def _place(first: ast.Span, here: ast.Span) -> str:
    """Where `first` is, as seen from `here`: the column too when both share a line."""
    if first.line == here.line:
        return f"line {first.line}, column {first.column}"
    return f"line {first.line}"


def _count(number: int, noun: str) -> str:
    plural = {"index": "indices"}.get(noun, noun + "s")
    return f"{number} {noun if number == 1 else plural}"


def _usage(func: str, arity: int) -> str:
    return f"{func}({', '.join('abc'[:arity])})" if arity <= 3 else f"{func}(...)"
