"""The declarations pass, the checker's first: it walks the kernel once, in the order it is
written, and checks what the kernel declares: size parameters and their defaults, `assume`
facts, tensors with their types, shapes and home levels, derived sizes, `per` counts, and
inside the nest the iterators, locals, local arrays and `keep` scopes. It records the names
in the context as it goes, and every statement it reaches in the checked tree with the scope
that statement sees, for the passes after it (check_exprs, check_lanes, check_grid).

A declaration that is itself wrong (a bad shape, an unknown type) is still recorded, so that
its uses do not report the same mistake again."""

from __future__ import annotations

import sympy

from ..base import tree as ast
from ..base.errors import Code, did_you_mean
from ..base.kinds import Reuse, Role
from ..base.levels import Level
from ..base.symbols import ELEMENT_BYTES, FUNCTIONS, LEVELS, size_symbol
from .check_context import Context, ItemCount, Swizzled, Tensor
from .check_sizes import size_expr
from .scopes import Scope

REUSE_MODES = (Reuse.PERFECT, Reuse.NONE)  # what a spec's `reuse` setting may say
ROLES = ("in", "out", "inout")
KEYWORDS = frozenset({"kernel", "reuse", "assume", "in", "out", "inout", "let", "for", "by",
                      "keep", "parallel", "stages", "lanes", "swizzle", "per", "on",
                      "target", "needs", "serial", "mma"})
# what GPU programmers call the levels, where the closest name by spelling would mislead
# (`smem` is one letter from `tmem`)
LEVEL_ALIASES = {"smem": Level.SHARED, "lds": Level.SHARED, "gmem": Level.GLOBAL,
                 "hbm": Level.GLOBAL, "dram": Level.GLOBAL, "rmem": Level.REGISTERS,
                 "regs": Level.REGISTERS, "tensor_memory": Level.TMEM,
                 "infinity_cache": Level.MALL}
MAX_LOOP_DEPTH = 16  # loops inside one another; each adds a symbolic sum to every count


