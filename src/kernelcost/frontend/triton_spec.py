"""A Triton kernel as `.kcost` text: `import_triton("add.py", "add_kernel")`.

The spec's sizes are the parameters its indices, bounds and grid use, the meta-parameters
among them with the launch's constant (or `--set`) as their default, and `num_warps`
(threads = 32 x num_warps); its tensors are the pointer arguments it loads and stores, each
with the element type `--dtype` gives (f32 by default, torch's); a scalar argument read as
data only (`eps`, `p`) is a register local; the grid is the parallel header around the
body."""

from __future__ import annotations

import ast
import unicodedata
from dataclasses import field, replace

import sympy

from ..base.errors import Code, Diagnostic, SizeError, did_you_mean
from ..base.records import record
from ..base.symbols import ELEMENT_BYTES
from ..base.tree import Span
from ..base.watchdog import stage
from .triton_body import Walker
from .triton_grid import grid_axes, plan_grid
from .triton_source import (
    Source,
    dotted,
    import_error,
    read_source,
    refuse_config_size,
    refuse_launch_size,
    span_of,
)
from .triton_values import spec_name, symbol, text

DEFAULT_WARPS = 4  # Triton's default num_warps
LOAD_STORE = ("tl.load", "tl.store", "tl.atomic_add", "tl.atomic_cas", "tl.atomic_xchg")


@record
class ImportOptions:
    grid: str | None = None  # `--grid`: entries separated by `;`
    dtypes: dict[str, str] = field(default_factory=dict)  # pointer -> element type; "" default
    sizes: dict[str, int] = field(default_factory=dict)  # `--set` meta-parameters
    config: int | None = None  # `--config N`: the file's N-th triton.Config, from 0
    clip_wrapped: bool = False  # `--wrap clip`: rows past M (of `% M`) dropped, not re-read


def split_target(target: str) -> tuple[str, str]:
    """`FILE.py::FUNCTION` -> (FILE.py, FUNCTION), the name as Python reads it (NFKC)."""
    path, separator, function = target.rpartition("::")
    if not separator or not path or not function.isidentifier():
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            Span("argv", 1, 1, 1, max(2, len(target) + 1)),
            f"`{target}` does not name a function of a Python file",
            "FILE.py::FUNCTION, the kernel decorated with @triton.jit"), target)
    return path, unicodedata.normalize("NFKC", function)  # as Python reads `def ｋ(`: `k`


def target_span(target: str) -> Span:
    """The place of FUNCTION in `FILE.py::FUNCTION`, as given on the command line."""
    column = len(target) - len(target.rpartition("::")[2]) + 1
    return Span("argv", 1, column, 1, len(target) + 1)


def parse_dtypes(text_value: str | None) -> dict[str, str]:
    """`f16,Mean=f32` -> {"": "f16", "Mean": "f32"}."""
    found: dict[str, str] = {}
    for part in (text_value or "").split(","):
        name, equals, dtype = part.strip().rpartition("=")
        dtype = dtype.strip()
        if equals and not (name.strip() and dtype):  # `x_ptr=` was dropped without a word
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                Span("--dtype", 1, 1, 1, max(2, len(text_value or "") + 1)),
                f"`{part.strip()}` names no " + ("element type" if name.strip() else "pointer"),
                "POINTER=TYPE, such as Mean=f32; a type alone is the default"), text_value)
        if not dtype:
            continue
        if dtype not in ELEMENT_BYTES:
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                Span("--dtype", 1, 1, 1, max(2, len(text_value or "") + 1)),
                f"`{dtype}` is not an element type of the spec language",
                "one of " + ", ".join(sorted(ELEMENT_BYTES))), text_value)
        if found.get(name.strip(), dtype) != dtype:
            what = f"`{name.strip()}`" if name.strip() else "the default"
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                Span("--dtype", 1, 1, 1, max(2, len(text_value or "") + 1)),
                f"{what} is given two element types, {found[name.strip()]} and {dtype}",
                "give each pointer one type, and one default"), text_value)
        found[name.strip()] = dtype
    return found


