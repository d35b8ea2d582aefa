"""The command line: argv -> the public API -> text, one module a group of commands. Thin by
design.

Floor 8 of kernelcost.layers; may import: base, algebra, lang, frontend, count, hardware, oracle,
analysis, gpu, answers, present.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from typing import NoReturn

from ..algebra import no_tensors
from ..algebra.jsonout import print_json
from ..algebra.sympy_scope import patched
from ..base import import_cache
from ..base.error_report import report, request_json
from ..base.errors import (
    BudgetError,
    Code,
    Diagnostic,
    ErrorCode,
    InputOutputError,
    InternalError,
    KcostError,
    MachineFileError,
    SizeError,
    did_you_mean,
    option_span,
    placed,
)
from ..base.launch import process_start
from ..base.outputs import drop_stdout
from ..base.symbols import LEVELS
from ..base.version import VERSION
from ..base.watchdog import available as watchdog_available
from ..base.watchdog import (
    budget_seconds,
    current,
    run_watched,
    stage,
    stage_source,
    tell_json,
    watched,
)
from .analyze_cmd import run_analyze
from .bounds_cmd import build_bound_parsers, run_bound, run_phase, run_tune
from .import_cmd import (
    TARGET_HELP,
    add_import_options,
    build_import_parser,
    run_import,
)
from .inspect_cmd import add_validate_parser, run_check, run_machines, run_validate
from .model_cmd import build_model_parser, run_model
from .plot_cmd import build_plot_parser, run_plot
from .shared import (  # noqa: F401 (EXIT_* are the command line's public codes)
    EXIT_INTERNAL,
    EXIT_MISMATCH,
    EXIT_OK,
    EXIT_USER_ERROR,
    Parser,
    add_reuse,
    add_sizes,
    add_wide,
    machine_choice,
    machine_ids,
    page,
    parse_settings,
    placed_option,
    precision_names,
    print_fitted,
    print_prose,
    refuse_repeated,
    whole_number,
)
from .sweep_cmd import build_sweep_parser, run_sweep


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


class _Unread:
    """The parser of a command the command line does not run: what is added to it is
    dropped (argparse's add_argument is most of the cost of building the parser)."""

    def __getattr__(self, name: str):
        return self._drop

    def _drop(self, *args, **kwargs) -> _Unread:
        return self


class _OneCommand:
    """The subcommands, where only `wanted`'s arguments will be parsed: every other command
    is still a choice, with its help (the list of commands, a misspelt one's message), but
    gets no parser (making one costs argparse 0.1 ms, the thirteen others 1.2 ms)."""

    def __init__(self, commands: argparse._SubParsersAction, wanted: str):
        self.commands, self.wanted = commands, wanted

    def add_parser(self, name: str, **kwargs):
        if name == self.wanted:
            return self.commands.add_parser(name, **kwargs)
        # argparse's own bookkeeping for a choice, as add_parser does it (Python 3.11 to
        # 3.13): tests/test_one_command_parser.py holds the help and errors to the whole
        # parser's
        if "help" in kwargs:  # listed in the help as add_parser lists it
            self.commands._choices_actions.append(self.commands._ChoicesPseudoAction(
                name, (), kwargs["help"]))
        self.commands._name_parser_map[name] = None
        return _Unread()


# what _OneCommand writes of argparse's (Python 3.11 to 3.13)
_BOOKKEEPING = ("_choices_actions", "_ChoicesPseudoAction", "_name_parser_map")


def named_command(argv: list[str] | None) -> str | None:
    """The command an argument list names first (`analyze` of `analyze k.kcost`), or None
    where it begins with an option (`--help`, `--version`): the top-level parser has no
    positional argument but the command, so the first word not an option is it."""
    words = sys.argv[1:] if argv is None else argv
    return words[0] if words and not words[0].startswith("-") else None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with `command` (named_command), one that parses that
    command's arguments only: the others are listed with their help but get no parser."""
    parser = Parser(
        prog="kernelcost",
        description="Symbolic cost analysis of GPU kernels: work, traffic, intensity, "
                    "and where the roofline binds.")
    parser.add_argument("--version", action="version", version=f"kernelcost {VERSION}")
    commands = parser.add_subparsers(dest="command", required=True)
    # on a Python whose argparse keeps its choices otherwise, the whole parser as before
    if command is not None and all(hasattr(commands, name) for name in _BOOKKEEPING):
        commands = _OneCommand(commands, command)  # type: ignore[assignment]

    analyze = commands.add_parser("analyze", help="closed forms, values and verdicts of a spec")
    analyze.add_argument("spec", help=f"a .kcost file, or {TARGET_HELP}")
    add_import_options(analyze)
    add_sizes(analyze)
    add_reuse(analyze)
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
    analyze.add_argument("--inputs", choices=("random", "zeros"),
                         help="what the operands hold: random values (the default, what a "
                              "GEMM's achievable figure is measured on) or zeros, which let "
                              "the tensor units hold a higher clock under the power limit "
                              "where the machine file has a figure for them")
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
    add_reuse(solve)
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
    check.add_argument("spec", help=f"a .kcost file, or {TARGET_HELP}")
    add_import_options(check)
    add_sizes(check)
    add_reuse(check)
    check.add_argument("--samples", type=whole_number, default=4,
                       help="how many small size assignments to draw when no --set is given")
    check.add_argument("--rows", action="store_true",
                       help="each sample's comparisons, a quantity a row (a sample whose "
                            "closed forms differ shows them anyway)")
    add_wide(check)
    build_plot_parser(commands)
    build_sweep_parser(commands)
    build_model_parser(commands)
    build_bound_parsers(commands)
    add_validate_parser(commands)
    build_import_parser(commands)
    return parser


def run_solve(args) -> int:
    from ..analysis.api import count_spec
    from ..answers.solve import solve_spec
    from ..present import report

    precisions = precision_names(args.precision)
    # crossings read the closed forms only: no values, asymptotic forms or verdicts
    result = count_spec(args.spec, parse_settings(args.settings), reuse=args.reuse)
    machines, dropped = machine_choice(args.machine, ["h100"], precisions)
    stage(f"solving for {args.parameter}")
    levels = [level.strip() for item in args.level for level in item.split(",")
              if level.strip()]
    refuse_repeated("--level", args.level, "level")  # its rows were printed twice
    for level in levels:
        if level not in LEVELS:
            raise MachineFileError(Code.UNKNOWN_NAME, Diagnostic(
                option_span("--level", level), f"unknown memory level `{level}`",
                did_you_mean(level, LEVELS) or f"one of: {', '.join(LEVELS)}"), level)
    for level in levels:  # a level without traffic had no row and no word
        if level not in result.cost.traffic:
            raise SizeError(Code.NO_TRAFFIC_AT_LEVEL, Diagnostic(
                option_span("--level", level),
                f"kernel `{result.cost.kernel}` moves no bytes at `{level}`",
                f"levels with traffic: {', '.join(result.cost.levels)}"), level)
    try:
        found = solve_spec(result, args.parameter, machines, precisions, levels or None)
    except SizeError as error:
        if error.code not in (Code.UNKNOWN_PARAMETER, Code.SET_AND_VARIED):
            raise
        raise placed(error, option_span("--for", args.parameter), args.parameter) from None
    if args.json:
        print_json({**report.solve_json(result, args.parameter, found),
                    "dropped_machines": report.dropped_json(dropped)})
    else:
        console, width = page(args)
        for fitted in report.solve_tables(result, args.parameter, found, width):
            print_fitted(console, fitted)
        if report.dropped_line(dropped) is not None:
            print_prose(console, [report.dropped_line(dropped)], width)
    return EXIT_OK


COMMANDS = {"analyze": run_analyze, "solve": run_solve, "machines": run_machines,
            "check": run_check}
COMMANDS.update(plot=run_plot, sweep=run_sweep)
COMMANDS.update(model=run_model)
COMMANDS.update(bound=run_bound, tune=run_tune, phase=run_phase)
COMMANDS["validate"] = run_validate
COMMANDS["import"] = run_import


def main(argv: list[str] | None = None, *, watch: bool | None = None) -> int:
    """The command line. Run as a program (argv None) the work runs under the watchdog, one
    time budget for the whole command from the process's start (the package forked the
    watchdog before importing sympy: launch); called with arguments (tests, scripts) it runs
    here, or, with `watch`, in a watched child as a program does (the fuzz campaign)."""
    watch = argv is None if watch is None else watch
    stage("reading the command line")
    parser = build_parser(named_command(argv))
    args = parser.parse_args(argv)
    request_json(getattr(args, "json", False))
    tell_json(getattr(args, "json", False))
    try:
        budget = budget_seconds()
    except KcostError as error:
        return report(error)
    if watch and watched():  # this process is the child the package's start forked
        _end_program(_run_program(args))
    if watch and watchdog_available():
        # a program's budget counts from its start; a call's (a forked fuzz worker), from now
        started = process_start() if argv is None else time.monotonic()
        code = run_watched(lambda: _run_program(args), budget, started + budget)
        if argv is None:
            _end_program(code)
        return code
    return _run(args)


def _run_program(args) -> int:
    """Run the command in a process of its own (a watched child).

    The process is short-lived, so the collector's work and Python's teardown buy nothing:
    the imported modules are frozen out of collection (the package froze sympy's as it was
    imported, this the rest; a forked child then touches fewer of the pages it shares with
    its parent), collections of young objects run less often, and the process ends without
    freeing sympy's objects one by one (teardown alone cost 40-90 ms, as much as a small
    analysis). Memory stays bounded: cycles are still collected, once 100,000 objects are
    new (about 10 MB). A shipped spec's analysis with every machine leaves up to 55,000 new
    objects (flash_attention_hopper), and one collection of 50,000 scattered young objects
    cost it some 20 ms of CPU, mostly cache misses, to free 2,200 of them: no shipped spec's
    command runs one now. The process is kernelcost's own, so sympy's tensor module is
    stood in for (no_tensors), and an import statement run again is answered with the module
    it gave before (import_cache)."""
    no_tensors.install()
    import_cache.install()
    gc.freeze()
    gc.set_threshold(100_000, 20, 20)
    return _run(args)


def _at_stage(code: ErrorCode, message: str, hint: str) -> BudgetError:
    """A limit met at run time, placed where the stage in flight is (a spec's statement, a
    Triton kernel's line), as the time budget's report places it."""
    name, span = current()
    return BudgetError(code, Diagnostic(span, f"{message} {name}", hint), stage_source(span))


def _unwritable_text(error: Exception) -> bool:
    """Whether `error` is stdout's encoding refusing a character of the output: a terminal
    or PYTHONIOENCODING of ASCII or Latin-1 has no `→` or `µ`."""
    encoding = getattr(sys.stdout, "encoding", None) or ""
    return isinstance(error, UnicodeEncodeError) and encoding.lower().replace("-", "_") \
        == error.encoding.lower().replace("-", "_")


def _character(error: Exception) -> str:
    assert isinstance(error, UnicodeEncodeError)  # _unwritable_text's
    text = error.object[error.start:error.end]
    return f"`{text}` (U+{ord(text[0]):04X})" if text else "character it was given"


def _end_program(code: int) -> NoReturn:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


@patched()  # a command called from a caller's process (tests, scripts)
def _run(args) -> int:
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at interpreter exit
        return code
    except KcostError as error:
        return report(placed_option(error, args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `kernelcost ... | head`: the reader left, nothing to report
        drop_stdout()
        sys.stderr.close()
        return EXIT_OK
    except OSError as error:  # reading is checked where it happens: this is the output
        drop_stdout()
        return report(InputOutputError(Code.OUTPUT_FAILED, Diagnostic(
            None, f"cannot write the output: {error.strerror or error}",
            "check the disk space and where the output goes")))
    except MemoryError:  # a limit of the work, as the time budget is: the input asks too much
        return report(_at_stage(Code.OUT_OF_MEMORY, "the analysis ran out of memory while",
                                "give it smaller sizes, or run it where more memory is free"))
    except RecursionError:
        return report(_at_stage(Code.TOO_DEEP_TO_ANALYSE, "the input nests too deeply to "
                                "analyse while", "split long expressions with `let`, shorten "
                                "--set values, or flatten the machine file"))
    except Exception as error:  # the promise: no traceback reaches the user
        if _unwritable_text(error):
            drop_stdout()
            return report(InputOutputError(Code.OUTPUT_FAILED, Diagnostic(
                None, f"cannot write the output: its encoding, {sys.stdout.encoding}, has no "
                f"{_character(error)}", "give the output UTF-8: PYTHONIOENCODING=utf-8, or a "
                "UTF-8 locale (LANG=C.UTF-8)")))
        return report(InternalError(Code.UNEXPECTED, Diagnostic(
            None, f"{type(error).__name__}: {error}",
            "this is a bug in kernelcost; please report it with the spec")))
