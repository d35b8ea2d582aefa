"""A `@triton.jit` function and its launch, found in a Python file read with `ast`.

The file is parsed, never run, and Triton is never imported: the function's parameters (its
`tl.constexpr` meta-parameters apart), the grid of a `kernel[grid](...)` launch in the same
file (a tuple, or a lambda over the meta-parameters, written there or bound to a name) and
the launch's constant keywords (`BLOCK_SIZE=1024`, `num_warps=8`) are what the spec needs.
Every problem is an error placed in the Python file (`TritonError`)."""

from __future__ import annotations

import ast
import warnings
from dataclasses import field

from ..base.errors import (
    Code,
    Diagnostic,
    ErrorCode,
    InputOutputError,
    KcostError,
    SpecCheckError,
    SpecSyntaxError,
    error_for,
)
from ..base.inputs import read_text
from ..base.magnitude import MAX_LITERAL_DIGITS
from ..base.records import record
from ..base.tree import MAX_NAME_LENGTH, Span

MAX_PYTHON_BYTES = 1_000_000  # a tutorial is some 20 kB
MAX_PYTHON_DEPTH = 200  # ast nests: a deeper expression is refused before it is walked
TRITON_MODULES = ("triton", "tl", "triton.language")


@record
class Param:
    name: str
    constexpr: bool
    node: ast.arg


@record
class Launch:
    """A `kernel[grid](...)` call: the grid's entries, the name the lambda gives its
    meta-parameters, and the call's arguments."""

    grid: tuple[ast.expr, ...]
    meta: str | None
    call: ast.Call


@record
class Source:
    path: str
    text: str
    module: ast.Module
    function: ast.FunctionDef
    params: tuple[Param, ...]
    launch: Launch | None
    constants: dict[str, int | str] = field(default_factory=dict)  # the launch's keywords
    configs: tuple[dict[str, int], ...] = ()  # every triton.Config of the file, in order


def span_of(path: str, node: ast.AST) -> Span:
    line = getattr(node, "lineno", 1)
    column = getattr(node, "col_offset", 0) + 1
    end_line = getattr(node, "end_lineno", None) or line
    end_column = getattr(node, "end_col_offset", None)
    end_column = end_column + 1 if end_column is not None else column + 1
    if end_line != line:  # one line of a statement is shown: its first
        end_line, end_column = line, column + 1
    return Span(path, line, column, end_line, max(end_column, column + 1))


def import_error(code: ErrorCode, source: Source | tuple[str, str], node: ast.AST | None,
                 message: str, hint: str | None = None) -> KcostError:
    """The error of a construct the import cannot map, placed at its node."""
    path, text = (source.path, source.text) if isinstance(source, Source) else source
    span = span_of(path, node) if node is not None else None
    return error_for(code, Diagnostic(span, message, hint), text)


def read_source(path: str, function: str) -> Source:
    """The function `function` of the Python file at `path`, with its launch."""
    text = read_text(path, MAX_PYTHON_BYTES, "Python file")
    module = _parse(path, text)
    candidates = [node for node in ast.walk(module)
                  if isinstance(node, ast.FunctionDef) and node.name == function]
    if not candidates:
        names = sorted({node.name for node in ast.walk(module)
                        if isinstance(node, ast.FunctionDef) and _is_jit(node)})
        hint = ("its @triton.jit functions: " + ", ".join(names)) if names else (
            "the file has no @triton.jit function")
        # no place in the file: the caller places it at the name it was given
        raise SpecCheckError(Code.TRITON_NOT_A_KERNEL, Diagnostic(
            None, f"no function `{function}` in {path}", hint))
    node = candidates[0]
    if not _is_jit(node):
        raise import_error(Code.TRITON_NOT_A_KERNEL, (path, text), node,
                           f"`{function}` is not a @triton.jit function",
                           "name the kernel, the function decorated with @triton.jit")
    params = tuple(_param(path, text, argument) for argument in _arguments(path, text, node))
    launch = _launch(module, function)
    _refuse_long_names((path, text), [node, *([launch.call] if launch else [])])
    _refuse_long_integers((path, text), [node, *([launch.call] if launch else []),
                                         *_config_calls(module)])
    constants = _signature_defaults(node)
    constants.update(_launch_constants(module, launch) if launch else {})
    return Source(path, text, module, node, params, launch, constants, _configs(module))


