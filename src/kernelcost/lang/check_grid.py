"""The grid pass, the checker's last: the parallel header. A kernel has one, its loops are
the outermost, and its settings describe a grid (parallel.read_grid reads them, with the
sizes declared where the header stands); every statement of a parallel spec runs in it."""

from __future__ import annotations

import dataclasses
from functools import partial

from ..base import tree as ast
from ..base.errors import Code
from ..base.kinds import Role
from ..base.levels import Level
from .check_context import Context, Visit
from .check_sizes import size_expr
from .parallel import Grid, header_iterators, read_grid
from .stream_k import read_stream_k


def check_grid(context: Context) -> Grid | None:
    """The grid of the kernel's parallel header, None when it has none or it is wrong."""
    header = context.grid_header
    grid, outermost, read = None, True, False
    for visit in context.tree:
        loop = visit.statement
        if not isinstance(loop, ast.For) or loop.parallel is None:
            continue
        if loop.parallel is not header:
            assert header is not None  # check_decls took the first header it reached
            context.error(Code.WRONG_PARALLEL, loop.parallel.span,
                          "a kernel has one parallel header",
                          f"the grid is declared at line {header.span.line}; mark "
                          "the loops of one header `parallel`")
        elif not read:  # the header's first loop: the others share its Parallel
            grid, outermost = _read(context, visit, loop, loop.parallel)
            read = True
    if header is not None and outermost:
        _all_inside_grid(context, header)
    return grid


def _read(context: Context, visit: Visit, loop: ast.For,
          header: ast.Parallel) -> tuple[Grid | None, bool]:
    """The grid the header describes, and whether its loops are the outermost."""
    outermost = visit.scope.depth == 0 and not visit.scope.keeps
    if not outermost:
        context.error(Code.WRONG_PARALLEL, header.span,
                      "the parallel loops must be the outermost loops",
                      "the grid of thread blocks comes first: `for b in 0..n by T "
                      "parallel(threads = 256) { ... }`")
    tensors = tuple(name for name, tensor in visit.declared.tensors.items()
                    if tensor.role in (Role.IN, Role.OUT, Role.INOUT)
                    and tensor.level == Level.GLOBAL)
    sizes = partial(size_expr, context, visit.declared)
    grid, diagnostics = read_grid(header, header_iterators(loop), sizes, tensors)
    context.diagnostics.extend(diagnostics)
    if grid is not None:
        stream_k, wrong = read_stream_k(loop, sizes)
        context.diagnostics.extend(wrong)
        grid = None if wrong else dataclasses.replace(grid, stream_k=stream_k)
    return grid, outermost


def _all_inside_grid(context: Context, header: ast.Parallel) -> None:
    """A parallel spec is its grid: every statement runs in some block."""
    for stmt in context.kernel.statements:
        if isinstance(stmt, ast.Let) and stmt.dtype is None:
            continue  # a derived size
        if not (isinstance(stmt, ast.For) and stmt.parallel is header):
            context.error(Code.WRONG_PARALLEL, stmt.span, "statement outside the parallel loops",
                          "in a parallel spec every statement runs in a thread block: move "
                          "it inside the `parallel` loops")
