"""The checks of expressions inside statements: values (names, accesses, calls and their
arity) and indices (names known, affine in the iterators, integer). A mixin of the checker:
it reports through `self.error` and reads the declarations the checker has collected."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import sympy

from ..base import tree as ast
from ..base.errors import Code, did_you_mean
from ..base.kinds import Role
from ..base.symbols import FUNCTION_ARITY, FUNCTIONS, iterator_symbol

if TYPE_CHECKING:
    from ..base.errors import ErrorCode
    from .check_decls import Tensor
    from .scopes import Scope


class ExpressionChecks:
    """Methods of check._Checker for the expressions a statement holds."""

    if TYPE_CHECKING:  # what check._Checker and the other mixins provide
        kernel: ast.Kernel
        sizes: dict[str, sympy.Expr]
        tensors: dict[str, Tensor]
        locals: dict[str, str]
        local_spans: dict[str, ast.Span]

        def error(self, code: ErrorCode, span: ast.Span | None, message: str,
                  hint: str | None = None) -> None: ...

        def _source_text(self, span: ast.Span) -> str: ...

        def _to_sympy(self, expr: ast.Expr, names: Mapping[str, sympy.Expr]
                      ) -> sympy.Expr | None: ...

    def _value(self, expr: ast.Expr, scope: Scope) -> None:
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

    def _value_name(self, name: ast.Name, scope: Scope) -> None:
        known = {**self.sizes, **scope.iterators, **scope.locals, **self.tensors}
        if name.id not in known:
            hint = None
            if name.id in self.locals:
                line = self.local_spans[name.id].line
                hint = f"the local `{name.id}` declared at line {line} is out of scope here"
            self._unknown(name, known, hint)
        elif name.id in self.tensors and self.tensors[name.id].shape:
            rank = len(self.tensors[name.id].shape)
            self.error(Code.WRONG_RANK, name.span,
                       f"`{name.id}` is a tensor of rank {rank}; read one element",
                       f"write `{name.id}[...]` with {rank} ind{'ex' if rank == 1 else 'ices'}")

    def _call(self, call: ast.Call, scope: Scope) -> None:
        if call.func not in FUNCTIONS:
            place = ast.Span(call.span.file, call.span.line, call.span.column, call.span.line,
                             call.span.column + len(call.func))
            self.error(Code.UNDEFINED_NAME, place, f"unknown function `{call.func}`",
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
            self.error(Code.WRONG_CALL, call.span,
                       f"`{call.func}` takes {_count(arity, 'argument')}, not {given}",
                       f"call it as `{_usage(call.func, arity)}`")
        elif arity is None and given < 2:
            self.error(Code.WRONG_CALL, call.span,
                       f"`{call.func}` takes at least 2 arguments, not {given}",
                       f"call it as `{call.func}(a, b)`")

    def _access(self, access: ast.Access, scope: Scope, role: Role = Role.IN) -> None:
        if access.tensor not in self.tensors:
            known = {**self.tensors, **scope.locals, **self.sizes, **scope.iterators}
            if access.tensor in known:
                self.error(Code.WRONG_RANK, access.span,
                           f"`{access.tensor}` is not a tensor and takes no indices",
                           f"write `{access.tensor}` alone")
            else:
                hint = did_you_mean(access.tensor, self.tensors) or (
                    f"declare it: `{role} {access.tensor}: f32[...]`")
                self.error(Code.UNDEFINED_NAME, access.span, f"unknown tensor `{access.tensor}`",
                           hint)
            return
        tensor = self.tensors[access.tensor]
        if tensor.role == Role.LOCAL and access.tensor not in scope.locals:
            line = tensor.span.line
            self.error(Code.UNDEFINED_NAME, access.span,
                       f"the local array `{access.tensor}` is out of scope here",
                       f"it is declared at line {line}; use it inside the block it is declared in")
            return
        if len(access.indices) != len(tensor.shape):
            declared = self._source_text(tensor.span).split(":", 1)[-1].strip()
            self.error(Code.WRONG_RANK, access.span,
                       f"`{access.tensor}` has rank {len(tensor.shape)} but is indexed with "
                       f"{_count(len(access.indices), 'index')}",
                       f"declared at line {tensor.span.line}: `{access.tensor}: {declared}`")
        index_names = {**self.sizes, **scope.iterator_symbols()}
        for index in access.indices:
            if self._names_known(index, index_names, "an index", scope):
                self._affine(index, index_names, scope)

    # --- expression helpers --------------------------------------------------------------

    def _names_known(self, expr: ast.Expr, names: Mapping[str, sympy.Expr], what: str,
                     scope: Scope | None = None) -> bool:
        """True when `expr` uses only `names` (sizes, and iterators where allowed)."""
        ok = True
        for node in ast.walk_expr(expr):
            if isinstance(node, ast.Name) and node.id not in names:
                self._not_a_size(node, names, what, scope)
                ok = False
            elif isinstance(node, ast.Access):
                self.error(Code.NOT_A_SIZE_EXPRESSION, node.span,
                           f"{what} reads tensor `{node.tensor}`",
                           "indirect indexing is not modelled: indices and bounds are affine "
                           "in sizes and iterators")
                ok = False
            elif isinstance(node, ast.Call) and node.func not in ("min", "max"):
                self.error(Code.NOT_A_SIZE_EXPRESSION, node.span, f"{what} calls `{node.func}`",
                           "indices and bounds use only + - * / min max")
                ok = False
        return ok

    def _not_a_size(self, node: ast.Name, names, what: str, scope: Scope | None) -> None:
        if node.id in self.tensors or node.id in self.locals:
            self.error(Code.NOT_A_SIZE_EXPRESSION, node.span,
                       f"{what} uses `{node.id}`, which is data, not a size",
                       "indices and bounds are made of sizes and iterators")
        elif scope is not None and node.id in scope.iterators:
            self.error(Code.NOT_A_SIZE_EXPRESSION, node.span, f"{what} uses iterator `{node.id}`",
                       "a loop step stays fixed while the loop runs: use a size")
        else:
            self._unknown(node, names, "declare it as a size: a kernel parameter "
                          f"`kernel {self.kernel.name}(..., {node.id})` or `let {node.id} = ...`")

    def _unknown(self, name: ast.Name, known, fallback_hint: str | None = None) -> None:
        hint = did_you_mean(name.id, known) or fallback_hint
        self.error(Code.UNDEFINED_NAME, name.span, f"undefined name `{name.id}`", hint)

    def _affine(self, expr: ast.Expr, names, scope: Scope) -> None:
        """Indices must be affine in the iterators (sizes may multiply them)."""
        value = self._to_sympy(expr, names)
        if value is None or value.is_Symbol or value.is_Integer:
            return  # `i`, `N`, `0`: affine, and the most common index, without a Poly
        if value.has(sympy.Min, sympy.Max):
            self.error(Code.NOT_AFFINE, expr.span, "min/max in an index",
                       "clip the loop bound instead")
            return
        symbols = [iterator_symbol(name) for name in scope.iterators]
        if not symbols or _plainly_affine(value, set(symbols)):
            return
        try:
            poly = sympy.Poly(value, *symbols)
        except sympy.PolynomialError:
            self.error(Code.NOT_AFFINE, expr.span, "index is not affine in the iterators",
                       "a footprint needs indices like `i + 1`, `2*i` or `T*i0 + i`")
            return
        if poly.total_degree() > 1:
            self.error(Code.NOT_AFFINE, expr.span, "index is not affine in the iterators",
                       "a product of iterators has no box footprint; write indices like "
                       "`i + 1`, `2*i` or `T*i0 + i`")
        elif any(sympy.denom(coefficient) != 1 for coefficient in poly.coeffs()):
            self.error(Code.NOT_AFFINE, expr.span, "index divides an iterator",
                       "indices are integers: write `2*i` rather than `i/2`, or use a step")


def _plainly_affine(value: sympy.Expr, iterators: set[sympy.Symbol]) -> bool:
    """A sum of products of integers, other symbols and their positive powers, and at most
    one iterator each: affine in the iterators with coefficients Poly finds whole, found
    without building the Poly (a third of checking an attention spec)."""
    for term in sympy.Add.make_args(value):
        found = 0
        for factor in sympy.Mul.make_args(term):
            if factor in iterators:
                found += 1
            elif not (factor.is_Integer or factor.is_Symbol or (
                    factor.is_Pow and factor.base.is_Symbol and factor.base not in iterators
                    and factor.exp.is_Integer and factor.exp > 0)):
                return False
        if found > 1:
            return False
    return True


def _count(number: int, noun: str) -> str:
    plural = {"index": "indices"}.get(noun, noun + "s")
    return f"{number} {noun if number == 1 else plural}"


def _usage(func: str, arity: int) -> str:
    return f"{func}({', '.join('abc'[:arity])})" if arity <= 3 else f"{func}(...)"