def _refuse_long_names(source: tuple[str, str], nodes: list[ast.AST]) -> None:
    """An error at the first name of the kernel or its launch longer than a spec's name may
    be: the spec written would hold it (a parameter, a local, the kernel's own name), and
    every sentence about it would print it whole."""
    found = [(name_node, name) for root in nodes for name_node in ast.walk(root)
             for name in _names_of(name_node) if len(name) > MAX_NAME_LENGTH]
    if not found:
        return
    path, text = source
    places = [(getattr(node, "lineno", 1), getattr(node, "col_offset", 0), name)
              for node, name in found]
    number, offset, name = min(places)
    line = text.split("\n")[number - 1]
    column = line.find(name, offset) + 1 or offset + 1  # the name within its node
    raise SpecSyntaxError(Code.NAME_TOO_LONG, Diagnostic(
        Span(path, number, column, number, column + len(name)),
        f"the name `{name[:8]}...{name[-8:]}` is {len(name):,} characters long",
        f"a spec's names have at most {MAX_NAME_LENGTH} characters: rename it in the "
        "Python file"), text)


def _names_of(node: ast.AST) -> tuple[str, ...]:
    """The identifiers a node writes itself (not its children's)."""
    if isinstance(node, ast.FunctionDef):
        return (node.name,)
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.arg):
        return (node.arg,)
    if isinstance(node, ast.Attribute):
        return (node.attr,)
    if isinstance(node, ast.keyword) and node.arg:
        return (node.arg,)
    return ()


def _refuse_long_integers(source: tuple[str, str], nodes: list[ast.AST]) -> None:
    """An error at an integer of the kernel, its launch or a triton.Config with more digits
    than a spec's literal may have: the spec written would hold it, and reading that spec
    back would refuse it at a line of the spec, not of this file."""
    for root in nodes:
        for found in ast.walk(root):
            if isinstance(found, ast.Constant) and type(found.value) is int and (
                    len(str(abs(found.value))) > MAX_LITERAL_DIGITS):
                raise import_error(Code.NUMBER_TOO_LARGE, source, found,
                                   f"an integer of {len(str(abs(found.value))):,} digits",
                                   f"a spec's numbers have at most {MAX_LITERAL_DIGITS:,} "
                                   "digits: give a size its value with --set")


def _parse(path: str, text: str) -> ast.Module:
    deep = _too_deep(text)
    if deep is not None:
        raise SpecSyntaxError(Code.PYTHON_SYNTAX, Diagnostic(
            Span(path, *deep, deep[0], deep[1] + 1),
            "the Python source nests brackets too deeply to read",
            f"at most {MAX_PYTHON_DEPTH} levels"), text)
    try:
        with warnings.catch_warnings():  # `1if x`: Python's warnings about the text, not ours
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=path)
    except SyntaxError as error:
        line, column = error.lineno or 1, error.offset or 1
        if error.lineno is None and "\0" in text:  # Python places no NUL byte
            before = text[:text.index("\0")]
            line, column = before.count("\n") + 1, len(before) - before.rfind("\n")
        raise SpecSyntaxError(Code.PYTHON_SYNTAX, Diagnostic(
            Span(path, line, column, line, column + 1),
            f"the Python source cannot be parsed: {error.msg}",
            "the file must be Python that runs; kernelcost reads it without running it"),
            text) from None
    except RecursionError:  # a chain of operators Python's parser nests past its stack
        line = _longest_line(text)
        raise SpecSyntaxError(Code.PYTHON_SYNTAX, Diagnostic(
            Span(path, line, 1, line, 2), "the Python source nests too deeply to read: "
            "Python's parser ran out of stack in a long chain of operators",
            "name parts of a long expression, a line each"), text) from None
    except (ValueError, MemoryError) as error:  # NUL bytes
        raise InputOutputError(Code.CANNOT_READ, Diagnostic(
            Span(path, 1, 1, 1, 2), f"the Python source cannot be read: {error}"),
            text) from None


def _too_deep(text: str) -> tuple[int, int] | None:
    """The line and column of the first bracket past MAX_PYTHON_DEPTH, if one."""
    depth, line, column = 0, 1, 0
    for char in text:
        column += 1
        if char in "([{":
            depth += 1
            if depth > MAX_PYTHON_DEPTH:
                return line, column
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif char == "\n":
            line, column = line + 1, 0
    return None