def refuse_unknown_options(source: Source, options: ImportOptions) -> None:
    """--set and --dtype name the kernel's parameters: a name that is none (a typo) would be
    left out without a word, and the spec counted with the value it meant to change."""
    params = [param.name for param in source.params]
    for option, given, names in (("--set", options.sizes, [*params, "num_warps"]),
                                 ("--dtype", options.dtypes, params)):
        for name, value in given.items():
            if name and name not in names:
                text = f"{name}={value}"
                raise SizeError(Code.UNKNOWN_PARAMETER, Diagnostic(
                    Span(option, 1, 1, 1, len(name) + 1),
                    f"`{name}` is not a parameter of `{source.function.name}`",
                    did_you_mean(name, names) or f"its parameters: {', '.join(names)}"), text)


def import_triton(path: str, function: str, options: ImportOptions | None = None) -> str:
    """The spec text of the @triton.jit function `function` in the Python file `path`."""
    options = options or ImportOptions()
    stage("importing the Triton kernel")
    source = read_source(path, function)
    refuse_unknown_options(source, options)
    if options.config is not None:
        if not 0 <= options.config < len(source.configs):
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                Span("--config", 1, 1, 1, 2 + len(str(options.config))),
                f"--config {options.config}: the file has {len(source.configs)} triton.Config",
                f"0 to {len(source.configs) - 1}, in the order the file writes them"
                if source.configs else "the file has no triton.Config: give --set"),
                str(options.config))
        source = replace(source, constants={**source.constants,
                                            **source.configs[options.config]})
    source = replace(source, constants={**source.constants, **options.sizes})
    axes = plan_grid(source, options.grid)
    if not axes:
        raise import_error(Code.TRITON_NO_GRID, source, source.function,
                           f"no launch `{function}[grid](...)` in the file gives the kernel's grid",
                           "give it with --grid, over the kernel's parameters: "
                           "--grid 'triton.cdiv(n_elements, BLOCK_SIZE)'")
    stage("importing the Triton kernel", span_of(path, source.function))
    walker = Walker(source, axes, pointer_arguments(source))
    walker.clip_wrapped = options.clip_wrapped
    walker.walk(source.function.body)
    stage("importing the Triton kernel", span_of(path, source.function))
    if not walker.writes:
        raise import_error(Code.TRITON_UNSUPPORTED, source, source.function,
                           f"`{function}` stores nothing",
                           "a kernel the import reads has a tl.store")
    return _spec_text(source, options, axes, walker)


def pointer_arguments(source: Source) -> set[str]:
    """The arguments that reach a tl.load or tl.store as the base of its address: names in
    the address's top-level sums, followed back through the assignments that built them."""
    flows: dict[str, set[str]] = {}
    roots: set[str] = set()
    for node in ast.walk(source.function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            flows.setdefault(node.targets[0].id, set()).update(_summands(node.value))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            flows.setdefault(node.target.id, set()).update(_summands(node.value))
        elif isinstance(node, ast.Call) and dotted(node.func) in LOAD_STORE and node.args:
            roots |= _summands(node.args[0])
    seen: set[str] = set()
    while roots:
        name = roots.pop()
        if name not in seen:
            seen.add(name)
            roots |= flows.get(name, set())
    return seen & {p.name for p in source.params if not p.constexpr} - _sizes(source)


def _sizes(source: Source) -> set[str]:
    """Names the kernel uses as integers: compared (a mask's bound), multiplied, divided, or
    given to range, tl.arange or cdiv. `x_ptr += n` makes n a summand of an address; this
    keeps it a size."""
    found: set[str] = set()
    for node in ast.walk(source.function):
        if isinstance(node, ast.Compare):
            found |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.BinOp) and isinstance(
                node.op, (ast.Mult, ast.FloorDiv, ast.Mod, ast.Div)):
            found |= {n.id for n in (node.left, node.right) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Call) and dotted(node.func) in (
                "range", "tl.range", "tl.static_range", "tl.arange", "tl.cdiv", "triton.cdiv"):
            found |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return found


def _summands(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Call) and dotted(node.func) in ("tl.make_block_ptr", "tl.advance"):
        first = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg == "base"), None)
        return _summands(first) if first is not None else set()
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _summands(node.left) | _summands(node.right)
    return set()


