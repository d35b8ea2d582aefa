"""The lanes pass, after check_decls: the thread mapping. A `lanes` loop spreads over the
threads of a block, and a `swizzle` lays out the rows of a shared array; each is checked
where the declarations pass left it (the loops it entered, the swizzled arrays it met)."""

from __future__ import annotations

from ..base import tree as ast
from ..base.errors import Code
from ..base.levels import Level
from .check_context import Context, Swizzled
from .scopes import Scope


def check_lanes(context: Context) -> None:
    for visit in context.tree:
        loop = visit.statement
        if isinstance(loop, ast.For) and loop.lanes is not None and visit.entered:
            _lanes(context, loop, loop.lanes, visit.scope)
    for array in context.swizzled:
        _swizzle(context, array)


def _lanes(context: Context, loop: ast.For, lanes: ast.Span, scope: Scope) -> None:
    """A `lanes` loop runs inside the grid, is not one of the grid's loops, and no other
    lanes loop encloses it."""
    if loop.parallel is not None:
        context.error(Code.WRONG_LANES, lanes,
                      "a loop of the parallel header cannot be a `lanes` loop",
                      "the header's loops are the grid of blocks; mark a loop inside the "
                      "block: `for j in 0..T lanes { ... }`")
    elif not scope.in_grid:
        context.error(Code.WRONG_LANES, lanes, "a `lanes` loop runs inside a thread block",
                      "put it inside the grid's loops: `for b0 in 0..n by T "
                      "parallel(threads = 256) { for i in b0..b0 + T lanes { ... } }`")
    elif scope.lanes is not None:
        context.error(Code.WRONG_LANES, lanes,
                      f"already inside the lanes loop `{scope.lanes}` (line "
                      f"{scope.iterators[scope.lanes].line})",
                      "a warp's lanes follow one loop: mark only one of the two")


def _swizzle(context: Context, array: Swizzled) -> None:
    """An XOR swizzle moves 4-byte words within rows of whole bank cycles (128 B)."""
    let, shape, element_bytes = array.let, array.shape, array.element_bytes
    assert let.swizzle is not None  # check_decls keeps only the swizzled arrays
    row_bytes = None if not shape or element_bytes is None else shape[-1] * element_bytes
    if array.level != Level.SHARED or len(shape) != 2:
        context.error(Code.WRONG_LANES, let.swizzle,
                      "`swizzle` lays out the rows of a 2-D array in shared memory",
                      f"write `let {let.name}: f32[T, 32] in shared swizzle = 0`")
    elif element_bytes is not None and element_bytes > 4:
        context.error(Code.WRONG_LANES, let.swizzle,
                      f"`swizzle` moves 4-byte words; `{let.dtype}` elements are wider",
                      "swizzle arrays of 4-byte or narrower elements")
    elif row_bytes is not None and row_bytes.is_Integer and row_bytes % 128 != 0:
        assert element_bytes is not None  # row_bytes is computed from it
        context.error(Code.WRONG_LANES, let.swizzle,
                      f"a swizzled row of {row_bytes} B is not a whole number "
                      "of 128-byte bank cycles", "make each row a multiple of 32 words "
                      f"(for `{let.dtype}`, {128 // element_bytes} elements)")
