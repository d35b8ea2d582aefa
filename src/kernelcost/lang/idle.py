"""A kernel that runs nothing at the sizes given: every statement under a loop whose range is
empty there (`for i in 0..n - 10` at n = 5, or `n..0` at every n). Its counts are zero, or a
bounding box's upper bound (`x[j]` under an empty `i` loop still spans its j range), and no
roof bounds a time of 0 s, which a verdict would call compute-bound: the verdict is refused
at the first empty loop."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import sympy

from ..base import tree as ast
from ..base.errors import Code, Diagnostic, SizeError
from ..base.symbols import text_key, to_sympy
from .check import CheckedKernel
from .sizes import written_text


def refuse_idle_kernel(checked: CheckedKernel,
                       values: Mapping[sympy.Symbol, sympy.Expr]) -> None:
    """A SizeError for a kernel that runs nothing at `values` (no work, no byte at any
    level): no roof bounds a time of 0 s, which a verdict would call compute-bound. Placed
    at the first loop whose range is empty there (`for i in 0..n - 10` at n = 5, or
    `n..0` at every n), else at the kernel's name."""
    for loop, names in _loops_in_scope(checked.kernel.statements, dict(checked.sizes)):
        low, high = _range(loop, names, values)
        if not (high - low).is_nonpositive:
            continue
        written_symbols = to_sympy(loop.lo, names).free_symbols | to_sympy(loop.hi, names)\
            .free_symbols
        used = sorted(written_symbols & set(values), key=text_key)
        sizes = ", ".join(f"{symbol} = {values[symbol]}" for symbol in used)
        span = ast.Span(loop.lo.span.file, loop.lo.span.line, loop.lo.span.column,
                        loop.hi.span.end_line, loop.hi.span.end_column)
        written, value = (f"{written_text(checked, loop.lo)}..{written_text(checked, loop.hi)}",
                          f"{low}..{high}")
        empty = f"{written} is {value}" if value != written else f"{written} is empty"
        raise SizeError(Code.NOT_POSITIVE_AT_SIZES, Diagnostic(
            span, f"the loop over `{loop.var}` runs no iteration"
                  f"{f' at {sizes}' if sizes else ''}: {empty}, and the kernel does no "
                  "work and moves no byte", _IDLE_HINT), checked.kernel.source)
    sizes = ", ".join(f"{symbol} = {value}" for symbol, value in
                      sorted(values.items(), key=lambda item: text_key(item[0])))
    raise SizeError(Code.NOT_POSITIVE_AT_SIZES, Diagnostic(
        checked.kernel.span, f"kernel `{checked.kernel.name}` does no work and moves no byte"
                             f"{f' at {sizes}' if sizes else ''}", _IDLE_HINT),
        checked.kernel.source)


def runs_nothing(checked: CheckedKernel, values: Mapping[sympy.Symbol, sympy.Expr],
                 statements: tuple[ast.Statement, ...] | None = None,
                 names: dict[str, sympy.Expr] | None = None) -> bool:
    """Whether no statement runs at `values`: every one sits in a loop whose range is empty
    there. The counts may still say otherwise: a footprint taken as a bounding box spans
    the loops that index it, not those that hide it (`x[j]` under an empty `i` loop)."""
    statements = checked.kernel.statements if statements is None else statements
    names = dict(checked.sizes) if names is None else names
    for statement in statements:
        if isinstance(statement, ast.For):
            low, high = _range(statement, names, values)
            inner = {**names, statement.var: sympy.Symbol(statement.var, integer=True)}
            if not ((high - low).is_nonpositive
                    or runs_nothing(checked, values, statement.body, inner)):
                return False
        elif isinstance(statement, ast.Keep):
            if not runs_nothing(checked, values, statement.body, names):
                return False
        elif not (isinstance(statement, ast.Let) and statement.dtype is None):
            return False
    return True


def _range(loop: ast.For, names: Mapping[str, sympy.Expr],
           values: Mapping[sympy.Symbol, sympy.Expr]) -> tuple[sympy.Expr, sympy.Expr]:
    return (to_sympy(loop.lo, names).xreplace(dict(values)),
            to_sympy(loop.hi, names).xreplace(dict(values)))


def _loops_in_scope(statements, names: dict[str, sympy.Expr]
                    ) -> Iterator[tuple[ast.For, dict[str, sympy.Expr]]]:
    """Each loop, outermost first, with the sizes and the iterators around it."""
    for statement in statements:
        if isinstance(statement, ast.For):
            yield statement, names
            yield from _loops_in_scope(statement.body, {
                **names, statement.var: sympy.Symbol(statement.var, integer=True)})
        elif isinstance(statement, ast.Keep):
            yield from _loops_in_scope(statement.body, names)


_IDLE_HINT = ("no roof bounds the time of a kernel that runs nothing: give sizes where its "
              "loops run")
