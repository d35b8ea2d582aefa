"""Stage 2: AST -> CheckedKernel. Resolves every name, checks ranks, types, levels, loop
steps and reuse scopes, and collects every diagnostic before raising them together. The
checks are passes over one context (check_context): declarations (check_decls), then
expressions (check_exprs), lanes (check_lanes) and the grid (check_grid)."""

from __future__ import annotations

import sympy

from ..base import tree as ast
from ..base.errors import Code, SpecCheckError
from ..base.kinds import Precision, Reuse, Role
from ..base.records import record
from ..base.symbols import PRECISION_OF_TYPE, size_symbol
from .check_context import Context, ItemCount, Tensor
from .check_decls import MAX_LOOP_DEPTH, DeclarationPass
from .check_exprs import check_expressions
from .check_grid import check_grid
from .check_lanes import check_lanes
from .parallel import Grid
from .requirements import Requirements, read_requirements
from .serial_groups import read_serial
from .split_k import split_header

__all__ = ["MAX_LOOP_DEPTH", "CheckedKernel", "ItemCount", "Tensor", "check"]


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
    reuse: Reuse  # the kernel's default reuse for tensors outside keep scopes
    grid: Grid | None = None  # the thread blocks of a parallel spec
    items: ItemCount | None = None  # `per token = b`: what one run of the kernel handles
    precision_override: Precision | None = None  # set where --precision mapped the types
    requirements: Requirements = Requirements()  # `target` and `needs`
    serial: tuple[tuple[str, ...], ...] = ()  # `serial` lines: roofs whose times add
    written: ast.Kernel | None = None  # the tree as written, where split-K rewrote `kernel`

    @property
    def name(self) -> str:
        return self.kernel.name

    @property
    def precision(self) -> Precision:
        """The precision the kernel computes in: the element type most of its tensors are
        declared with, the first one declared breaking ties (or the precision its types
        were mapped to, precisions.at_precision)."""
        if self.precision_override is not None:
            return self.precision_override
        types = [tensor.dtype for tensor in self.tensors.values() if tensor.role != Role.LOCAL]
        if not types:
            types = list(self.locals.values()) or ["f32"]
        return PRECISION_OF_TYPE[max(types, key=types.count)]


def check(kernel: ast.Kernel) -> CheckedKernel:
    """Check a parsed kernel; raise KcostError with every problem found. The passes run in
    order over one context: the declarations pass walks the kernel and leaves the checked
    tree, the others read it; every diagnostic is collected before any is raised, and the
    checked kernel is built only when there is none."""
    written, (kernel, split_wrong) = kernel, split_header(kernel)
    context = Context(kernel)
    context.diagnostics.extend(split_wrong)
    declarations = DeclarationPass(context)
    declarations.run()
    check_expressions(context)
    check_lanes(context)
    grid = check_grid(context)
    requirements, unknown = read_requirements(kernel)
    context.diagnostics.extend(unknown)
    serial, wrong = read_serial(kernel)
    context.diagnostics.extend(wrong)
    if not context.diagnostics:
        _has_work(context)
    if context.diagnostics:
        context.diagnostics.sort(key=lambda d: (d.span.line, d.span.column) if d.span else (0, 0))
        code = context.diagnostics[0].code  # the error's; each diagnostic keeps its own
        assert code is not None  # `error` gives every diagnostic its code
        raise SpecCheckError(code, context.diagnostics, kernel.source)
    declared = context.declared
    parameters = tuple(size_symbol(p.name) for p in kernel.params)
    return CheckedKernel(
        kernel, parameters, declarations.defaults, declared.sizes, declared.tensors,
        declared.locals, tuple(declarations.divisibility), tuple(declarations.bounds),
        declarations.reuse, grid, declarations.items, requirements=requirements,
        serial=serial, written=None if kernel is written else written,
    )


def _has_work(context: Context) -> None:
    # the caret goes under the `kernel` keyword: the whole kernel would underline a page
    kernel = context.kernel
    span = kernel.span
    keyword = ast.Span(span.file, span.line, span.column, span.line, span.column + 6)
    if not kernel.statements:
        context.error(Code.NO_WORK, keyword, f"kernel `{kernel.name}` has no statements",
                      "add the loop nest: `for i in 0..n { y[i] = x[i] }`")
    elif not _has_assignment(kernel.statements):
        context.error(Code.NO_WORK, keyword, f"kernel `{kernel.name}` does no work",
                      "a kernel needs at least one assignment, such as `y[i] = x[i]`")


def _has_assignment(statements) -> bool:
    for stmt in statements:
        if isinstance(stmt, ast.Assign):
            return True
        if isinstance(stmt, (ast.For, ast.Keep)) and _has_assignment(stmt.body):
            return True
    return False
