"""Stage 2: AST -> CheckedKernel. Resolves every name, checks ranks, types, levels, loop
steps and reuse scopes, and collects every diagnostic before raising them together."""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from . import ast
from .errors import Diagnostic, KcostError, did_you_mean
from .symbols import (
    ELEMENT_BYTES, FUNCTION_ARITY, FUNCTIONS, LEVELS, PRECISION_OF_TYPE, iterator_symbol,
    size_symbol, to_sympy,
)

REUSE_MODES = ("perfect", "none")
ROLES = ("in", "out", "inout")


@dataclass(frozen=True)
class Tensor:
    name: str
    role: str  # in | out | inout
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

    @property
    def name(self) -> str:
        return self.kernel.name

    @property
    def precision(self) -> str:
        """The precision the kernel computes in: that of its widest-used element type,
        counted over tensors, the first one declared breaking ties."""
        types = [tensor.dtype for tensor in self.tensors.values()]
        if not types:
            types = list(self.locals.values()) or ["f32"]
        return PRECISION_OF_TYPE[max(types, key=types.count)]


def check(kernel: ast.Kernel) -> CheckedKernel:
    """Check a parsed kernel; raise KcostError with every problem found."""
    return _Checker(kernel).run()


class _Checker:
    def __init__(self, kernel: ast.Kernel):
        self.kernel = kernel
        self.diagnostics: list[Diagnostic] = []
        self.sizes: dict[str, sympy.Expr] = {}
        self.defaults: dict[sympy.Symbol, int] = {}
        self.tensors: dict[str, Tensor] = {}
        self.locals: dict[str, str] = {}
        self.declared_at: dict[str, ast.Span] = {}
        self.divisibility: list[tuple[sympy.Expr, sympy.Expr]] = []
        self.bounds: list[sympy.Basic] = []
        self.reuse = "perfect"

    def error(self, span: ast.Span | None, message: str, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(span, message, hint))

    def run(self) -> CheckedKernel:
        self._parameters()
        for item in self.kernel.items:
            self._kernel_item(item)
        if not self.kernel.statements and not self.diagnostics:
            self.error(self.kernel.span, f"kernel `{self.kernel.name}` has no statements",
                       "add the loop nest: `for i in 0..n { y[i] = x[i] }`")
        elif not self._has_assignment(self.kernel.statements) and not self.diagnostics:
            self.error(self.kernel.span, f"kernel `{self.kernel.name}` does no work",
                       "a kernel needs at least one assignment")
        if self.diagnostics:
            self.diagnostics.sort(key=lambda d: (d.span.line, d.span.column) if d.span else (0, 0))
            raise KcostError(self.diagnostics, self.kernel.source)
        parameters = tuple(size_symbol(p.name) for p in self.kernel.params)
        return CheckedKernel(
            self.kernel, parameters, self.defaults, self.sizes, self.tensors, self.locals,
            tuple(self.divisibility), tuple(self.bounds), self.reuse,
        )

    # --- declarations ------------------------------------------------------------------

    def _declare(self, name: str, span: ast.Span, what: str) -> bool:
        if name in self.declared_at:
            first = self.declared_at[name]
            self.error(span, f"`{name}` is already declared (line {first.line})",
                       f"rename this {what}")
            return False
        if name in FUNCTIONS:
            self.error(span, f"`{name}` is a built-in function", f"rename this {what}")
            return False
        self.declared_at[name] = span
        return True

    def _parameters(self) -> None:
        if not self.kernel.params:
            pass
        for param in self.kernel.params:
            if not self._declare(param.name, param.span, "parameter"):
                continue
            symbol = size_symbol(param.name)
            self.sizes[param.name] = symbol
            if param.default is not None:
                if param.default < 1:
                    self.error(param.span, f"default of `{param.name}` must be positive",
                               "sizes are positive integers")
                self.defaults[symbol] = param.default

    def _kernel_item(self, item: ast.Item) -> None:
        if isinstance(item, ast.ReuseSetting):
            if item.mode.id not in REUSE_MODES:
                self.error(item.mode.span, f"unknown reuse mode `{item.mode.id}`",
                           "use `reuse perfect` or `reuse none`")
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
            self._statement(item, iterators={}, keeps={})

    def _size_expr(self, expr: ast.Expr, what: str) -> sympy.Expr | None:
        if not self._names_known(expr, self.sizes, what):
            return None
        try:
            return to_sympy(expr, self.sizes)
        except KcostError as error:
            self.diagnostics.extend(error.diagnostics)
            return None

    def _assume(self, fact: ast.Divides | ast.Compare) -> None:
        if isinstance(fact, ast.Divides):
            divisor = self._size_expr(fact.divisor, "size")
            dividend = self._size_expr(fact.dividend, "size")
            if divisor is not None and dividend is not None:
                self.divisibility.append((divisor, dividend))
            return
        left = self._size_expr(fact.left, "size")
        right = self._size_expr(fact.right, "size")
        if left is None or right is None:
            return
        relation = {"<=": sympy.Le, "<": sympy.Lt, ">=": sympy.Ge, ">": sympy.Gt}[fact.op]
        self.bounds.append(relation(left, right, evaluate=False))

    def _tensor(self, decl: ast.TensorDecl) -> None:
        if decl.dtype.id not in ELEMENT_BYTES:
            self.error(decl.dtype.span, f"unknown element type `{decl.dtype.id}`",
                       did_you_mean(decl.dtype.id, ELEMENT_BYTES)
                       or "types: " + " ".join(ELEMENT_BYTES))
        level = "global"
        if decl.level is not None:
            if decl.level.id not in LEVELS:
                self.error(decl.level.span, f"unknown memory level `{decl.level.id}`",
                           did_you_mean(decl.level.id, LEVELS) or "levels: " + " ".join(LEVELS))
            else:
                level = decl.level.id
        shape = []
        for extent in decl.shape:
            value = self._size_expr(extent, "size")
            if value is not None:
                shape.append(value)
        if not self._declare(decl.name, decl.span, "tensor"):
            return
        if decl.dtype.id in ELEMENT_BYTES and len(shape) == len(decl.shape):
            self.tensors[decl.name] = Tensor(
                decl.name, decl.role, decl.dtype.id, ELEMENT_BYTES[decl.dtype.id], tuple(shape),
                level, decl.span,
            )

    def _derived_size(self, let: ast.Let) -> None:
        value = self._size_expr(let.value, "size")
        if self._declare(let.name, let.span, "size") and value is not None:
            self.sizes[let.name] = value

    # --- statements --------------------------------------------------------------------

    def _statement(self, stmt: ast.Statement, iterators: dict[str, sympy.Symbol],
                   keeps: dict[str, str]) -> None:
        if isinstance(stmt, ast.For):
            self._for(stmt, iterators, keeps)
        elif isinstance(stmt, ast.Keep):
            self._keep(stmt, iterators, keeps)
        elif isinstance(stmt, ast.Let):
            if stmt.dtype is None:
                self.error(stmt.span, f"`let {stmt.name}` inside a loop needs a type",
                           f"a register local: `let {stmt.name}: f32 = ...`")
                return
            self._value(stmt.value, iterators)
            if stmt.dtype not in ELEMENT_BYTES:
                self.error(stmt.span, f"unknown element type `{stmt.dtype}`",
                           did_you_mean(stmt.dtype, ELEMENT_BYTES))
            if self._declare(stmt.name, stmt.span, "local"):
                self.locals[stmt.name] = stmt.dtype
        elif isinstance(stmt, ast.Assign):
            self._assign(stmt, iterators)

    def _for(self, loop: ast.For, iterators, keeps) -> None:
        bound_names = {**self.sizes, **iterators}
        for bound in (loop.lo, loop.hi):
            if self._names_known(bound, bound_names, "loop bound"):
                self._affine_or_minmax(bound, bound_names, "loop bound")
        if loop.step is not None and self._names_known(loop.step, self.sizes, "loop step"):
            step = self._size_expr(loop.step, "step")
            if step is not None and (step.is_positive is False or step == 0):
                self.error(loop.step.span, f"loop step must be positive, not {step}",
                           "write the loop upward: `for i in lo..hi by s` with s > 0")
        if loop.var in iterators:
            self.error(loop.span, f"iterator `{loop.var}` is already in use by an outer loop",
                       "rename the inner iterator")
            return
        if loop.var in self.declared_at:
            self.error(loop.span, f"`{loop.var}` is already declared "
                       f"(line {self.declared_at[loop.var].line})", "rename the iterator")
            return
        inner = {**iterators, loop.var: iterator_symbol(loop.var)}
        for stmt in loop.body:
            self._statement(stmt, inner, keeps)

    def _keep(self, keep: ast.Keep, iterators, keeps) -> None:
        level = keep.level.id
        if level not in LEVELS:
            self.error(keep.level.span, f"unknown memory level `{level}`",
                       did_you_mean(level, LEVELS) or "levels: " + " ".join(LEVELS))
            return
        inner_keeps = dict(keeps)
        for name in keep.tensors:
            if name.id not in self.tensors:
                hint = did_you_mean(name.id, self.tensors) or "keep names declared tensors"
                self.error(name.span, f"keep of unknown tensor `{name.id}`", hint)
                continue
            current = keeps.get(name.id, self.tensors[name.id].level)
            if LEVELS.index(level) <= LEVELS.index(current):
                self.error(keep.level.span,
                           f"`{name.id}` is already in `{current}`; keeping it in `{level}` "
                           "moves nothing",
                           "a keep stages data into a faster level: "
                           + " > ".join(LEVELS[LEVELS.index(current) + 1:]) if
                           current != "registers" else "remove this keep")
                continue
            inner_keeps[name.id] = level
        for stmt in keep.body:
            self._statement(stmt, iterators, inner_keeps)

    def _assign(self, assign: ast.Assign, iterators) -> None:
        target = assign.target
        if isinstance(target, ast.Name):
            if target.id in self.tensors:
                tensor = self.tensors[target.id]
                if tensor.shape:
                    self.error(target.span, f"`{target.id}` has {len(tensor.shape)} indices",
                               f"write `{target.id}[...]`")
                elif tensor.role == "in":
                    self._write_to_input(target.span, target.id)
            elif target.id in self.sizes:
                self.error(target.span, f"cannot assign to size `{target.id}`",
                           "sizes are fixed; declare a local: `let x: f32 = ...`")
            elif target.id in self.locals:
                pass
            elif target.id in iterators:
                self.error(target.span, f"cannot assign to iterator `{target.id}`")
            else:
                self._unknown(target, {**self.tensors, **self.locals}, "name")
        else:
            self._access(target, iterators)
            if target.tensor in self.tensors and self.tensors[target.tensor].role == "in":
                self._write_to_input(target.span, target.tensor)
        self._value(assign.value, iterators)

    def _write_to_input(self, span: ast.Span, name: str) -> None:
        self.error(span, f"`{name}` is declared `in` and cannot be written",
                   f"declare it `out` or `inout`")

    def _value(self, expr: ast.Expr, iterators) -> None:
        """Check a value expression: accesses, calls and names."""
        if isinstance(expr, ast.Access):
            self._access(expr, iterators)
        elif isinstance(expr, ast.Name):
            known = {**self.sizes, **iterators, **self.locals, **self.tensors}
            if expr.id not in known:
                self._unknown(expr, known, "name")
            elif expr.id in self.tensors and self.tensors[expr.id].shape:
                self.error(expr.span, f"`{expr.id}` needs {len(self.tensors[expr.id].shape)} "
                           "indices", f"write `{expr.id}[...]`")
        elif isinstance(expr, ast.BinOp):
            self._value(expr.left, iterators)
            self._value(expr.right, iterators)
        elif isinstance(expr, ast.Neg):
            self._value(expr.operand, iterators)
        elif isinstance(expr, ast.Call):
            self._call(expr, iterators)

    def _call(self, call: ast.Call, iterators) -> None:
        if call.func not in FUNCTIONS:
            self.error(call.span, f"unknown function `{call.func}`",
                       did_you_mean(call.func, FUNCTIONS)
                       or "functions: " + " ".join(sorted(FUNCTIONS)))
        else:
            arity = FUNCTION_ARITY.get(call.func)
            if arity is not None and len(call.args) != arity:
                self.error(call.span, f"`{call.func}` takes {arity} argument"
                           f"{'s' if arity > 1 else ''}, not {len(call.args)}")
            elif arity is None and len(call.args) < 2:
                self.error(call.span, f"`{call.func}` takes at least 2 arguments")
        for arg in call.args:
            self._value(arg, iterators)

    def _access(self, access: ast.Access, iterators) -> None:
        if access.tensor not in self.tensors:
            known = {**self.tensors, **self.locals, **self.sizes, **iterators}
            if access.tensor in known:
                self.error(access.span, f"`{access.tensor}` is not a tensor and takes no indices")
            else:
                self.error(access.span, f"unknown tensor `{access.tensor}`",
                           did_you_mean(access.tensor, self.tensors))
            return
        tensor = self.tensors[access.tensor]
        if len(access.indices) != len(tensor.shape):
            self.error(access.span,
                       f"`{access.tensor}` has rank {len(tensor.shape)} but is indexed with "
                       f"{len(access.indices)} ind{'ex' if len(access.indices) == 1 else 'ices'}",
                       f"declared at line {tensor.span.line}: "
                       f"{access.tensor}[{', '.join(str(s) for s in tensor.shape)}]")
        index_names = {**self.sizes, **iterators}
        for index in access.indices:
            if self._names_known(index, index_names, "index"):
                self._affine(index, index_names, iterators)

    # --- expression helpers ------------------------------------------------------------

    def _names_known(self, expr: ast.Expr, names, what: str) -> bool:
        ok = True
        for node in ast.walk_expr(expr):
            if isinstance(node, ast.Name) and node.id not in names:
                if node.id in self.tensors or node.id in self.locals:
                    self.error(node.span, f"{what} uses `{node.id}`, which is data, not a size",
                               "indices and bounds are made of sizes and iterators")
                else:
                    self._unknown(node, names, "name")
                ok = False
            elif isinstance(node, ast.Access):
                self.error(node.span, f"{what} reads tensor `{node.tensor}`",
                           "indirect indexing is not modelled; indices are affine in iterators")
                ok = False
            elif isinstance(node, ast.Call) and node.func not in ("min", "max"):
                self.error(node.span, f"{what} calls `{node.func}`",
                           "indices and bounds may use + - * / min max")
                ok = False
        return ok

    def _unknown(self, name: ast.Name, known, what: str) -> None:
        hint = did_you_mean(name.id, known)
        self.error(name.span, f"undefined {what} `{name.id}`", hint)

    def _affine(self, expr: ast.Expr, names, iterators) -> None:
        """Indices must be affine in the iterators (sizes may multiply them)."""
        value = to_sympy(expr, names)
        symbols = [iterator_symbol(v) for v in iterators]
        if value.has(sympy.Min, sympy.Max):
            self.error(expr.span, "min/max in an index", "clip the loop bound instead")
            return
        try:
            poly = sympy.Poly(value, *symbols) if symbols else None
        except sympy.PolynomialError:
            poly = None
            self.error(expr.span, "index is not affine in the iterators",
                       "a footprint needs indices like `i + 1`, `2*i`, `T*i0 + i`")
            return
        if poly is not None and poly.total_degree() > 1:
            self.error(expr.span, "index is not affine in the iterators",
                       "products of iterators (`i*j`) have no box footprint")
        elif any(sympy.denom(c) != 1 for c in (poly.coeffs() if poly is not None else [])):
            self.error(expr.span, "index divides an iterator",
                       "indices must be integers; use a step instead")

    def _affine_or_minmax(self, expr: ast.Expr, names, what: str) -> None:
        try:
            to_sympy(expr, names)
        except KcostError as error:
            self.diagnostics.extend(error.diagnostics)

    @staticmethod
    def _has_assignment(statements) -> bool:
        for stmt in statements:
            if isinstance(stmt, ast.Assign):
                return True
            if isinstance(stmt, (ast.For, ast.Keep)) and _Checker._has_assignment(stmt.body):
                return True
        return False
