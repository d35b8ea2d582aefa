"""The grid of a Triton kernel: `tl.program_id(axis)` and the launch grid, as the parallel
header of the spec.

The grid comes, first to last, from a grid-stride loop in the kernel (`for row in
tl.range(tl.program_id(0), n_rows, tl.num_programs(0))`: every row once, whatever the number
of programs, so the spec takes a block a row), from `--grid` (entries separated by `;`, each
a Python expression over the kernel's parameters), or from the file's `kernel[grid](...)`.
An axis of `cdiv(X, S)` programs runs in the spec as `for pid_start in 0..X by S`, the
program id being pid_start / S, so that `pid * S + tl.arange(0, S)` is `pid_start + lane`;
any other extent E as `for pid in 0..E`."""

from __future__ import annotations

import ast

import sympy

from ..base.errors import Code
from ..base.records import record
from .triton_source import Source, dotted, host_names, import_error
from .triton_values import spec_name, symbol

MAX_GRID_AXES = 3  # CUDA grids and tl.program_id(axis): axes 0, 1, 2
CDIV = ("triton.cdiv", "tl.cdiv", "cdiv")


@record
class Axis:
    iterator: str  # the spec's grid iterator
    program_id: sympy.Expr  # the program id in terms of it: pid_start / S, or pid
    low: sympy.Expr
    high: sympy.Expr
    step: sympy.Expr
    origin: str  # where the extent came from, for the spec's comment
    parts: tuple[Axis, ...] = ()  # a 1-D grid of cdiv(X, S) * cdiv(Y, T) programs, decoded
    raster: str | None = None  # the order its programs run in: `grouped(G)`


@record
class GridStride:
    """A loop `for NAME in range(program_id(axis), high, num_programs(axis))`."""

    loop: ast.For
    axis: int
    high: ast.expr


def program_names(function: ast.FunctionDef) -> dict[str, tuple[str, int]]:
    """Names bound at the top of the kernel to `tl.program_id(k)` or `tl.num_programs(k)`."""
    found = {}
    for statement in function.body:
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Call)):
            call = dotted(statement.value.func).rsplit(".", 1)[-1]
            axis = _axis_argument(statement.value)
            if call in ("program_id", "num_programs") and axis is not None:
                found[statement.targets[0].id] = (call, axis)
    return found


def _axis_argument(call: ast.Call) -> int | None:
    values = [*call.args, *(k.value for k in call.keywords if k.arg == "axis")]
    if len(values) == 1 and isinstance(values[0], ast.Constant) and type(values[0].value) is int:
        return values[0].value if 0 <= values[0].value <= 2 else None
    return None


def grid_strides(function: ast.FunctionDef) -> list[GridStride]:
    names = program_names(function)
    found = []
    for statement in function.body:
        if not (isinstance(statement, ast.For) and isinstance(statement.iter, ast.Call)):
            continue
        call = statement.iter
        if dotted(call.func) not in ("range", "tl.range", "tl.static_range") or len(
                call.args) != 3:
            continue
        start, high, step = call.args
        first = names.get(start.id) if isinstance(start, ast.Name) else None
        stride = names.get(step.id) if isinstance(step, ast.Name) else None
        if (first and stride and first[0] == "program_id" and stride[0] == "num_programs"
                and first[1] == stride[1]):
            found.append(GridStride(statement, first[1], high))
    return found


def plan_grid(source: Source, grid_option: str | None) -> dict[int, Axis]:
    """Each grid axis the kernel runs over, with its spec iterator and extent."""
    names = {axis: name for name, (call, axis) in program_names(source.function).items()
             if call == "program_id"}
    axes: dict[int, Axis] = {}
    for stride in grid_strides(source.function):
        target = stride.loop.target
        name = target.id if isinstance(target, ast.Name) else f"pid{stride.axis}"
        high = grid_expr(source, stride.high, None, {})
        axes[stride.axis] = Axis(name, symbol(name), sympy.Integer(0), high, sympy.Integer(1),
                                 f"the grid-stride loop, line {stride.loop.lineno}")
    entries, meta, origin = _grid_entries(source, grid_option)
    mapping = host_names(source) if grid_option is None else {}
    where = source if grid_option is None else _option_source(source, grid_option)
    _refuse_extra_axes(where, entries, origin)
    for axis, entry in enumerate(entries):
        if axis in axes:
            continue
        factors = _cdiv_factors(entry)
        if factors:  # one program a tile, its id decoded into the tile's row and column
            parts = tuple(_axis(_letter(where, f, meta, mapping),
                                grid_expr(where, f, meta, mapping), origin) for f in factors)
            axes[axis] = Axis(f"pid{axis}", symbol(f"pid{axis}"), sympy.Integer(0),
                              sympy.Integer(1), sympy.Integer(1), origin, parts,
                              _raster(source))
            continue
        extent = grid_expr(where, entry, meta, mapping)
        if extent == 1 and axis > 0:
            continue  # `(n, 1, 1)`: the trailing axes of one program
        name = names.get(axis, f"pid{axis}")
        axes[axis] = _axis(name, extent, origin)
    return axes


def _cdiv_factors(entry: ast.expr) -> tuple[ast.expr, ...]:
    """`cdiv(M, BM) * cdiv(N, BN)`: its two factors, in the order written."""
    if isinstance(entry, ast.BinOp) and isinstance(entry.op, ast.Mult):
        factors = (entry.left, entry.right)
        if all(isinstance(f, ast.Call) and dotted(f.func) in CDIV for f in factors):
            return factors
    return ()


