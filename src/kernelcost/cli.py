"""The command line: argv -> the public API -> text. Thin by design."""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .cli_bounds import build_bound_parsers, run_bound, run_phase, run_tune
from .cli_common import (  # noqa: F401 (EXIT_* are the command line's public codes)
    EXIT_INTERNAL,
    EXIT_MISMATCH,
    EXIT_OK,
    EXIT_USER_ERROR,
    add_sizes,
    add_wide,
    page,
    parse_settings,
    print_fitted,
    print_prose,
)
from .cli_inspect import run_check, run_machines, run_validate
from .cli_model import build_model_parser, run_model
from .errors import Diagnostic, KcostError
from .jsonout import print_json
from .outputs import drop_stdout
from .validate import add_parser as add_validate_parser
from .watchdog import available as watchdog_available
from .watchdog import budget_seconds, current_stage, run_watched, stage


def _add_reuse(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reuse", choices=("spec", "perfect", "none"), default="spec",
                        help="count keep scopes as written (spec), or force perfect or no "
                             "reuse for every tensor")


def _add_machines(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--machine", action="append", default=[], metavar="ID|PATH",
                        help="a machine id (a100 h100 h200 b200 mi300x ...), a .toml file, or "
                             "`all`; repeat or separate by commas")
    parser.add_argument("--precision", action="append", default=[],
                        help="fp64 fp32 tf32 fp16 bf16 fp8 fp6 fp4 i8 (default: the spec's)")


def _add_formats(parser: argparse.ArgumentParser) -> None:
    formats = parser.add_mutually_exclusive_group()
    formats.add_argument("--json", action="store_true", help="print one JSON object")
    formats.add_argument("--markdown", action="store_true", help="print Markdown")
    formats.add_argument("--latex", action="store_true", help="print a LaTeX table")


def _machine_ids(items: list[str], default: list[str],
                 precisions: list[str] | None = None) -> list[str]:
    """The machines asked for. With `all` and precisions, the built-in machines that have
    every one of them (a machine named on its own that lacks one is refused later)."""
    ids = [part.strip() for item in items for part in item.split(",") if part.strip()]
    if "all" in ids:
        from .hardware import builtin_machine_ids, load_machine

        every = builtin_machine_ids()
        kept = [m for m in every
                if all(p in load_machine(m).precisions for p in precisions or [])]
        if not kept:
            raise KcostError(Diagnostic(None, "no built-in machine has "
                                              f"{' and '.join(precisions or [])}"))
        return kept
    return ids or default


