"""Size settings from the command line or the API: `N=4096`, `n=1e8`, `M=N`, `K=2*N`.

A value is parsed with the spec grammar's own expression rule (never sympify) and may use
the other parameters; chains such as M=N, N=4096 are resolved."""

from __future__ import annotations

import functools
import re

import sympy
from lark import Lark
from lark.exceptions import UnexpectedInput

from . import ast
from .cache import lark_parser
from .errors import Diagnostic, KcostError, did_you_mean
from .parse import _ToAst, grammar_text
from .symbols import to_sympy

_SETTING = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=\s*(.+?)\s*$")


@functools.cache
def _expression_parser() -> Lark:
    # cached like the spec parser (parse._parser): a --set value would otherwise build a
    # second set of LALR tables in every process
    return lark_parser("lark-expression-parser", grammar_text(), start="expr",
                       propagate_positions=True, maybe_placeholders=True)


def parse_setting(text: str) -> tuple[str, str]:
    """`NAME=VALUE` -> (name, value text)."""
    match = _SETTING.match(text)
    if match is None:
        raise KcostError(Diagnostic(None, f"cannot read the setting `{text}`",
                                    "write NAME=VALUE, e.g. N=4096, n=1e8 or M=N"))
    return match.group(1), match.group(2)


def size_expression(text: str, sizes: dict[str, sympy.Expr], label: str) -> sympy.Expr:
    """Translate one value: a number or an expression in the sizes."""
    try:
        tree = _expression_parser().parse(text)
    except UnexpectedInput as error:
        column = getattr(error, "column", 1) or 1
        raise KcostError(Diagnostic(
            ast.Span(label, 1, column, 1, column + 1),
            f"cannot read `{text}` as a size", "use a number (4096, 1e8) or an expression "
            "in the other sizes (N, 2*N)"), text) from None
    expr = _ToAst(label, text).transform(tree)
    for node in ast.walk_expr(expr):
        if isinstance(node, ast.Name) and node.id not in sizes:
            raise KcostError(Diagnostic(node.span, f"unknown size `{node.id}`",
                                        did_you_mean(node.id, sizes)), text)
    return to_sympy(expr, sizes)


def resolve_settings(raw: dict[str, object], parameters: dict[str, sympy.Symbol]
                     ) -> dict[sympy.Symbol, sympy.Expr]:
    """{name: number or text} -> {parameter symbol: expression}, chains substituted."""
    settings: dict[sympy.Symbol, sympy.Expr] = {}
    for name, value in raw.items():
        if name not in parameters:
            hint = did_you_mean(name, parameters) or (
                "parameters: " + ", ".join(parameters) if parameters else None)
            raise KcostError(Diagnostic(None, f"`{name}` is not a parameter of this kernel",
                                        hint))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            expr = sympy.nsimplify(value) if isinstance(value, float) else sympy.Integer(value)
        else:
            expr = size_expression(str(value), parameters, f"--set {name}")
        if isinstance(expr, sympy.Number) and expr <= 0:
            raise KcostError(Diagnostic(None, f"`{name}` must be positive, not {value}",
                                        "sizes are positive"))
        settings[parameters[name]] = expr
    for _ in range(len(settings)):
        settings = {s: e.subs(settings) for s, e in settings.items()}
    for symbol, expr in settings.items():
        if symbol in expr.free_symbols:
            raise KcostError(Diagnostic(None, f"the setting of `{symbol}` refers to itself",
                                        "give one of the sizes a number"))
    return settings
