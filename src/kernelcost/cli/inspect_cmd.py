"""`kernelcost machines`, `check` and `validate`: the commands that show what the tool
holds or compare it with something else (the database, the enumeration, measurements).
Kept out of cli.py, which only registers them."""

from __future__ import annotations

from ..algebra.jsonout import print_json
from ..base.errors import BudgetError, Code, Diagnostic, SizeError, option_span
from ..base.watchdog import stage
from .import_cmd import load_or_import
from .shared import (
    EXIT_MISMATCH,
    EXIT_OK,
    page,
    parse_settings,
    print_fitted,
    print_items,
    print_prose,
)


def run_machines(args) -> int:
    from ..hardware.generations import ridges_by_generation
    from ..hardware.machinefile import builtin_machine_ids, load_machine
    from ..present import report

    if args.machine:
        machine = load_machine(args.machine)
        if args.json:
            print_json(report.machine_json(machine))
        else:
            console, width = page(args)
            fitted, notes = report.machine_table(machine, width)
            print_fitted(console, fitted)
            print_prose(console, notes, width)
        return EXIT_OK
    machines = [load_machine(i) for i in builtin_machine_ids()]
    if args.json:
        print_json([report.machine_json(m) for m in machines])
    else:
        console, width = page(args)
        print_fitted(console, report.machines_table(machines, width))
        print_prose(console, report.generation_lines(ridges_by_generation(machines)), width)
    return EXIT_OK


MAX_SAMPLES = 1000  # size assignments `check` enumerates: each up to 200,000 steps


def run_check(args) -> int:
    from ..analysis.verify import check_against_oracle
    from ..present import report

    if not 1 <= args.samples <= MAX_SAMPLES:
        shown = str(args.samples)
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            option_span("--samples", shown),
            f"--samples {shown}: draw 1 to {MAX_SAMPLES} size assignments",
            "--samples 4 (the default)"), shown)
    spec = load_or_import(args)
    settings = parse_settings(args.settings)
    stage("comparing with the enumeration")
    try:
        results = check_against_oracle(spec, settings, args.reuse, args.samples)
    except BudgetError as error:  # its hint named max_steps, which no option sets
        if error.code != Code.ENUMERATION_BUDGET_RAN_OUT:
            raise
        if not args.settings:  # the sizes the spec's defaults give: placed at its header
            kernel = spec.checked.kernel
            raise BudgetError(Code.ENUMERATION_BUDGET_RAN_OUT, Diagnostic(
                kernel.span, error.diagnostics[0].message, "the enumeration runs every "
                "loop iteration at the defaults: give smaller sizes with --set"),
                kernel.source) from None
        given = ",".join(args.settings)
        raise BudgetError(Code.ENUMERATION_BUDGET_RAN_OUT, Diagnostic(
            option_span("--set", given), error.diagnostics[0].message,
            "the enumeration runs every loop iteration: give smaller sizes, or leave --set "
            "out to draw small ones"), given) from None
    console, width = page(args)
    print_items(console, report.check_tables(spec, results, width, args.rows), width)
    mismatches = sum(len(r.mismatches) for r in results)
    return EXIT_MISMATCH if mismatches else EXIT_OK


def add_validate_parser(commands) -> None:
    # here rather than in validate.py, whose rows and comparisons load only for the command
    validate = commands.add_parser("validate", help="predictions against measured runs: the "
                                                    "CSV of validate/run_h200.py")
    validate.add_argument("results", nargs="?",
                          help="the CSV: kernel,spec,sizes,dtype,time_s,dram_bytes,l2_bytes,flop")
    validate.add_argument("--machine",
                          help="the machine the runs were measured on: an id or a .toml")
    validate.add_argument("--published", action="store_true",
                          help="the corpus of published measurements (validate/published/), "
                               "each row on its own machine")
    validate.add_argument("--split", choices=("calibration", "validation"), metavar="SIDE",
                          help="with --published: one side of the split only (calibration "
                               "or validation)")
    validate.add_argument("--figure", metavar="PNG",
                          help="with --published: write predicted against measured there")
    validate.add_argument("--ncu", metavar="CSV",
                          help="an `ncu --csv --page raw` export, against --spec's Q and W")
    validate.add_argument("--spec", help="with --ncu: the spec the profiled kernels run")
    validate.add_argument("--set", metavar="N=V,...", help="with --ncu: the spec's sizes")
    validate.add_argument("--json", action="store_true", help="print one JSON object")
    validate.add_argument("--wide", action="store_true",
                          help="every column of the table, however wide the page")
    validate.set_defaults(usage=validate.error)  # a missing option: its usage, exit 2


def _refuse_other_modes(args) -> None:
    """validate compares a results CSV, an ncu export or the published corpus: a second one
    given, or an option of a mode not run, was dropped unread."""
    modes = [name for name, given in (("RESULTS.csv", args.results), ("--ncu", args.ncu),
                                      ("--published", args.published)) if given]
    if len(modes) > 1:
        args.usage(f"{' and '.join(modes)} are two comparisons: give one")
    for option, given, mode in (("--split", args.split, "--published"),
                                ("--figure", args.figure, "--published"),
                                ("--spec", args.spec, "--ncu"), ("--set", args.set, "--ncu")):
        if given is not None and mode not in modes:
            args.usage(f"{option} goes with {mode}")


def run_validate(args) -> int:
    from ..answers.validate import run
    from ..present.report.validation import validation_json, validation_page

    _refuse_other_modes(args)
    if args.published:
        from ..present.published_page import run as run_published

        return run_published(args)
    if args.ncu:
        from ..present.ncu_report import run as run_ncu

        return run_ncu(args)
    if args.results is None or args.machine is None:
        args.usage("give RESULTS.csv and --machine, or --published")

    def show(machine, comparisons) -> None:
        if args.json:
            print_json(validation_json(machine, comparisons))
            return
        console, width = page(args)
        table, lines = validation_page(machine, comparisons, width)
        print_fitted(console, table)
        print_prose(console, lines, width)

    return run(args, show)
