"""`kernelcost model --grid`: every point of --batch x --context x --tp at once (module
answers.model_grid), a CSV row a point and a summary. Kept apart from model_cmd, which
hands over to it once the three options are read."""

from __future__ import annotations

import sys

from ..base.errors import Code, Diagnostic, ModelFileError, SizeError, option_span, placed
from ..base.watchdog import stage

# options of `model` that draw or print what the grid has no place for, and their flags
_ALONE = (("chunk", "--chunk"), ("curve", "--curve"), ("output", "--output"),
          ("compare", "--compare"), ("kernels", "--kernels"))


def run_grid(args, batches: tuple[int, ...], contexts: tuple[int, ...],
             tps: tuple[int, ...]) -> int:
    from ..algebra.jsonout import print_json
    from ..answers.model_grid import MAX_POINTS, GridAxes, model_grid
    from ..answers.quantisation import quantisation
    from ..answers.wholemodel import check_served
    from ..base.outputs import check_output
    from ..hardware.hfconfig import load_model_or_config
    from ..hardware.machinefile import load_machine
    from ..hardware.modelfile import refuse_past_positions
    from ..present.model_grid_report import grid_csv, grid_json, grid_lines

    _refuse_alone(args)
    axes = GridAxes(batches, contexts, tps)
    if axes.points > MAX_POINTS:  # before any array is made
        option, text = max((("--batch", args.batch, batches), ("--context", args.context,
                                                                contexts),
                            ("--tp", args.gpus, tps)), key=lambda o: len(o[2]))[:2]
        raise SizeError(Code.TOO_MANY_POINTS, Diagnostic(
            option_span(option, text),
            f"--grid: {len(batches):,} batches x {len(contexts):,} contexts x {len(tps)} tp "
            f"make {axes.points:,} points, more than {MAX_POINTS:,}",
            "give fewer values (a larger STEP in LOW..HIGH:STEP), or run several grids"), text)
    if args.grid != "-":
        check_output(args.grid)  # a bad name fails before the work
    served = quantisation(args.weights, args.activations, args.kv_cache, args.group_size)
    model = load_model_or_config(args.model)
    refuse_past_positions(model, contexts, args.context)
    machine = load_machine(args.machine)
    _check_layout(args, model, tps)
    check_served(model, machine, served)
    stage("evaluating the grid")
    grid = model_grid(model, machine, axes, topology=lambda tp: _topology(args, machine.id, tp),
                      stages=args.pp, quantisation=served, fraction=args.memory_fraction,
                      launch=args.launch)
    stage("writing the output")
    text = grid_csv(grid)
    if args.grid == "-":
        sys.stdout.buffer.write(text)
        sys.stdout.flush()
    else:
        with open(args.grid, "wb") as file:
            file.write(text)
    if args.json and args.grid != "-":
        print_json(grid_json(grid))
    elif args.grid != "-":
        for line in grid_lines(grid, args.grid):
            print(line)
    return 0


def _refuse_alone(args) -> None:
    for name, flag in _ALONE:
        value = getattr(args, name)
        if value:
            text = flag if value is True else \
                ",".join(value) if isinstance(value, list) else str(value)
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                option_span(flag, text), f"{flag} does not go with --grid",
                f"run `model` without --grid for {flag}, at the points it names"), text)
    if args.ep > 1:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            option_span("--ep", str(args.ep)), "--ep does not go with --grid",
            "run `model --tp N --ep N` without --grid for expert parallelism"), str(args.ep))
    if args.json and args.grid == "-":
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            option_span("--grid", "-"), "--grid - writes the CSV to standard output, where "
            "--json would write its summary", "--grid FILE.csv --json"), "-")


def _check_layout(args, model, tps: tuple[int, ...]) -> None:
    """model_cmd's checks of --tp and --pp, for each tp of the grid."""
    from ..lang.varied import value_span

    for tp in tps:
        if tp > 1 and model.heads % tp:
            raise placed(ModelFileError(Code.GPUS_DO_NOT_DIVIDE, Diagnostic(
                None, f"--tp {tp} does not divide the {model.heads} attention heads of "
                      f"{model.name}",
                "tp values that divide the heads: " + ", ".join(
                    str(n) for n in range(1, model.heads + 1) if model.heads % n == 0)
            )), value_span("--tp", args.gpus, tp), args.gpus)
    if args.pp > model.layers:
        raise ModelFileError(Code.GPUS_DO_NOT_DIVIDE, Diagnostic(
            None, f"--pp {args.pp}: more stages than the {model.layers} layers of "
                  f"{model.name}", f"--pp {model.layers} or fewer"))


def _topology(args, machine_id: str, tp: int):
    """model_cmd's topology at one tp of the grid: asked for, or the machine's default."""
    from ..hardware.topology import default_topology, load_topology

    gpus = tp * args.pp
    if args.topology is None:
        return default_topology(machine_id) if gpus > 1 else None
    return load_topology(args.topology, machine_id, gpus)
