"""The command line: argv -> the public API -> text. Thin by design."""

from __future__ import annotations

import argparse
import json
import sys

from . import __version__
from .errors import KcostError

EXIT_OK, EXIT_MISMATCH, EXIT_USER_ERROR, EXIT_INTERNAL = 0, 1, 2, 3


def _add_sizes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", dest="settings", action="append", default=[],
                        metavar="NAME=VALUE",
                        help="size value: N=4096, n=1e8, or an expression M=N, K=2*N; "
                             "repeat, or separate by commas")


def _add_reuse(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reuse", choices=("spec", "perfect", "none"), default="spec",
                        help="count keep scopes as written (spec), or force perfect or no "
                             "reuse for every tensor")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernelcost",
        description="Symbolic cost analysis of GPU kernels: work, traffic, intensity, "
                    "and where the roofline binds.")
    parser.add_argument("--version", action="version", version=f"kernelcost {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    analyze = commands.add_parser("analyze", help="closed forms, values and verdicts of a spec")
    analyze.add_argument("spec", help="a .kcost file")
    _add_sizes(analyze)
    _add_reuse(analyze)
    analyze.add_argument("--json", action="store_true", help="print one JSON object")
    _build_plot_parser(commands)
    _build_sweep_parser(commands)
    return parser


def parse_settings(items: list[str]) -> dict[str, str]:
    from .settings import parse_setting

    settings: dict[str, str] = {}
    for item in items:
        for part in _split_commas(item):
            name, value = parse_setting(part)
            settings[name] = value
    return settings


def _split_commas(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char in "(["
        depth -= char in ")]"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p for p in parts if p.strip()]


def run_analyze(args) -> int:
    from .analysis import analyze
    from .report import analysis_json, analysis_tables

    result = analyze(args.spec, parse_settings(args.settings), reuse=args.reuse)
    if args.json:
        print(json.dumps(analysis_json(result), indent=2, sort_keys=False))
        return EXIT_OK
    console = _console()
    for renderable in analysis_tables(result):
        console.print(renderable)
    return EXIT_OK


def _console():
    from rich.console import Console

    return Console(highlight=False)


# --- plot and sweep (issue 5) ----------------------------------------------------------

def _build_plot_parser(commands) -> None:
    plot = commands.add_parser("plot", help="a roofline figure (SVG, PNG or PDF) of one or "
                                            "more specs")
    plot.add_argument("specs", nargs="+", metavar="SPEC", help=".kcost files, on one figure")
    plot.add_argument("--machine", required=True, help="a machine id (h100) or a .toml path")
    plot.add_argument("--precision", nargs="+", action="extend", default=[],
                      help="precisions whose roofs are drawn; the first sets the ridges "
                           "(default: the first spec's own)")
    _add_sizes(plot)
    _add_reuse(plot)
    plot.add_argument("--sweep", metavar="NAME=LOW..HIGH",
                      help="draw each kernel's path as this size grows, e.g. N=64..65536")
    plot.add_argument("-o", "--output", required=True, help="the figure file: .svg, .png, .pdf")


def _build_sweep_parser(commands) -> None:
    sweep = commands.add_parser("sweep", help="W, Q, I, t_min and the binding roof over a "
                                              "range of sizes")
    sweep.add_argument("spec", help="a .kcost file")
    sweep.add_argument("--sweep", required=True, metavar="NAME=LOW..HIGH",
                       help="the size to vary and its range, e.g. N=64..65536")
    sweep.add_argument("--points", type=int, default=20, help="how many sizes (default 20)")
    sweep.add_argument("--log", action="store_true", help="space the sizes geometrically")
    sweep.add_argument("--machine", help="a machine id or .toml path: adds t_min, the "
                                         "binding roof and the fraction of peak")
    sweep.add_argument("--precision", help="the precision on the machine (default: the "
                                           "spec's own)")
    sweep.add_argument("--csv", action="store_true", help="CSV in SI base units")
    _add_sizes(sweep)
    _add_reuse(sweep)


def run_plot(args) -> int:
    from .plot import roofline_figure, save
    from .sweep import parse_range

    size_range = parse_range(args.sweep) if args.sweep else None
    figure = roofline_figure(args.specs, args.machine, args.precision,
                             settings=parse_settings(args.settings), size_range=size_range,
                             reuse=args.reuse)
    print(save(figure, args.output))
    return EXIT_OK


def run_sweep(args) -> int:
    from .hardware import load_machine
    from .report import sweep_csv, sweep_table
    from .sweep import parse_range, sweep

    machine = load_machine(args.machine) if args.machine else None
    result = sweep(args.spec, parse_range(args.sweep, args.points, args.log),
                   settings=parse_settings(args.settings), machine=machine,
                   precision=args.precision, reuse=args.reuse)
    if args.csv:
        sys.stdout.write(sweep_csv(result))
    else:
        _console().print(sweep_table(result))
    return EXIT_OK


COMMANDS = {"analyze": run_analyze}
COMMANDS.update(plot=run_plot, sweep=run_sweep)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except KcostError as error:
        print(error.render(), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `kernelcost ... | head`: the reader left, nothing to report
        sys.stderr.close()
        return EXIT_OK
    except RecursionError:
        print("error: the spec is nested too deeply to analyse", file=sys.stderr)
        return EXIT_USER_ERROR
    except Exception as error:  # the promise: no traceback reaches the user
        print(f"internal error: {type(error).__name__}: {error}\n"
              "  hint: this is a bug in kernelcost; please report it with the spec",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
