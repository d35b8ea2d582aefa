"""`kernelcost import FILE.py::FUNCTION`: a Triton kernel as a `.kcost` spec (frontend), and
the same import under `analyze` when its argument names a function of a Python file."""

from __future__ import annotations

import argparse
import dataclasses
import os
import re

from ..base.errors import (
    Code,
    Diagnostic,
    InputOutputError,
    KcostError,
    SizeError,
    option_span,
    placed,
)
from ..base.outputs import check_output, write_via_temporary
from ..base.tree import Span
from ..lang.syntax_errors import shorten
from .shared import EXIT_OK, whole_number

# a block size past 10^18 is no block size, and int() of 4,300 digits is a ValueError
MAX_META_DIGITS = 18
TARGET_HELP = "FILE.py::FUNCTION, a @triton.jit kernel (read, never run)"


def add_import_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--grid", metavar="EXTENT[;EXTENT]",
                        help="the launch grid, when the file does not launch the kernel: "
                             "Python expressions over its parameters, an axis each, e.g. "
                             "'triton.cdiv(n_elements, BLOCK_SIZE)'")
    parser.add_argument("--dtype", metavar="TYPE[,POINTER=TYPE]",
                        help="element types of the pointer arguments: a default, then "
                             "exceptions (f16,Mean=f32); f32 where not given")
    parser.add_argument("--config", type=whole_number, metavar="N",
                        help="take the meta-parameters, num_warps and num_stages of the "
                             "file's N-th triton.Config (from 0, in the order written)")
    parser.add_argument("--wrap", choices=("reread", "clip"), default="reread",
                        help="an index wrapped with `%% M`: its rows past M re-read rows 0, 1, "
                             "... (reread, Triton's semantics), or are dropped as a mask "
                             "would (clip: a block's distinct rows exact, no padded work)")


def build_import_parser(commands) -> None:
    parser = commands.add_parser("import", help="a Triton kernel as a .kcost spec")
    parser.add_argument("target", help=TARGET_HELP)
    add_import_options(parser)
    parser.add_argument("--set", dest="meta", action="append", default=[],
                        metavar="NAME=INT", help="a meta-parameter's value, written as the "
                                                 "size's default (BLOCK_SIZE=1024); repeat, "
                                                 "or separate by commas")
    parser.add_argument("-o", "--output", metavar="FILE.kcost",
                        help="write the spec there (default: print it)")


def is_python_target(spec: str) -> bool:
    return "::" in spec


def imported_text(target: str, args, sizes: dict[str, int] | None = None) -> str:
    """The spec of the kernel `target` names, with the import's options of `args`."""
    # imported here: the Triton frontend's records cost every other command some 5 ms to build
    from ..frontend.triton_spec import (
        ImportOptions,
        import_triton,
        parse_dtypes,
        split_target,
        target_span,
    )

    path, function = split_target(target)
    options = ImportOptions(args.grid, parse_dtypes(args.dtype), sizes or {}, args.config,
                            args.wrap == "clip")
    try:
        return import_triton(path, function, options)
    except KcostError as error:  # the function not in the file: at its name in the argument
        raise placed(error, target_span(target), target) from None


def _meta_values(items: list[str]) -> dict[str, int]:
    """The meta-parameters of --set, each a positive whole number in ASCII digits (isdigit
    takes `²` and `١٢٨`, which int() refuses or reads as 128), each name once."""
    found: dict[str, int] = {}
    for item in items:
        column = 1
        for part in item.split(","):
            name, _, value = part.partition("=")
            name, value = name.strip(), value.strip()
            place = Span("--set", 1, column, 1, column + max(1, len(part)))
            column += len(part) + 1
            # the length first: int() of more than 4,300 digits is a ValueError
            if not (name.isidentifier() and value.isascii() and value.isdigit()) or len(
                    value) > MAX_META_DIGITS or int(value) <= 0:
                raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                    place, f"`{shorten(part.strip())}` is not NAME=INT (a positive whole "
                           f"number in ASCII digits 0-9, at most {MAX_META_DIGITS} of them)",
                    "import writes a meta-parameter's default: --set BLOCK_SIZE=1024"), item)
            if found.get(name, int(value)) != int(value):
                raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                    place, f"`{name}` is set twice, to {found[name]} and to {value}",
                    f"give `{name}` one value"), item)
            found[name] = int(value)
    return found


def run_import(args) -> int:
    sizes = _meta_values(args.meta)
    if args.output:
        check_output(args.output)
        _refuse_the_source(args.output, args.target)
    spec = imported_text(args.target, args, sizes)
    _refuse_unreadable(spec, args.target, args.grid)
    if args.output:
        write_via_temporary(args.output, lambda file: file.write(spec.encode("utf-8")))
    else:
        print(spec, end="")
    return EXIT_OK


def _refuse_the_source(output: str, target: str) -> None:
    """-o naming the kernel's own file: the spec was written over the Python it came from."""
    source = target.split("::")[0]
    if os.path.exists(output) and os.path.exists(source) and os.path.samefile(output, source):
        raise InputOutputError(Code.CANNOT_WRITE, Diagnostic(
            option_span("-o", output), f"cannot write {output}: it is the kernel's own "
            "source, which the spec would replace", "give the spec a name of its own, such "
            "as kernel.kcost"), output)


