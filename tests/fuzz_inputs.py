"""The inputs of the command-path fuzz campaign (tests/fuzz_commands.py), one kind at a time.

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
import re
from dataclasses import dataclass, field
from pathlib import Path

from fuzz_headers import hostile_sizes, mutate_header  # beside this file: on the path

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
    name = rng.choice(sorted(SPECS))
    original = SPECS[name]
    text = mutate_spec(rng, original)
    command = rng.choice(SPEC_COMMANDS)
    sizes = sizes_for(rng, original, every=True)
    argv = command_line(rng, command, "spec.kcost", original, sizes, machine="all")
    return Case("spec", command, argv, {"spec.kcost": text.encode("utf-8", "replace")},
                placed=("KC1", "KC2", "KC317"))


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
    return Case("header", command, argv, {"spec.kcost": text.encode("utf-8")},
                placed=("KC1", "KC2", "KC307", "KC317", "KC320"))


def set_case(rng: random.Random) -> Case:
    name = rng.choice(sorted(SPECS))
    text = SPECS[name]
    names = [n for n, _ in parameters(text)] + ["Q", "n2", "é"]
    items = []
    for _ in range(rng.randint(1, 4)):
        shape = rng.random()
        key = rng.choice(names)
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
    argv += ["--set", ",".join(items)] if rng.random() < 0.7 else \
        [arg for item in items for arg in ("--set", item)]
    return Case("set", command, argv, placed=("KC301", "KC302", "KC303", "KC304", "KC317",
                                               "KC318"))


def mutate_toml(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.5:
            keys = re.findall(r"(?m)^(\w+) = (.*)$", text)
            if keys:
                key, value = rng.choice(keys)
                text = text.replace(f"{key} = {value}", f"{key} = {rng.choice(TOML_VALUES)}", 1)
        else:
            position = rng.randint(0, len(text))
            text = text[:position] + rng.choice(TOML_TEXT) + text[position:]
    return text


TOML_VALUES = ["nan", "inf", "-inf", "0", "-1", "5e-324", "1e400", "9" * 400, "[1, 2]", "[]",
               "{}", "\"x\"", "true", "[[1]]", "[" * 600 + "]" * 600, "{a = " * 300 + "1" +
               "}" * 300, "1979e12", "\"\"", "0x10", "1_000", "+nan", "1e308", "2e308",
               "18446744073709551616", "1e19", "0.5", "3", "\"all\""]
TOML_TEXT = ["\ufeff", "\r", "\r\n", "\x00", "é", "１２", "[[compute]]\n", "[device]\n",
             "compute = [1, 2]\n", "memory = [1]\n", "= 1\n", "\"", "#", "\n", "[[memory]]\n",
             "x = " + "[" * 1200 + "]" * 1200 + "\n", "\xff"]


def machine_case(rng: random.Random) -> Case:
    text = mutate_toml(rng, MACHINE_TEXT)
    command = rng.choice(DRAWN_COMMANDS)
    files = {"evil.toml": text.encode("utf-8", "replace")}
    if command == "machines":
        argv = ["machines", "evil.toml"] + (["--json"] if rng.random() < 0.5 else [])
    elif command == "model" and rng.random() < 0.5:  # a topology file: the system's
        files = {"evil.toml": mutate_toml(rng, TOPOLOGY_TEXT).encode("utf-8", "replace")}
        argv = ["model", rng.choice(MODELS), "--machine", "h100", "--batch", "1,8",
                "--tp", rng.choice(["2", "4", "8"]), "--topology", "evil.toml"]
    elif command == "model":
        argv = ["model", rng.choice(MODELS), "--machine", "evil.toml", "--batch", "1,8"]
    elif command == "validate":
        files["results.csv"] = CSV_TEXT.encode()
        argv = ["validate", "results.csv", "--machine", "evil.toml"]
    else:
        name = rng.choice([n for n in sorted(SPECS) if not n.startswith("minmax_")])
        argv = command_line(rng, command, str(ROOT / "specs" / f"{name}.kcost"), SPECS[name],
                            sizes_for(rng, SPECS[name], every=True), machine="evil.toml")
    return Case("machine", command, argv, files, placed=("KC402", "KC403", "KC404", "KC405",
                                                         "KC406", "KC411", "KC805"))


def model_case(rng: random.Random) -> Case:
    text = mutate_toml(rng, MODEL_TEXT)
    argv = ["model", "evil.toml", "--machine", rng.choice(MACHINES)]
    argv += rng.choice([[], ["--batch", "1,8"], ["--json"], ["--gpus", "2"],
                        ["--context", rng.choice(["1", "4096", "1e6"])]])
    return Case("model", "model", argv, {"evil.toml": text.encode("utf-8", "replace")},
                placed=("KC502", "KC503", "KC504", "KC505", "KC506", "KC805"))


def csv_case(rng: random.Random) -> Case:
    lines = CSV_TEXT.split("\n")
    for _ in range(rng.randint(1, 3)):
        index = rng.randrange(len(lines))
        fields = lines[index].split(",")
        choice = rng.random()
        if choice < 0.6 and len(fields) > 1:
            column = rng.randrange(len(fields))
            fields[column] = rng.choice(CSV_VALUES)
            lines[index] = ",".join(fields)
        elif choice < 0.8:
            lines.insert(index, rng.choice(CSV_LINES))
        else:
            lines[index] = lines[index][:rng.randint(0, len(lines[index]))]
    data = "\n".join(lines).encode("utf-8")
    if rng.random() < 0.1:
        position = rng.randint(0, len(data))
        data = data[:position] + rng.choice([b"\xff", b"\xe9", b"\x00", b"\xc3"]) + data[position:]
    argv = ["validate", "results.csv", "--machine", rng.choice(MACHINES[:4])]
    argv += ["--json"] if rng.random() < 0.3 else []
    return Case("csv", "validate", argv, {"results.csv": data},
                placed=("KC610", "KC611", "KC612", "KC613", "KC805"))


CSV_VALUES = ["", "nan", "inf", "-1", "0", "1e400", "n=1e400", "M=8192;N=8196;K=8192", "x",
              "specs/nope.kcost", "specs/gemm_hopper.kcost", "n=0", "n=", "=4", "n=1e19",
              "bf16", "\"a,b\"", "1e-300", "n=16777216;n=2", "M=2048;N=2048", "é", "1e309"]
CSV_LINES = [f"copy,{ROOT}/specs/copy.kcost,n=1e400,fp32,3.68e-05,,,",
             f"gemm,{ROOT}/specs/gemm_hopper.kcost,M=8192;N=8196;K=8192,bf16,3.68e-03,,,",
             f"gemv,{ROOT}/specs/gemv_decode.kcost,N=4096;K=4096;b=1,bf16,1e-5,,,",
             "gemm,specs/gemm.kcost,M=64;N=64;K=64,bf16,1e-6,1,1,1", ",,,,,,,", "#", "",
             "kernel,spec,sizes,dtype,time_s,dram_bytes,l2_bytes,flop", "\"unclosed,"]


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


def option_case(rng: random.Random) -> Case:
    command = rng.choice(DRAWN_COMMANDS)
    env = {}
    if rng.random() < 0.1:
        env["KERNELCOST_BUDGET_S"] = rng.choice(["1e10", "nan", "-1", "0", "1e400", "soon",
                                                 "0.5", "1e6", "1e-9", ""])
    if command == "machines":
        argv = ["machines", *rng.choice([[], ["all"], ["h100"], ["nope"], ["--json"],
                                         ["specs"], ["/dev/null"], ["h100", "--wide"]])]
    elif command == "model":
        argv = ["model", rng.choice(MODELS + ["nope"]), "--machine", rng.choice(MACHINES),
                "--batch", rng.choice(["1", "1,8", "0", "-1", "1e19", "x", "", "1," * 50 + "1",
                                       "1..64", "8..1:2", "1..100000", "1..9:0"]),
                "--context", rng.choice(["1", "4096", "0", "1e400", "1e19", "x", "128..512:128",
                                         "1..100000"]),
                rng.choice(["--gpus", "--tp"]),
                rng.choice(["1", "2", "3", "0", "-1", "1e19", "64", "1,2", "1..8"])]
        argv += rng.choice([[], [], ["--grid", "grid.csv"], ["--grid", "-"],
                            ["--grid", "/dev/null"]])
        argv += rng.choice([[], ["--pp", rng.choice(["1", "2", "5", "0", "81", "1e19"])]])
        argv += rng.choice([[], ["--ep", rng.choice(["1", "2", "3", "8", "16", "0", "x"])]])
        argv += rng.choice([[], ["--chunk", rng.choice(["1", "7", "512", "8192", "0", "-3", "x",
                                                        "1e19", "100000000"])]])
        argv += rng.choice([[], ["--launch", rng.choice(["eager", "graphs", "graph", ""])]])
        argv += rng.choice([[], ["--topology", rng.choice(TOPOLOGIES + ["nope", "/dev/null",
                                                                        "specs"])]])
        argv += rng.choice([[], ["--json"], ["-o", rng.choice(OUTPUTS)]])
    elif command == "validate":
        argv = ["validate", rng.choice(["results.csv", "nope.csv", ".", "/dev/null"]),
                "--machine", rng.choice(MACHINES + ["nope"])]
        return Case("option", command, argv, {"results.csv": CSV_TEXT.encode()}, env,
                    placed=("KC702",))
    else:
        name = rng.choice([n for n in sorted(SPECS) if not n.startswith("minmax_")])
        argv = command_line(rng, command, str(ROOT / "specs" / f"{name}.kcost"), SPECS[name],
                            sizes_for(rng, SPECS[name]), machine=rng.choice(MACHINES),
                            hostile=True)
    return Case("option", command, argv, env=env,
                placed=("KC308", "KC309", "KC311", "KC312", "KC318", "KC319", "KC409", "KC702"))


OUTPUTS = ["figure.svg", "figure.png", "figure.pdf", "figure.txt", "nodir/figure.svg", ".",
           "/dev/full", "/dev/null", "figure", "é.svg", "x" * 300 + ".svg"]
# tune --vary: a name's hostile values, and schedule settings (a spec may not write them)
TUNE_VALUES = ["0..10", "1..99999999999", "x", "5..1", "1..2:0", "9007199254740993", ""]
TUNE_SCHEDULE = ["stages=1..4", "threads=128..512:128", "registers=64,168", "cluster=1..4",
                 "group=4,8", "raster=row,column,grouped", "raster=diagonal", "stages=0"]
RANGES = ["64..65536", "1..1e300", "1..1e309", "0..10", "10..1", "1e15..1e16", "1..2",
          "2..2", "nan..10", "1..inf", "1e-3..1", "1...10", "..", "1..1e19", "-5..5"]


def command_line(rng: random.Random, command: str, spec: str, text: str,
                 sizes: dict[str, str], machine: str, hostile: bool = False) -> list[str]:
    """An ordinary command line of `command` on `spec`; with `hostile`, its options'
    values are drawn from the hostile ones as well."""
    names = [name for name, _ in parameters(text)] or ["n"]

    def pick(ordinary: list[str], bad: list[str]) -> str:
        """An ordinary value, or (hostile, one field in four) a bad one: a command line
        with one bad value reaches further than one where every value is bad."""
        return rng.choice(bad if hostile and rng.random() < 0.25 else ordinary)

    if machine == "all" and command not in ("analyze", "solve", "plot"):
        machine = rng.choice(MACHINES)  # the others take one machine

    free = [n for n in names if n in sizes] or names
    varied = rng.choice(free)
    rest = {k: v for k, v in sizes.items() if k != varied}
    if command == "analyze":
        argv = ["analyze", spec, *set_options(sizes)]
        if rng.random() < 0.7:
            argv += ["--machine", machine]
            argv += rng.choice([[], [], ["--exp-on-fma", pick(["0.5", "1:3"],
                                                              ["2", "x:", "1/0", "0.5:99999"])],
                                ["--warm-l2", pick(["A", "x"], ["", ",", "nope"])]])
        argv += rng.choice([[], ["--json"], ["--markdown"], ["--latex"], ["--wide"]])
        argv += rng.choice([[], ["--no-verify"], ["--reuse", "perfect"]])
        argv += rng.choice([[], [], ["--precision", pick(PRECISIONS, ["fp3", "", "bf16,x"])]])
        return argv
    if command == "solve":
        return ["solve", spec, "--for", pick([varied], ["nope", ""]), *set_options(rest),
                "--machine", machine, *rng.choice([[], ["--json"], ["--level", "global"],
                                                   ["--level", pick(["l2"], ["nope", "l2,"])]])]
    if command == "check":
        return ["check", spec, *set_options(sizes if rng.random() < 0.3 else {}),
                "--samples", pick(["1", "2", "4"], ["0", "-1", "1000000", "99999999999"])]
    if command == "plot":
        argv = ["plot", spec, "--machine", machine, *set_options(sizes), "-o",
                pick(["figure.svg", "figure.png"], OUTPUTS)]
        if rng.random() < 0.3:
            argv += ["--sweep", f"{varied}={pick(['64..65536'], RANGES)}"]
        return argv
    if command == "sweep":
        argv = ["sweep", spec, "--sweep", f"{varied}={pick(['64..65536', '1..1e6'], RANGES)}",
                *set_options(rest), "--points", pick(["20", "5", "100"],
                                                      ["1", "0", "10000000000", "200000"])]
        argv += rng.choice([[], ["--machine", machine], ["--csv"], ["--all"], ["--linear"]])
        return argv
    if command == "bound":
        argv = ["bound", spec, "--level", rng.choice(["shared", "l2", "registers"])]
        argv += rng.choice([[], ["--machine", machine], ["--json"]])
        if rng.random() < 0.3:
            argv += ["--machine", machine, *set_options(sizes), "--plot",
                     pick(["ski.svg"], OUTPUTS)]
        return argv
    if command == "tune":
        tiles = rng.sample(names, min(len(names), rng.randint(1, 2)))
        rest = {k: v for k, v in sizes.items() if k not in tiles}
        if rng.random() < 0.5:  # each name with its values, schedule settings, rasters
            return ["tune", spec, "--machine", machine, "--vary", ",".join(
                [f"{tile}={pick(['16..128:16', '64,128'], TUNE_VALUES)}" for tile in tiles]
                + rng.sample(TUNE_SCHEDULE, rng.randint(0, 2))),
                "--rescore", pick(["0", "4"], ["-1", "100001", "x"]), "--top", "3",
                *rng.choice([[], ["--json"], ["--pareto"]]), *set_options(rest),
                *rng.choice([[], ["--shape", ",".join(f"{k}={v}" for k, v in rest.items())
                                  or "n=64"]])]
        return ["tune", spec, "--machine", machine, "--vary",
                pick([",".join(tiles)], ["nope", "", ",,"]),
                "--values", pick(["16..512", "64,128,256", "16..64:16"],
                                 ["0..10", "1..99999999999", "1,2,x", "5..1", "1..2:0"]),
                *rng.choice([[], ["--pow2"]]), "--top", pick(["10", "3"], ["0", "-1"]),
                *set_options(rest)]
    # phase
    other = rng.choice([n for n in names if n != varied] or ["nope"])
    return ["phase", spec, "--x", f"{varied}={pick(['64..65536'], RANGES)}",
            "--y", f"{other}={pick(['64..65536', '1..4096'], RANGES)}", "--machine", machine,
            "-o", pick(["phase.svg"], OUTPUTS),
            *set_options({k: v for k, v in sizes.items() if k not in (varied, other)})]


JSON_VALUES = ["null", "true", "-1", "0", "1e400", "1.5", "\"x\"", "[]", "{}", "[1, 2]",
               "9" * 400, "18446744073709551616", "\"llama\"", "\"mixtral\"", "\"gpt2\"",
               "[" * 2000 + "]" * 2000, "{\"a\": " * 300 + "1" + "}" * 300, "NaN", "-0",
               "1e-400", "4096", "128", "\"\\ud800\""]
JSON_TEXT = ["\ufeff", ",", "}", "{", "\"", "\x00", ":", "\n", "é", "//", "]"]


def config_case(rng: random.Random) -> Case:
    """A shipped test config.json mutated: a value replaced, a key dropped or text inserted."""
    text = rng.choice(CONFIGS)
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        keys = re.findall(r'(?m)^\s*"(\w+)": (.*?),?$', text)
        if roll < 0.5 and keys:
            key, value = rng.choice(keys)
            text = text.replace(f'"{key}": {value}', f'"{key}": {rng.choice(JSON_VALUES)}', 1)
        elif roll < 0.7 and keys:
            key, value = rng.choice(keys)
            text = re.sub(rf'(?m)^\s*"{key}": .*\n', "", text, count=1)
        else:
            position = rng.randint(0, len(text))
            text = text[:position] + rng.choice(JSON_TEXT) + text[position:]
    argv = ["model", "config.json", "--machine", rng.choice(MACHINES), "--batch", "1,8"]
    argv += rng.choice([[], ["--json"], ["--tp", "2"], ["--weights", "int4"],
                        ["--context", "1024"], ["--chunk", "256"], ["--launch", "graphs"],
                        ["--tp", "2", "--ep", "2"]])
    return Case("config", "model", argv, {"config.json": text.encode("utf-8", "replace")},
                placed=("KC504", "KC505", "KC506", "KC509", "KC510"))


TRITON_SOURCES = [path.read_text("utf-8") for path in sorted(
    (ROOT / "tests" / "triton_tutorials").glob("*.py"))]
TRITON_TOKENS = [":", "(", ")", "\t", "    ", "\n", "**", "%", "//", "lambda x: x", "1e400",
                 "tl.arange(0, 1 << 40)", "tl.nope(x)", "for i in range(n):\n", "@", "\\",
                 "import os\n", "tl.constexpr", "yield", "é", "\x00", "\ufeff", "'", "#"]
TRITON_NUMBERS = ["0", "-1", "1 << 62", "10**400", "1e309", "3.5", "True", "None", "2**31"]


def triton_case(rng: random.Random) -> Case:
    """A Triton tutorial of tests/triton_tutorials mutated, imported or analysed."""
    text = rng.choice(TRITON_SOURCES)
    functions = re.findall(r"@triton\.jit[^\n]*\n(?:@[^\n]*\n)*def (\w+)", text) or ["nope"]
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if roll < 0.25:
            position = rng.randint(0, len(text))
            text = text[:position] + rng.choice(TRITON_TOKENS) + text[position:]
        elif roll < 0.65:
            numbers = list(re.finditer(r"\b\d+\b", text))
            if numbers:
                chosen = rng.choice(numbers)
                text = text[:chosen.start()] + rng.choice(TRITON_NUMBERS) + text[chosen.end():]
        elif roll < 0.85:
            calls = sorted(set(re.findall(r"tl\.\w+", text)))
            if calls:
                text = text.replace(rng.choice(calls), rng.choice(calls + ["tl.nope"]), 1)
        else:
            lines = text.split("\n")
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
    target = f"kernel.py::{'nope' if rng.random() < 0.05 else rng.choice(functions)}"
    if rng.random() < 0.5:
        argv = ["import", target, *rng.choice([[], ["--set", "BLOCK_SIZE=1024"],
                                                ["--grid", rng.choice(["n", "x)", "1e400",
                                                                       "__import__('os')"])],
                                                ["--dtype", rng.choice(["f16", "f99", ","])],
                                                ["--config", rng.choice(["0", "99", "-1"])]])]
    else:
        argv = ["analyze", target, "--machine", rng.choice(MACHINES),
                *rng.choice([[], ["--json"], ["--set", "BLOCK_SIZE=1024"]])]
    return Case("triton", argv[0], argv, {"kernel.py": text.encode("utf-8", "replace")},
                placed=("KC101", "KC102", "KC103", "KC109", "KC225", "KC226", "KC227"))


GENERATORS = {"spec": spec_case, "set": set_case, "machine": machine_case,
              "model": model_case, "csv": csv_case, "measured": measured_case,
              "option": option_case, "config": config_case, "triton": triton_case,
              "header": header_case}


def draw(seed: int, index: int, kinds: tuple[str, ...] = KINDS) -> Case:
    """Case number `index` of the campaign of `seed`: the kinds in turn, the rest drawn."""
    rng = random.Random(f"{seed}:{index}")
    return GENERATORS[kinds[index % len(kinds)]](rng)
