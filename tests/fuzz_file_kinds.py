"""The kinds of the command-path fuzz campaign that hand a command a file of another kind
than a spec (tests/fuzz_inputs.py): machine and topology files, model files, measured CSVs,
a model's config.json and a Triton kernel's source, each a shipped one mutated."""

from __future__ import annotations

import random
import re

from fuzz_case import (  # beside this file: on the path
    CONFIGS,
    CSV_TEXT,
    DRAWN_COMMANDS,
    MACHINE_TEXT,
    MACHINES,
    MODEL_TEXT,
    MODELS,
    ROOT,
    SPECS,
    TOPOLOGY_TEXT,
    Case,
    sizes_for,
)
from fuzz_command_lines import command_line


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
    if rng.random() < 0.3:
        return ncu_case(rng)
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


NCU_EXPORTS = {path.name: path.read_text("utf-8") for path in sorted(
    (ROOT / "tests" / "data" / "ncu").glob("*_gemm.csv"))}
NCU_VALUES = ["-1", "nan", "inf", "1e400", "-0.5", "", "n/a", "x", "1,234", "0", "9" * 40,
              "1e-300", "é"]
NCU_UNITS = ["Mbyte", "Kbyte", "Gbyte", "usecond", "msecond", "second", "furlong"]
NCU_SIZES = ["M=2048,N=2048,K=2048", "M=2049,N=2048,K=2048", "M=1e400,N=2048,K=2048", "",
             "M=2048", "M=0,N=1,K=1", "M=2048,N=2048,K=2048,Q=1", "M=N,K=N,N=2048"]


def ncu_case(rng: random.Random) -> Case:
    """An Nsight Compute export of tests/data/ncu with cells replaced, against gemm_hopper
    (`validate --ncu`); a metric made negative or not finite must be refused (`refused`:
    -1 B of DRAM read was compared as it came, -0.00x)."""
    name = rng.choice(sorted(NCU_EXPORTS))
    lines = NCU_EXPORTS[name].split("\n")
    header = next(line for line in lines if line.startswith('"ID"')).split('","')
    row = next(i for i, line in enumerate(lines) if line.startswith('"0"'))
    refused = False
    for _ in range(rng.randint(1, 2)):
        cells = lines[row].split('","')
        column = rng.randrange(len(cells))
        value = rng.choice(NCU_VALUES)
        cells[column] = value if 0 < column < len(cells) - 1 else cells[column]
        lines[row] = '","'.join(cells)
        metric = "__" in header[column] and 0 < column < len(cells) - 1
        refused |= metric and value in ("-1", "nan", "inf", "1e400", "-0.5")
    if rng.random() < 0.2:  # a metric in a scaled unit (ncu's default): read as bytes or ns
        units = lines[row - 1].split('","')
        known = [i for i, unit in enumerate(units) if unit.strip('"') in ("byte", "%", "ns")]
        column = rng.choice(known)
        units[column] = rng.choice(NCU_UNITS) + ('"' if column == len(units) - 1 else "")
        lines[row - 1] = '","'.join(units)
        refused = True
    argv = ["validate", "--ncu", "ncu.csv", "--spec", str(ROOT / "specs" / "gemm_hopper.kcost"),
            "--machine", rng.choice(["h100", "h200", "a100", "b200"])]
    sizes = rng.choice(NCU_SIZES[:1] * 4 + NCU_SIZES)
    argv += ["--set", sizes] if sizes else []
    argv += ["--json"] if rng.random() < 0.3 else []
    return Case("csv", "validate", argv, {"ncu.csv": "\n".join(lines).encode("utf-8")},
                placed=("KC302", "KC303", "KC317", "KC318", "KC610", "KC611", "KC612"),
                refused=refused)


CSV_VALUES = ["", "nan", "inf", "-1", "0", "1e400", "n=1e400", "M=8192;N=8196;K=8192", "x",
              "specs/nope.kcost", "specs/gemm_hopper.kcost", "n=0", "n=", "=4", "n=1e19",
              "bf16", "\"a,b\"", "1e-300", "n=16777216;n=2", "M=2048;N=2048", "é", "1e309"]