def _refuse_unreadable(spec: str, target: str, grid: str | None) -> None:
    """An error where the spec written would not parse (a long expression of the kernel
    nests past the spec's depth), placed at the kernel's line it comes from, not met on
    the next read of a spec the user never saw."""
    from ..base.inputs import read_text
    from ..frontend.triton_source import MAX_PYTHON_BYTES
    from ..lang.parse import parse

    try:
        parse(spec, target)
    except KcostError as error:
        path = target.split("::")[0]
        text = read_text(path, MAX_PYTHON_BYTES, "Python file")
        kernel_lines = text.split("\n")
        diagnostics = []
        for diagnostic in error.diagnostics:
            line = _python_line(spec.split("\n"), diagnostic.span)
            span = None
            if line == "--grid" and grid is not None:  # the option's text is the excerpt
                span, text = option_span("--grid", grid), grid
            else:  # a statement's line, or the kernel's `def` for the header's names
                line = line if isinstance(line, int) else _def_line(kernel_lines, target)
                if line is not None and line <= len(kernel_lines):
                    text_line = kernel_lines[line - 1]
                    other = next((i for i, char in enumerate(text_line) if not char.isascii()),
                                 None)  # the letter a spec name cannot hold, where it is
                    column = 1 + (other if error.code == Code.UNEXPECTED_CHARACTER
                                  and other is not None
                                  else len(text_line) - len(text_line.lstrip()))
                    span = Span(path, line, column, line, column + 1)
            diagnostics.append(dataclasses.replace(
                diagnostic, span=span, message=f"{diagnostic.message} (in the spec this "
                "statement imports to)", hint=_import_hint(error.code, diagnostic.hint)))
        raise type(error)(error.code, diagnostics, text) from None


def _def_line(lines: list[str], target: str) -> int | None:
    """The line of the kernel's `def` (Python's names of other scripts, `def kérnel(`, are
    written into the spec's header, which names no line of the kernel)."""
    name = target.split("::")[-1]
    pattern = re.compile(rf"\s*def\s+{re.escape(name)}\s*\(")
    return next((number for number, text in enumerate(lines, 1) if pattern.match(text)), None)


def _import_hint(code: str, hint: str | None) -> str | None:
    if code == Code.UNEXPECTED_CHARACTER:  # a Python name of other letters
        return "spec names are ASCII letters, digits and _: rename it in the kernel"
    return hint and f"{hint}: in the kernel, name parts of a long expression, a line each"


def _python_line(lines: list[str], span: Span | None) -> int | str | None:
    """The kernel's line a spec line comes from: the `# line N:` of its own line, or of the
    loops over its lanes that open right above it; for the grid's loop, the launch's line,
    or "--grid" where that option gave it."""
    index = span.line - 1 if span is not None else len(lines)
    while 0 <= index < len(lines):
        found = re.search(r"# line (\d+):", lines[index])
        if found:
            return int(found.group(1))
        index -= 1
        grid = re.search(r"# the grid \(axis \d+: (?:the launch, line (\d+)|(--grid))\)",
                         lines[index]) if index >= 0 else None
        if grid:
            return int(grid.group(1)) if grid.group(1) else grid.group(2)
        if index < 0 or not lines[index].lstrip().startswith("for "):
            return None
    return None


def load_or_import(args):
    """The spec `args.spec` names: a .kcost file, or a Triton kernel through the import (the
    import's options refused beside a .kcost file, where they would mean nothing)."""
    from ..analysis.api import load, loads

    if is_python_target(args.spec):
        text = imported_text(args.spec, args)
        try:
            return loads(text, args.spec)
        except KcostError as error:  # the spec's rules broken by what the import wrote
            raise _pointed_at_python(error, text, args.spec) from None
    if (args.grid is not None or args.dtype is not None or args.config is not None
            or args.wrap != "reread"):
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            None, "--grid, --dtype, --config and --wrap are the import's: they need "
                  "FILE.py::FUNCTION",
            "kernelcost analyze add.py::add_kernel --grid 'triton.cdiv(n, BLOCK)'"))
    return load(args.spec)


def _pointed_at_python(error: KcostError, text: str, target: str) -> KcostError:
    """An error in an imported spec, each diagnostic's hint naming the Python line its
    statement came from (the excerpt shows the spec, which `kernelcost import` prints)."""
    lines = text.split("\n")
    diagnostics = []
    for diagnostic in error.diagnostics:
        line = _python_line(lines, diagnostic.span)
        where = ("the grid of --grid" if line == "--grid" else
                 f"the statement of line {line} of {target.split('::')[0]}"
                 if line is not None else "the spec")
        note = f"in the spec imported from {target} ({where}; `kernelcost import` prints it)"
        hint = f"{diagnostic.hint}; {note}" if diagnostic.hint else note
        diagnostics.append(dataclasses.replace(diagnostic, hint=hint))
    return type(error)(error.code, diagnostics, error.source)
