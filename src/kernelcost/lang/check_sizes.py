"""Size expressions for the checker's passes: the extents, facts and counts a kernel
declares, loop bounds and steps, indices and the settings of a parallel header are made of
sizes (and iterators, where allowed). Each function reports through the context and reads
the names declared where the expression stands (`declared`: the live names while the
declarations pass walks, a statement's own in the later passes)."""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from ..base import tree as ast
from ..base.errors import Code, KcostError, did_you_mean
from ..base.symbols import to_sympy as tree_to_sympy
from .check_context import Context, Declared
from .scopes import Scope


def names_known(context: Context, declared: Declared, expr: ast.Expr,
                names: Mapping[str, sympy.Expr], what: str, scope: Scope | None = None) -> bool:
    """True when `expr` uses only `names` (sizes, and iterators where allowed)."""
    ok = True
    for node in ast.walk_expr(expr):
        if isinstance(node, ast.Name) and node.id not in names:
            _not_a_size(context, declared, node, names, what, scope)
            ok = False
        elif isinstance(node, ast.Access):
            context.error(Code.NOT_A_SIZE_EXPRESSION, node.span,
                          f"{what} reads tensor `{node.tensor}`",
                          "indirect indexing is not modelled: indices and bounds are affine "
                          "in sizes and iterators")
            ok = False
        elif isinstance(node, ast.Call) and node.func not in ("min", "max"):
            context.error(Code.NOT_A_SIZE_EXPRESSION, node.span, f"{what} calls `{node.func}`",
                          "indices and bounds use only + - * / min max")
            ok = False
    return ok


def _not_a_size(context: Context, declared: Declared, node: ast.Name, names, what: str,
                scope: Scope | None) -> None:
    if node.id in declared.tensors or node.id in declared.locals:
        context.error(Code.NOT_A_SIZE_EXPRESSION, node.span,
                      f"{what} uses `{node.id}`, which is data, not a size",
                      "indices and bounds are made of sizes and iterators")
    elif scope is not None and node.id in scope.iterators:
        context.error(Code.NOT_A_SIZE_EXPRESSION, node.span, f"{what} uses iterator `{node.id}`",
                      "a loop step stays fixed while the loop runs: use a size")
    else:
        unknown(context, node, names, "declare it as a size: a kernel parameter "
                f"`kernel {context.kernel.name}(..., {node.id})` or `let {node.id} = ...`")


def unknown(context: Context, name: ast.Name, known, fallback_hint: str | None = None) -> None:
    hint = did_you_mean(name.id, known) or fallback_hint
    context.error(Code.UNDEFINED_NAME, name.span, f"undefined name `{name.id}`", hint)


def to_sympy(context: Context, expr: ast.Expr,
             names: Mapping[str, sympy.Expr]) -> sympy.Expr | None:
    """The expression in sympy, or None where it cannot be (its diagnostics reported)."""
    try:
        return tree_to_sympy(expr, names)
    except KcostError as error:
        context.diagnostics.extend(error.diagnostics)
        return None


def size_expr(context: Context, declared: Declared, expr: ast.Expr,
              what: str) -> sympy.Expr | None:
    """A size expression in sympy, or None where it names what is not a size."""
    if not names_known(context, declared, expr, declared.sizes, what):
        return None
    return to_sympy(context, expr, declared.sizes)
