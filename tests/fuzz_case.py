"""What every kind of the command-path fuzz campaign shares (tests/fuzz_inputs.py): the Case
a generator draws, the shipped inputs it mutates (specs, machine, model and topology files,
configs, measured runs), the commands and the ordinary and hostile sizes."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECS = {path.stem: path.read_text("utf-8") for path in sorted((ROOT / "specs").glob("*.kcost"))}
SPECS.update({f"minmax_{path.stem}": path.read_text("utf-8")
              for path in sorted((ROOT / "tests" / "specs_minmax").glob("*.kcost"))})
MACHINE_TEXT = (ROOT / "src" / "kernelcost" / "machines" / "h100.toml").read_text("utf-8")
MODEL_TEXT = (ROOT / "src" / "kernelcost" / "models" / "llama3_8b.toml").read_text("utf-8")
TOPOLOGY_TEXT = (ROOT / "src" / "kernelcost" / "topologies" / "hgx_h100.toml").read_text("utf-8")
CONFIGS = [path.read_text("utf-8") for path in sorted((ROOT / "tests" / "data" / "hf").glob(
    "*/config.json"))]
TOPOLOGIES = ["hgx_a100", "hgx_h100", "hgx_h200", "dgx_b200", "h100_nvl", "h200_nvl", "pcie_h100",
              "mi300x_platform"]
# the measured runs, their specs named by absolute path (the worker runs in an empty folder)
CSV_TEXT = (ROOT / "validate" / "results" / "h200-2026-12-04.csv").read_text("utf-8").replace(
    ",specs/", f",{ROOT}/specs/")
MACHINES = ["h100", "a100", "h200", "b200", "mi300x", "l40s", "rtx4090", "mi250x"]
MODELS = ["llama3_8b", "llama3_70b", "mixtral_8x7b"]
SPEC_COMMANDS = ("analyze", "solve", "check", "plot", "sweep", "bound", "tune", "phase")
DRAWN_COMMANDS = SPEC_COMMANDS + ("machines", "model", "validate")  # any kind's command
COMMANDS = DRAWN_COMMANDS + ("import",)  # the triton kind's own too
KINDS = ("spec", "set", "machine", "model", "csv", "measured", "option", "config", "triton",
         "header")
PRECISIONS = ["fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp6", "fp4", "i8"]
# ordinary sizes: mostly powers of two, which meet the shipped specs' `assume T | N`
SIZES = ["1", "2", "3", "7", "256", "1024", "4096", "8192", "16384", "65536", "1000", "1e6",
         "1e9"]
HOSTILE_NUMBERS = ["0", "-1", "1e309", "1e400", "1e19", "9" * 400, "1e-3", "0.5", "nan", "inf",
                   "-inf", "1e15", "2**60", "1e100", "18446744073709551616", "", " ", "1_000",
                   "0x10", "１２", "1e", ".", "1..2", "1e308", "4.9e-324", "+1", "--1"]


@dataclass
class Case:
    kind: str
    command: str
    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    placed: tuple[str, ...] = ()  # error codes that must come with a place for this input
    refused: bool = False  # the input must end in exit 2: an exit 0 or 1 took it as it came


def parameters(text: str) -> list[tuple[str, bool]]:
    """(name, has a default) of a spec's kernel line, read as a user would."""
    match = re.search(r"kernel\s+\w+\s*\(([^)]*)\)", text)
    if match is None:
        return []
    found = []
    for part in match.group(1).split(","):
        name = part.split("=")[0].strip()
        if re.fullmatch(r"[A-Za-z_]\w*", name):
            found.append((name, "=" in part))
    return found


def sizes_for(rng: random.Random, text: str, every: bool = False) -> dict[str, str]:
    """Ordinary sizes for the spec's parameters without a default (all of them, or most)."""
    chosen = {}
    for name, has_default in parameters(text):
        if has_default and rng.random() < 0.9:
            continue
        if every or rng.random() < 0.9:
            chosen[name] = rng.choice(SIZES[4:10] * 4 + SIZES)
    return chosen


def set_options(sizes: dict[str, str]) -> list[str]:
    return ["--set", ",".join(f"{k}={v}" for k, v in sizes.items())] if sizes else []
