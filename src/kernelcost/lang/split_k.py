"""Split-K as a rewrite of the tree: `split_k k0 = S` in a parallel header runs the k-loop
`k0` in S parts, each its own block, as CUTLASS's parallel split-K GEMM does
(`include/cutlass/gemm/kernel/gemm_splitk_parallel.h`, NVIDIA/cutlass commit
7107b05535f8977f5ecb9d01ee203205b1fd9bc4: the grid's third dimension is the split, and
split s runs the k-range from s x gemm_k_size).

    for i0 in 0..M by TM, j0 in .. parallel(threads = 256, split_k k0 = S) {
        for k0 in 0..K by TK { ... k0 ... }
        epilogue
    }
    ->  assume TK * S | K - 0, S <= (K - 0) / TK
        for split_k0 in 0..S, i0 in 0..M by TM, j0 in .. parallel(...) {
            for k0 in 0..0 + (K - 0) / S by TK { ... k0 + split_k0 * ((K - 0) / S) ... }
            epilogue
        }

The split iterator is the grid's outermost loop (blockIdx.z, launched last). Every split
runs the same number of whole k-steps: the assumption makes S divide them, so the blocks are
equal and their footprints exact boxes (a ragged last split is not modelled: `tune` leaves
out a split that does not divide, as any broken `assume`). The body sees the k-loop's
iterator at its old values, so its accesses touch what they did. The partial tiles' fix-up
is counted with the traffic (count.spec_count), not written in the tree.

The k-loop must be a sequential loop directly inside the header; anything else is a
diagnostic at the setting."""

from __future__ import annotations

import dataclasses

from ..base import tree as ast
from ..base.errors import Code, Diagnostic

OPTION = "split_k"  # the header setting's name


def split_header(kernel: ast.Kernel) -> tuple[ast.Kernel, list[Diagnostic]]:
    """The kernel with its header's `split_k` written out (module doc), and the diagnostics
    that stop it (then the kernel unchanged). A kernel without the setting is returned as
    it is."""
    for index, item in enumerate(kernel.items):
        if isinstance(item, ast.For) and item.parallel is not None:
            option = next((o for o in item.parallel.options if o.name.id == OPTION), None)
            if option is None or option.axis is None or _not_positive(option.value):
                return kernel, []  # the grid's reader refuses a lone or non-positive one
            return _split(kernel, index, item, option)
    return kernel, []


def _split(kernel: ast.Kernel, index: int, header: ast.For,
           option: ast.BlockOption) -> tuple[ast.Kernel, list[Diagnostic]]:
    assert option.axis is not None  # as split_header checked
    innermost = ast.header_loops(header)[-1]
    found = [(at, stmt) for at, stmt in enumerate(innermost.body)
             if isinstance(stmt, ast.For) and stmt.var == option.axis.id
             and stmt.parallel is None and stmt.lanes is None]
    if len(found) != 1:
        return kernel, [Diagnostic(option.axis.span, f"`{option.axis.id}` is not a "
                                   "sequential loop directly inside the parallel header",
                                   "split the k-loop the blocks run: `split_k k0 = 4` for "
                                   "`for k0 in 0..K by TK` right inside the grid",
                                   code=Code.WRONG_PARALLEL)]
    at, loop = found[0]
    parts, span = option.value, dataclasses.replace(option.span, synthetic=True)
    iterator = _fresh(kernel, f"split_{loop.var}")
    step = loop.step if loop.step is not None else ast.Number("1", span)
    extent = ast.BinOp("-", loop.hi, loop.lo, span)
    chunk = ast.BinOp("/", extent, parts, span)
    shifted = ast.BinOp("+", ast.Name(loop.var, span),
                        ast.BinOp("*", ast.Name(iterator, span), chunk, span), span)
    body = tuple(_replaced(stmt, loop.var, shifted) for stmt in loop.body)
    split_loop = dataclasses.replace(loop, hi=ast.BinOp("+", loop.lo, chunk, span), body=body)
    inner_body = (*innermost.body[:at], split_loop, *innermost.body[at + 1:])
    rebuilt = _with_inner_body(header, innermost, inner_body)
    grid = ast.For(iterator, ast.Number("0", span), parts, None, (rebuilt,), header.span,
                   header.parallel)
    facts = ast.Assume((ast.Divides(ast.BinOp("*", step, parts, span), extent, span),
                        ast.Compare(parts, "<=", ast.BinOp("/", extent, step, span), span)),
                       span)
    items = (*kernel.items[:index], facts, grid, *kernel.items[index + 1:])
    return dataclasses.replace(kernel, items=items), []


def _not_positive(value: ast.Expr) -> bool:
    return isinstance(value, ast.Number) and not (value.text.isdigit() and int(value.text) > 0)


def _with_inner_body(loop: ast.For, innermost: ast.For, body: tuple) -> ast.For:
    """The header loop `loop` with its innermost header loop's body replaced."""
    if loop is innermost:
        return dataclasses.replace(loop, body=body)
    inner = loop.body[0]
    assert isinstance(inner, ast.For)  # a header loop's body is its next header loop
    return dataclasses.replace(loop, body=(_with_inner_body(inner, innermost, body),))


def _fresh(kernel: ast.Kernel, name: str) -> str:
    """`name`, primed with a number where the spec's text uses it already."""
    words = set(_words(kernel.source))
    candidate, number = name, 1
    while candidate in words:
        number += 1
        candidate = f"{name}_{number}"
    return candidate


def _words(text: str):
    word = []
    for char in text + " ":
        if char.isalnum() or char == "_":
            word.append(char)
        elif word:
            yield "".join(word)
            word = []


def _replaced(node, name: str, value: ast.Expr):
    """The node with every expression `Name(name)` replaced by `value`."""
    if isinstance(node, ast.Name):
        return value if node.id == name else node
    if isinstance(node, tuple):
        return tuple(_replaced(item, name, value) for item in node)
    if not dataclasses.is_dataclass(node) or isinstance(node, (type, ast.Span, ast.Parallel)):
        return node
    changes = {field.name: _replaced(getattr(node, field.name), name, value)
               for field in dataclasses.fields(node)
               if isinstance(getattr(node, field.name), tuple)
               or dataclasses.is_dataclass(getattr(node, field.name))}
    changes = {key: new for key, new in changes.items() if new is not getattr(node, key)}
    return dataclasses.replace(node, **changes) if changes else node
