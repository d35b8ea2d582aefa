"""The checks of declarations: size parameters and their defaults, `assume` facts, tensors
with their types, shapes and home levels, derived sizes. A mixin of the checker: it records
what it finds on the checker (sizes, tensors, facts) and reports through `self.error`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import sympy

from ..base import tree as ast
from ..base.errors import Code, KcostError, did_you_mean
from ..base.kinds import Reuse, Role
from ..base.levels import Level
from ..base.records import record
from ..base.symbols import ELEMENT_BYTES, FUNCTIONS, LEVELS, size_symbol, to_sympy

if TYPE_CHECKING:
    from ..base.errors import Diagnostic, ErrorCode
    from .scopes import Scope

REUSE_MODES = (Reuse.PERFECT, Reuse.NONE)  # what a spec's `reuse` setting may say
KEYWORDS = frozenset({"kernel", "reuse", "assume", "in", "out", "inout", "let", "for", "by",
                      "keep", "parallel", "stages", "lanes", "swizzle", "per", "on"})
MAX_LOOP_DEPTH = 16  # loops inside one another; each adds a symbolic sum to every count


@record
class Tensor:
    name: str
    role: Role  # in | out | inout, or local: an array declared with `let` inside the nest
    dtype: str
    element_bytes: sympy.Rational
    shape: tuple[sympy.Expr, ...]  # in the size parameters
    level: str  # home level
    span: ast.Span
    swizzled: bool = False  # a shared array whose rows are XOR-swizzled (word c at c ^ row)



@record
class ItemCount:
    """`per token = b`: one run of the kernel handles `count` items named `item`."""

    item: str  # singular, as the spec names it: token
    count: sympy.Expr  # in the size parameters
    span: ast.Span


class DeclarationChecks:
    """Methods of check._Checker for what a kernel declares before its statements."""

    if TYPE_CHECKING:  # what check._Checker and the other mixins provide
        kernel: ast.Kernel
        diagnostics: list[Diagnostic]
        sizes: dict[str, sympy.Expr]
        defaults: dict[sympy.Symbol, int]
        tensors: dict[str, Tensor]
        local_spans: dict[str, ast.Span]
        declared_at: dict[str, ast.Span]
        divisibility: list[tuple[sympy.Expr, sympy.Expr]]
        bounds: list[sympy.Basic]
        reuse: Reuse
        items: ItemCount | None

        def error(self, code: ErrorCode, span: ast.Span | None, message: str,
                  hint: str | None = None) -> None: ...

        def _name_span(self, span: ast.Span, name: str) -> ast.Span: ...

        def _source_text(self, span: ast.Span) -> str: ...

        def _statement(self, stmt: ast.Statement, scope: Scope) -> None: ...

        def _names_known(self, expr: ast.Expr, names: Mapping[str, sympy.Expr], what: str,
                         scope: Scope | None = None) -> bool: ...


    def _declare(self, name: str, span: ast.Span, what: str) -> bool:
        """Record a kernel-wide name (size or tensor); False when it cannot be declared."""
        place = self._name_span(span, name)
        if name in KEYWORDS:
            self.error(Code.RESERVED_NAME, place, f"`{name}` is a keyword and cannot name a {what}",
                       f"rename this {what}")
            return False
        if name in FUNCTIONS:
            self.error(Code.RESERVED_NAME, place,
                       f"`{name}` is a built-in function and cannot name a {what}",
                       f"rename this {what}")
            return False
        first = self.declared_at.get(name) or self.local_spans.get(name)
        if first is not None:
            self.error(Code.DUPLICATE_NAME, place,
                       f"`{name}` is already declared at {place_of(first, place)}",
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
                    self.error(Code.NOT_POSITIVE, param.span,
                               f"default of `{param.name}` must be positive, not {param.default}",
                               "sizes are positive integers")
                self.defaults[symbol] = param.default

    def _kernel_item(self, item: ast.Item, scope: Scope) -> None:
        if isinstance(item, ast.ReuseSetting):
            if item.mode.id not in REUSE_MODES:
                self.error(Code.UNKNOWN_REUSE, item.mode.span,
                           f"unknown reuse mode `{item.mode.id}`",
                           "write `reuse perfect` or `reuse none`")
            else:
                self.reuse = Reuse(item.mode.id)
        elif isinstance(item, ast.Assume):
            for fact in item.facts:
                self._assume(fact)
        elif isinstance(item, ast.TensorDecl):
            self._tensor(item)
        elif isinstance(item, ast.PerItem):
            self._per_item(item)
        elif isinstance(item, ast.Let) and item.dtype is None:
            self._derived_size(item)
        else:
            self._statement(item, scope)

    def _size_expr(self, expr: ast.Expr, what: str) -> sympy.Expr | None:
        if not self._names_known(expr, self.sizes, what):
            return None
        return self._to_sympy(expr, self.sizes)

    def _to_sympy(self, expr: ast.Expr, names: Mapping[str, sympy.Expr]) -> sympy.Expr | None:
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
            self.error(Code.UNKNOWN_ELEMENT_TYPE, decl.dtype.span,
                       f"unknown element type `{decl.dtype.id}`",
                       did_you_mean(decl.dtype.id, ELEMENT_BYTES)
                       or "element types: " + ", ".join(ELEMENT_BYTES))
        level = Level.GLOBAL
        if decl.level is not None:
            if decl.level.id not in LEVELS:
                self._unknown_level(decl.level)
            else:
                level = Level(decl.level.id)
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
            self.error(Code.NOT_POSITIVE, extent.span,
                       f"tensor extent `{self._source_text(extent.span)}` is "
                       f"{value}, not positive", "extents are sizes: positive integers")
        return value

    def _derived_size(self, let: ast.Let) -> None:
        value = self._size_expr(let.value, "a size")
        if self._declare(let.name, let.span, "size") and value is not None:
            self.sizes[let.name] = value

    def _per_item(self, per: ast.PerItem) -> None:
        """`per token = b`: once a kernel, a count of sizes that is not zero or negative."""
        if self.items is not None:
            first = self.items.span
            self.error(Code.DUPLICATE_NAME, per.span, f"the kernel already counts its items at "
                       f"{place_of(first, per.span)} (`per {self.items.item}`)",
                       "one `per` line a kernel: the items one run of it handles")
            return
        count = self._size_expr(per.count, "an item count")
        if count is None:
            return
        if count.is_positive is False:
            self.error(Code.NOT_POSITIVE, per.count.span, f"the count of `{per.item.id}`s is "
                       f"{self._source_text(per.count.span)} = {count}, not positive",
                       f"write how many {per.item.id}s one run handles, from the sizes: "
                       f"`per {per.item.id} = b`")
            return
        self.items = ItemCount(per.item.id, count, per.span)

    def _unknown_level(self, level: ast.Name) -> None:
        self.error(Code.UNKNOWN_LEVEL, level.span, f"unknown memory level `{level.id}`",
                   did_you_mean(level.id, LEVELS) or "levels, slowest first: "
                   + ", ".join(LEVELS))


def place_of(first: ast.Span, here: ast.Span) -> str:
    """Where `first` is, as seen from `here`: the column too when both share a line."""
    if first.line == here.line:
        return f"line {first.line}, column {first.column}"
    return f"line {first.line}"
