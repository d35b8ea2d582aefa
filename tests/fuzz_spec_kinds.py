"""The kinds of the command-path fuzz campaign that hand a command a spec or its sizes
(tests/fuzz_inputs.py): a shipped spec mutated or retuned, a grid spec's parallel header
made hostile in the sizes (tests/fuzz_headers.py), `--set` values, and `--measured`
values."""

from __future__ import annotations

import random
import re

from fuzz_case import (  # beside this file: on the path
    HOSTILE_NUMBERS,
    MACHINES,
    ROOT,
    SIZES,
    SPEC_COMMANDS,
    SPECS,
    Case,
    parameters,
    set_options,
    sizes_for,
)
from fuzz_command_lines import command_line
from fuzz_headers import hostile_sizes, mutate_header, planted_fraction


def mutate_spec(rng: random.Random, text: str) -> str:
    """One to three edits: retune the numbers (mostly valid nests), or break the text."""
    if rng.random() < 0.4:
        pieces = re.split(r"(?<![\w.])(\d+)(?![\w.])", text)
        for index in range(1, len(pieces), 2):
            if rng.random() < 0.3:
                pieces[index] = rng.choice(["1", "2", "3", "7", "64", "1e19", str(10**30), "0"])
        return "".join(pieces)
    for _ in range(rng.randint(1, 3)):
        position = rng.randint(0, len(text))
        kind = rng.choice(["truncate", "delete", "insert", "swap", "duplicate", "minmax"])
        if kind == "truncate":
            text = text[:position]
        elif kind == "delete":
            text = text[:position] + text[position + rng.randint(1, 12):]
        elif kind == "insert":
            text = text[:position] + rng.choice(INSERTIONS) + text[position:]
        elif kind == "swap":
            words = text.split(" ")
            a, b = rng.randrange(len(words)), rng.randrange(len(words))
            words[a], words[b] = words[b], words[a]
            text = " ".join(words)
        elif kind == "duplicate":
            lines = text.split("\n")
            line = rng.randrange(len(lines))
            text = "\n".join(lines[:line + 1] + lines[line:])
        else:  # a bound made a many-way min or max of the sizes
            names = [name for name, _ in parameters(text)] or ["n"]
            bound = f"{rng.choice(['min', 'max'])}({', '.join(rng.sample(names * 3, 3))})"
            text = re.sub(r"\.\.\s*(\w+)", f"..{bound}", text, count=1)
    return text


INSERTIONS = ["{", "}", "(", ")", "[", "]", ",", "..", "=", "+=", "\n", str(10**40), "1e19",
              "0", "-1", "é", "\x00", "\t", "\ufeff", "for i in 0..n ", "keep A in shared ",
              "assume n | n\n", " * 1e19", " by 0", " by 3", "max(n, 1)", "min(n, 2)", "/0"]


def spec_case(rng: random.Random) -> Case:
    if rng.random() < 0.1:
        return idle_case(rng)
    name = rng.choice(sorted(SPECS))
    original = SPECS[name]
    text = mutate_spec(rng, original)
    command = rng.choice(SPEC_COMMANDS)
    sizes = sizes_for(rng, original, every=True)
    argv = command_line(rng, command, "spec.kcost", original, sizes, machine="all")
    return Case("spec", command, argv, {"spec.kcost": text.encode("utf-8", "replace")},
                placed=("KC1", "KC2", "KC317"))


# a loop range `for i in LO..HI` up to its step, its header's end or the next iterator
RANGE = re.compile(r"\bin ([^{,\n]+?)\.\.([^{,\n]+?)(?= by | parallel|,| \{)")
# the specs whose ranges are all read whole by RANGE (no min/max bound, whose comma it splits)
EMPTIABLE = sorted(name for name, text in SPECS.items()
                   if RANGE.search(text) and not re.search(r"\.\.\s*(min|max)\(", text))


def idle_case(rng: random.Random) -> Case:
    """A spec with every loop range made empty (`0..n` as `n..n`, `n..0` or
    `0..n - 1000000` at sizes below 10^6): the kernel runs nothing, and a verdict on a machine
    must be refused (`refused`: it was "compute-bound, t_min = 0 s")."""
    name = rng.choice(EMPTIABLE)
    original = SPECS[name]
    sizes = {key: value if "e" not in value else "4096"
             for key, value in sizes_for(rng, original, every=True).items()}

    def empty(match: re.Match) -> str:
        low, high = match.group(1), match.group(2)
        return "in " + rng.choice([f"{high}..{high}", f"{high}..{low}",
                                   f"{low}..{high} - 1000000"])

    text = RANGE.sub(empty, original)
    argv = ["analyze", "spec.kcost", *set_options(sizes), "--machine", rng.choice(MACHINES),
            *rng.choice([[], ["--json"], ["--no-verify"]])]
    return Case("spec", "analyze", argv, {"spec.kcost": text.encode("utf-8")},
                placed=("KC1", "KC2", "KC307", "KC317"), refused=True)


