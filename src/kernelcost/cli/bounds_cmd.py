"""`kernelcost bound`, `tune` and `phase` on the command line: the best any tiling can do,
the tiles ranked, the plane of two sizes. Kept out of cli.py, which only registers them."""

from __future__ import annotations

import sys

from ..algebra.jsonout import print_json
from ..base.errors import Code, Diagnostic, SizeError, option_span
from ..base.levels import Level
from ..base.watchdog import stage
from .shared import EXIT_OK, add_sizes, page, parse_settings, print_prose, whole_number

# answers.lower.BOUND_LEVELS, by name: argparse shows its choices as they are written
BOUND_LEVELS = (Level.SHARED, Level.L2, Level.REGISTERS)


def build_bound_parsers(commands) -> None:
    bound = commands.add_parser("bound", help="the least traffic any schedule of the nest "
                                              "moves through a fast memory (HBL bound)")
    bound.add_argument("spec", help="a .kcost file")
    bound.add_argument("--level", choices=tuple(level.value for level in BOUND_LEVELS),
                       default=Level.SHARED.value,
                       help="the fast memory: registers + shared per SM (shared), L2, or "
                            "registers per SM (tensor memory, where the machine has it, "
                            "counts with the registers in both)")
    bound.add_argument("--machine", metavar="ID|PATH", help="take S from this machine")
    bound.add_argument("--json", action="store_true", help="print one JSON object")
    bound.add_argument("--plot", metavar="FILE", help="also draw the ski slope, Q_lower "
                       "against S with the spec's traffic and the machine's capacities "
                       "(needs every size: --set)")
    add_sizes(bound)

    tune = commands.add_parser("tune", help="every combination of tile sizes and schedule "
                                            "settings, ranked by t_model on a machine")
    tune.add_argument("spec", help="a .kcost file")
    tune.add_argument("--machine", required=True, metavar="ID|PATH")
    tune.add_argument("--vary", required=True, metavar="P=VALUES,...",
                      help="what to vary, each with its values: TM=16..512:16,TK=32,64 "
                           "(LOW..HIGH:STEP or /STEP, or whole numbers); the schedule "
                           "settings stages, threads, registers, cluster and group where the "
                           "spec writes them as numbers; raster=row,column,grouped; a bare "
                           "name (TM,TN,TK) takes --values")
    tune.add_argument("--values", metavar="LOW..HIGH[:STEP] | V1,V2,...",
                      help="values of each bare name in --vary (default 16..512: multiples "
                           "of 16)")
    tune.add_argument("--pow2", action="store_true", help="only powers of two in --values")
    tune.add_argument("--top", type=whole_number, default=10, help="rows to show (default 10)")
    tune.add_argument("--rescore", type=whole_number, default=None, metavar="N",
                      help="candidates the analysis re-scores for t_model, the best by "
                           "t_bound (default 48; 0 ranks by t_bound alone)")
    tune.add_argument("--pareto", action="store_true",
                      help="also the Pareto set of t_bound against bytes on chip")
    tune.add_argument("--shape", dest="shapes", action="append", default=[],
                      metavar="NAME=VALUE,...", help="one of several shapes, its sizes added "
                      "to --set (repeat: N=4096 --shape N=8192); a candidate must fit each, "
                      "and is ranked by the sum of its times")
    tune.add_argument("--json", action="store_true", help="print one JSON object")
    add_sizes(tune)

    phase = commands.add_parser("phase", help="the plane of two sizes coloured by what binds, "
                                              "with the ridge curves in closed form")
    phase.add_argument("spec", help="a .kcost file")
    phase.add_argument("--x", required=True, metavar="NAME=LOW..HIGH")
    phase.add_argument("--y", required=True, metavar="NAME=LOW..HIGH")
    phase.add_argument("--machine", required=True, metavar="ID|PATH")
    phase.add_argument("-o", "--output", required=True, help="the figure: .svg, .png, .pdf")
    add_sizes(phase)