def _spec_text(source: Source, options: ImportOptions, axes, walker: Walker) -> str:
    iterators = grid_axes(axes)
    used = walker.size_symbols | {s for a in iterators for s in
                                  (a.high.free_symbols | a.step.free_symbols)}
    rasters = [a.raster for a in axes.values() if a.raster]
    used |= {symbol(r[len("grouped("):-1]) for r in rasters}
    used_names = {str(s) for s in used}
    grid_iterators = {a.iterator for a in iterators}
    params = [p for p in source.params if spec_name(p.name) in used_names]
    extra = sorted(used_names - {spec_name(p.name) for p in source.params} - grid_iterators
                   - walker.iterators)
    header = []
    for param in params:
        if param.constexpr and param.name not in options.sizes:  # what gives it is checked
            configured = {} if options.config is None else source.configs[options.config]
            if options.config is not None:
                refuse_config_size(source, options.config, param.name)
            if param.name not in configured:
                refuse_launch_size(source, param.name)
        default = source.constants.get(param.name)
        # --set writes a size's default, a runtime one's too (`--set n=5` was dropped)
        known = (param.constexpr or param.name in options.sizes) and type(default) is int
        name = spec_name(param.name)
        header.append(f"{name} = {default}" if known else name)
    header += extra  # sizes of the host code: a launch grid's `M`
    _refuse_set_pointers(options, walker)
    warps = source.constants.get("num_warps", DEFAULT_WARPS)
    header.append(f"num_warps = {warps}")
    lines = [f"# Imported by kernelcost from {source.path}::{source.function.name}, a Triton",
             "# kernel; each statement names its line there.",
             f"kernel {source.function.name}({', '.join(header)}) {{"]
    if walker.assumptions:
        lines += ["    # A tile wrapped with `% M` reads its rows past M from row 0 again (a",
                  "    # loop of its own), counted as Triton runs it; a block's box then",
                  "    # spans rows 0..M, so Q l2 is an upper bound (--wrap clip drops them).",
                  f"    assume {', '.join(sorted(walker.assumptions))}  # such a tile wraps once"]
    lines += _tensor_lines(source, options, walker)
    data_only = sorted(({str(s) for s in walker.data_symbols} - used_names)
                       & {spec_name(p.name) for p in source.params})
    grid = ", ".join(f"{a.iterator} in {text(a.low)}..{text(a.high)}"
                     + ("" if a.step == 1 else f" by {text(a.step)}") for a in iterators)
    origins = "; ".join(f"axis {k}: {a.origin}" for k, a in sorted(axes.items()))
    settings = "threads = 32 * num_warps" + "".join(f", raster = {r}" for r in rasters[:1])
    lines.append(f"    # the grid ({origins})")
    lines.append(f"    for {grid} parallel({settings}) {{")
    for name in data_only:
        lines.append(f"        let {name}: f32 = 0  # a scalar argument, held in a register")
    lines += ["    " * (depth + 1) + content for depth, content in walker.lines]
    lines += ["    }", "}", ""]
    return "\n".join(lines)


def _refuse_set_pointers(options: ImportOptions, walker: Walker) -> None:
    """`--set x_ptr=5`: a pointer the kernel loads or stores through is a tensor of the
    spec, no size; its value was dropped without a word."""
    for name, value in options.sizes.items():
        if spec_name(name) in walker.reads | walker.writes:
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                Span("--set", 1, 1, 1, len(name) + 1),
                f"`{name}` is a pointer the kernel loads or stores through, not a size",
                "--set gives meta-parameters and sizes: --set BLOCK_SIZE=1024"),
                f"{name}={value}")


def _tensor_lines(source: Source, options: ImportOptions, walker: Walker) -> list[str]:
    lines = []
    for param in source.params:
        name = spec_name(param.name)
        if name not in walker.reads | walker.writes:
            continue
        role = ("inout" if name in walker.reads and name in walker.writes
                else "out" if name in walker.writes else "in")
        dims = walker.tensor_dims.get(name, ())
        extents = []
        for axis, key in enumerate(dims):
            extent = walker.extents.get((name, axis))
            if extent is None:
                raise import_error(Code.TRITON_UNSUPPORTED, source, param.node,
                                   f"the extent of `{name}` along "
                                   f"{key if key else 'its unit-stride axis'} is not known",
                                   "mask its loads and stores (offsets < n), or index it by a loop "
                                   "or a grid axis that starts at 0")
            extents.append(walker.text(sympy.Integer(extent) if isinstance(extent, int)
                                       else extent))
        dtype = options.dtypes.get(param.name, options.dtypes.get("", "f32"))
        shape = f"[{', '.join(extents)}]" if extents else ""
        lines.append(f"    {role + ' ' * (5 - len(role))} {name}: {dtype}{shape}")
    return lines