CSV_LINES = [f"copy,{ROOT}/specs/copy.kcost,n=1e400,fp32,3.68e-05,,,",
             f"gemm,{ROOT}/specs/gemm_hopper.kcost,M=8192;N=8196;K=8192,bf16,3.68e-03,,,",
             f"gemv,{ROOT}/specs/gemv_decode.kcost,N=4096;K=4096;b=1,bf16,1e-5,,,",
             "gemm,specs/gemm.kcost,M=64;N=64;K=64,bf16,1e-6,1,1,1", ",,,,,,,", "#", "",
             "kernel,spec,sizes,dtype,time_s,dram_bytes,l2_bytes,flop", "\"unclosed,"]


JSON_VALUES = ["null", "true", "-1", "0", "1e400", "1.5", "\"x\"", "[]", "{}", "[1, 2]",
               "9" * 400, "18446744073709551616", "\"llama\"", "\"mixtral\"", "\"gpt2\"",
               "[" * 2000 + "]" * 2000, "{\"a\": " * 300 + "1" + "}" * 300, "NaN", "-0",
               "Infinity", "-Infinity",
               "1e-400", "4096", "128", "\"\\ud800\""]
JSON_TEXT = ["\ufeff", ",", "}", "{", "\"", "\x00", ":", "\n", "é", "//", "]"]


def config_case(rng: random.Random) -> Case:
    """A shipped test config.json mutated: a value replaced, a key dropped or written twice
    (`refused`: json keeps the last without a word), or text inserted."""
    text = rng.choice(CONFIGS)
    clean = rng.random() < 0.15  # one fault alone: a key written twice, or a NaN
    for _ in range(0 if clean else rng.randint(1, 3)):
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
    if clean:
        key, value = rng.choice(re.findall(r'(?m)^\s*"(\w+)": (.*?),?$', text))
        fault = rng.choice([f"{value}, \"{key}\": 64", "NaN", "Infinity", "-Infinity"])
        text = text.replace(f'"{key}": {value}', f'"{key}": {fault}', 1)
    refused = clean or re.search(r":\s*-?(NaN|Infinity)\b", text) is not None
    argv = ["model", "config.json", "--machine", rng.choice(MACHINES), "--batch", "1,8"]
    argv += rng.choice([[], ["--json"], ["--tp", "2"], ["--weights", "int4"],
                        ["--context", "1024"], ["--chunk", "256"], ["--launch", "graphs"],
                        ["--tp", "2", "--ep", "2"]])
    return Case("config", "model", argv, {"config.json": text.encode("utf-8", "replace")},
                placed=("KC504", "KC505", "KC506", "KC509", "KC510"), refused=refused)


TRITON_SOURCES = [path.read_text("utf-8") for path in sorted(
    (ROOT / "tests" / "triton_tutorials").glob("*.py"))]
TRITON_TOKENS = [":", "(", ")", "\t", "    ", "\n", "**", "%", "//", "lambda x: x", "1e400",
                 "tl.arange(0, 1 << 40)", "tl.nope(x)", "for i in range(n):\n", "@", "\\",
                 "import os\n", "tl.constexpr", "yield", "é", "\x00", "\ufeff", "'", "#"]
TRITON_NUMBERS = ["0", "-1", "1 << 62", "10**400", "1e309", "3.5", "True", "None", "2**31"]
TRITON_OPTIONS = [["--set", "NO_SUCH_SIZE=64"], ["--set", "BLOCK_SIZE=\u00b2"],
                  ["--set", "BLOCK_SIZE=\u0661\u0662\u0668"], ["--dtype", "f16,no_such_ptr=f32"],
                  ["--set", "BLOCK_SIZE=64,BLOCK_SIZE=128"], ["--dtype", "f16,f32"]]


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
    options = rng.choice(TRITON_OPTIONS)
    if rng.random() < 0.15:  # an option that names no parameter, or no number: refused
        argv = ["import", target, *options]
        return Case("triton", "import", argv, {"kernel.py": text.encode("utf-8", "replace")},
                    placed=("KC101", "KC102", "KC103", "KC109", "KC225", "KC226", "KC227",
                            "KC302"), refused=True)
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
