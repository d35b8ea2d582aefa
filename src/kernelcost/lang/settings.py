"""Size settings from the command line or the API: `N=4096`, `n=1e8`, `M=N`, `K=2*N`.

A value is parsed with the spec grammar's own expression rule (never sympify) and may use
the other parameters; chains such as M=N, N=4096 are resolved."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping

import sympy

from ..base import tree as ast
from ..base.errors import Code, Diagnostic, KcostError, SizeError, did_you_mean
from ..base.inputs import normalise
from ..base.symbols import to_sympy
from ._generated.kcost_parser import Expression_StandAlone, Lark, UnexpectedInput, VisitError
from .parse import _ToAst, refuse_deep_tree

# The largest size a sweep, a phase plane, a tuning or a grid's machine model computes with:
# the sizes are doubles there (or 64-bit integers, products of them), and past 2^53 a double
# no longer holds every whole number (N and N + 1 are one value).
MAX_FLOAT_SIZE = 2**53
FLOAT_SIZES = (f"2^53 = {MAX_FLOAT_SIZE:,}, the largest whole number a double holds exactly "
               "(this command evaluates the closed forms in doubles)")
GRID_SIZES = (f"2^53 = {MAX_FLOAT_SIZE:,}: the machine model of a grid counts its blocks in "
              "64-bit integers")

_SETTING = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=(.*)$", re.DOTALL)


@functools.cache
def _expression_parser() -> Lark:
    # the grammar's `expr` rule alone, generated beside the spec parser (parse._parser)
    return Expression_StandAlone()


class Settings(dict):
    """{name: value text} as `--set` arguments give them, with where each name was written:
    name -> (the whole --set argument, the 1-based column of the name in it), so that an
    error about a setting puts its caret there."""

    def __init__(self, items: dict | None = None,
                 places: dict[str, tuple[str, int]] | None = None,
                 options: dict[str, str] | None = None) -> None:
        super().__init__(items or {})
        self.places: dict[str, tuple[str, int]] = dict(places or {})
        # the option each name was written in, where not --set (tune's --shape)
        self.options: dict[str, str] = dict(options or {})


def option_of(raw: Mapping[str, object], name: str) -> str:
    """The command-line option that set `name`: --set, or tune's --shape."""
    return getattr(raw, "options", {}).get(name, "--set")


def without(raw: Mapping[str, object], names) -> dict[str, object]:
    """raw less the settings of `names`, keeping where the others were written."""
    kept = {name: value for name, value in raw.items() if name not in names}
    return Settings(kept, raw.places, raw.options) if isinstance(raw, Settings) else kept


def read_settings(arguments: list[str], option: str = "--set") -> Settings:
    """The --set arguments (`N=4096,M=N`, repeated or comma-separated) as Settings; an item
    that is not NAME=VALUE is an error with a caret under its bad part. `option`: where they
    were written, for the places of errors (tune's --shape takes the same items)."""
    settings = Settings()
    for argument in arguments:
        for column, part in split_commas(argument):
            name, value = parse_setting(part, argument, column, option)
            start = column + len(part) - len(part.lstrip())
            if settings.get(name, value) != value:  # the last would win without a word
                raise SizeError(Code.UNREADABLE_SETTING, Diagnostic(
                    ast.Span(option, 1, start, 1, start + len(name)),
                    f"`{name}` is set twice, to {settings[name]} and to {value}",
                    f"give `{name}` one value"), argument)
            settings[name] = value
            settings.places[name] = (argument, start)
            if option != "--set":
                settings.options[name] = option
    return settings


