"""The grid of a parallel spec, as the checker reads it from a `parallel(...)` loop header.

    for i0 in 0..M by TM, j0 in 0..N by TN parallel(threads = 256, registers = 168,
                                                    cluster i0 = 2, raster = grouped(8)) { }

The header's loops are the grid: each point runs as one thread block. The settings:
- `threads` (required): threads per block;
- `registers`: registers per thread (occupancy counts them when given);
- `cluster AXIS = c`: blocks in clusters of c consecutive blocks along the grid iterator AXIS
  (Hopper thread-block clusters); a tile that every block of a cluster fills alike is read
  from L2 once for the cluster (multicast);
- `raster`: the order blocks start in, `row` (the last iterator fastest, the default),
  `column` (the first fastest) or `grouped(G)` (G rows of blocks at a time, column-major
  inside the group, as Triton's grouped ordering);
- `split_k K0 = S`: the sequential loop K0 right inside the header runs in S parts, each its
  own block (split-K; lang.split_k writes it out before the checker sees the tree: the grid
  then holds the split iterator, and `split` here is S);
- `stream_k K0 = W`: the k-loop K0's iterations over all output tiles, spread evenly over W
  persistent workers (`persistent`: one per resident block); lang.stream_k reads it into
  `stream_k`, and the grid stays the data-parallel grid of tiles;
- `instructions`: the warp instructions one block issues, as its compiled code gives them
  (a count of its SASS along the path its warps take), read by the issue effect only;
- `width T = b`: a thread's global loads and stores of the tensor T are b bytes each (1 to
  16: `ld.global.v4.b32` is the widest), issued one at a time, each awaited before the next
  (a loop the compiler does not unroll), so a block reading in passes keeps in flight one
  load of each tensor the pass reads; one setting a tensor. Unstated, a load is the
  element, or a vector of up to 16 B where a thread reads several elements of T, and as
  many are in flight as it reads (gpu.effects.latency)."""

from __future__ import annotations

import sympy

from ..base import tree as ast
from ..base.errors import Code, Diagnostic, did_you_mean
from ..base.kinds import Raster
from ..base.levels import Level
from ..base.records import record
from .stream_k import StreamK

OPTIONS = ("threads", Level.REGISTERS, "instructions", "cluster", "raster", "split_k",
           "stream_k", "width")
# the settings that name a loop or a tensor
_WITH_AXIS = ("cluster", "split_k", "stream_k", "width")
WIDEST_B = 16  # the widest load one thread issues (ld.global.v4.b32, LDG.128)


@record
class Grid:
    iterators: tuple[str, ...]  # the grid's loops, header order (outermost first)
    threads: sympy.Expr  # threads per block
    registers: sympy.Expr | None  # registers per thread, when given
    cluster_axis: str | None  # the grid iterator clusters run along
    cluster_size: sympy.Expr  # blocks per cluster (1: no clusters)
    raster: Raster
    group: sympy.Expr | None  # rows of blocks per group, for `grouped`
    span: ast.Span
    split: sympy.Expr = sympy.Integer(1)  # parts of the k-loop, each a block (1: no split-K)
    split_iterator: str | None = None  # the grid iterator over the parts (the outermost)
    widths: tuple[tuple[str, sympy.Expr], ...] = ()  # (tensor, bytes of one load), as stated
    instructions: sympy.Expr | None = None  # warp instructions one block issues, when given
    stream_k: StreamK | None = None  # the header's stream-K (lang.stream_k), if any


def header_iterators(loop: ast.For) -> tuple[str, ...]:
    """The iterators of the parallel header that starts at `loop` (its loops share one
    Parallel object), outermost first."""
    return tuple(header.var for header in ast.header_loops(loop))


def read_grid(parallel: ast.Parallel, iterators: tuple[str, ...], size_expr,
              tensors: tuple[str, ...] = ()) -> tuple[Grid | None, list[Diagnostic]]:
    """The Grid a header's settings describe, or None with the diagnostics that explain why.
    `size_expr(expr, what)` turns a size expression into sympy (None when it reported);
    `tensors`: the global tensors a `width` may name."""
    diagnostics: list[Diagnostic] = []
    values: dict[str, ast.BlockOption] = {}
    widths: list[tuple[str, sympy.Expr]] = []
    for option in parallel.options:
        name = option.name.id
        if name == "width" and option.axis is not None:
            _width(option, tensors, widths, size_expr, diagnostics)
            continue
        if name not in OPTIONS:
            diagnostics.append(Diagnostic(option.name.span, f"unknown block setting `{name}`",
                                          did_you_mean(name, OPTIONS)
                                          or "settings: " + ", ".join(OPTIONS),
                                          code=Code.WRONG_PARALLEL))
        elif name in values:
            diagnostics.append(Diagnostic(option.name.span, f"`{name}` is set twice",
                                          "keep one of them", code=Code.WRONG_PARALLEL))
        elif (option.axis is not None) != (name in _WITH_AXIS):
            diagnostics.append(_axis_misplaced(option))
        else:
            values[name] = option
    if "threads" not in values and not diagnostics:  # a misspelt `thread` says it already
        diagnostics.append(Diagnostic(parallel.span, "a parallel header needs `threads`",
                                      "write `parallel(threads = 256)`: the threads of one "
                                      "block, which occupancy counts", code=Code.WRONG_PARALLEL))
    threads = _size(values.get("threads"), size_expr, "a thread count", diagnostics)
    registers = _size(values.get(Level.REGISTERS), size_expr, "a register count", diagnostics)
    instructions = _size(values.get("instructions"), size_expr, "an instruction count",
                         diagnostics)
    cluster_axis, cluster_size = None, sympy.Integer(1)
    if "cluster" in values:
        option = values["cluster"]
        assert option.axis is not None  # a cluster without its axis is not among the values
        if option.axis.id not in iterators:
            diagnostics.append(Diagnostic(option.axis.span,
                                          f"`{option.axis.id}` is not an iterator of this "
                                          "parallel header",
                                          "clusters run along one of " + ", ".join(iterators),
                                          code=Code.WRONG_PARALLEL))
        cluster_axis = option.axis.id
        cluster_size = _size(option, size_expr, "a cluster size",
                             diagnostics) or sympy.Integer(1)
    raster, group = _raster(values.get("raster"), size_expr, diagnostics)
    split = _size(values.get("split_k"), size_expr, "a split count",
                  diagnostics) or sympy.Integer(1)
    if diagnostics or threads is None:
        return None, diagnostics
    return Grid(iterators, threads, registers, cluster_axis, cluster_size, raster, group,
                parallel.span, split, iterators[0] if "split_k" in values else None,
                tuple(widths), instructions), diagnostics


