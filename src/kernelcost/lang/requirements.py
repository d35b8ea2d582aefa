"""What a spec needs of a machine, as its `target` and `needs` lines state it: names checked
against the vocabulary of base.architectures, each error placed on the name."""

from __future__ import annotations

from ..base import tree as ast
from ..base.architectures import ARCHITECTURE_FORMS, Architecture, Feature, parse_architecture
from ..base.errors import Code, Diagnostic, did_you_mean
from ..base.records import record


@record
class Requirements:
    target: Architecture | None = None
    features: tuple[Feature, ...] = ()

    @property
    def any(self) -> bool:
        return self.target is not None or bool(self.features)


def read_requirements(kernel: ast.Kernel) -> tuple[Requirements, list[Diagnostic]]:
    """The kernel's requirements, and a diagnostic for each name outside the vocabulary and
    each `target` line after the first."""
    diagnostics: list[Diagnostic] = []
    target: Architecture | None = None
    features: list[Feature] = []
    targets = [item for item in kernel.items if isinstance(item, ast.Target)]
    for line in targets[1:]:
        diagnostics.append(Diagnostic(line.span, "a second `target` line", "a spec is written "
                                      "for one architecture: keep one `target` line",
                                      Code.UNKNOWN_REQUIREMENT))
    if targets:
        name = targets[0].architecture
        target = parse_architecture(name.id)
        if target is None:
            diagnostics.append(Diagnostic(name.span, f"unknown architecture `{name.id}`",
                                          f"write {ARCHITECTURE_FORMS}",
                                          Code.UNKNOWN_REQUIREMENT))
    known = [feature.value for feature in Feature]
    for item in kernel.items:
        if not isinstance(item, ast.Needs):
            continue
        for name in item.features:
            if name.id in known:
                if Feature(name.id) not in features:
                    features.append(Feature(name.id))
                continue
            diagnostics.append(Diagnostic(
                name.span, f"unknown hardware feature `{name.id}`",
                did_you_mean(name.id, known) or f"the features: {', '.join(known)}",
                Code.UNKNOWN_REQUIREMENT))
    return Requirements(target, tuple(features)), diagnostics
