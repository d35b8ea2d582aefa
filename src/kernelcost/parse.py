"""Stage 1: text -> AST. The grammar is grammar/kcost.lark, loaded once from package data.

Any text either parses or raises KcostError with a position: oversized, too deeply nested and
malformed input are all refused with a diagnostic, never with another exception."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.lexer import PatternStr

from . import ast
from .cache import lark_parser
from .errors import Diagnostic, KcostError
from .inputs import normalise, read_text
from .watchdog import stage

MAX_SOURCE_BYTES = 1_000_000
# Limits, each refused with its position (docs/language.md, "Limits"). Brackets and blocks are
# counted apart: a polynomial in Horner form nests its parentheses 30 deep in real kernels,
# while loop nests are shallow. The tree bound keeps the recursive stages (the transformer,
# the checker, sympy, the oracle) well inside Python's recursion limit: they pass at 400.
MAX_NESTING = 100  # ( and [ within the text
MAX_BLOCK_NESTING = 32  # { } blocks: the kernel, loops and keep scopes
MAX_TREE_DEPTH = 300  # parse-tree levels (an unbracketed chain a + b + ... nests one a term)
MAX_NUMBER_DIGITS = 1000  # digits or exponent of a literal: 10**400 is fine, 1e400000000 is not


@functools.cache
def grammar_text() -> str:
    return resources.files("kernelcost.grammar").joinpath("kcost.lark").read_text("utf-8")


@functools.cache
def _parser() -> Lark:
    # the LALR tables are built once and kept in the user cache as JSON (cache.lark_parser):
    # building them costs about 30 ms a process, loading them about 4 ms
    return lark_parser("lark-parser", grammar_text(), propagate_positions=True,
                       maybe_placeholders=True)


def parse_file(path: str | Path) -> ast.Kernel:
    """Read and parse a spec file; a missing, unreadable, special or non-text file is a
    KcostError (inputs.read_text)."""
    stage("reading and parsing the spec", ast.Span(str(path), 1, 1, 1, 2))
    return parse(read_text(str(path), MAX_SOURCE_BYTES, "spec file"), str(path))


def parse(text: str, filename: str = "<string>") -> ast.Kernel:
    """Parse the text of one spec into a Kernel, or raise KcostError with the position."""
    text = normalise(text)
    _refuse_oversized(text, filename)
    if not text.strip():
        raise KcostError(Diagnostic(ast.Span(filename, 1, 1, 1, 2), "the spec is empty",
                                    "a spec is one kernel: `kernel name(n) { ... }`"), text)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as error:
        raise KcostError(_syntax_diagnostic(error, text, filename), text) from None
    refuse_deep_tree(tree, text, filename)
    try:
        return _ToAst(filename, text).transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, KcostError):
            raise error.orig_exc from None
        raise


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
    brackets, blocks, line, column = 0, 0, 1, 1
    comment = False
    for char in text:
        if char == "\n":
            line, column, comment = line + 1, 1, False
            continue
        if char == "#":
            comment = True
        elif comment:
            pass
        elif char in "([":
            brackets += 1
            if brackets > MAX_NESTING:
                _refuse_nesting(filename, line, column, text,
                                f"brackets nest more than {MAX_NESTING} levels deep",
                                "name a part of the expression with `let`")
        elif char == "{":
            blocks += 1
            if blocks > MAX_BLOCK_NESTING:
                _refuse_nesting(filename, line, column, text,
                                f"blocks nest more than {MAX_BLOCK_NESTING} levels deep",
                                "put several iterators in one loop header: "
                                "`for i in 0..n, j in 0..m { ... }`")
        elif char in ")]":
            brackets = max(0, brackets - 1)
        elif char == "}":
            blocks = max(0, blocks - 1)
        column += 1


def _refuse_nesting(filename: str, line: int, column: int, text: str, message: str,
                    hint: str) -> None:
    span = ast.Span(filename, line, column, line, column + 1)
    raise KcostError(Diagnostic(span, message, hint), text)


def refuse_deep_tree(tree: Tree, text: str, filename: str, what: str = "the spec",
                     hint: str = "split a long expression with `let` locals") -> None:
    """Long operator chains (`a + b + ... + z`) nest without brackets; the tree builders and
    sympy recurse, so a chain deeper than MAX_TREE_DEPTH is refused with its position."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise KcostError(
                Diagnostic(_span(filename, node.meta),
                           f"{what} nests more than {MAX_TREE_DEPTH} levels deep here", hint),
                text,
            )
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))