def _longest_line(text: str) -> int:
    """The line holding the most operators, where Python's parser recursed past its stack."""
    lines = text.split("\n")
    counts = [sum(line.count(op) for op in "+-*/%&|^<>@") for line in lines]
    return 1 + counts.index(max(counts)) if lines else 1


def dotted(node: ast.AST) -> str:
    """`tl.program_id` -> "tl.program_id"; "" for what is no dotted name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _is_jit(node: ast.FunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if dotted(target) in ("triton.jit", "jit"):
            return True
    return False


def _arguments(path: str, text: str, node: ast.FunctionDef) -> list[ast.arg]:
    arguments = node.args
    if arguments.vararg or arguments.kwarg:
        extra = arguments.vararg or arguments.kwarg
        raise import_error(Code.TRITON_UNSUPPORTED, (path, text), extra,
                           "a kernel taking `*args` or `**meta` cannot be imported",
                           "name each parameter, the meta-parameters as `NAME: tl.constexpr`")
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]


def _param(path: str, text: str, argument: ast.arg) -> Param:
    annotation = dotted(argument.annotation) if argument.annotation is not None else ""
    return Param(argument.arg, annotation.endswith("constexpr"), argument)


def _signature_defaults(node: ast.FunctionDef) -> dict[str, int | str]:
    """`BLOCK: tl.constexpr = 128`: the kernel's own defaults, which a launch overrides."""
    arguments = [*node.args.posonlyargs, *node.args.args]
    pairs = list(zip(arguments[len(arguments) - len(node.args.defaults):], node.args.defaults))
    pairs += [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d]
    return {argument.arg: default.value for argument, default in pairs
            if isinstance(default, ast.Constant) and (
                (type(default.value) is int and default.value > 0)
                or type(default.value) is str)}


def _launch(module: ast.Module, function: str) -> Launch | None:
    """The first `function[grid](...)` of the file, its grid looked up where it is a name."""
    lambdas: dict[str, ast.Lambda] = {}
    tuples: dict[str, ast.Tuple] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Lambda):
                lambdas.setdefault(target.id, node.value)
            elif isinstance(target, ast.Name) and isinstance(node.value, ast.Tuple):
                tuples.setdefault(target.id, node.value)
    for node in ast.walk(module):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript)
                and dotted(node.func.value) == function):
            continue
        grid = node.func.slice
        if isinstance(grid, ast.Name):
            grid = lambdas.get(grid.id) or tuples.get(grid.id) or grid
        meta = None
        if isinstance(grid, ast.Lambda):
            if len(grid.args.args) != 1:
                continue
            meta = grid.args.args[0].arg
            grid = grid.body
        entries = tuple(grid.elts) if isinstance(grid, (ast.Tuple, ast.List)) else (grid,)
        return Launch(entries, meta, node)
    return None


def _launch_constants(module: ast.Module, launch: Launch) -> dict[str, int | str]:
    """The launch's keywords that are constants: written there, or a parameter of the
    launching function with a constant default (`ACTIVATION=activation`, `activation=""`)."""
    defaults: dict[str, ast.expr] = {}
    for function in ast.walk(module):
        if isinstance(function, ast.FunctionDef) and any(
                node is launch.call for node in ast.walk(function)):
            positional = function.args.args
            defaults = dict(zip([a.arg for a in positional[len(positional) - len(
                function.args.defaults):]], function.args.defaults))
    found: dict[str, int | str] = {}
    for keyword in launch.call.keywords:
        value = keyword.value
        if isinstance(value, ast.Name) and value.id in defaults:
            value = defaults[value.id]
        if keyword.arg and isinstance(value, ast.Constant) and (
                (type(value.value) is int and value.value > 0) or type(value.value) is str):
            found[keyword.arg] = value.value
    return found