def _width(option: ast.BlockOption, tensors: tuple[str, ...],
           widths: list[tuple[str, sympy.Expr]], size_expr,
           diagnostics: list[Diagnostic]) -> None:
    """`width T = b`: T a global tensor not given a width before, b one of 1, 2, 4, 8, 16
    bytes (a load PTX has)."""
    assert option.axis is not None  # read_grid passes a width with its tensor only
    tensor = option.axis.id
    if tensor not in tensors:
        diagnostics.append(Diagnostic(option.axis.span, f"`{tensor}` is not a global tensor "
                                      "of this kernel", did_you_mean(tensor, tensors)
                                      or "a width is the bytes of one load of a tensor the "
                                      "kernel declares: `width x = 8`",
                                      code=Code.WRONG_PARALLEL))
        return
    if any(named == tensor for named, _ in widths):
        diagnostics.append(Diagnostic(option.axis.span, f"the width of `{tensor}` is set twice",
                                      "keep one of them", code=Code.WRONG_PARALLEL))
        return
    value = size_expr(option.value, "a width in bytes")
    if value is None:
        return
    if not (value.is_Integer and 1 <= value <= WIDEST_B and int(value) & (int(value) - 1) == 0):
        diagnostics.append(Diagnostic(option.value.span, f"a width is 1, 2, 4, 8 or {WIDEST_B} "
                                      f"bytes, not {value}", "the sizes of PTX's loads (ld.b8 "
                                      "to ld.v4.b32); for example `width x = 8`: four bf16 "
                                      "elements a load", code=Code.WRONG_PARALLEL))
        return
    widths.append((tensor, value))


def _axis_misplaced(option: ast.BlockOption) -> Diagnostic:
    if option.name.id == "cluster":
        return Diagnostic(option.span, "`cluster` needs the iterator it runs along",
                          "write `cluster i0 = 2`", code=Code.WRONG_PARALLEL)
    if option.name.id == "width":
        return Diagnostic(option.span, "`width` needs the tensor it is of",
                          "write `width x = 8`: a thread's loads of x are 8 bytes each",
                          code=Code.WRONG_PARALLEL)
    if option.name.id in ("split_k", "stream_k"):
        example = "split_k k0 = 4" if option.name.id == "split_k" else \
            "stream_k k0 = persistent"
        return Diagnostic(option.span, f"`{option.name.id}` needs the loop it splits",
                          f"write `{example}` for the k-loop `for k0 in 0..K by TK`",
                          code=Code.WRONG_PARALLEL)
    assert option.axis is not None  # the other setting given an iterator
    return Diagnostic(option.axis.span, f"`{option.name.id}` takes no iterator",
                      f"write `{option.name.id} = ...`", code=Code.WRONG_PARALLEL)


def _size(option: ast.BlockOption | None, size_expr, what: str,
          diagnostics: list[Diagnostic]) -> sympy.Expr | None:
    """The option's value as a size; a diagnostic where it is never positive (`threads =
    0` made the occupancy divide by zero)."""
    if option is None:
        return None
    value = size_expr(option.value, what)
    if value is not None and value.is_positive is False:
        diagnostics.append(Diagnostic(option.value.span, f"{what} must be positive, not "
                                      f"{value}", f"for example `{option.name.id} = 128`",
                                      code=Code.NOT_POSITIVE))
    return value


def _raster(option: ast.BlockOption | None, size_expr, diagnostics) -> tuple[Raster, object]:
    if option is None:
        return Raster.ROW, None
    value = option.value
    if isinstance(value, ast.Name) and value.id in (Raster.ROW, Raster.COLUMN):
        return Raster(value.id), None
    if isinstance(value, ast.Call) and value.func == Raster.GROUPED and len(value.args) == 1:
        group = size_expr(value.args[0], "a group size")
        if group is not None and group.is_positive is False:
            diagnostics.append(Diagnostic(value.args[0].span, f"a group size must be positive, "
                                          f"not {group}", "for example `raster = grouped(8)`",
                                          code=Code.NOT_POSITIVE))
        return Raster.GROUPED, group
    diagnostics.append(Diagnostic(value.span, "unknown raster order",
                                  "write `raster = row`, `raster = column` or "
                                  "`raster = grouped(8)`", code=Code.WRONG_PARALLEL))
    return Raster.ROW, None