# --- syntax errors ---------------------------------------------------------------------------
#
# A syntax error is described by what the parser expected at that point. Common mistakes get a
# message of their own: each is recognised by the parser state it leaves, learnt from the
# malformed examples below (lark's UnexpectedInput.match_examples does the same, but compares
# the whole state stack, so an example would match only at the nesting depth it is written at).

_MISTAKES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    # (what was expected, hint, malformed examples)
    ("expected `{` to open the loop body",
     "a loop is written `for i in lo..hi { ... }` or `for i in lo..hi by step { ... }`",
     ("kernel k(n) { for i in 0..n y = 1 }", "kernel k(n) { for i in 0..n by 2 y = 1 }",
      "kernel k(n) { for i in 0..n by 2 2 }", "kernel k(n) { for i in 0..n 2 }")),
    ("expected `{` to open the keep scope",
     "a reuse scope is written `keep A, B in shared { ... }`",
     ("kernel k(n) { keep A in shared y = 1 }",)),
    ("expected `:` between the tensor's name and its element type",
     "a tensor is declared `in x: f32[n]`",
     ("kernel k(n) { in x f32 }",)),
    ("expected the tensor's element type",
     "a tensor is declared `in x: f32[n]`",
     ("kernel k(n) { in x: [n] }",)),
    ("expected `..` between the bounds of the range",
     "a range is written `lo..hi` or `lo..hi by step`",
     ("kernel k(n) { for i in 0 n {} }", "kernel k(n) { for i in 0, n {} }",
      "kernel k(n) { for i in 0: n {} }", "kernel k(n) { for i in 0 {} }")),
    ("expected `in` after the loop's iterator",
     "a loop is written `for i in lo..hi { ... }`",
     ("kernel k(n) { for i = 0..n {} }", "kernel k(n) { for i 0..n {} }")),
    ("expected an expression",
     "an expression is a number, a name, `x[i]`, `f(x)`, `-x` or `(...)`",
     ("kernel k(n) { y = }", "kernel k(n) { y = 1 + }", "kernel k(n) { y = 1 * }",
      "kernel k(n) { y = 1 - }", "kernel k(n) { y = 1 / }", "kernel k(n) { y = - }",
      "kernel k(n) { y = (}", "kernel k(n) { y = x[}", "kernel k(n) { y = x[1, }",
      "kernel k(n) { y = f(1, }", "kernel k(n) { for i in 0.. {} }",
      "kernel k(n) { for i in .. {} }", "kernel k(n) { for i in 0..n by {} }")),
    ("expected an expression after the assignment",
     "`==` is not an assignment: assign with `=`; comparisons belong in `assume`",
     ("kernel k(n) { y == 1 }",)),
    ("expected `kernel` at the start of the spec",
     "a spec is one kernel: `kernel name(n) { ... }`",
     ("k(n) {}",)),
    ("expected the end of the spec after the kernel's closing `}`",
     "a spec holds one kernel; does a `}` close it too early?",
     ("kernel k(n) {} }", "kernel k(n) {} y = 1", "kernel k(n) {} kernel",
      "kernel k(n) { y = 1 } }", "kernel k(n) { y = 1 } y = 1", "kernel k(n) { y = 1 } kernel")),
    ("expected an assignment operator",
     "a statement assigns with `=`, `+=`, `max=` or `min=`; is an operator missing "
     "between two expressions?",
     ("kernel k(n) { y = x[0] x[1] }", "kernel k(n) { y[0] }", "kernel k(n) { y }",
      "kernel k(n) { y[0] y }")),
)


@functools.cache
def _mistake_table() -> dict[tuple[object, str], tuple[str, str]]:
    """(parser state, offending token) -> (expectation, hint), from the examples above; the
    token is '' for a match on the state alone. The first example of a state wins."""
    table: dict[tuple[object, str], tuple[str, str]] = {}
    for expectation, hint, examples in _MISTAKES:
        for example in examples:
            try:
                _parser().parse(example)
            except UnexpectedToken as error:
                position = error.state.position
                table.setdefault((position, str(error.token)), (expectation, hint))
                table.setdefault((position, ""), (expectation, hint))
            except UnexpectedInput:  # an example that fails in the lexer teaches nothing
                continue
    return table


def _known_mistake(error: UnexpectedToken) -> tuple[str, str] | None:
    if error.state is None:
        return None
    table = _mistake_table()
    position = error.state.position
    return table.get((position, str(error.token))) or table.get((position, ""))


# Keywords are listed after punctuation and names: `}` is a likelier fix than `reuse`.
_KEYWORDS = frozenset({"KERNEL", "REUSE", "ASSUME", "IN", "OUT", "INOUT", "LET", "FOR", "BY",
                       "KEEP"})