def split_commas(text: str) -> list[tuple[int, str]]:
    """The comma-separated items of a --set argument (commas inside brackets do not
    separate) with the 1-based column each starts at; blank items are left out."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += char in "(["
        depth -= char in ")]"
        if char == "," and depth == 0:
            parts.append((start + 1, text[start:index]))
            start = index + 1
    parts.append((start + 1, text[start:]))
    return [(column, part) for column, part in parts if part.strip()]


_NAME_START = re.compile(r"\s*[A-Za-z_][A-Za-z_0-9]*\s*")


def parse_setting(text: str, argument: str | None = None, column: int = 1,
                  option: str = "--set") -> tuple[str, str]:
    """`NAME=VALUE` -> (name, value text). A KcostError placed in `argument` (the whole
    --set argument the item stands in, from `column`) when it is not one: the caret under
    what is missing or out of place (`K:K*T` at the colon, `=4` at the `=`)."""
    match = _SETTING.match(text)
    if match is not None and match.group(2).strip():
        return match.group(1), match.group(2).strip()
    name = _NAME_START.match(text)
    if name is None:
        offset = len(text) - len(text.lstrip())
        reason = ("a name must come before `=`" if text.lstrip().startswith("=") else
                  "a size's name is ASCII letters, digits and `_`, not starting with a digit")
    elif name.end() == len(text) or text[name.end()] != "=":
        offset = name.end()
        reason = "`=` must follow the name"
    else:
        offset = len(text.rstrip())
        reason = "a value must follow `=`"
    argument = text if argument is None else argument
    start = column + offset
    raise SizeError(Code.UNREADABLE_SETTING, Diagnostic(
        ast.Span(option, 1, start, 1, start + 1),
        f"cannot read the setting `{text.strip()}`: {reason}",
        "write NAME=VALUE, e.g. N=4096, n=1e8 or M=N"), argument)


def size_expression(text: str, sizes: dict[str, sympy.Expr], label: str) -> sympy.Expr:
    """Translate one value: a number or an expression in the sizes."""
    text = normalise(text)
    try:
        tree = _expression_parser().parse(text)
    except UnexpectedInput as error:
        tree = _with_powers(text)
        if tree is None:
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


# a whole number to a whole power, as every output prints large sizes (2**24) and as people
# write them (2^24); the spec language itself has no power
_POWER = re.compile(r"(?<![\w.])(\d+)\s*(?:\*\*|\^)\s*(\d+)(?![\w.])")
MAX_POWER_DIGITS = 400  # a size beyond is refused later as too large, but not built first


def _with_powers(text: str):
    """The parse of `text` with each whole number to a whole power written as its value;
    None where there is none, one is too large to write, or the text still does not parse."""
    def value(match: re.Match) -> str:
        base, exponent = int(match[1]), int(match[2])
        if base > 1 and exponent * math.log10(base) > MAX_POWER_DIGITS:
            raise OverflowError
        return str(base ** exponent)

    try:
        written = _POWER.sub(value, text)
    except OverflowError:
        return None
    if written == text:
        return None
    try:
        return _expression_parser().parse(written)
    except UnexpectedInput:
        return None


def _unreadable_hint(text: str) -> str:
    foreign = [char for char in text if char.isnumeric() and not char.isascii()]
    if foreign:
        return f"numbers are written with ASCII digits 0-9; {foreign[0]} is not one"
    if "**" in text or "^" in text:
        return (f"a power is read between whole numbers only (2**24), of at most "
                f"{MAX_POWER_DIGITS} digits")
    return "use a number (4096, 1e8) or an expression in the other sizes (N, 2*N)"


def _whole_value(name: str, text: str, option: str = "--set") -> ast.Span:
    """The span of a whole --set value, for errors about the value rather than a part."""
    return ast.Span(f"{option} {name}", 1, 1, 1, len(text) + 1)


def resolve_settings(raw: Mapping[str, object], parameters: dict[str, sympy.Symbol]
                     ) -> dict[sympy.Symbol, sympy.Expr]:
    """{name: number or text} -> {parameter symbol: expression}, chains substituted."""
    settings: dict[sympy.Symbol, sympy.Expr] = {}
    texts: dict[sympy.Symbol, str] = {}
    for name, value in raw.items():
        if name not in parameters:
            hint = did_you_mean(name, parameters) or (
                "parameters: " + ", ".join(parameters) if parameters else None)
            argument, column = getattr(raw, "places", {}).get(name, (f"{name}={value}", 1))
            raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
                ast.Span(option_of(raw, name), 1, column, 1, column + len(name)),
                f"`{name}` is not a parameter of this kernel", hint), argument)
        text = None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if isinstance(value, float) and not math.isfinite(value):
                raise SizeError(Code.SIZE_NOT_POSITIVE_INTEGER, Diagnostic(
                    None, f"`{name}` must be a finite number, not {value}",
                    "sizes are positive numbers"))
            expr = sympy.nsimplify(value) if isinstance(value, float) else sympy.Integer(value)
        else:
            text = normalise(str(value))
            expr = size_expression(text, parameters, f"{option_of(raw, name)} {name}")
        settings[parameters[name]] = expr
        if text is not None:
            texts[parameters[name]] = text
    for _ in range(len(settings)):
        settings = {s: e.subs(settings) for s, e in settings.items()}
    for symbol, expr in settings.items():
        if symbol in expr.free_symbols:
            text = texts.get(symbol)
            span = (_whole_value(symbol.name, text, option_of(raw, symbol.name))
                    if text is not None else None)
            raise SizeError(Code.SETTING_CYCLE, Diagnostic(
                span, f"the setting of `{symbol}` refers to itself",
                "give one of the sizes a number"), text)
        _refuse_what_is_not_a_size(symbol.name, texts.get(symbol, str(raw[symbol.name]).strip()),
                                   expr, option_of(raw, symbol.name))
    return settings


def refuse_unsized(raw: Mapping[str, object], resolved: Mapping[sympy.Symbol, sympy.Expr],
                   numeric: Mapping[sympy.Symbol, sympy.Expr]) -> None:
    """A setting in terms of a size that has a default (`n=BLK/3`, BLK = 1024) is a number
    there: one that is not a positive integer (1024/3, or 0 for `n=BLK-1024`) is refused as
    `n=1024/3` is, where a warning said the closed forms assume it whole."""
    for symbol, expr in resolved.items():
        if expr.free_symbols and symbol in numeric and symbol.name in raw:
            text = normalise(str(raw[symbol.name]))
            _refuse_what_is_not_a_size(symbol.name, text, numeric[symbol],
                                       option_of(raw, symbol.name))


def refuse_unnumbered(raw: Mapping[str, object],
                      resolved: Mapping[sympy.Symbol, sympy.Expr]) -> None:
    """A command that runs the nest at numbers (`check`) takes no size set in terms of one
    left without a value (`M=N` alone): the error is placed on that value."""
    for symbol, expr in resolved.items():
        if expr.free_symbols:
            text = normalise(str(raw[symbol.name]))
            unset = ", ".join(sorted(map(str, expr.free_symbols)))
            raise SizeError(Code.SIZES_UNSET, Diagnostic(
                _whole_value(symbol.name, text, option_of(raw, symbol.name)),
                f"`{symbol}` is set to {text}, and {unset} has no value here",
                f"give {unset} a value too, or leave `{symbol}` out: it is then drawn"), text)


def _refuse_what_is_not_a_size(name: str, text: str, expr: sympy.Expr,
                               option: str = "--set") -> None:
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
        _whole_value(name, text, option),
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


def refuse_beyond(values: Mapping[sympy.Symbol, sympy.Expr], raw: Mapping[str, object],
                  kernel: ast.Kernel, limit: int, why: str, hint: str) -> None:
    """A SizeError placed on the first value (a --set value, or a default in the spec) of
    `values` (numbers) above `limit`: a command that computes in doubles or machine integers
    names the value it cannot take, instead of overflowing somewhere past it."""
    for symbol, value in values.items():
        if not (value.is_number and value.is_comparable and value > limit):
            continue
        name = symbol.name
        shown = _short(value)
        span: ast.Span | None = None
        source: str | None = None
        if name in raw:
            text = str(raw[name]).strip()
            span, source = _whole_value(name, text, option_of(raw, name)), text
        else:  # a default of the spec
            param = next((p for p in kernel.params if p.name == name), None)
            if param is not None:
                span, source = param.span, kernel.source
        raise SizeError(Code.SIZE_TOO_LARGE, Diagnostic(
            span, f"size `{name}` = {shown} is more than {why}", hint), source)


def _short(value: sympy.Expr) -> str:
    """A number as it can be read: 10^400 as 1.00e+400, not four hundred digits."""
    text = str(value)
    return text if len(text) <= 20 else str(sympy.Float(value, 3))