def _letter(where, factor: ast.expr, meta: str | None, mapping: dict[str, str]) -> str:
    """A decoded axis's iterator is named after what it tiles: `m` for cdiv(M, BM)."""
    assert isinstance(factor, ast.Call)
    tiled = grid_expr(where, factor.args[0], meta, mapping)
    return str(tiled).lower() if tiled.is_Symbol else "tile"


def _raster(source: Source) -> str | None:
    """Triton's grouped ordering: a `min(..., G)` of a meta-parameter where the program id is
    decoded (the matmul tutorial's GROUP_SIZE_M)."""
    constexpr = {p.name for p in source.params if p.constexpr}
    for statement in source.function.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and dotted(node.func) == "min":
                for argument in node.args:
                    if isinstance(argument, ast.Name) and argument.id in constexpr:
                        return f"grouped({argument.id})"
    return None


def _axis(name: str, extent: sympy.Expr, origin: str) -> Axis:
    if isinstance(extent, sympy.ceiling):
        numerator, denominator = sympy.fraction(sympy.together(extent.args[0]))
        if denominator != 1:
            start = symbol(f"{name}_start")
            return Axis(f"{name}_start", start / denominator, sympy.Integer(0), numerator,
                        denominator, origin)
    return Axis(name, symbol(name), sympy.Integer(0), extent, sympy.Integer(1), origin)


def _grid_entries(source: Source, grid_option: str | None
                  ) -> tuple[tuple[ast.expr, ...], str | None, str]:
    if grid_option is not None:
        option = _option_source(source, grid_option)
        entries, column = [], 0
        for part in grid_option.split(";"):
            start, column = column + len(part) - len(part.lstrip()), column + len(part) + 1
            try:
                entries.append(_shifted(ast.parse(part.strip(), mode="eval").body, start))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                raise import_error(Code.BAD_OPTION_VALUE, option, None,
                                   f"--grid entry `{part.strip()}` is not a Python expression",
                                   "--grid 'triton.cdiv(n_elements, BLOCK_SIZE)' (axes "
                                   "separated by `;`)") from None
        return tuple(entries), None, "--grid"
    if source.launch is None:
        return (), None, ""
    line = source.launch.call.lineno
    return source.launch.grid, source.launch.meta, f"the launch, line {line}"


def _shifted(node: ast.expr, columns: int) -> ast.expr:
    """An entry parsed alone, placed where it stands in --grid: the caret of an error in
    `n;foo(n)` fell under `n;foo(` at column 1."""
    for each in ast.walk(node):
        if isinstance(each, (ast.expr, ast.keyword)):
            each.col_offset += columns
            if each.end_col_offset is not None:
                each.end_col_offset += columns
    return node


def _refuse_extra_axes(where, entries: tuple[ast.expr, ...], origin: str) -> None:
    """A Triton grid has at most three axes (tl.program_id(axis) takes 0, 1 or 2): a fourth
    entry became a fourth parallel loop, multiplying every count by its extent."""
    if len(entries) <= MAX_GRID_AXES:
        return
    message = (f"{origin}: a grid of {len(entries)} axes, where a Triton grid has at most "
               f"{MAX_GRID_AXES}")
    hint = "one extent an axis, for axes 0, 1 and 2"
    if origin == "--grid":
        raise import_error(Code.BAD_OPTION_VALUE, where, entries[MAX_GRID_AXES], message,
                           hint + ", separated by `;`")
    raise import_error(Code.TRITON_NO_GRID, where, entries[MAX_GRID_AXES], message,
                       hint + ": a tuple of at most three")


def _option_source(source: Source, grid_option: str) -> tuple[str, str]:
    return ("--grid", grid_option)


def grid_expr(source: Source | tuple[str, str], node: ast.expr, meta: str | None,
              mapping: dict[str, str]) -> sympy.Expr:
    """A grid entry as a size expression: integers, names (host names mapped to the kernel
    parameters they are passed to), `meta['NAME']`, + - * and cdiv."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        if node.value <= 0:
            raise import_error(Code.TRITON_UNSUPPORTED, source, node,
                               f"a grid extent of {node.value}: the launch runs no program",
                               "an extent counts programs: a positive integer or a size "
                               "expression")
        return sympy.Integer(node.value)
    if isinstance(node, ast.Name):
        return symbol(spec_name(mapping.get(node.id, node.id)))
    if (isinstance(node, ast.Subscript) and meta is not None and isinstance(node.value, ast.Name)
            and node.value.id == meta and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str) and node.slice.value.isidentifier()):
        return symbol(spec_name(node.slice.value))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left = grid_expr(source, node.left, meta, mapping)
        right = grid_expr(source, node.right, meta, mapping)
        if isinstance(node.op, ast.Add):
            return left + right
        return left - right if isinstance(node.op, ast.Sub) else left * right
    if (isinstance(node, ast.Call) and dotted(node.func) in CDIV and len(node.args) == 2
            and not node.keywords):
        numerator = grid_expr(source, node.args[0], meta, mapping)
        return sympy.ceiling(numerator / grid_expr(source, node.args[1], meta, mapping))
    raise import_error(Code.TRITON_NO_GRID, source, node,
                       "the grid's extent is not a size expression the import reads",
                       "give the grid with --grid, over the kernel's parameters: "
                       "--grid 'triton.cdiv(n_elements, BLOCK_SIZE)'")


def grid_axes(axes: dict[int, Axis]) -> list[Axis]:
    """The spec's grid iterators, in order: a decoded axis's parts in its place."""
    return [part for _, axis in sorted(axes.items()) for part in (axis.parts or (axis,))]
