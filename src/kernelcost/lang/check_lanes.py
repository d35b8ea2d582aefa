"""The checks of the thread mapping: `lanes` loops, and shared arrays in a swizzled layout.
A mixin of the checker (check._Checker), which provides `error` and the grid's header."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import tree as ast
from ..base.errors import Code
from ..base.levels import Level

if TYPE_CHECKING:
    from ..base.errors import ErrorCode


class LaneChecks:
    if TYPE_CHECKING:  # check._Checker provides it
        def error(self, code: ErrorCode, span: ast.Span | None, message: str,
                  hint: str | None = None) -> None: ...

    def _lanes(self, loop: ast.For, scope, inner) -> None:
        """A `lanes` loop spreads over the threads of a block, so it runs inside the grid,
        is not one of the grid's loops, and no other lanes loop encloses it."""
        if loop.parallel is not None:
            self.error(Code.WRONG_LANES, loop.lanes,
                       "a loop of the parallel header cannot be a `lanes` loop",
                       "the header's loops are the grid of blocks; mark a loop inside the "
                       "block: `for j in 0..T lanes { ... }`")
        elif not scope.in_grid:
            self.error(Code.WRONG_LANES, loop.lanes, "a `lanes` loop runs inside a thread block",
                       "put it inside the grid's loops: `for b0 in 0..n by T "
                       "parallel(threads = 256) { for i in b0..b0 + T lanes { ... } }`")
        elif scope.lanes is not None:
            self.error(Code.WRONG_LANES, loop.lanes,
                       f"already inside the lanes loop `{scope.lanes}` (line "
                       f"{scope.iterators[scope.lanes].line})",
                       "a warp's lanes follow one loop: mark only one of the two")
        inner.lanes = loop.var

    def _swizzle(self, let: ast.Let, level: str, shape, element_bytes) -> None:
        """An XOR swizzle moves 4-byte words within rows of whole bank cycles (128 B)."""
        row_bytes = None if not shape or element_bytes is None else shape[-1] * element_bytes
        if level != Level.SHARED or len(shape) != 2:
            self.error(Code.WRONG_LANES, let.swizzle,
                       "`swizzle` lays out the rows of a 2-D array in shared memory",
                       f"write `let {let.name}: f32[T, 32] in shared swizzle = 0`")
        elif element_bytes is not None and element_bytes > 4:
            self.error(Code.WRONG_LANES, let.swizzle,
                       f"`swizzle` moves 4-byte words; `{let.dtype}` elements are wider",
                       "swizzle arrays of 4-byte or narrower elements")
        elif row_bytes is not None and row_bytes.is_Integer and row_bytes % 128 != 0:
            self.error(Code.WRONG_LANES, let.swizzle,
                       f"a swizzled row of {row_bytes} B is not a whole number "
                       "of 128-byte bank cycles", "make each row a multiple of 32 words "
                       f"(for `{let.dtype}`, {128 // element_bytes} elements)")