def header_case(rng: random.Random) -> Case:
    """A grid spec with its header's sizes made hostile (tests/fuzz_headers.py)."""
    name = rng.choice([name for name in sorted(SPECS) if "parallel(" in SPECS[name]])
    names = [n for n, _ in parameters(SPECS[name])]
    text = mutate_header(rng, SPECS[name], names)
    command = rng.choice(SPEC_COMMANDS)
    free = [n for n, has_default in parameters(SPECS[name]) if not has_default]
    sizes = hostile_sizes(rng, names if rng.random() < 0.2 else free) if rng.random() < 0.8 \
        else sizes_for(rng, text, True)
    argv = command_line(rng, command, "spec.kcost", text, sizes, machine="all")
    refused = command == "analyze" and "--machine" in argv and planted_fraction(text)
    return Case("header", command, argv, {"spec.kcost": text.encode("utf-8")},
                placed=("KC1", "KC2", "KC307", "KC317", "KC320", "KC321"), refused=refused)


def set_case(rng: random.Random) -> Case:
    name = rng.choice(sorted(SPECS))
    text = SPECS[name]
    names = [n for n, _ in parameters(text)] + ["Q", "n2", "é"]
    items = []
    keys = rng.sample(names, min(len(names), 4))  # each once: a size set twice is its own case
    for key in keys[:rng.randint(1, 4)]:
        shape = rng.random()
        if shape < 0.45:
            items.append(f"{key}={rng.choice(HOSTILE_NUMBERS + SIZES)}")
        elif shape < 0.7:
            other = rng.choice(names)
            items.append(f"{key}={rng.choice(['', '2*', '-', '1/', '('])}{other}"
                         f"{rng.choice(['', '+1', '*1e19', ')', '**2', '-' + other])}")
        else:
            items.append(rng.choice(["K:K*T", "=4", "N==4", "N=", "=", ",", "N=4=5", "4",
                                     "N=min(N,2)", "N=1e309", "n=1e400", "N=M,M=N",
                                     "N=" + "(" * 50 + "1" + ")" * 50, "N=" + "9" * 5000,
                                     "N=4,,M=4", " N = 4 ", "N=4;M=4", "N=\u0664"]))
    command = rng.choice(SPEC_COMMANDS)
    spec = str(ROOT / "specs" / f"{name}.kcost") if not name.startswith("minmax_") else \
        str(ROOT / "tests" / "specs_minmax" / f"{name[7:]}.kcost")
    argv = command_line(rng, command, spec, text, {}, machine=rng.choice(MACHINES))
    twice = rng.random() < 0.15 and len(names) > 3
    if twice:  # ordinary sizes, one set again to another value: the last was kept silently
        ordinary = sizes_for(rng, text, every=True)
        key = rng.choice(names[:-3])
        items = [f"{k}={v}" for k, v in ordinary.items()] + [f"{key}=4096", f"{key}=8192"]
    argv += ["--set", ",".join(items)] if rng.random() < 0.7 else \
        [arg for item in items for arg in ("--set", item)]
    return Case("set", command, argv, placed=("KC301", "KC302", "KC303", "KC304", "KC317",
                                               "KC318"), refused=twice)


def measured_case(rng: random.Random) -> Case:
    value = rng.choice(["412us", "400TFLOP/s", "3.1TB/s", "1.2ms", "0us", "1e400us", "nanus",
                        "-1us", "fast", "", "1e-30s", "1e30TFLOP/s", "5e-324s", "1 us",
                        "412 µs", "3.1TiB/s", "4e2GFLOP/s", "1e19B/s", "12", "us"])
    name = rng.choice([n for n in sorted(SPECS) if not n.startswith("minmax_")])
    spec = str(ROOT / "specs" / f"{name}.kcost")
    sizes = sizes_for(rng, SPECS[name], every=True)
    if rng.random() < 0.7:
        argv = ["analyze", spec, *set_options(sizes), "--machine", rng.choice(MACHINES),
                "--measured", value, "--no-verify"]
        command = "analyze"
    else:
        argv = ["plot", spec, *set_options(sizes), "--machine", rng.choice(MACHINES),
                "--measured", rng.choice([value, f"{name}:{value}", f"other:{value}"]),
                "-o", "figure.svg"]
        command = "plot"
    return Case("measured", command, argv, placed=("KC601", "KC602", "KC604"))