@functools.cache
def _terminal_words() -> dict[str, str]:
    """How each terminal is named in a message: literal ones by their text (`{`, `..`)."""
    words = {
        "NAME": "a name", "NUMBER": "a number", "INT": "an integer",
        "ASSIGN_OP": "an assignment (`=` `+=` `max=` `min=`)",
        "COMPARE": "a comparison (`<=` `<` `>=` `>`)",
        "$END": "the end of the file",
    }
    for terminal in _parser().terminals:
        if isinstance(terminal.pattern, PatternStr) and terminal.name not in words:
            words[terminal.name] = f"`{terminal.pattern.value}`"
    return words


def _describe_expected(expected) -> str:
    """`expected a name, `(` or `-``, punctuation and names before keywords."""
    words = []
    for name in sorted(expected, key=lambda name: (name in _KEYWORDS, name)):
        word = _terminal_words().get(name)
        if word and word not in words:
            words.append(word)
    if not words:
        return ""
    if len(words) > 8:
        words = words[:7] + ["..."]
    if len(words) == 1:
        return "expected " + words[0]
    return "expected " + ", ".join(words[:-1]) + " or " + words[-1]


def _syntax_diagnostic(error: UnexpectedInput, text: str, filename: str) -> Diagnostic:
    if isinstance(error, UnexpectedCharacters):
        return _character_diagnostic(error, text, filename)
    token = getattr(error, "token", None)
    expected = set(getattr(error, "expected", None) or ())
    mistake = _known_mistake(error) if isinstance(error, UnexpectedToken) else None
    if isinstance(error, UnexpectedEOF) or token is None or token.type == "$END":
        return _end_of_file_diagnostic(text, filename, expected, mistake)
    misread = _misread_operator(token, text, filename)
    if misread is not None:
        return misread
    width = max(1, len(str(token)))
    span = ast.Span(filename, token.line, token.column, token.line, token.column + width)
    if mistake is not None:
        expectation, hint = mistake
        return Diagnostic(span, f"{expectation}, found {_token_phrase(token)}", hint)
    return Diagnostic(span, f"unexpected {_token_phrase(token)}",
                      _describe_expected(expected) or None)


def _misread_operator(token: Token, text: str, filename: str) -> Diagnostic | None:
    """Operators from other languages that lex as two tokens here: `*=`, `//`, `==`."""
    position = token.start_pos
    pair = text[position:position + 2] if position is not None else ""
    span = ast.Span(filename, token.line, token.column, token.line, token.column + 2)
    if pair in ("*=", "-=", "/="):
        return Diagnostic(span, f"`{pair}` is not an assignment operator",
                          "assign with `=`, `+=`, `max=` or `min=`: "
                          f"`x = x {pair[0]} y` for `x {pair} y`")
    if pair == "//" or (str(token) == "/" and text[position - 1:position] == "/"):
        if pair != "//":  # the parser took the first `/` as a division
            span = ast.Span(filename, token.line, token.column - 1, token.line, token.column + 1)
        return Diagnostic(span, "`//` is not an operator", "comments start with `#`")
    return None


def _character_diagnostic(error: UnexpectedCharacters, text: str, filename: str) -> Diagnostic:
    position = error.pos_in_stream
    line, column = error.line, error.column
    char = text[position] if position < len(text) else ""
    if char == "." and text[max(0, position - 2):position] == "..":
        # `0...n`: the lexer took `..` and stumbled on the third dot; point at all three
        span = ast.Span(filename, line, column - 2, line, column + 1)
        return Diagnostic(span, "`...` is not a range", "a range is written `lo..hi`, two dots")
    span = ast.Span(filename, line, column, line, column + 1)
    if char.isdigit() or char.isnumeric():
        hint = f"numbers are written with ASCII digits 0-9; {char} is not one"
    elif char.isalpha():
        hint = "names are ASCII: letters, digits and `_`, not starting with a digit"
    else:
        hint = ("the language has `+ - * /`, calls like `exp(x)`, `x[i]` and `lo..hi`; "
                "comments start with `#`")
    return Diagnostic(span, f"unexpected character {_character_phrase(char)}", hint)


def _character_phrase(char: str) -> str:
    if char.isprintable() and not char.isspace():
        return f"`{char}`"
    return f"U+{ord(char):04X}" if char else "end of text"


