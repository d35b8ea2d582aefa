"""Size settings from the command line or the API: `N=4096`, `n=1e8`, `M=N`, `K=2*N`.

A value is parsed with the spec grammar's own expression rule (never sympify) and may use
the other parameters; chains such as M=N, N=4096 are resolved."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping

import sympy

from . import ast
from .errors import Code, Diagnostic, KcostError, SizeError, did_you_mean
from .inputs import normalise
from .kcost_parser import Expression_StandAlone, Lark, UnexpectedInput, VisitError
from .parse import _ToAst, refuse_deep_tree
from .symbols import to_sympy

_SETTING = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=\s*(.+?)\s*$")


@functools.cache
def _expression_parser() -> Lark:
    # the grammar's `expr` rule alone, generated beside the spec parser (parse._parser)
    return Expression_StandAlone()


def parse_setting(text: str) -> tuple[str, str]:
    """`NAME=VALUE` -> (name, value text)."""
    match = _SETTING.match(text)
    if match is None:
        raise SizeError(Code.UNREADABLE_SETTING, Diagnostic(
            None, f"cannot read the setting `{text}`",
            "write NAME=VALUE, e.g. N=4096, n=1e8 or M=N"))
    return match.group(1), match.group(2)


def size_expression(text: str, sizes: dict[str, sympy.Expr], label: str) -> sympy.Expr:
    """Translate one value: a number or an expression in the sizes."""
    text = normalise(text)
    try:
        tree = _expression_parser().parse(text)
    except UnexpectedInput as error:
        column = getattr(error, "column", 1) or 1
        raise SizeError(Code.UNREADABLE_SETTING, Diagnostic(
            ast.Span(label, 1, column, 1, column + 1),
            f"cannot read `{text}` as a size", _unreadable_hint(text)), text) from None
    refuse_deep_tree(tree, text, label, f"the value of {label}",
                     "give the size a number, or a short expression in the other sizes")
    try:
        expr = _ToAst(label, text).transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, KcostError):
            raise error.orig_exc from None
        raise
    for node in ast.walk_expr(expr):
        if isinstance(node, ast.Name) and node.id not in sizes:
            raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
                node.span, f"unknown size `{node.id}`", did_you_mean(node.id, sizes)), text)
    return to_sympy(expr, sizes)


def _unreadable_hint(text: str) -> str:
    foreign = [char for char in text if char.isnumeric() and not char.isascii()]
    if foreign:
        return f"numbers are written with ASCII digits 0-9; {foreign[0]} is not one"
    return "use a number (4096, 1e8) or an expression in the other sizes (N, 2*N)"


def _whole_value(name: str, text: str) -> ast.Span:
    """The span of a whole --set value, for errors about the value rather than a part."""
    return ast.Span(f"--set {name}", 1, 1, 1, len(text) + 1)


def resolve_settings(raw: Mapping[str, object], parameters: dict[str, sympy.Symbol]
                     ) -> dict[sympy.Symbol, sympy.Expr]:
    """{name: number or text} -> {parameter symbol: expression}, chains substituted."""
    settings: dict[sympy.Symbol, sympy.Expr] = {}
    texts: dict[sympy.Symbol, str] = {}
    for name, value in raw.items():
        if name not in parameters:
            hint = did_you_mean(name, parameters) or (
                "parameters: " + ", ".join(parameters) if parameters else None)
            raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
                None, f"`{name}` is not a parameter of this kernel", hint))
        text = None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if isinstance(value, float) and not math.isfinite(value):
                raise SizeError(Code.SIZE_NOT_POSITIVE_INTEGER, Diagnostic(
                    None, f"`{name}` must be a finite number, not {value}",
                    "sizes are positive numbers"))
            expr = sympy.nsimplify(value) if isinstance(value, float) else sympy.Integer(value)
        else:
            text = normalise(str(value))
            expr = size_expression(text, parameters, f"--set {name}")
        settings[parameters[name]] = expr
        if text is not None:
            texts[parameters[name]] = text
    for _ in range(len(settings)):
        settings = {s: e.subs(settings) for s, e in settings.items()}
    for symbol, expr in settings.items():
        if symbol in expr.free_symbols:
            text = texts.get(symbol)
            span = _whole_value(symbol.name, text) if text is not None else None
            raise SizeError(Code.SETTING_CYCLE, Diagnostic(
                span, f"the setting of `{symbol}` refers to itself",
                "give one of the sizes a number"), text)
        _refuse_what_is_not_a_size(symbol.name, texts.get(symbol, str(raw[symbol.name]).strip()),
                                   expr)
    return settings


def _refuse_what_is_not_a_size(name: str, text: str, expr: sympy.Expr) -> None:
    """A size is a positive integer: a value that provably is not one (1/3, 1.5, 0, N - N,
    -N, or M = N - 10 with N = 5) is an error with a caret under the value. Size symbols are
    positive integers, so sympy decides this for symbolic values too where it can."""
    if expr.is_integer is False:
        reason, hint = "is not a whole number", "sizes count elements and iterations: use " \
                                                "a whole number such as 64 or 1e8"
    elif expr.is_positive is False:
        reason, hint = "is not positive", "sizes are at least 1"
    else:
        return
    value = "" if str(expr) == text else f" (= {expr})"
    raise SizeError(Code.SIZE_NOT_POSITIVE_INTEGER, Diagnostic(
        _whole_value(name, text),
        f"size `{name}` must be a positive integer: `{text}`{value} {reason}", hint), text)


def setting_warnings(settings: dict[sympy.Symbol, sympy.Expr]) -> tuple[str, ...]:
    """The symbolic settings that may not be sizes (M = N - 4 is zero at N = 4, M = N/2 is
    not whole at N = 3): the closed forms take them to be positive integers."""
    warnings = []
    for symbol, expr in settings.items():
        if expr.is_positive is not True:
            warnings.append(f"size `{symbol} = {expr}` is not proved positive")
        elif expr.is_integer is not True:
            warnings.append(f"size `{symbol} = {expr}` is not proved a whole number")
    return tuple(warnings)