def run_bound(args) -> int:
    from ..analysis.api import load
    from ..answers.lower import at_sizes, level_bound
    from ..hardware.machinefile import load_machine
    from ..present.bound_report import at_sizes_line, json_object, text_lines

    spec = load(args.spec)
    machine = load_machine(args.machine) if args.machine else None
    if args.plot:
        from ..present.plot import check_figure_path

        check_figure_path(args.plot)
    stage("bounding the traffic")
    result = level_bound(spec, Level(args.level), machine)
    settings = parse_settings(args.settings)
    found = at_sizes(spec, result, settings)
    ski = None
    if args.plot:  # before the report: a figure that cannot be drawn is the one error
        from ..present.ski import slope

        ski = slope(spec, result, machine, settings)
    if args.json:
        document = json_object(result, args.spec)
        if found is not None:
            document["at_sizes"] = {"sizes": dict(found.sizes), "q_lower_B": found.q_lower_B,
                                    "spec_B": found.spec_B, "i_bound": found.i_bound}
        print_json(document)
    else:
        console, width = page(args)
        lines = list(text_lines(result, args.spec))
        if found is not None:
            lines.append(at_sizes_line(found, result))
        print_prose(console, lines, width)
    if ski is not None:
        from ..present.plot import save
        from ..present.ski import draw

        figure = draw(ski, f"{spec.name}: Q_lower against S")
        print(save(figure, args.plot), file=sys.stderr if args.json else sys.stdout)
    return EXIT_OK


MAX_RESCORE = 100_000  # analyses at some 7 ms each: minutes


def run_tune(args) -> int:
    from ..analysis.api import load
    from ..answers.tune import RESCORE, tune
    from ..hardware.machinefile import load_machine
    from ..lang.settings import read_settings
    from ..lang.sizerange import parse_values
    from ..lang.varied import parse_vary
    from ..present.tune_report import json_object, text_lines

    spec = load(args.spec)
    machine = load_machine(args.machine)
    varied = parse_vary(args.vary)
    if not varied:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            option_span("--vary", args.vary), "--vary names no parameter",
            "--vary TM=16..512:16,TN=16..512:16 (the tile sizes to vary)"), args.vary)
    if args.top < 1:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            option_span("--top", str(args.top)), f"--top {args.top}: show at least 1 row",
            "--top 10"), str(args.top))
    rescore = RESCORE if args.rescore is None else args.rescore
    if not 0 <= rescore <= MAX_RESCORE:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            option_span("--rescore", str(rescore)), f"--rescore {rescore}: from 0 to "
            f"{MAX_RESCORE:,}", "--rescore 48 (some 7 ms of analysis each)"), str(rescore))
    bare = any(each.values is None for each in varied)
    if not bare and (args.values is not None or args.pow2):  # they were dropped unread
        option, text = ("--values", args.values) if args.values is not None else ("--pow2", "")
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            option_span(option, text) if text else None, f"{option} applies to a bare name in "
            "--vary (`TM`, taking --values), and every name there has values of its own",
            f"drop {option}, or name a size bare: --vary TM,TN"), text)
    values = parse_values(args.values, args.pow2) if bare else None
    places = {each.name: (each.span, args.vary) for each in varied}
    stage("tuning")
    shapes = [read_settings([shape], "--shape") for shape in args.shapes]
    ranking = tune(spec, machine, varied, values, parse_settings(args.settings), top=args.top,
                   places=places, rescore=rescore, pareto_set=args.pareto, shapes=shapes)
    if args.json:
        print_json(json_object(ranking))
        return EXIT_OK
    console, width = page(args)
    print_prose(console, text_lines(ranking), width)
    return EXIT_OK


def run_phase(args) -> int:
    from ..hardware.machinefile import load_machine
    from ..present.phase import draw, parse_axis, phase
    from ..present.plot import check_figure_path, save

    check_figure_path(args.output)
    machine = load_machine(args.machine)
    stage("drawing the phase diagram")
    result = phase(args.spec, machine, parse_axis(args.x, "--x"), parse_axis(args.y, "--y"),
                   parse_settings(args.settings))
    print(save(draw(result), args.output))
    return EXIT_OK
