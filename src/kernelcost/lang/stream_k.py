"""Stream-K as a parallel header declares it: `stream_k K0 = W` runs the k-loop K0 of every
output tile as one stream of MAC-loop iterations (tiles x k-steps), spread evenly over W
persistent workers; `stream_k K0 = persistent` takes one worker for every block the machine
holds at once (SMs x blocks resident per SM), as CUTLASS's sm90 stream-K scheduler launches
one wave of persistent blocks (`include/cutlass/gemm/kernel/tile_scheduler_params.h`,
`get_num_sk_units`, NVIDIA/cutlass commit 7107b05535f8977f5ecb9d01ee203205b1fd9bc4).

    for i0 in 0..M by TM, j0 in 0..N by TN parallel(threads = 384, stream_k k0 = persistent) {
        for k0 in 0..K by TK { ... }
        epilogue
    }

The tree stays as written: the grid is the data-parallel grid of output tiles, whose blocks
the counting sizes as it does without the setting; the schedule (which worker runs which
iterations, the partial tiles' fix-up) is the machine's business (gpu.stream_split), since the
workers' default depends on the machine. The k-loop must be a sequential loop directly
inside the header, and a header splits its k-loop one way: `split_k` beside it is refused
(KC228 at the setting)."""

from __future__ import annotations

import sympy

from ..base import tree as ast
from ..base.errors import Code, Diagnostic
from ..base.records import record

OPTION = "stream_k"  # the header setting's name
PERSISTENT = "persistent"  # the value that takes the machine's own worker count


@record
class StreamK:
    """A header's stream-K: its k-loop and its workers."""

    axis: str  # the k-loop's iterator
    iterations: sympy.Expr  # k-steps of one output tile: (hi - lo) / step
    workers: sympy.Expr | None  # persistent workers; None: SMs x blocks resident per SM


def read_stream_k(header: ast.For, size_expr) -> tuple[StreamK | None, list[Diagnostic]]:
    """The stream-K the header's loop `header` declares (None without the setting), or the
    diagnostics that refuse it. `size_expr(expr, what)`: a size expression in sympy, None
    where it reported."""
    assert header.parallel is not None  # the first loop of a parallel header
    options = {option.name.id: option for option in header.parallel.options}
    option = options.get(OPTION)
    if option is None or option.axis is None:  # the grid's reader refuses a lone setting
        return None, []
    if "split_k" in options:
        return None, [Diagnostic(option.span, "`stream_k` and `split_k` split one k-loop "
                                 "two ways", "keep one: `split_k k0 = S` for S equal parts, "
                                 "each its own block, or `stream_k k0 = persistent`",
                                 code=Code.WRONG_STREAM_K)]
    loop = _k_loop(header, option.axis.id)
    if loop is None:
        return None, [Diagnostic(option.axis.span, f"`{option.axis.id}` is not a sequential "
                                 "loop directly inside the parallel header",
                                 "stream the k-loop the blocks run: `stream_k k0 = persistent` "
                                 "for `for k0 in 0..K by TK` right inside the grid",
                                 code=Code.WRONG_STREAM_K)]
    tile = ast.names_in(loop.hi, loop.lo, loop.step) & {
        outer.var for outer in ast.header_loops(header)}
    if tile:
        bound = next(expr for expr in (loop.hi, loop.lo, loop.step)
                     if expr is not None and ast.names_in(expr) & tile)
        return None, [Diagnostic(bound.span, f"the k-loop `{loop.var}` runs a number of "
                                 f"k-steps that depends on the tile (`{sorted(tile)[0]}`)",
                                 "stream-K spreads k-steps alike in every tile: bound the "
                                 "k-loop by sizes (`for k0 in 0..K by TK`), or leave "
                                 "`stream_k` out", code=Code.WRONG_STREAM_K)]
    parts = [size_expr(bound, "a k-loop bound") for bound in (loop.hi, loop.lo)]
    step = sympy.Integer(1) if loop.step is None else size_expr(loop.step, "a k-loop step")
    read, workers, diagnostics = _workers(option, size_expr)
    if parts[0] is None or parts[1] is None or step is None or not read:
        return None, diagnostics
    return StreamK(option.axis.id, (parts[0] - parts[1]) / step, workers), []


def _k_loop(header: ast.For, axis: str) -> ast.For | None:
    """The sequential loop `axis` directly inside the header's innermost loop, if one."""
    innermost = ast.header_loops(header)[-1]
    found = [stmt for stmt in innermost.body if isinstance(stmt, ast.For)
             and stmt.var == axis and stmt.parallel is None and stmt.lanes is None]
    return found[0] if len(found) == 1 else None


def _workers(option: ast.BlockOption,
             size_expr) -> tuple[bool, sympy.Expr | None, list[Diagnostic]]:
    """Whether the worker count reads, the count (None: `persistent`), and why not. A name
    that is no size is reported by `size_expr` itself."""
    value = option.value
    if isinstance(value, ast.Name) and value.id == PERSISTENT:
        return True, None, []
    workers = size_expr(value, "a worker count")
    if workers is None:
        return False, None, []
    if workers.is_positive is False or (workers.is_Number and not workers.is_Integer):
        return False, None, [Diagnostic(value.span, "a worker count is a whole number above "
                                        f"0, not {workers}", "for example `stream_k k0 = "
                                        "132`: one worker per SM of an H100 SXM, or `stream_k "
                                        "k0 = persistent`", code=Code.WRONG_STREAM_K)]
    return True, workers, []
