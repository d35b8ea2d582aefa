"""The `option` kind of the command-path fuzz campaign (tests/fuzz_inputs.py), and the
ordinary command line of each command on a spec that the other kinds run their input
through: with `hostile`, an option's value drawn from the bad ones too (ranges, points,
levels, outputs, budgets, tune's values)."""

from __future__ import annotations

import random

from fuzz_case import (  # beside this file: on the path
    CSV_TEXT,
    DRAWN_COMMANDS,
    MACHINES,
    MODELS,
    PRECISIONS,
    ROOT,
    SPECS,
    TOPOLOGIES,
    Case,
    parameters,
    set_options,
    sizes_for,
)


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
        argv = ["model", rng.choice(MODELS + ["nope"]), "--machine",
                rng.choice(MACHINES + ["nope.toml"]),
                "--batch", rng.choice(["1", "1,8", "0", "-1", "1e19", "x", "", "1," * 50 + "1",
                                       "1..64", "8..1:2", "1..100000", "1..9:0", "١٢"]),
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
        argv += rng.choice([[], ["--topology", rng.choice(TOPOLOGIES + ["nope", "nope.toml",
                                                                        "/dev/null",
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
                placed=("KC308", "KC309", "KC311", "KC312", "KC318", "KC319", "KC409", "KC702",
                        "KC801"),
                refused=other_digits(argv))


def other_digits(argv: list[str]) -> bool:
    """Whether an argument holds a digit of another script (`١٢٨`): every option reads
    numbers in ASCII digits, as --set does, and int() would read it as 128."""
    return any(char.isnumeric() and not char.isascii() for word in argv for char in word)


OUTPUTS = ["figure.svg", "figure.png", "figure.pdf", "figure.txt", "nodir/figure.svg", ".",
           "/dev/full", "/dev/null", "figure", "é.svg", "x" * 300 + ".svg"]
# tune --vary: a name's hostile values, and schedule settings (a spec may not write them)
TUNE_VALUES = ["0..10", "1..99999999999", "x", "5..1", "1..2:0", "9007199254740993", "",
               "١٢٨", "１６..６４"]
TUNE_SCHEDULE = ["stages=1..4", "threads=128..512:128", "registers=64,168", "cluster=1..4",
                 "group=4,8", "raster=row,column,grouped", "raster=diagonal", "stages=0"]
RANGES = ["64..65536", "1..1e300", "1..1e309", "0..10", "10..1", "1e15..1e16", "1..2",
          "2..2", "nan..10", "1..inf", "1e-3..1", "1...10", "..", "1..1e19", "-5..5",
          "١..١٠٠", "64..６５５３６"]


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
                                ["--warm-l2", pick(["A", "x"], ["", ",", "nope", "x,x", "A, A"])]])
        argv += rng.choice([[], ["--json"], ["--markdown"], ["--latex"], ["--wide"]])
        argv += rng.choice([[], ["--no-verify"], ["--reuse", "perfect"]])
        argv += rng.choice([[], [], ["--precision", pick(PRECISIONS, ["fp3", "", "bf16,x"])]])
        return argv
    if command == "solve":
        return ["solve", spec, "--for", pick([varied], ["nope", ""]), *set_options(rest),
                "--machine", machine,
                *rng.choice([[], ["--json"], ["--level", "global"],
                             ["--level", pick(["l2"], ["nope", "l2,", "mall"])]])]
    if command == "check":
        return ["check", spec, *set_options(sizes if rng.random() < 0.3 else {}),
                "--samples", pick(["1", "2", "4"], ["0", "-1", "1000000", "99999999999", "٢"])]
    if command == "plot":
        argv = ["plot", spec, "--machine", machine, *set_options(sizes), "-o",
                pick(["figure.svg", "figure.png"], OUTPUTS)]
        if rng.random() < 0.3:
            argv += ["--sweep", f"{varied}={pick(['64..65536'], RANGES)}"]
        return argv
    if command == "sweep":
        argv = ["sweep", spec, "--sweep", f"{varied}={pick(['64..65536', '1..1e6'], RANGES)}",
                *set_options(rest), "--points", pick(["20", "5", "100"],
                                                      ["1", "0", "10000000000", "200000", "١٠"])]
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
                *rng.choice([[], ["--pow2"]]), "--top", pick(["10", "3"], ["0", "-1", "١٠"]),
                *set_options(rest)]
    # phase
    other = rng.choice([n for n in names if n != varied] or ["nope"])
    return ["phase", spec, "--x", f"{varied}={pick(['64..65536'], RANGES)}",
            "--y", f"{other}={pick(['64..65536', '1..4096'], RANGES)}", "--machine", machine,
            "-o", pick(["phase.svg"], OUTPUTS),
            *set_options({k: v for k, v in sizes.items() if k not in (varied, other)})]
