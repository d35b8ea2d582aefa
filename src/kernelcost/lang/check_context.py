"""What the checker's passes share: the records of what a kernel declares, and the context
they run in, the kernel and its source lines, the diagnostics found so far, and the checked
tree. check_decls walks the kernel and writes the tree: every statement it reached, with the
scope that statement sees and the kernel-wide names declared before it. check_exprs,
check_lanes and check_grid read it, so that a statement is checked against what was declared
where it stands (a tensor declared after a loop is unknown inside it) and the statements the
walk did not reach (the body of a loop nested too deep) are checked by none of them."""

from __future__ import annotations

import re
from dataclasses import field

import sympy

from ..base import tree as ast
from ..base.errors import Diagnostic, ErrorCode
from ..base.kinds import Role
from ..base.records import record
from .scopes import Scope


@record
class Tensor:
    name: str
    role: Role  # in | out | inout, or local: an array declared with `let` inside the nest
    dtype: str
    element_bytes: sympy.Rational
    shape: tuple[sympy.Expr, ...]  # in the size parameters
    level: str  # home level
    span: ast.Span
    swizzled: bool = False  # a shared array whose rows are XOR-swizzled (word c at c ^ row)


@record
class ItemCount:
    """`per token = b`: one run of the kernel handles `count` items named `item`."""

    item: str  # singular, as the spec names it: token
    count: sympy.Expr  # in the size parameters
    span: ast.Span


@record(frozen=False)
class Declared:
    """The kernel-wide names at one point of the walk: sizes, tensors (local arrays among
    them) and every register local whatever its scope, with where each was first declared.
    They only grow: a name is added once, and a local declared again keeps its type."""

    sizes: dict[str, sympy.Expr] = field(default_factory=dict)
    tensors: dict[str, Tensor] = field(default_factory=dict)
    locals: dict[str, str] = field(default_factory=dict)
    local_spans: dict[str, ast.Span] = field(default_factory=dict)

    def counts(self) -> tuple[int, int, int, int]:
        return len(self.sizes), len(self.tensors), len(self.locals), len(self.local_spans)

    def copy(self) -> Declared:
        return Declared(dict(self.sizes), dict(self.tensors), dict(self.locals),
                        dict(self.local_spans))


@record
class Visit:
    """One statement of the checked tree, as the declarations pass reached it."""

    statement: ast.Statement
    scope: Scope  # what the statement sees, before any name it declares itself
    declared: Declared  # the kernel-wide names declared before it
    entered: bool = True  # False for a loop nested too deep: its body and lanes go unchecked


@record
class Swizzled:
    """A local array declared `swizzle`, with the level, shape and element size its
    declaration gave (None where the type is unknown), for the lanes pass to check."""

    let: ast.Let
    level: str
    shape: tuple[sympy.Expr, ...]
    element_bytes: sympy.Rational | None


class Context:
    """The state the passes share. Each pass reads what the passes before it wrote and adds
    its diagnostics; none of them raises, so that one run reports every problem."""

    def __init__(self, kernel: ast.Kernel):
        self.kernel = kernel
        self.lines = (kernel.source or "").split("\n")  # where names stand in declarations
        self.diagnostics: list[Diagnostic] = []
        self.declared = Declared()  # as it stands now; grows while check_decls walks
        self.tree: list[Visit] = []
        self.swizzled: list[Swizzled] = []
        self.grid_header: ast.Parallel | None = None  # the first parallel header reached
        self._snapshot: Declared | None = None

    def error(self, code: ErrorCode, span: ast.Span | None, message: str,
              hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(span, message, hint, code))

    def reach(self, statement: ast.Statement, scope: Scope, entered: bool = True) -> None:
        """Add a statement to the checked tree, with what it sees now."""
        self.tree.append(Visit(statement, scope.child(), self._declared_now(), entered))

    def _declared_now(self) -> Declared:
        # a copy only when a name was added since the last one: most statements declare
        # none, and since names only grow, equal counts mean equal names
        if self._snapshot is None or self._snapshot.counts() != self.declared.counts():
            self._snapshot = self.declared.copy()
        return self._snapshot

    def name_span(self, span: ast.Span, name: str) -> ast.Span:
        """The span of `name` inside a declaration's span (the tree keeps only the whole
        declaration), so that the caret sits under the name and not under the keyword."""
        if not 1 <= span.line <= len(self.lines):
            return span
        line = self.lines[span.line - 1]
        keyword = re.match(r"(in|out|inout|let|for)\b", line[span.column - 1:])
        start = _word_at(line, name, span.column - 1 + (keyword.end() if keyword else 0))
        if start < 0:
            return span
        return ast.Span(span.file, span.line, start + 1, span.line, start + len(name) + 1)

    def source_text(self, span: ast.Span) -> str:
        if span.line != span.end_line:
            return "..."
        line = self.lines[span.line - 1]
        return line[span.column - 1:span.end_column - 1]


_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789")


def _word_at(line: str, name: str, start: int) -> int:
    """Where `name` first stands as a whole word in line from `start` (no letter, digit or
    underscore on either side), or -1: a regular expression compiled for each name cost
    more than the checking of a spec's names."""
    position = line.find(name, start)
    while position >= 0:
        end = position + len(name)
        if ((position == 0 or line[position - 1] not in _WORD)
                and (end == len(line) or line[end] not in _WORD)):
            return position
        position = line.find(name, position + 1)
    return -1