def _precisions(items: list[str]) -> list[str] | None:
    """The precisions asked for, each a name kernelcost knows (a machine refuses those it
    lacks when it is loaded)."""
    names = [p.strip() for item in items for p in item.split(",") if p.strip()]
    if not names:  # the machine database loads only for a command that needs it
        return None
    from .hardware import check_precision_name

    for name in names:
        check_precision_name(name)
    return names or None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernelcost",
        description="Symbolic cost analysis of GPU kernels: work, traffic, intensity, "
                    "and where the roofline binds.")
    parser.add_argument("--version", action="version", version=f"kernelcost {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    analyze = commands.add_parser("analyze", help="closed forms, values and verdicts of a spec")
    analyze.add_argument("spec", help="a .kcost file")
    add_sizes(analyze)
    _add_reuse(analyze)
    _add_machines(analyze)
    analyze.add_argument("--no-verify", action="store_true",
                         help="skip comparing the closed forms with enumeration at a few "
                              "small sizes before printing them")
    analyze.add_argument("--measured", metavar="VALUE",
                         help="a measurement to compare with the roof: 412us, 400TFLOP/s, "
                              "3.1TB/s")
    analyze.add_argument("--exp-on-fma", metavar="FRACTION[:K]",
                         help="compute FRACTION of the exponentials as a degree-K polynomial "
                              "on the FP32 vector units instead of the SFU (FlashAttention-4; "
                              "K = 3 unless given)")
    analyze.add_argument("--warm-l2", metavar="TENSOR[,TENSOR]",
                         help="tensors the previous kernel left in L2 (a GEMM's output read "
                              "next): where they fit, their reads come from L2, not HBM")
    _add_formats(analyze)
    add_wide(analyze)

    solve = commands.add_parser("solve", help="sizes where the kernel crosses each ridge "
                                              "point, and where its tiles stop fitting")
    solve.add_argument("spec", help="a .kcost file")
    solve.add_argument("--for", dest="parameter", required=True, metavar="NAME",
                       help="the size to solve for")
    add_sizes(solve)
    _add_reuse(solve)
    _add_machines(solve)
    solve.add_argument("--level", action="append", default=[],
                       help="memory levels to solve at (default: every level with traffic)")
    solve.add_argument("--json", action="store_true", help="print one JSON object")
    add_wide(solve)

    machines = commands.add_parser("machines", help="the machine database")
    machines.add_argument("machine", nargs="?", help="a machine id or .toml path to show")
    machines.add_argument("--json", action="store_true", help="print JSON")
    add_wide(machines)

    check = commands.add_parser("check", help="closed forms against brute-force enumeration "
                                              "of the loop nest at small sizes")
    check.add_argument("spec", help="a .kcost file")
    add_sizes(check)
    _add_reuse(check)
    check.add_argument("--samples", type=int, default=4,
                       help="how many small size assignments to draw when no --set is given")
    _build_plot_parser(commands)
    _build_sweep_parser(commands)
    build_model_parser(commands)
    build_bound_parsers(commands)
    add_validate_parser(commands)
    return parser


def run_analyze(args) -> int:
    from . import report
    from .analysis import analyze

    precisions = _precisions(args.precision)  # an unknown name is refused before any work
    result = analyze(args.spec, parse_settings(args.settings), reuse=args.reuse,
                     verify=not args.no_verify)
    failed = result.verified is not None and result.verified.agree is False
    if failed and not args.json:  # wrong forms are not printed; JSON carries the failure
        print(report.verification_error(result.verified), file=sys.stderr)
        return EXIT_MISMATCH
    machines = _machine_ids(args.machine, [], precisions)
    measurement = _measurement(args.measured) if args.measured else None
    if args.exp_on_fma and not machines:
        raise KcostError(Diagnostic(None, "--exp-on-fma needs a machine",
                                    "add --machine b200 (or another id)"))
    warm = tuple(name.strip() for name in (args.warm_l2 or "").split(",") if name.strip())
    if args.warm_l2 is not None and not warm:
        raise KcostError(Diagnostic(None, "--warm-l2 names no tensor", "--warm-l2 x,w"))
    if warm and not machines:
        raise KcostError(Diagnostic(None, "--warm-l2 needs a machine (its L2 capacity)",
                                    "add --machine h100 (or another id)"))
    if measurement and not machines:
        raise KcostError(Diagnostic(None, "--measured needs a machine to compare with",
                                    "add --machine h100 (or another id)"))
    found = []
    if machines:  # the model, solve and machine stages load only when there is one
        from .answer import answers

        stage("comparing with the machines")
        from .polyexp import parse_exp_on_fma

        option = parse_exp_on_fma(args.exp_on_fma) if args.exp_on_fma else None
        found = answers(result, machines, precisions, measurement, option, warm)
    stage("writing the output")
    if args.json:
        document = report.analysis_json(result)
        if machines:
            document.update(report.answers_json(found))
        print_json(document)
        if failed:
            print(report.verification_error(result.verified), file=sys.stderr)
            return EXIT_MISMATCH
    elif args.markdown:
        print(report.analysis_markdown(result, found), end="")
    elif args.latex:
        print(report.analysis_latex(result, found), end="")
    else:
        console, width = page(args)
        for renderable in report.analysis_tables(result, width):
            console.print(renderable)
        if found:
            print_fitted(console, report.verdict_table(found, width))
            print_prose(console, report.answer_lines(found), width)
            if console.is_terminal:
                _print_text_roofline(console, found)
    return EXIT_OK


def _print_text_roofline(console, found) -> None:
    """A roofline preview for a terminal without a figure viewer."""
    from .textplot import drawable, render

    results = [answer.verdict for answer in found if drawable(answer.verdict)]
    if results:
        console.print(render(results[:1], width=min(console.width, 100)), markup=False,
                      highlight=False)


def _measurement(text: str) -> dict[str, float]:
    from .units import parse_measurement

    measurement = parse_measurement(text)
    if measurement is None:
        raise KcostError(Diagnostic(None, f"cannot read the measurement `{text}`",
                                    "a time (412us, 1.2ms), a FLOP rate (400TFLOP/s) or a "
                                    "byte rate (3.1TB/s)"))
    (value,) = measurement.values()
    if not 0 < value < float("inf"):  # 0us would divide by zero, 1e400us is inf
        raise KcostError(Diagnostic(None, f"the measurement `{text}` must be positive and "
                                          "finite", "a time such as 412us, or a rate"))
    return measurement


def run_solve(args) -> int:
    from . import report
    from .analysis import analyze
    from .answer import solve_spec

    precisions = _precisions(args.precision)
    result = analyze(args.spec, parse_settings(args.settings), reuse=args.reuse)
    machines = _machine_ids(args.machine, ["h100"], precisions)
    stage(f"solving for {args.parameter}")
    found = solve_spec(result, args.parameter, machines, precisions,
                       args.level or None)
    if args.json:
        print_json(report.solve_json(result, args.parameter, found))
    else:
        console, width = page(args)
        for fitted in report.solve_tables(result, args.parameter, found, width):
            print_fitted(console, fitted)
    return EXIT_OK


def _console():
    from rich.console import Console

    return Console(highlight=False)


# --- plot and sweep ----------------------------------------------------------------------

def _build_plot_parser(commands) -> None:
    plot = commands.add_parser("plot", help="a roofline figure (SVG, PNG or PDF) of one or "
                                            "more specs")
    plot.add_argument("specs", nargs="+", metavar="SPEC", help=".kcost files, on one figure")
    plot.add_argument("--machine", required=True, help="a machine id (h100) or a .toml path")
    plot.add_argument("--precision", nargs="+", action="extend", default=[],
                      help="precisions whose roofs are drawn; the first sets the ridges "
                           "(default: the first spec's own)")
    add_sizes(plot)
    _add_reuse(plot)
    plot.add_argument("--sweep", metavar="NAME=LOW..HIGH",
                      help="draw each kernel's path as this size grows, e.g. N=64..65536")
    plot.add_argument("-o", "--output", required=True, action="append",
                      help="the figure file: .svg, .png, .pdf; repeat for several formats")


def _build_sweep_parser(commands) -> None:
    sweep = commands.add_parser("sweep", help="W, Q, I, t_min and the binding roof over a "
                                              "range of sizes")
    sweep.add_argument("spec", help="a .kcost file")
    sweep.add_argument("--sweep", required=True, metavar="NAME=LOW..HIGH",
                       help="the size to vary and its range, e.g. N=64..65536")
    sweep.add_argument("--points", type=int, default=20, help="how many sizes (default 20)")
    spacing = sweep.add_mutually_exclusive_group()
    spacing.add_argument("--log", action="store_true",
                         help="space the sizes geometrically (the default)")
    spacing.add_argument("--linear", action="store_true", help="space the sizes equally")
    sweep.add_argument("--machine", help="a machine id or .toml path: adds t_min, the "
                                         "binding roof and the fraction of peak")
    sweep.add_argument("--precision", help="the precision on the machine (default: the "
                                           "spec's own)")
    sweep.add_argument("--csv", action="store_true", help="CSV in SI base units")
    add_sizes(sweep)
    _add_reuse(sweep)


def run_plot(args) -> int:
    from .hardware import load_machine
    from .plot import check_figure_path, require_matplotlib, roofline_figure, save
    from .sweep import parse_range

    require_matplotlib()  # before any work, with how to install it

    for output in args.output:  # every destination checked before any is drawn or written
        check_figure_path(output)
    size_range = parse_range(args.sweep) if args.sweep else None
    stage("drawing the figure")
    precisions = _precisions(args.precision) or []
    if precisions:
        load_machine(args.machine).require_precision(precisions[0])
    figure = roofline_figure(args.specs, args.machine, precisions,
                             settings=parse_settings(args.settings), size_range=size_range,
                             reuse=args.reuse)
    for output in args.output:
        print(save(figure, output))
    return EXIT_OK


def run_sweep(args) -> int:
    from .hardware import load_machine
    from .report import sweep_table
    from .sweep import Sweeper, parse_range, stream_csv

    machine = load_machine(args.machine) if args.machine else None
    if args.precision:
        precision = _precisions([args.precision])[0]
        if machine is not None:
            machine.require_precision(precision)
    size_range = parse_range(args.sweep, args.points, log=not args.linear)
    if not args.csv and size_range.points > MAX_TABLE_POINTS:
        raise KcostError(Diagnostic(None, f"a table of {size_range.points:,} rows is too long "
                                          "to read", f"use --csv, or at most "
                                          f"{MAX_TABLE_POINTS:,} points"))
    stage("sweeping")
    sweeper = Sweeper(args.spec, size_range.parameter, settings=parse_settings(args.settings),
                      machine=machine, precision=args.precision, reuse=args.reuse)
    size_range = size_range.with_step(sweeper.step)  # sizes the spec's `assume d | N` allow
    if not args.csv:
        _console().print(sweep_table(sweeper(size_range.values())))
        return EXIT_OK
    stream_csv(sweeper, size_range, sys.stdout.write)
    return EXIT_OK


MAX_TABLE_POINTS = 100_000


COMMANDS = {"analyze": run_analyze, "solve": run_solve, "machines": run_machines,
            "check": run_check}
COMMANDS.update(plot=run_plot, sweep=run_sweep)
COMMANDS.update(model=run_model)
COMMANDS.update(bound=run_bound, tune=run_tune, phase=run_phase)
COMMANDS["validate"] = run_validate


def main(argv: list[str] | None = None) -> int:
    """The command line. Run as a program (argv None) the work runs under the watchdog, one
    time budget for the whole command; called with arguments (tests, scripts) it runs here."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        budget = budget_seconds()
    except KcostError as error:
        print(error.render(), file=sys.stderr)
        return EXIT_USER_ERROR
    if argv is None and watchdog_available():
        return run_watched(lambda: _run(args), budget)
    return _run(args)


def _run(args) -> int:
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at interpreter exit
        return code
    except KcostError as error:
        print(error.render(), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `kernelcost ... | head`: the reader left, nothing to report
        drop_stdout()
        sys.stderr.close()
        return EXIT_OK
    except OSError as error:  # reading is checked where it happens: this is the output
        drop_stdout()
        print(f"error: cannot write the output: {error.strerror or error}",
              file=sys.stderr)
        print("  hint: check the disk space and where the output goes", file=sys.stderr)
        return EXIT_USER_ERROR
    except RecursionError:
        print(f"error: the input nests too deeply to analyse while {current_stage()}",
              file=sys.stderr)
        print("  hint: split long expressions with `let`, shorten --set values, or flatten "
              "the machine file", file=sys.stderr)
        return EXIT_USER_ERROR
    except Exception as error:  # the promise: no traceback reaches the user
        print(f"internal error: {type(error).__name__}: {error}\n"
              "  hint: this is a bug in kernelcost; please report it with the spec",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
