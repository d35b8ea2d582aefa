"""A spec's schedule settings as size parameters, for `tune` to vary: the numbers a spec writes
in its `parallel(...)` header (`threads`, `registers`, `cluster AXIS = c`, the group of
`raster = grouped(G)`, the parts of `split_k K0 = S`) and after `stages` on its keeps
become parameters of the same name, named as the setting in capitals (`stages` is a
keyword), their written numbers the defaults.

    parallel(threads = 384, cluster i0 = 2) ... keep A, B in shared stages 4
    -> kernel k(..., THREADS = 384, CLUSTER = 2, STAGES = 4)
       parallel(threads = THREADS, cluster i0 = CLUSTER) ... keep A, B in shared stages STAGES

The tree is rewritten before it is checked, so the checker and the counting see the setting
as any size: the closed forms hold it as a symbol, and `tune` evaluates them over arrays of
its values. A setting the spec writes as an expression of its sizes (`threads = 2 * WM`) is
varied through those sizes, and one it does not write at all has no number to open: both are
refused, with the place and what to write."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from enum import StrEnum

from ..base import tree as ast
from ..base.errors import Code, Diagnostic, SizeError
from ..base.levels import Level


class Schedule(StrEnum):
    """A schedule setting `tune` varies, by its word on the command line."""

    STAGES = "stages"  # tiles a keep holds at once (every keep that writes a number)
    THREADS = "threads"  # threads per block
    REGISTERS = Level.REGISTERS.value  # registers per thread
    CLUSTER = "cluster"  # blocks per thread-block cluster
    GROUP = "group"  # rows of blocks per group of a grouped raster
    SPLIT_K = "split_k"  # parts of the k-loop, each its own block (lang.split_k)

    @property
    def parameter(self) -> str:
        """The name of the parameter it becomes."""
        return self.value.upper()


# where each setting stands in the header: the option's name and, for the group, the call
_HEADER = {Schedule.THREADS: "threads", Schedule.REGISTERS: str(Level.REGISTERS),
           Schedule.CLUSTER: "cluster", Schedule.GROUP: "raster", Schedule.SPLIT_K: "split_k"}
_WRITE = {Schedule.STAGES: "`keep A in shared stages 2`", Schedule.THREADS: "`threads = 256`",
          Schedule.REGISTERS: "`registers = 128`", Schedule.CLUSTER: "`cluster i0 = 1`",
          Schedule.GROUP: "`raster = grouped(8)`", Schedule.SPLIT_K: "`split_k k0 = 1`"}


def open_schedule(kernel: ast.Kernel, settings: Iterable[Schedule],
                  places: dict | None = None) -> ast.Kernel:
    """The kernel with each setting a parameter (module doc). `places`: setting -> (span,
    text) of the option that names it, where a refusal points."""
    opened = kernel
    for setting in settings:
        place = (places or {}).get(setting, (None, None))
        if setting.parameter in {param.name for param in kernel.params}:
            raise _refusal(place, f"`{setting.parameter}` is already a parameter of "
                           f"{kernel.name}", f"vary it as a size: --vary "
                           f"{setting.parameter}=...")
        found: list[ast.Number] = []
        opened = _rewrite(opened, setting, found, {})
        if not found:
            raise _refusal(place, f"{kernel.name} writes no number for `{setting}`",
                           f"write {_WRITE[setting]} in the spec, or vary the sizes its "
                           "expression holds")
        default = _whole(found[0].text)
        if default is None or any(_whole(number.text) != default for number in found):
            raise _refusal(place, f"{kernel.name} writes `{setting}` as "
                           + ", ".join(number.text for number in found)
                           + ": one whole number is opened as a parameter",
                           "write one whole number, or vary the spec's own sizes")
        param = ast.Param(setting.parameter, default, found[0].span)
        opened = dataclasses.replace(opened, params=(*opened.params, param))
    return opened


def _refusal(place, message: str, hint: str) -> SizeError:
    span, text = place
    return SizeError(Code.SCHEDULE_NOT_OPEN, Diagnostic(span, message, hint), text)


def _whole(text: str) -> int | None:
    return int(text) if text.isdigit() and int(text) > 0 else None


def _rewrite(node, setting: Schedule, found: list[ast.Number], done: dict):
    """The node with the setting's numbers replaced by its parameter (each collected in
    `found`); the node itself where nothing changed. `done`: rewritten nodes by the id of
    the original, since the loops of one header share one Parallel and the checker tells
    headers apart by identity."""
    if id(node) in done:
        return done[id(node)]
    rewritten = _rewritten(node, setting, found, done)
    done[id(node)] = rewritten
    return rewritten


def _rewritten(node, setting: Schedule, found: list[ast.Number], done: dict):
    if isinstance(node, ast.Keep) and setting == Schedule.STAGES and \
            isinstance(node.stages, ast.Number):
        found.append(node.stages)
        node = dataclasses.replace(node, stages=ast.Name(setting.parameter, node.stages.span))
    if isinstance(node, ast.BlockOption) and node.name.id == _HEADER.get(setting):
        return _option(node, setting, found)
    if isinstance(node, tuple):
        items = tuple(_rewrite(item, setting, found, done) for item in node)
        return items if any(a is not b for a, b in zip(items, node)) else node
    if not dataclasses.is_dataclass(node) or isinstance(node, (type, ast.Span)):
        return node
    changes = {}
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if isinstance(value, tuple) or (dataclasses.is_dataclass(value)
                                        and not isinstance(value, type)):
            rewritten = _rewrite(value, setting, found, done)
            if rewritten is not value:
                changes[field.name] = rewritten
    return dataclasses.replace(node, **changes) if changes else node


def _option(option: ast.BlockOption, setting: Schedule,
            found: list[ast.Number]) -> ast.BlockOption:
    value = option.value
    if setting == Schedule.GROUP:
        if isinstance(value, ast.Call) and len(value.args) == 1 and \
                isinstance(value.args[0], ast.Number):
            found.append(value.args[0])
            call = dataclasses.replace(value, args=(ast.Name(setting.parameter,
                                                              value.args[0].span),))
            return dataclasses.replace(option, value=call)
        return option
    if isinstance(value, ast.Number):
        found.append(value)
        return dataclasses.replace(option, value=ast.Name(setting.parameter, value.span))
    return option
