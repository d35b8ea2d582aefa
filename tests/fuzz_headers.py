"""The `header` kind of the command-path fuzz campaign (tests/fuzz_inputs.py): a shipped spec
with a parallel header, one of its settings given a hostile value in the sizes, or a setting
added (`instructions`, `width T`, `split_k`, `cluster`, `raster = grouped(G)`), run with
sizes that often make those values zero, negative or a division by zero (4096 and the
sizes the values subtract).

A count in the sizes is read three times: by the checker (never positive: KC211), at the
sizes given (not positive there: KC307; not whole there: KC321; a divisor zero there:
KC320), and by the effects that time the blocks (`instructions`: the issue and first-loads
effects). Each must end in exit 0 or a placed exit 2; a count written as a number that is
not whole (`instructions = 0.5`, `cluster i0 = 3 / 2`), on `analyze --machine`, in exit 2
(`refused`): it was timed as it came."""

from __future__ import annotations

import random
import re
from fractions import Fraction

# the values of a size setting that the checker accepts and the sizes may break: zero,
# negative or a division by zero at p = 4096 (`{p}`, `{q}`: the spec's sizes) ...
AT_SIZES = ["{p} - 4096", "4096 - {p}", "1 / ({p} - 4096)", "{p} / ({q} - 4096)",
            "({p} - 4096) * 2", "{p} - {q}", "{p} / {q}", "1155 + 472 * {p} / 512", "{p}",
            "{p} * {q}", "max({p}, 2) - 2", "10173", "1", "0.5", str(10**30), "1e19", "(({p}))",
            "3 / 2", "{p} / 3", "2.5", "{p} / ({q} + 1)"]
# ... and values it refuses (never positive, not a size expression, undefined)
REFUSED = ["0", "-1", "-{p}", "min({p}, 0)", "{p} / 0", "nope + 1", "exp({p})", "{p} ** 2"]
# settings a header may gain, where it has none of the name; T a global tensor, I a grid
# iterator, w a width
ADDED = ["instructions = {v}", "instructions = {v}", "instructions = {v}", "width {T} = {w}",
         "cluster {I} = {v}", "raster = grouped({v})", "registers = {v}", "split_k {I} = {v}"]
MISPLACED = ["instructions = 7, instructions = 7", "width {T} = 8, width {T} = 4",
             "width = 4", "instructions {I} = 4", "width {T} = {v}"]
WIDTHS = ["1", "2", "4", "8", "16", "16", "8", "3"]
SIZES = ["4096", "4096", "4096", "1", "2", "64", "4095", "4097", "8192", "1e6", "1e15"]


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
        value = rng.choice(AT_SIZES if rng.random() < 0.85 else REFUSED).format(
            p=rng.choice(names), q=rng.choice(names))
        present = {setting.split("=")[0].split()[0] for setting in settings if setting.strip()}
        added = [form for form in ADDED if form.split()[0] not in present]
        if rng.random() < 0.5 and settings:
            index = rng.randrange(len(settings))
            head, _, _ = settings[index].partition("=")
            grouped = head.strip() == "raster"  # its size is the group's
            settings[index] = f"{head}= grouped({value})" if grouped else f"{head}= {value}"
        else:
            form = rng.choice(added if added and rng.random() < 0.9 else MISPLACED)
            settings.append(" " + form.format(v=value, T=rng.choice(tensors),
                                              I=rng.choice(iterators), w=rng.choice(WIDTHS)))
    return text[:start] + ",".join(settings) + text[end:]


def hostile_sizes(rng: random.Random, names: list[str]) -> dict[str, str]:
    """Sizes for every parameter: mostly 4096 and its neighbours, where `p - 4096` is zero or
    changes sign."""
    return {name: rng.choice(SIZES) for name in names}


COUNTS = ("threads", "registers", "instructions", "cluster", "split_k")
_NUMBER = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(?:/\s*(\d+(?:\.\d+)?)\s*)?")


def planted_fraction(text: str) -> bool:
    """Whether the first parallel header states a count as a number that is positive and not
    whole (`instructions = 0.5`, `grouped(3 / 2)`): refused at any sizes where a verdict
    times the blocks."""
    span = header_text(text)
    if span is None:
        return False
    for setting in _split_top(text[span[0]:span[1]]):
        head, _, value = setting.partition("=")
        words = head.split()
        grouped = re.fullmatch(r"\s*grouped\((.*)\)\s*", value)
        if grouped and words == ["raster"]:
            value = grouped.group(1)
        elif not words or words[0] not in COUNTS:
            continue
        number = _NUMBER.fullmatch(value)
        if number is None:
            continue
        fraction = Fraction(number.group(1)) / Fraction(number.group(2) or 1)
        if fraction > 0 and fraction.denominator != 1:
            return True
    return False
