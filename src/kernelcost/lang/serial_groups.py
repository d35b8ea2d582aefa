"""`serial tensor, sfu, vector`: roofs whose times add in the estimate instead of overlapping,
as the spec's own schedule issues them (FlashAttention-2's warps run the softmax between their
two MMAs; FlashAttention-3 overlaps them). Each line is one group; a roof is a work class or a
memory level, named once in all the lines, and a group has two roofs or more. Read apart from
the checker's passes, as `target` and `needs` are, each error placed on its name."""

from __future__ import annotations

from ..base import tree as ast
from ..base.errors import Code, Diagnostic, did_you_mean
from ..base.kinds import WorkClass
from ..base.symbols import LEVELS

ROOFS = tuple(WorkClass) + tuple(LEVELS)


def read_serial(kernel: ast.Kernel) -> tuple[tuple[tuple[str, ...], ...], list[Diagnostic]]:
    """The kernel's serial groups, and a diagnostic for each name that is no roof, each roof
    named a second time and each line of one roof."""
    groups: list[tuple[str, ...]] = []
    diagnostics: list[Diagnostic] = []
    seen: set[str] = set()
    for line in (item for item in kernel.items if isinstance(item, ast.Serial)):
        group: list[str] = []
        for name in line.roofs:
            if name.id not in ROOFS:
                diagnostics.append(Diagnostic(
                    name.span, f"`{name.id}` is not a roof",
                    did_you_mean(name.id, ROOFS) or "a work class (tensor, fma, vector, sfu) "
                    "or a memory level (global, l2, shared, ...)", Code.WRONG_SERIAL))
            elif name.id in seen:
                diagnostics.append(Diagnostic(
                    name.span, f"`{name.id}` is serial already",
                    "name each roof once: one line holds the roofs whose times add",
                    Code.WRONG_SERIAL))
            else:
                seen.add(name.id)
                group.append(name.id)
        if len(line.roofs) < 2:
            diagnostics.append(Diagnostic(
                line.span, "a `serial` line of one roof adds nothing",
                "name the roofs whose times add: `serial tensor, sfu`", Code.WRONG_SERIAL))
        elif len(group) >= 2:
            groups.append(tuple(group))
    return tuple(groups), diagnostics
