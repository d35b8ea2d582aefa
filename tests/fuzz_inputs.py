"""The inputs of the command-path fuzz campaign (tests/fuzz_commands.py), one kind at a time
(the kinds' generators in fuzz_spec_kinds, fuzz_file_kinds and fuzz_command_lines, what
they share in fuzz_case).

Each generator draws, from a random.Random, one Case: a command line, the files it names
(written in an empty folder before the run) and the environment. The kinds are what a user
hands the tool: a spec (a shipped one mutated or retuned, run with `--machine all` where
the command takes several), `--set` values, machine files, model files, measured CSVs,
`--measured` values, the other options (ranges, points, levels, outputs, budgets), a
model's config.json, a Triton kernel's source and a grid spec's parallel header (its counts
made hostile in the sizes: tests/fuzz_headers.py). A
case of one kind keeps every other input ordinary, so that a failure names its cause."""

from __future__ import annotations

import random

from fuzz_case import COMMANDS, KINDS, Case  # beside this file: on the path
from fuzz_command_lines import option_case
from fuzz_file_kinds import config_case, csv_case, machine_case, model_case, triton_case
from fuzz_spec_kinds import header_case, measured_case, set_case, spec_case

__all__ = ["COMMANDS", "GENERATORS", "KINDS", "Case", "draw"]

GENERATORS = {"spec": spec_case, "set": set_case, "machine": machine_case,
              "model": model_case, "csv": csv_case, "measured": measured_case,
              "option": option_case, "config": config_case, "triton": triton_case,
              "header": header_case}


def draw(seed: int, index: int, kinds: tuple[str, ...] = KINDS) -> Case:
    """Case number `index` of the campaign of `seed`: the kinds in turn, the rest drawn."""
    rng = random.Random(f"{seed}:{index}")
    return GENERATORS[kinds[index % len(kinds)]](rng)