def _end_of_file_diagnostic(text: str, filename: str, expected,
                            mistake: tuple[str, str] | None) -> Diagnostic:
    line, column = _end_position(text)
    span = ast.Span(filename, line, column, line, column + 1)
    message, hint = "unexpected end of file", _describe_expected(expected) or None
    if mistake is not None and "RBRACE" not in expected:  # the text stops mid-statement
        message, hint = f"{mistake[0]}, found the end of the file", mistake[1]
    unclosed = _innermost_unclosed(text)
    if unclosed is not None:
        bracket, open_line, open_column = unclosed
        closer = {"{": "}", "(": ")", "[": "]"}[bracket]
        hint = (f"the `{bracket}` at line {open_line}, column {open_column} is never closed: "
                f"add a `{closer}`")
    return Diagnostic(span, message, hint)


def _end_position(text: str) -> tuple[int, int]:
    """The place just after the last character that is not blank or a comment."""
    lines = text.split("\n")
    for index in range(len(lines) - 1, -1, -1):
        content = lines[index].split("#", 1)[0].rstrip()
        if content:
            return index + 1, len(content) + 1
    return 1, 1


def _innermost_unclosed(text: str) -> tuple[str, int, int] | None:
    """The last bracket still open at the end of the text, skipping comments."""
    stack: list[tuple[str, int, int]] = []
    for line_number, line in enumerate(text.split("\n"), start=1):
        for column, char in enumerate(line.split("#", 1)[0], start=1):
            if char in "{([":
                stack.append((char, line_number, column))
            elif char in "})]" and stack:
                stack.pop()
    return stack[-1] if stack else None


def _token_phrase(token: Token) -> str:
    if token.type == "NAME":
        return f"name `{token}`"
    if token.type in ("NUMBER", "INT"):
        return f"number `{_shorten(str(token))}`"
    return f"`{token}`"


def _shorten(text: str) -> str:
    return text if len(text) <= 20 else text[:8] + "..." + text[-8:]


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
        if default is not None:
            self._refuse_huge_number(default)
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
        name, dtype, shape, level, value = children
        level_name = None if level is None else ast.Name(str(level),
                                                         _token_span(self.filename, level))
        return ast.Let(str(name), str(dtype) if dtype is not None else None, value,
                       self._s(meta), shape or (), level_name)

    def parallel(self, meta, children):
        return ast.Parallel(tuple(option for option in children if option is not None),
                            self._s(meta))

    def block_option(self, meta, children):
        name, axis, value = children
        axis_name = None if axis is None else ast.Name(str(axis), _token_span(self.filename, axis))
        return ast.BlockOption(ast.Name(str(name), _token_span(self.filename, name)), axis_name,
                               value, self._s(meta))

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
        *ranges, parallel, body = children
        # `for i in .., j in ..` is a nest, outermost first; each loop keeps its range's span
        # except the outermost, which spans the whole statement.
        for index in range(len(ranges) - 1, -1, -1):
            var, lo, hi, step, span = ranges[index]
            body = (ast.For(var, lo, hi, step, body, self._s(meta) if index == 0 else span,
                            parallel),)
        return body[0]

    def keep(self, meta, children):
        *names, level, stages, body = children
        tensors = tuple(ast.Name(str(n), _token_span(self.filename, n)) for n in names)
        level_name = ast.Name(str(level), _token_span(self.filename, level))
        return ast.Keep(tensors, level_name, body, self._s(meta), stages)

    def assign(self, meta, children):
        target, op, value = children
        return ast.Assign(target, str(op), value, self._s(meta))

    def name(self, meta, children):
        return ast.Name(str(children[0]), self._s(meta))

    def number(self, meta, children):
        self._refuse_huge_number(children[0])
        return ast.Number(str(children[0]), self._s(meta))

    def _refuse_huge_number(self, token: Token) -> None:
        """A literal becomes an exact rational: 1e400000000 would be a 400-million-digit
        integer, so digits and exponent are bounded (10**400 written out is fine)."""
        mantissa, _, exponent = str(token).lower().partition("e")
        digits = len(mantissa.replace(".", "").lstrip("0"))
        exponent_size = len(exponent.lstrip("+-").lstrip("0"))
        if digits > MAX_NUMBER_DIGITS or exponent_size > len(str(MAX_NUMBER_DIGITS)) or (
            exponent and abs(int(exponent)) > MAX_NUMBER_DIGITS
        ):
            raise KcostError(
                Diagnostic(_token_span(self.filename, token),
                           f"number `{_shorten(str(token))}` is too large",
                           f"numbers have at most {MAX_NUMBER_DIGITS} digits and exponents "
                           f"at most {MAX_NUMBER_DIGITS}"),
                self.source,
            )

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
