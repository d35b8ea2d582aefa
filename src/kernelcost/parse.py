"""Stage 1: text -> AST. The grammar is grammar/kcost.lark, loaded once from package data."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import ast
from .errors import Diagnostic, KcostError

MAX_SOURCE_BYTES = 1_000_000
MAX_NESTING = 32  # brackets and blocks; deeper text is refused before it reaches the parser


@functools.cache
def grammar_text() -> str:
    return resources.files("kernelcost.grammar").joinpath("kcost.lark").read_text("utf-8")


@functools.cache
def _parser() -> Lark:
    return Lark(grammar_text(), parser="lalr", propagate_positions=True, maybe_placeholders=True)


def parse_file(path: str | Path) -> ast.Kernel:
    """Read and parse a spec file; a missing, unreadable or non-text file is a KcostError."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise KcostError(Diagnostic(None, f"no such file: {path}", "check the path")) from None
    except IsADirectoryError:
        raise KcostError(
            Diagnostic(None, f"{path} is a directory", "give a .kcost file")
        ) from None
    except OSError as error:
        raise KcostError(Diagnostic(None, f"cannot read {path}: {error.strerror}")) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise KcostError(
            Diagnostic(None, f"{path} is not UTF-8 text (byte {error.start})", "save it as UTF-8")
        ) from None
    return parse(text, str(path))


def parse(text: str, filename: str = "<string>") -> ast.Kernel:
    """Parse the text of one spec into a Kernel, or raise KcostError with the position."""
    _refuse_oversized(text, filename)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as error:
        raise KcostError(_syntax_diagnostic(error, text, filename), text) from None
    return _ToAst(filename, text).transform(tree)


def _refuse_oversized(text: str, filename: str) -> None:
    if len(text) > MAX_SOURCE_BYTES:
        raise KcostError(
            Diagnostic(
                ast.Span(filename, 1, 1, 1, 2),
                f"spec is {len(text)} characters long, more than {MAX_SOURCE_BYTES}",
                "a spec describes one kernel in a few dozen lines",
            ),
            text,
        )
    depth, line, column = 0, 1, 1
    for char in text:
        if char in "([{":
            depth += 1
            if depth > MAX_NESTING:
                span = ast.Span(filename, line, column, line, column + 1)
                raise KcostError(
                    Diagnostic(span, f"nesting deeper than {MAX_NESTING} levels",
                               "flatten the expression or the loop nest"),
                    text,
                )
        elif char in ")]}":
            depth = max(0, depth - 1)
        if char == "\n":
            line, column = line + 1, 1
        else:
            column += 1


_TOKEN_WORDS = {
    "LBRACE": "`{`", "RBRACE": "`}`", "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`",
    "RSQB": "`]`", "COMMA": "`,`", "COLON": "`:`", "EQUAL": "`=`", "NAME": "a name",
    "NUMBER": "a number", "INT": "an integer", "ASSIGN_OP": "`=`, `+=`, `max=` or `min=`",
    "COMPARE": "a comparison", "PLUS": "`+`", "MINUS": "`-`", "STAR": "`*`", "SLASH": "`/`",
    "VBAR": "`|`", "AT": "`@`", "SEMICOLON": "`;`", "__ANON_0": "`..`", "$END": "end of file",
}


def _describe_expected(expected: set[str]) -> str:
    words = []
    for name in sorted(expected):
        word = _TOKEN_WORDS.get(name)
        if word is None:
            word = f"`{name.lower()}`" if name.isupper() and not name.startswith("__") else None
        if word and word not in words:
            words.append(word)
    if not words:
        return ""
    if len(words) > 6:
        words = words[:6] + ["..."]
    return "expected " + ", ".join(words)


def _syntax_diagnostic(error: UnexpectedInput, text: str, filename: str) -> Diagnostic:
    line = getattr(error, "line", None) or 1
    column = getattr(error, "column", None) or 1
    if isinstance(error, UnexpectedEOF) or (
        isinstance(error, UnexpectedToken) and error.token.type == "$END"
    ):
        lines = text.splitlines() or [""]
        line = len(lines)
        column = len(lines[-1]) + 1
        expected = getattr(error, "expected", None) or set()
        hint = _describe_expected(set(expected))
        if "RBRACE" in expected:
            hint = "a `{` is not closed: add the missing `}`"
        return Diagnostic(ast.Span(filename, line, column, line, column + 1),
                          "unexpected end of file", hint or None)
    if isinstance(error, UnexpectedCharacters):
        char = text[error.pos_in_stream] if error.pos_in_stream < len(text) else "?"
        span = ast.Span(filename, line, column, line, column + 1)
        hint = "comments start with `#`" if char in "/" else None
        if char == ".":
            hint = "ranges are written `lo..hi`"
        return Diagnostic(span, f"unexpected character {char!r}", hint)
    token = error.token
    width = max(1, len(str(token)))
    span = ast.Span(filename, line, column, line, column + width)
    expected = set(getattr(error, "expected", set()) or set())
    hint = _describe_expected(expected) or None
    if token.type == "ASSIGN_OP" and "COMPARE" not in expected:
        hint = "assignments need a target: `name = ...` or `tensor[i] = ...`"
    if token.type == "EQUAL" and "ASSIGN_OP" in expected:
        hint = "use `=`, `+=`, `max=` or `min=`"
    return Diagnostic(span, f"unexpected {_token_phrase(token)}", hint)