def refuse_launch_size(source: Source, name: str) -> None:
    """An error at the launch's `name=VALUE` where the spec takes `name` as a size and it
    gives a number that is none (`BLOCK=0`, `-4`, `1024.5`): a kept constant is a positive
    whole number, so the spec counted with another value or none; where nothing else gives
    one, the same of the signature's `BLOCK: tl.constexpr = 0` (was dropped unsaid)."""
    keywords = source.launch.call.keywords if source.launch is not None else []
    given = [("the launch gives", keyword.value) for keyword in keywords if keyword.arg == name]
    if type(source.constants.get(name)) is not int:
        node = source.function
        arguments = [*node.args.posonlyargs, *node.args.args]
        pairs = [*zip(arguments[len(arguments) - len(node.args.defaults):], node.args.defaults),
                 *zip(node.args.kwonlyargs, node.args.kw_defaults)]
        given += [("the kernel's signature gives", default) for argument, default in pairs
                  if argument.arg == name and default is not None]
    for where, value in given:
        number = ast.literal_eval(value) if _literal(value) else None
        if isinstance(number, _CONSTANTS) and not (type(number) is int and number > 0):
            raise import_error(Code.TRITON_UNSUPPORTED, source, value,
                               f"{where} `{name}` = {number!r}, and the spec takes "
                               f"`{name}` as a size: a positive whole number",
                               "Triton needs tl.arange extents and block sizes positive "
                               "(powers of two): give one, such as 1024")


# the constants a keyword may give that are no size: a string (`BLOCK='1024'`) left the size
# without its value, as a float did
_CONSTANTS = (int, float, complex, str, bytes)


def _literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant))


def refuse_config_size(source: Source, index: int, name: str) -> None:
    """An error at `name`'s value in the file's triton.Config number `index` where it is no
    positive whole number and the spec takes `name` as a size (`{'BLOCK': 0}`: Triton would
    not compile it, and the spec written would count no iteration)."""
    call = _config_calls(source.module)[index]
    table = call.args[0] if call.args else None
    pairs = list(zip(table.keys, table.values)) if isinstance(table, ast.Dict) else []
    pairs += [(ast.Constant(keyword.arg), keyword.value) for keyword in call.keywords]
    for key, value in pairs:
        number = ast.literal_eval(value) if _literal(value) else None
        if isinstance(key, ast.Constant) and key.value == name and isinstance(
                number, _CONSTANTS) and not (type(number) is int and number > 0):
            raise import_error(Code.TRITON_UNSUPPORTED, source, value,
                               f"--config {index} gives `{name}` = {number!r}, and the spec "
                               f"takes `{name}` as a size: a positive whole number",
                               "choose another --config, or give the size with --set")


def _config_calls(module: ast.Module) -> list[ast.Call]:
    """Each `triton.Config(...)` call of the file, in the order the file writes them."""
    calls = [node for node in ast.walk(module) if isinstance(node, ast.Call)
             and dotted(node.func) in ("triton.Config", "Config")]
    return sorted(calls, key=lambda node: (node.lineno, node.col_offset))


def _configs(module: ast.Module) -> tuple[dict[str, int], ...]:
    """Each `triton.Config({...}, num_warps=.., num_stages=..)` of the file, its integers."""
    found = []
    for node in _config_calls(module):
        values: dict[str, int] = {}
        table = node.args[0] if node.args else None
        if isinstance(table, ast.Dict):
            for key, value in zip(table.keys, table.values):
                if (isinstance(key, ast.Constant) and isinstance(key.value, str)
                        and isinstance(value, ast.Constant) and type(value.value) is int):
                    values[key.value] = value.value
        for keyword in node.keywords:
            if (keyword.arg and isinstance(keyword.value, ast.Constant)
                    and type(keyword.value.value) is int):
                values[keyword.arg] = keyword.value.value
        found.append((node.lineno, node.col_offset, values))
    return tuple(values for *_, values in sorted(found, key=lambda item: item[:2]))


def host_names(source: Source) -> dict[str, str]:
    """Names of the host code that the launch passes as a kernel parameter: host -> param
    (`M` passed to `M`; `x.numel()` is no name and maps nothing)."""
    if source.launch is None:
        return {}
    mapping = {}
    params = [p.name for p in source.params]
    for position, argument in enumerate(source.launch.call.args):
        if isinstance(argument, ast.Name) and position < len(params):
            mapping[argument.id] = params[position]
    for keyword in source.launch.call.keywords:
        if keyword.arg and isinstance(keyword.value, ast.Name):
            mapping[keyword.value.id] = keyword.arg
    return mapping
