"""Commands that need this spec's schedule on a machine (tune, solve, phase, plot) refuse a
machine that does not run it (gpu.support), placed at what the spec needs: its `target` or
`needs` line, or the keep or array in a level the machine lacks. `analyze` and `sweep`
answer instead, with t_floor alone."""

from __future__ import annotations

from collections.abc import Iterator

from ..base import tree as ast
from ..base.architectures import Architecture, Feature
from ..base.errors import Code, Diagnostic, MachineFileError
from ..count.cost import Cost
from ..gpu.support import unsupported
from ..hardware.machine import Machine


def refuse_not_run(kernel: ast.Kernel, cost: Cost, machine: Machine, command: str) -> None:
    """Raise where `machine` does not run the spec: one diagnostic a requirement unmet."""
    lacks = unsupported(cost, machine)
    if not lacks:
        return
    diagnostics = [Diagnostic(_place(kernel, item.needed),
                              f"{machine.id} does not run `{kernel.name}`: it needs "
                              f"{item.needed}, and {machine.id} "
                              + ("runs " + str(item.machine_architecture)
                                 if isinstance(item.needed, Architecture)
                                 and item.machine_architecture is not None else "lacks it"),
                              f"`{command}` needs the spec's schedule on the machine; "
                              "`analyze` gives t_floor, which any implementation meets",
                              Code.MACHINE_DOES_NOT_RUN)
                   for item in lacks]
    raise MachineFileError(Code.MACHINE_DOES_NOT_RUN, diagnostics, kernel.source)


def _place(kernel: ast.Kernel, needed) -> ast.Span:
    for item in _items(kernel.items):
        if isinstance(needed, Architecture) and isinstance(item, ast.Target):
            return item.architecture.span
        if isinstance(needed, Feature) and isinstance(item, ast.Needs):
            named = [name for name in item.features if name.id == needed]
            if named:
                return named[0].span
        if isinstance(item, (ast.Keep, ast.Let)) and item.level is not None \
                and item.level.id == needed:
            return item.level.span
    return kernel.span


def _items(items) -> Iterator:
    for item in items:
        yield item
        if isinstance(item, (ast.For, ast.Keep)):
            yield from _items(item.body)
