"""What a spec needs of a machine, as its `target` and `needs` lines state it: names checked
against the vocabulary of base.architectures, each error placed on the name. What is stated
twice (a second `target` line, a feature needed again) is a duplicate, as a name declared
twice is (KC201), placed on the second."""

from __future__ import annotations

from ..base import tree as ast
from ..base.architectures import (
    ARCHITECTURE_FORMS,
    MMA_WORDS,
    Architecture,
    Feature,
    MmaPath,
    parse_architecture,
)
from ..base.errors import Code, Diagnostic, did_you_mean
from ..base.records import record
from .check_decls import place_of


@record
class Requirements:
    target: Architecture | None = None
    features: tuple[Feature, ...] = ()
    mma: MmaPath | None = None  # the `mma` line: how the spec issues its MMAs, where stated

    @property
    def any(self) -> bool:
        return self.target is not None or bool(self.features)


def read_requirements(kernel: ast.Kernel) -> tuple[Requirements, list[Diagnostic]]:
    """The kernel's requirements, and a diagnostic for each name outside the vocabulary, each
    `target` line after the first and each feature needed again."""
    diagnostics: list[Diagnostic] = []
    target: Architecture | None = None
    features: list[Feature] = []
    targets = [item for item in kernel.items if isinstance(item, ast.Target)]
    for line in targets[1:]:
        diagnostics.append(Diagnostic(
            line.span, f"a second `target` line (the first at "
                       f"{place_of(targets[0].span, line.span)})",
            "a spec is written for one architecture: keep one `target` line",
            Code.DUPLICATE_NAME))
    if targets:
        name = targets[0].architecture
        target = parse_architecture(name.id)
        if target is None:
            diagnostics.append(Diagnostic(name.span, f"unknown architecture `{name.id}`",
                                          f"write {ARCHITECTURE_FORMS}",
                                          Code.UNKNOWN_REQUIREMENT))
    known = [feature.value for feature in Feature]
    first: dict[str, ast.Span] = {}  # each feature needed, where it is first named
    for item in kernel.items:
        if not isinstance(item, ast.Needs):
            continue
        for name in item.features:
            if name.id in first:
                diagnostics.append(Diagnostic(
                    name.span, f"`{name.id}` is already needed at "
                               f"{place_of(first[name.id], name.span)}",
                    "name each feature once", Code.DUPLICATE_NAME))
                continue
            first[name.id] = name.span
            if name.id in known:
                features.append(Feature(name.id))
                continue
            diagnostics.append(Diagnostic(
                name.span, f"unknown hardware feature `{name.id}`",
                did_you_mean(name.id, known) or f"the features: {', '.join(known)}",
                Code.UNKNOWN_REQUIREMENT))
    mma, wrong = _mma_path(kernel)
    return Requirements(target, tuple(features), mma), diagnostics + wrong


def _mma_path(kernel: ast.Kernel) -> tuple[MmaPath | None, list[Diagnostic]]:
    """The path the `mma` line names; a diagnostic for an unknown one and a second line."""
    lines = [item for item in kernel.items if isinstance(item, ast.MmaLine)]
    wrong = [Diagnostic(line.span, "a second `mma` line",
                        "a spec issues its MMAs one way: keep one `mma` line",
                        Code.UNKNOWN_REQUIREMENT) for line in lines[1:]]
    if not lines:
        return None, wrong
    name = lines[0].path
    if name.id not in MMA_WORDS:
        wrong.insert(0, Diagnostic(name.span, f"unknown MMA path `{name.id}`",
                                   did_you_mean(name.id, MMA_WORDS)
                                   or f"the paths: {', '.join(MMA_WORDS)}",
                                   Code.UNKNOWN_REQUIREMENT))
        return None, wrong
    return MMA_WORDS[name.id], wrong
