"""Syntax errors made readable: lark's unexpected token or character turned into one
diagnostic with a position, a caret and a hint (a table of malformed examples, as lark's own
grammar loader matches them; the end of the file named; a misread operator explained)."""

from __future__ import annotations

import functools

from ..base import tree as ast
from ..base.architectures import ARCHITECTURE_FORMS, MMA_WORDS, Feature
from ..base.errors import Code, Diagnostic, closest
from ._generated.kcost_parser import (
    Lark,
    PatternStr,
    Token,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
)
from .serial_groups import ROOFS

_FEATURES = ", ".join(feature.value for feature in Feature)
_ROOFS = ", ".join(ROOFS)
_PATHS = ", ".join(MMA_WORDS)

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
# Mistakes whose caret goes just after the token before the offending one: the name missing
# belongs there. A `target` or a `needs ...,` that stops early meets the next line's first word
# (`in`, `let`, `}`), a keyword, which no architecture or feature is (grammar: REQUIREMENT).
_MISSING_AFTER: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("expected an architecture after `target`",
     f"name the architecture the spec is written for: {ARCHITECTURE_FORMS}",
     ("kernel k(n) { target }", "kernel k(n) { target in x: f32[n] }")),
    ("expected a hardware feature after `needs`", f"the features: {_FEATURES}",
     ("kernel k(n) { needs }", "kernel k(n) { needs in x: f32[n] }")),
    ("expected a hardware feature after `,`",
     f"the features: {_FEATURES}; or drop the last `,`",
     ("kernel k(n) { needs tma, }", "kernel k(n) { needs tma, in x: f32[n] }",
      "kernel k(n) { needs tma, wgmma, }", "kernel k(n) { needs tma, wgmma, in x: f32[n] }")),
    ("expected an MMA path after `mma`", f"how the spec issues its MMAs: {_PATHS}",
     ("kernel k(n) { mma }", "kernel k(n) { mma in x: f32[n] }")),
    ("expected a roof after `serial`", f"the roofs whose times add: {_ROOFS}",
     ("kernel k(n) { serial }", "kernel k(n) { serial in x: f32[n] }")),
    ("expected a roof after `,`", f"the roofs whose times add: {_ROOFS}; or drop the last `,`",
     ("kernel k(n) { serial sfu, }", "kernel k(n) { serial sfu, in x: f32[n] }",
      "kernel k(n) { serial sfu, vector, }",
      "kernel k(n) { serial sfu, vector, in x: f32[n] }")),
)


# (what was expected, hint, whether the caret goes after the token before the offending one)
Mistake = tuple[str, str, bool]


@functools.cache
def _mistake_table(parser: Lark) -> dict[tuple[object, str], Mistake]:
    """(parser state, offending token) -> mistake, from the examples above; the token is ''
    for a match on the state alone. The first example of a state wins."""
    table: dict[tuple[object, str], Mistake] = {}
    for mistakes, after in ((_MISTAKES, False), (_MISSING_AFTER, True)):
        for expectation, hint, examples in mistakes:
            for example in examples:
                try:
                    parser.parse(example)
                except UnexpectedToken as error:
                    position = error.state.position
                    table.setdefault((position, str(error.token)), (expectation, hint, after))
                    table.setdefault((position, ""), (expectation, hint, after))
                except UnexpectedInput:  # an example that fails in the lexer teaches nothing
                    continue
    return table


def _known_mistake(error: UnexpectedToken, parser: Lark) -> Mistake | None:
    if error.state is None:
        return None
    table = _mistake_table(parser)
    position = error.state.position
    return table.get((position, str(error.token))) or table.get((position, ""))


# Keywords are listed after punctuation and names: `}` is a likelier fix than `reuse`.
_KEYWORDS = frozenset({"KERNEL", "REUSE", "ASSUME", "IN", "OUT", "INOUT", "LET", "FOR", "BY",
                       "KEEP", "PER", "ON", "TARGET", "NEEDS",
                       "SERIAL", "MMA"})