def _token_phrase(token: Token) -> str:
    if token.type == "NAME":
        return f"name `{token}`"
    if token.type == "NUMBER":
        return f"number `{token}`"
    return f"`{token}`"


def _span(filename: str, meta) -> ast.Span:
    if getattr(meta, "empty", True):
        return ast.Span(filename, 1, 1, 1, 2)
    return ast.Span(filename, meta.line, meta.column, meta.end_line, meta.end_column)


def _token_span(filename: str, token: Token) -> ast.Span:
    return ast.Span(filename, token.line, token.column, token.end_line, token.end_column)


@v_args(meta=True)
class _ToAst(Transformer):
    """Builds AST nodes bottom-up; every node keeps the span of the text it came from."""

    def __init__(self, filename: str, source: str):
        super().__init__()
        self.filename = filename
        self.source = source

    def _s(self, meta) -> ast.Span:
        return _span(self.filename, meta)

    def start(self, meta, children):
        return children[0]

    def kernel(self, meta, children):
        name, *rest = children
        params = tuple(c for c in rest if isinstance(c, ast.Param))
        items = tuple(c for c in rest if c is not None and not isinstance(c, ast.Param))
        flat = []
        for item in items:
            flat.extend(item if isinstance(item, tuple) else (item,))
        return ast.Kernel(str(name), params, tuple(flat), self._s(meta), self.source)

    def param(self, meta, children):
        name, default = children
        return ast.Param(str(name), int(default) if default is not None else None, self._s(meta))

    def reuse_setting(self, meta, children):
        (mode,) = children
        return ast.ReuseSetting(ast.Name(str(mode), _token_span(self.filename, mode)),
                                self._s(meta))

    def assume(self, meta, children):
        return ast.Assume(tuple(children), self._s(meta))

    def divides(self, meta, children):
        divisor, dividend = children
        return ast.Divides(divisor, dividend, self._s(meta))

    def compare(self, meta, children):
        left, op, right = children
        return ast.Compare(left, str(op), right, self._s(meta))

    def role(self, meta, children):
        return str(children[0])

    def shape(self, meta, children):
        return tuple(children)

    def tensor_decl(self, meta, children):
        role, name, dtype, shape, level = children
        level_name = ast.Name(str(level), _token_span(self.filename, level)) if level else None
        return ast.TensorDecl(
            role, str(name), ast.Name(str(dtype), _token_span(self.filename, dtype)),
            shape or (), level_name, self._s(meta),
        )

    def empty(self, meta, children):
        return None

    def let(self, meta, children):
        name, dtype, value = children
        return ast.Let(str(name), str(dtype) if dtype is not None else None, value, self._s(meta))

    def range(self, meta, children):
        var, lo, hi, step = children
        return (str(var), lo, hi, step, self._s(meta))

    def block(self, meta, children):
        flat = []
        for child in children:
            if child is None:
                continue
            flat.extend(child if isinstance(child, tuple) else (child,))
        return tuple(flat)

    def for_loop(self, meta, children):
        *ranges, body = children
        # `for i in .., j in ..` is a nest, outermost first; each loop keeps its range's span
        # except the outermost, which spans the whole statement.
        for index in range(len(ranges) - 1, -1, -1):
            var, lo, hi, step, span = ranges[index]
            body = (ast.For(var, lo, hi, step, body, self._s(meta) if index == 0 else span),)
        return body[0]

    def keep(self, meta, children):
        *names, level, body = children
        tensors = tuple(ast.Name(str(n), _token_span(self.filename, n)) for n in names)
        level_name = ast.Name(str(level), _token_span(self.filename, level))
        return ast.Keep(tensors, level_name, body, self._s(meta))

    def assign(self, meta, children):
        target, op, value = children
        return ast.Assign(target, str(op), value, self._s(meta))

    def name(self, meta, children):
        return ast.Name(str(children[0]), self._s(meta))

    def number(self, meta, children):
        return ast.Number(str(children[0]), self._s(meta))

    def access(self, meta, children):
        tensor, *indices = children
        return ast.Access(str(tensor), tuple(indices), self._s(meta))

    def call(self, meta, children):
        func, *args = children
        return ast.Call(str(func), tuple(a for a in args if a is not None), self._s(meta))

    def neg(self, meta, children):
        return ast.Neg(children[0], self._s(meta))

    def _binary(op):
        def build(self, meta, children):
            left, right = children
            return ast.BinOp(op, left, right, self._s(meta))

        return build

    add = _binary("+")
    sub = _binary("-")
    mul = _binary("*")
    div = _binary("/")
    del _binary