class DeclarationPass:
    """Walks the kernel; `run` fills the context's names and tree and leaves here what the
    checked kernel takes besides them: defaults, facts, the reuse mode and the item count."""

    def __init__(self, context: Context):
        self.context = context
        self.declared = context.declared
        self.declared_at: dict[str, ast.Span] = {}  # sizes and tensors: kernel-wide names
        self.defaults: dict[sympy.Symbol, int] = {}
        self.divisibility: list[tuple[sympy.Expr, sympy.Expr]] = []
        self.bounds: list[sympy.Basic] = []
        self.reuse = Reuse.PERFECT
        self.items: ItemCount | None = None

    def run(self) -> None:
        self._parameters()
        kernel_scope = Scope()
        for item in self.context.kernel.items:
            self._kernel_item(item, kernel_scope)

    def _size_expr(self, expr: ast.Expr, what: str) -> sympy.Expr | None:
        return size_expr(self.context, self.declared, expr, what)

    def _declare(self, name: str, span: ast.Span, what: str) -> bool:
        """Record a kernel-wide name (size or tensor); False when it cannot be declared."""
        error = self.context.error
        place = self.context.name_span(span, name)
        if name in KEYWORDS:
            error(Code.RESERVED_NAME, place, f"`{name}` is a keyword and cannot name a {what}",
                  f"rename this {what}")
            return False
        if name in FUNCTIONS:
            error(Code.RESERVED_NAME, place,
                  f"`{name}` is a built-in function and cannot name a {what}",
                  f"rename this {what}")
            return False
        first = self.declared_at.get(name) or self.declared.local_spans.get(name)
        if first is not None:
            error(Code.DUPLICATE_NAME, place,
                  f"`{name}` is already declared at {place_of(first, place)}",
                  f"rename this {what}: sizes, tensors, locals and iterators share "
                  "one namespace")
            return False
        self.declared_at[name] = span
        return True

    # --- the kernel's own declarations ---------------------------------------------------

    def _parameters(self) -> None:
        for param in self.context.kernel.params:
            if not self._declare(param.name, param.span, "size"):
                continue
            symbol = size_symbol(param.name)
            self.declared.sizes[param.name] = symbol
            if param.default is not None:
                if param.default < 1:
                    self.context.error(
                        Code.NOT_POSITIVE, param.span,
                        f"default of `{param.name}` must be positive, not {param.default}",
                        "sizes are positive integers")
                self.defaults[symbol] = param.default

    def _kernel_item(self, item: ast.Item, scope: Scope) -> None:
        if isinstance(item, ast.ReuseSetting):
            if item.mode.id not in REUSE_MODES:
                self.context.error(Code.UNKNOWN_REUSE, item.mode.span,
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
        elif isinstance(item, (ast.Target, ast.Needs, ast.Serial, ast.MmaLine)):
            pass  # read apart: requirements.read_requirements
        elif isinstance(item, ast.Let) and item.dtype is None:
            self._derived_size(item)
        else:
            self._statement(item, scope)

    def _assume(self, fact: ast.Divides | ast.Compare) -> None:
        if isinstance(fact, ast.Divides):
            divisor = self._size_expr(fact.divisor, "an assumption")
            dividend = self._size_expr(fact.dividend, "an assumption")
            # once each: split_k's rewrite states `TK | K` again where the spec has it, and
            # a broken fact was warned about twice
            if divisor is not None and dividend is not None and (
                    (divisor, dividend) not in self.divisibility):
                self.divisibility.append((divisor, dividend))
            return
        left = self._size_expr(fact.left, "an assumption")
        right = self._size_expr(fact.right, "an assumption")
        if left is None or right is None:
            return
        relation = {"<=": sympy.Le, "<": sympy.Lt, ">=": sympy.Ge, ">": sympy.Gt}[fact.op]
        self.bounds.append(relation(left, right, evaluate=False))

    def _tensor(self, decl: ast.TensorDecl) -> None:
        element_bytes = self._element_bytes(decl.dtype.id, decl.dtype.span)
        level = Level.GLOBAL
        if decl.level is not None:
            if decl.level.id not in LEVELS:
                self._unknown_level(decl.level)
            else:
                level = Level(decl.level.id)
        shape = tuple(self._extent(extent) for extent in decl.shape)
        if self._declare(decl.name, decl.span, "tensor"):
            # recorded even when broken, so that its uses are checked against its rank
            self.declared.tensors[decl.name] = Tensor(
                decl.name, decl.role, decl.dtype.id, element_bytes or sympy.Integer(1), shape,
                level, decl.span,
            )

    def _element_bytes(self, dtype: str, span: ast.Span) -> sympy.Rational | None:
        element_bytes = ELEMENT_BYTES.get(dtype)
        if element_bytes is None:
            self.context.error(Code.UNKNOWN_ELEMENT_TYPE, span, f"unknown element type `{dtype}`",
                               did_you_mean(dtype, ELEMENT_BYTES)
                               or "element types: " + ", ".join(ELEMENT_BYTES))
        return element_bytes

    def _extent(self, extent: ast.Expr) -> sympy.Expr:
        value = self._size_expr(extent, "a tensor shape")
        if value is None:
            return sympy.nan
        if value.is_positive is False:
            self.context.error(Code.NOT_POSITIVE, extent.span,
                               f"tensor extent `{self.context.source_text(extent.span)}` is "
                               f"{value}, not positive", "extents are sizes: positive integers")
        return value

    def _derived_size(self, let: ast.Let) -> None:
        value = self._size_expr(let.value, "a size")
        if self._declare(let.name, let.span, "size") and value is not None:
            self.declared.sizes[let.name] = value

    def _per_item(self, per: ast.PerItem) -> None:
        """`per token = b`: once a kernel, a count of sizes that is not zero or negative."""
        if self.items is not None:
            first = self.items.span
            self.context.error(Code.DUPLICATE_NAME, per.span,
                               f"the kernel already counts its items at "
                               f"{place_of(first, per.span)} (`per {self.items.item}`)",
                               "one `per` line a kernel: the items one run of it handles")
            return
        count = self._size_expr(per.count, "an item count")
        if count is None:
            return
        if count.is_positive is False:
            self.context.error(Code.NOT_POSITIVE, per.count.span,
                               f"the count of `{per.item.id}`s is "
                               f"{self.context.source_text(per.count.span)} = {count}, "
                               "not positive",
                               f"write how many {per.item.id}s one run handles, from the sizes: "
                               f"`per {per.item.id} = b`")
            return
        self.items = ItemCount(per.item.id, count, per.span)

    def _unknown_level(self, level: ast.Name) -> None:
        alias = LEVEL_ALIASES.get(level.id.lower())
        hint = (f"did you mean `{alias}`?" if alias else did_you_mean(level.id, LEVELS)) \
            or "levels, slowest first: " + ", ".join(LEVELS)
        self.context.error(Code.UNKNOWN_LEVEL, level.span, f"unknown memory level `{level.id}`",
                           hint)

    # --- the nest: scopes, iterators, locals ---------------------------------------------

    def _statement(self, stmt: ast.Statement, scope: Scope) -> None:
        if isinstance(stmt, ast.For):
            self._for(stmt, scope)
        elif isinstance(stmt, (ast.Keep, ast.Let, ast.Assign)):
            self.context.reach(stmt, scope)
            if isinstance(stmt, ast.Keep):
                self._keep(stmt, scope)
            elif isinstance(stmt, ast.Let):
                self._local(stmt, scope)

    def _block(self, body: tuple[ast.Statement, ...], scope: Scope) -> None:
        """A block's locals are visible after their `let`, to the end of the block."""
        inner = scope.child()
        for stmt in body:
            self._statement(stmt, inner)

    def _for(self, loop: ast.For, scope: Scope) -> None:
        if loop.parallel is not None and self.context.grid_header is None:
            self.context.grid_header = loop.parallel  # the grid; check_grid reads it
        self.context.reach(loop, scope, entered=scope.depth < MAX_LOOP_DEPTH)
        if scope.depth >= MAX_LOOP_DEPTH:
            self.context.error(Code.LOOPS_TOO_DEEP, loop.span,
                               f"loops nest more than {MAX_LOOP_DEPTH} deep",
                               "a kernel's loop nest is a handful of loops; merge or drop some")
            return
        place = self.context.name_span(loop.span, loop.var)
        inner = scope.child()
        if loop.var in KEYWORDS or loop.var in FUNCTIONS:
            what = "keyword" if loop.var in KEYWORDS else "built-in function"
            self.context.error(Code.RESERVED_NAME, place,
                               f"`{loop.var}` is a {what} and cannot name an iterator",
                               "rename this iterator")
        elif loop.var in scope.iterators:
            self.context.error(Code.DUPLICATE_NAME, place,
                               f"iterator `{loop.var}` is already used by an outer loop "
                               f"(line {scope.iterators[loop.var].line})",
                               "rename the inner iterator")
        elif loop.var in self.declared_at or loop.var in scope.locals:
            first = self.declared_at.get(loop.var) or scope.locals.get(loop.var)
            where = f" at line {first.line}" if first else ""
            self.context.error(Code.DUPLICATE_NAME, place,
                               f"iterator `{loop.var}` is already declared{where}",
                               "rename the iterator")
        inner.iterators[loop.var] = place
        inner.depth = scope.depth + 1
        inner.in_grid = scope.in_grid or (loop.parallel is not None
                                          and loop.parallel is self.context.grid_header)
        if loop.lanes is not None:
            inner.lanes = loop.var  # check_lanes says whether it may be a lanes loop
        self._block(loop.body, inner)

    def _keep(self, keep: ast.Keep, scope: Scope) -> None:
        inner = scope.child()
        if keep.level.id not in LEVELS:
            self._unknown_level(keep.level)
        else:
            for name in keep.tensors:
                level = self._kept_level(keep, name, scope)
                if level is not None:
                    inner.keeps[name.id] = level
        self._block(keep.body, inner)

    def _kept_level(self, keep: ast.Keep, name: ast.Name, scope: Scope) -> str | None:
        """The level `keep` moves the tensor `name` to, or None where it cannot."""
        tensors = self.declared.tensors
        if name.id in tensors and tensors[name.id].role == Role.LOCAL:
            self.context.error(Code.WRONG_KEEP, name.span,
                               f"`{name.id}` is a local array; it lives in "
                               f"`{tensors[name.id].level}` and is not kept",
                               "keep stages tensors declared with in, out or inout")
            return None
        if name.id not in tensors:
            hint = did_you_mean(name.id, tensors) or (
                "keep stages declared tensors: " + ", ".join(tensors)
                if tensors else "declare the tensor first: `in x: f32[n]`")
            self.context.error(Code.UNDEFINED_NAME, name.span,
                               f"keep of unknown tensor `{name.id}`", hint)
            return None
        current = scope.keeps.get(name.id, tensors[name.id].level)
        if LEVELS.index(keep.level.id) <= LEVELS.index(current):
            self._keep_not_faster(keep, name.id, current)
            return None
        return keep.level.id

    def _keep_not_faster(self, keep: ast.Keep, tensor: str, current: str) -> None:
        level = keep.level.id
        faster = LEVELS[LEVELS.index(current) + 1:]
        if faster:
            hint = (f"a keep stages data into a level faster than `{current}`: "
                    + " or ".join(f"`{name}`" for name in faster))
        else:
            hint = f"`{current}` is the fastest level; remove this keep"
        self.context.error(Code.WRONG_KEEP, keep.level.span,
                           f"`{tensor}` is already in `{current}` here; keeping it in `{level}` "
                           "moves nothing", hint)

    def _local(self, let: ast.Let, scope: Scope) -> None:
        if let.dtype is not None and (let.shape or let.level is not None):
            self._local_array(let, scope)
            return
        if let.dtype is None:
            self.context.error(Code.WRONG_LOCAL, let.span,
                               f"`let {let.name}` inside a loop needs a type",
                               f"a register local: `let {let.name}: f32 = ...`")
            return
        self._element_bytes(let.dtype, let.span)
        place = self.context.name_span(let.span, let.name)
        if let.name in KEYWORDS or let.name in FUNCTIONS or let.name in self.declared_at:
            self._declare(let.name, let.span, "local")
            return
        if let.name in scope.locals or let.name in scope.iterators:
            first = scope.locals.get(let.name) or scope.iterators[let.name]
            self.context.error(Code.DUPLICATE_NAME, place,
                               f"`{let.name}` is already declared at {place_of(first, place)}",
                               "rename this local, or assign to the one in scope")
            return
        locals_ = self.declared.locals
        if locals_.get(let.name, let.dtype) != let.dtype:
            first = self.declared.local_spans[let.name]
            self.context.error(Code.WRONG_LOCAL, place,
                               f"local `{let.name}` is `{locals_[let.name]}` at line "
                               f"{first.line}, `{let.dtype}` here",
                               "give one of them another name")
            scope.locals[let.name] = let.span  # its uses are checked all the same
            return
        locals_[let.name] = let.dtype
        self.declared.local_spans.setdefault(let.name, let.span)
        scope.locals[let.name] = let.span

    def _local_array(self, let: ast.Let, scope: Scope) -> None:
        """`let acc: f32[TM, TN] in registers = 0`: an array in an on-chip level, per block."""
        assert let.dtype is not None  # _local sends only typed lets
        element_bytes = self._element_bytes(let.dtype, let.span)
        level = self._array_level(let.level)
        shape = tuple(self._extent(extent) for extent in let.shape)
        if not shape:
            self.context.error(Code.WRONG_LOCAL, let.span,
                               f"local array `{let.name}` needs a shape",
                               f"write `let {let.name}: {let.dtype}[T] in {level} = 0`")
        if let.swizzle is not None:
            self.context.swizzled.append(Swizzled(let, level, shape, element_bytes))
        if self._declare(let.name, let.span, "local array"):
            self.declared.tensors[let.name] = Tensor(
                let.name, Role.LOCAL, let.dtype, element_bytes or sympy.Integer(1), shape, level,
                let.span, let.swizzle is not None)
            scope.locals[let.name] = let.span

    def _array_level(self, name: ast.Name | None) -> str:
        """The on-chip level a local array lives in: registers unless it names another."""
        if name is None:
            return Level.REGISTERS
        if name.id not in LEVELS:
            self._unknown_level(name)
        elif name.id in (Level.GLOBAL, Level.MALL):
            self.context.error(Code.UNKNOWN_LEVEL, name.span,
                               f"a local array lives on chip, not in `{name.id}`",
                               "declare a tensor (`out x: f32[...]`) for data in global memory")
        else:
            return Level(name.id)
        return Level.REGISTERS


def place_of(first: ast.Span, here: ast.Span) -> str:
    """Where `first` is, as seen from `here`: the column too when both share a line."""
    if first.line == here.line:
        return f"line {first.line}, column {first.column}"
    return f"line {first.line}"