@functools.cache
def _terminal_words(parser: Lark) -> dict[str, str]:
    """How each terminal is named in a message: literal ones by their text (`{`, `..`)."""
    words = {
        "NAME": "a name", "NUMBER": "a number", "INT": "an integer",
        "REQUIREMENT": "an architecture or a hardware feature",
        "ASSIGN_OP": "an assignment (`=` `+=` `max=` `min=`)",
        "COMPARE": "a comparison (`<=` `<` `>=` `>`)",
        "$END": "the end of the file",
    }
    for terminal in parser.terminals:
        if isinstance(terminal.pattern, PatternStr) and terminal.name not in words:
            words[terminal.name] = f"`{terminal.pattern.value}`"
    return words


def _describe_expected(expected, parser: Lark) -> str:
    """`expected a name, `(` or `-``, punctuation and names before keywords."""
    words = []
    for name in sorted(expected, key=lambda name: (name in _KEYWORDS, name)):
        word = _terminal_words(parser).get(name)
        if word and word not in words:
            words.append(word)
    if not words:
        return ""
    if len(words) > 8:
        words = words[:7] + ["..."]
    if len(words) == 1:
        return "expected " + words[0]
    return "expected " + ", ".join(words[:-1]) + " or " + words[-1]


def syntax_diagnostic(error: UnexpectedInput, text: str, filename: str,
                      parser: Lark) -> Diagnostic:
    """One diagnostic for a syntax error of `parser` (the spec parser) on `text`."""
    if isinstance(error, UnexpectedCharacters):
        return _character_diagnostic(error, text, filename)
    token = getattr(error, "token", None)
    expected = set(getattr(error, "expected", None) or ())
    mistake = _known_mistake(error, parser) if isinstance(error, UnexpectedToken) else None
    if isinstance(error, UnexpectedEOF) or token is None or token.type == "$END":
        return _end_of_file_diagnostic(text, filename, expected, mistake, parser)
    misread = _misread_operator(token, text, filename)
    if misread is not None:
        return misread
    width = max(1, len(str(token)))
    span = ast.Span(filename, token.line, token.column, token.line, token.column + width)
    misspelt = _misspelt_keyword(error, mistake)
    if misspelt is not None:
        return _misspelt_diagnostic(misspelt, token, filename)
    if mistake is not None:
        expectation, hint, after = mistake
        found = _token_phrase(token)
        previous = _previous_token(error) if after else None
        if previous is not None:  # where the missing name belongs, just after `target`
            line, column = previous.end_line, previous.end_column
            span = ast.Span(filename, line, column, line, column + 1)
            if token.line != line:
                found += f" at line {token.line}"
        return Diagnostic(span, f"{expectation}, found {found}", hint,
                          code=Code.UNEXPECTED_TOKEN)
    return Diagnostic(span, f"unexpected {_token_phrase(token)}",
                      _describe_expected(expected, parser) or None, code=Code.UNEXPECTED_TOKEN)


# the words that open a statement or a declaration: a name the parser took for an assignment's
# target and then found another name after (`kepp A in shared`) may be one of them misspelt
_STATEMENT_KEYWORDS = ("assume", "for", "in", "inout", "keep", "let", "mma", "needs", "out",
                       "reuse", "serial", "target")
_ASSIGNMENT = _MISTAKES[-1][0]


def _misspelt_keyword(error: UnexpectedInput, mistake: Mistake | None
                      ) -> tuple[Token, str] | None:
    """The name just taken and the keyword it likely misspells, where the parser wanted an
    assignment after a statement's first name and that name is three letters or more."""
    if mistake is None or mistake[0] != _ASSIGNMENT:
        return None
    previous = _previous_token(error)
    if previous is None or previous.type != "NAME" or len(str(previous)) < 3:
        return None
    word = str(previous)
    match = closest(word, _STATEMENT_KEYWORDS)
    return (previous, match) if match is not None and match != word else None


def _misspelt_diagnostic(misspelt: tuple[Token, str], token: Token,
                         filename: str) -> Diagnostic:
    previous, keyword = misspelt
    line, column = previous.line, previous.column
    span = ast.Span(filename, line, column, line, column + len(str(previous)))
    return Diagnostic(span, f"`{previous}` is not a keyword; found {_token_phrase(token)} "
                            "after it", f"did you mean `{keyword}`?", code=Code.UNEXPECTED_TOKEN)


