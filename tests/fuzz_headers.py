"""The `header` kind of the command-path fuzz campaign (tests/fuzz_inputs.py): a shipped spec
with a parallel header, one of its settings given a hostile value in the sizes, or a setting
added (`instructions`, `width T`, `split_k`, `cluster`, `raster = grouped(G)`), run with
sizes that often make those values zero, negative or a division by zero (4096 and the
sizes the values subtract).

A count in the sizes is read three times: by the checker (never positive: KC211), at the
sizes given (not positive there: KC307; a divisor zero there: KC320), and by the effects
that time the blocks (`instructions`: the issue and first-loads effects). Each must end in
exit 0 or a placed exit 2."""

from __future__ import annotations

import random
import re

# the values of a size setting: numbers, and expressions of the spec's sizes `{p}` and `{q}`
VALUES = ["0", "-1", "1", "0.5", "3", "10173", str(10**30), "1e19", "{p}", "{p} - 4096",
          "4096 - {p}", "1 / ({p} - 4096)", "{p} / ({q} - 1)", "{p} * {q}", "min({p}, 0)",
          "max({p}, 2) - 2", "{p} / 0", "nope + 1", "exp({p})", "{p} ** 2", "-{p}",
          "1155 + 472 * {p} / 512", "({p} - 4096) * 2", "{p} - {q}", "{p} / {q}", "(({p}))"]
# settings a header may gain; T a global tensor, I a grid iterator
ADDED = ["instructions = {v}", "instructions = {v}", "width {T} = {w}", "width {T} = {v}",
         "split_k {I} = {v}", "cluster {I} = {v}", "raster = grouped({v})", "registers = {v}",
         "instructions = {v}, instructions = 7", "width {T} = 8, width {T} = 4", "width = 4",
         "instructions {I} = 4"]
WIDTHS = ["1", "2", "4", "8", "16", "3", "32", "0"]
SIZES = ["1", "2", "3", "4", "64", "4095", "4096", "4097", "8192", "1e6", "1e15"]


def header_text(text: str) -> tuple[int, int] | None:
    """(start, end) of the settings of the first `parallel(...)`: the text between its
    parentheses."""
    match = re.search(r"\bparallel\s*\(", text)
    if match is None:
        return None
    depth, index = 1, match.end()
    while index < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        index += 1
    return (match.end(), index - 1) if depth == 0 else None


def _split_top(settings: str) -> list[str]:
    """The settings, split at the commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for character in settings:
        depth += {"(": 1, ")": -1}.get(character, 0)
        if character == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += character
    return [*parts, current]


def mutate_header(rng: random.Random, text: str, names: list[str]) -> str:
    """One or two settings of the spec's first parallel header made hostile or added."""
    span = header_text(text)
    if span is None:
        return text
    start, end = span
    settings = _split_top(text[start:end])
    tensors = re.findall(r"\b(?:in|out|inout)\s+(\w+)\s*:", text) or ["x"]
    iterators = re.findall(r"for\s+(\w+)\s+in", text[:start]) or ["i"]
    names = names or ["n"]
    for _ in range(rng.randint(1, 2)):
        value = rng.choice(VALUES).format(p=rng.choice(names), q=rng.choice(names))
        if rng.random() < 0.5 and settings:
            index = rng.randrange(len(settings))
            head, _, _ = settings[index].partition("=")
            settings[index] = f"{head}= {value}"
        else:
            settings.append(" " + rng.choice(ADDED).format(
                v=value, T=rng.choice(tensors), I=rng.choice(iterators), w=rng.choice(WIDTHS)))
    return text[:start] + ",".join(settings) + text[end:]


def hostile_sizes(rng: random.Random, names: list[str]) -> dict[str, str]:
    """Sizes for every parameter: mostly 4096 and its neighbours, where `p - 4096` is zero or
    changes sign."""
    return {name: rng.choice(SIZES) for name in names}
