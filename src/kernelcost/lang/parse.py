"""Stage 1: text -> AST. The grammar is grammar/kcost.lark (shipped as package data); the
parser and its tables are generated from it (kcost_parser, written by tools/regen_parser.py).

Any text either parses or raises KcostError with a position: oversized, too deeply nested and
malformed input are all refused with a diagnostic, never with another exception."""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

from ..base import tree as ast
from ..base.errors import Code, Diagnostic, KcostError, SpecSyntaxError
from ..base.inputs import normalise, read_text
from ..base.kinds import Role
from ..base.magnitude import MAX_LITERAL_DIGITS
from ..base.watchdog import stage
from ._generated.kcost_parser import (
    Lark,
    Lark_StandAlone,
    Token,
    Transformer,
    Tree,
    UnexpectedInput,
    VisitError,
)
from .syntax_errors import shorten, syntax_diagnostic

MAX_SOURCE_BYTES = 1_000_000
# Limits, each refused with its position (docs/language.md, "Limits"). Brackets and blocks are
# counted apart: a polynomial in Horner form nests its parentheses 30 deep in real kernels,
# while loop nests are shallow. The tree bound keeps the recursive stages (the transformer,
# the checker, sympy, the oracle) well inside Python's recursion limit: they pass at 400.
MAX_NESTING = 100  # ( and [ within the text
MAX_BLOCK_NESTING = 32  # { } blocks: the kernel, loops and keep scopes
MAX_TREE_DEPTH = 300  # parse-tree levels (an unbracketed chain a + b + ... nests one a term)


@functools.cache
def grammar_text() -> str:
    """The grammar as shipped; the parser does not read it (its tables are generated)."""
    from importlib import resources

    return resources.files("kernelcost.grammar").joinpath("kcost.lark").read_text("utf-8")


@functools.cache
def _parser() -> Lark:
    # lark's stand-alone parser, generated from the grammar with its tables
    # (tools/regen_parser.py): no grammar to load and no tables to build or read at run time
    return Lark_StandAlone()


def parse_file(path: str | Path) -> ast.Kernel:
    """Read and parse a spec file; a missing, unreadable, special or non-text file is a
    KcostError (inputs.read_text)."""
    stage("reading and parsing the spec", ast.Span(str(path), 1, 1, 1, 2))
    text = read_text(str(path), MAX_SOURCE_BYTES, "spec file")
    try:
        return parse(text, str(path))
    except SpecSyntaxError as error:
        if not str(path).endswith(".py"):
            raise
        # `analyze kernel.py` said `expected kernel at the start of the spec, found import`
        kernels = re.findall(r"@triton\.jit\b[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*def\s+(\w+)",
                             text)
        hint = (f"a Python file is read as FILE.py::FUNCTION, its @triton.jit kernel: {path}::"
                f"{kernels[0] if kernels else 'FUNCTION'}")
        raise type(error)(error.code, [dataclasses.replace(d, hint=hint)
                                       for d in error.diagnostics], error.source) from None


def parse(text: str, filename: str = "<string>") -> ast.Kernel:
    """Parse the text of one spec into a Kernel, or raise KcostError with the position."""
    text = normalise(text)
    _refuse_oversized(text, filename)
    if not text.strip():
        raise SpecSyntaxError(Code.SPEC_EMPTY, Diagnostic(
            ast.Span(filename, 1, 1, 1, 2), "the spec is empty",
            "a spec is one kernel: `kernel name(n) { ... }`"), text)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as error:
        diagnostic = syntax_diagnostic(error, text, filename, _parser())
        code = diagnostic.code
        assert code is not None  # syntax_diagnostic gives each kind of mistake its code
        raise SpecSyntaxError(code, diagnostic, text) from None
    refuse_deep_tree(tree, text, filename)
    try:
        return _ToAst(filename, text).transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, KcostError):
            raise error.orig_exc from None
        raise


def _refuse_oversized(text: str, filename: str) -> None:
    if len(text) > MAX_SOURCE_BYTES:
        raise SpecSyntaxError(Code.SPEC_TOO_LONG,
            Diagnostic(
                ast.Span(filename, 1, 1, 1, 2),
                f"spec is {len(text)} characters long, more than {MAX_SOURCE_BYTES}",
                "a spec describes one kernel in a few dozen lines",
            ),
            text,
        )
    if (text.count("(") + text.count("[") <= MAX_NESTING
            and text.count("{") <= MAX_BLOCK_NESTING):
        return  # no depth can pass a limit that the whole text's count stays within
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
    raise SpecSyntaxError(Code.NESTS_TOO_DEEP, Diagnostic(span, message, hint), text)


def refuse_deep_tree(tree: Tree, text: str, filename: str, what: str = "the spec",
                     hint: str = "split a long expression with `let` locals") -> None:
    """Long operator chains (`a + b + ... + z`) nest without brackets; the tree builders and
    sympy recurse, so a chain deeper than MAX_TREE_DEPTH is refused with its position. A name
    longer than MAX_NAME_LENGTH is refused where it is first written, found in the same walk."""
    stack, long_name = [(tree, 1)], None
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise SpecSyntaxError(Code.NESTS_TOO_DEEP,
                Diagnostic(_span(filename, node.meta),
                           f"{what} nests more than {MAX_TREE_DEPTH} levels deep here", hint),
                text,
            )
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth + 1))
            elif isinstance(child, Token) and child.type == "NAME" and \
                    len(child) > ast.MAX_NAME_LENGTH and (
                        long_name is None or child.start_pos < long_name.start_pos):
                long_name = child
    if long_name is not None:
        _refuse_long_name(long_name, text, filename)