def _previous_token(error: UnexpectedInput) -> Token | None:
    """The last token the parser took before the offending one, where it has one."""
    state = getattr(error, "state", None)
    stack = getattr(state, "value_stack", None) or ()
    previous = stack[-1] if stack else None
    if isinstance(previous, Token) and previous.end_line and previous.end_column:
        return previous
    return None


def _misread_operator(token: Token, text: str, filename: str) -> Diagnostic | None:
    """Operators from other languages that lex as two tokens here: `*=`, `//`, `==`."""
    position = token.start_pos
    pair = text[position:position + 2] if position is not None else ""
    span = ast.Span(filename, token.line, token.column, token.line, token.column + 2)
    if pair in ("*=", "-=", "/="):
        return Diagnostic(span, f"`{pair}` is not an assignment operator",
                          "assign with `=`, `+=`, `max=` or `min=`: "
                          f"`x = x {pair[0]} y` for `x {pair} y`", code=Code.FOREIGN_OPERATOR)
    if pair == "//" or (str(token) == "/" and text[position - 1:position] == "/"):
        if pair != "//":  # the parser took the first `/` as a division
            span = ast.Span(filename, token.line, token.column - 1, token.line, token.column + 1)
        return Diagnostic(span, "`//` is not an operator", "comments start with `#`",
                          code=Code.FOREIGN_OPERATOR)
    return None


def _character_diagnostic(error: UnexpectedCharacters, text: str, filename: str) -> Diagnostic:
    position = error.pos_in_stream
    line, column = error.line, error.column
    char = text[position] if position < len(text) else ""
    if char == "." and text[max(0, position - 2):position] == "..":
        # `0...n`: the lexer took `..` and stumbled on the third dot; point at all three
        span = ast.Span(filename, line, column - 2, line, column + 1)
        return Diagnostic(span, "`...` is not a range", "a range is written `lo..hi`, two dots",
                          code=Code.FOREIGN_OPERATOR)
    span = ast.Span(filename, line, column, line, column + 1)
    if char.isdigit() or char.isnumeric():
        hint = f"numbers are written with ASCII digits 0-9; {char} is not one"
    elif char.isalpha():
        hint = "names are ASCII: letters, digits and `_`, not starting with a digit"
    else:
        hint = ("the language has `+ - * /`, calls like `exp(x)`, `x[i]` and `lo..hi`; "
                "comments start with `#`")
    return Diagnostic(span, f"unexpected character {_character_phrase(char)}", hint,
                      code=Code.UNEXPECTED_CHARACTER)


def _character_phrase(char: str) -> str:
    if char.isprintable() and not char.isspace():
        return f"`{char}`"
    return f"U+{ord(char):04X}" if char else "end of text"


def _end_of_file_diagnostic(text: str, filename: str, expected,
                            mistake: Mistake | None, parser: Lark) -> Diagnostic:
    line, column = _end_position(text)
    span = ast.Span(filename, line, column, line, column + 1)
    message, hint = "unexpected end of file", _describe_expected(expected, parser) or None
    if mistake is not None and "RBRACE" not in expected:  # the text stops mid-statement
        message, hint = f"{mistake[0]}, found the end of the file", mistake[1]
    unclosed = _innermost_unclosed(text)
    if unclosed is not None:
        bracket, open_line, open_column = unclosed
        closer = {"{": "}", "(": ")", "[": "]"}[bracket]
        hint = (f"the `{bracket}` at line {open_line}, column {open_column} is never closed: "
                f"add a `{closer}`")
    return Diagnostic(span, message, hint, code=Code.UNEXPECTED_END)


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
    if token.type in ("NAME", "REQUIREMENT"):
        return f"name `{token}`"
    if token.type in ("NUMBER", "INT"):
        return f"number `{shorten(str(token))}`"
    return f"`{token}`"


def shorten(text: str) -> str:
    return text if len(text) <= 20 else text[:8] + "..." + text[-8:]