def _refuse_long_name(token: Token, text: str, filename: str) -> None:
    raise SpecSyntaxError(Code.NAME_TOO_LONG, Diagnostic(
        _token_span(filename, token),
        f"the name `{shorten(str(token))}` is {len(token):,} characters long",
        f"a name has at most {ast.MAX_NAME_LENGTH} characters; every sentence about it "
        "prints it whole"), text)


# --- syntax errors ---------------------------------------------------------------------------
#
# A syntax error is described by what the parser expected at that point. Common mistakes get a
# message of their own: each is recognised by the parser state it leaves, learnt from the
# malformed examples below (lark's UnexpectedInput.match_examples does the same, but compares
# the whole state stack, so an example would match only at the nesting depth it is written at).

def _span(filename: str, meta) -> ast.Span:
    if getattr(meta, "empty", True):
        return ast.Span(filename, 1, 1, 1, 2)
    return ast.Span(filename, meta.line, meta.column, meta.end_line, meta.end_column)


def _token_span(filename: str, token: Token) -> ast.Span:
    return ast.Span(filename, token.line, token.column, token.end_line, token.end_column)


class _ToAst(Transformer):
    """Builds AST nodes bottom-up; every node keeps the span of the text it came from. Each
    rule's method takes (meta, children), as lark's v_args(meta=True) would pass them, but
    called here: v_args builds a wrapper (functools.update_wrapper) at every method it looks
    up, one a node. No method is a terminal's, so tokens are not visited."""

    def __init__(self, filename: str, source: str):
        super().__init__(visit_tokens=False)
        self.filename = filename
        self.source = source

    def _call_userfunc(self, tree, new_children=None):
        children = tree.children if new_children is None else new_children
        try:
            method = getattr(self, tree.data)
        except AttributeError:
            return self.__default__(tree.data, children, tree.meta)
        try:
            return method(tree.meta, children)
        except Exception as error:  # noqa: BLE001 - lark's Transformer wraps it the same way
            raise VisitError(tree.data, tree, error) from error

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

    def arch_target(self, meta, children):
        (architecture,) = children
        return ast.Target(ast.Name(str(architecture), _token_span(self.filename, architecture)),
                          self._s(meta))

    def needs(self, meta, children):
        return ast.Needs(tuple(ast.Name(str(feature), _token_span(self.filename, feature))
                               for feature in children), self._s(meta))

    def mma_path(self, meta, children):
        (path,) = children
        return ast.MmaLine(ast.Name(str(path), _token_span(self.filename, path)), self._s(meta))

    def roof(self, meta, children):
        (name,) = children
        return name

    def serial(self, meta, children):
        return ast.Serial(tuple(ast.Name(str(roof), _token_span(self.filename, roof))
                                for roof in children), self._s(meta))

    def per_item(self, meta, children):
        item, count = children
        return ast.PerItem(ast.Name(str(item), _token_span(self.filename, item)), count,
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
        return Role(str(children[0]))

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
        name, dtype, shape, level, swizzle, value = children
        level_name = None if level is None else ast.Name(str(level),
                                                         _token_span(self.filename, level))
        swizzle_span = None if swizzle is None else _token_span(self.filename, swizzle)
        return ast.Let(str(name), str(dtype) if dtype is not None else None, value,
                       self._s(meta), shape or (), level_name, swizzle_span)

    def parallel(self, meta, children):
        return ast.Parallel(tuple(option for option in children if option is not None),
                            self._s(meta))

    def block_option(self, meta, children):
        name, axis, value = children
        axis_name = None if axis is None else ast.Name(str(axis), _token_span(self.filename, axis))
        return ast.BlockOption(ast.Name(str(name), _token_span(self.filename, name)), axis_name,
                               value, self._s(meta))

    def range(self, meta, children):
        var, lo, hi, step, lanes = children
        lanes_span = None if lanes is None else _token_span(self.filename, lanes)
        return (str(var), lo, hi, step, self._s(meta), lanes_span)

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
            var, lo, hi, step, span, lanes = ranges[index]
            body = (ast.For(var, lo, hi, step, body, self._s(meta) if index == 0 else span,
                            parallel, lanes),)
        return body[0]

    def keep(self, meta, children):
        *names, level, stages, body = children
        tensors = tuple(ast.Name(str(n), _token_span(self.filename, n)) for n in names)
        level_name = ast.Name(str(level), _token_span(self.filename, level))
        return ast.Keep(tensors, level_name, body, self._s(meta), stages)

    def assign(self, meta, children):
        target, op, value, unit = children
        return ast.Assign(target, str(op), value, self._s(meta), unit)

    def on_unit(self, meta, children):
        return ast.Name(str(children[0]), _token_span(self.filename, children[0]))

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
        if digits > MAX_LITERAL_DIGITS or exponent_size > len(str(MAX_LITERAL_DIGITS)) or (
            exponent and abs(int(exponent)) > MAX_LITERAL_DIGITS
        ):
            raise SpecSyntaxError(Code.NUMBER_TOO_LARGE,
                Diagnostic(_token_span(self.filename, token),
                           f"number `{shorten(str(token))}` is too large",
                           f"numbers have at most {MAX_LITERAL_DIGITS} digits and exponents "
                           f"at most {MAX_LITERAL_DIGITS}"),
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

    @staticmethod
    def _binary(op: str):
        def build(self, meta, children):
            left, right = children
            return ast.BinOp(op, left, right, self._s(meta))

        return build

    add = _binary("+")
    sub = _binary("-")
    mul = _binary("*")
    div = _binary("/")
    del _binary
