"""`kernelcost analyze`: a spec's closed forms and, with machines, its verdicts, printed as
text, JSON, Markdown or LaTeX. Its options are registered with the others in cli/__init__."""

from __future__ import annotations

import dataclasses
import sys

from ..algebra.jsonout import print_json
from ..base.errors import Code, Diagnostic, MeasurementError, SizeError, option_span, placed
from ..base.watchdog import stage
from .import_cmd import load_or_import
from .shared import (
    EXIT_MISMATCH,
    EXIT_OK,
    machine_choice,
    measurement_of,
    page,
    parse_settings,
    precision_names,
    print_fitted,
    print_prose,
    refuse_repeated,
)


def run_analyze(args) -> int:
    from ..analysis.api import analyze
    from ..present import report

    precisions = precision_names(args.precision)  # an unknown name is refused before any work
    raw = parse_settings(args.settings)
    spec = load_or_import(args)
    # the closed forms at the first precision asked for: its element types (precisions.py)
    result = analyze(spec, raw, reuse=args.reuse,
                     verify=not args.no_verify, precision=precisions[0] if precisions else None)
    failed = result.verified is not None and result.verified.agree is False
    if failed and not args.json:  # wrong forms are not printed; JSON carries the failure
        print(report.verification_error(result.verified), file=sys.stderr)
        return EXIT_MISMATCH
    machines, dropped = machine_choice(args.machine, [], precisions)
    measurement, warm = _machine_options(args, bool(machines))
    if measurement and len(machines) > 1:  # as plot refuses it: each roof took it as its own
        raise MeasurementError(Code.MEASUREMENT_AMBIGUOUS, Diagnostic(
            option_span("--measured", args.measured), "a measurement was taken on one "
            f"machine, and --machine gives {len(machines)}", "give one --machine with "
            "--measured"), args.measured)
    machines = _with_inputs(machines, args.inputs)
    found = []
    if machines:  # the model, solve and machine stages load only when there is one
        found = _answers(args, result, machines, precisions, raw, measurement=measurement,
                         warm=warm)
    stage("writing the output")
    if args.json:
        return _print_analysis_json(result, found, machines, dropped, failed)
    _print_analysis(args, result, found, dropped)
    return EXIT_OK


def _machine_options(args, machines: bool):
    """--measured as a measurement and --warm-l2 as its tensors, each refused without a
    machine, as --exp-on-fma is."""
    measurement = measurement_of(args.measured) if args.measured else None
    if args.exp_on_fma and not machines:
        raise SizeError(Code.OPTION_NEEDS_MACHINE, Diagnostic(None, "--exp-on-fma needs a machine",
                                                              "add --machine b200 (or another id)"))
    warm = tuple(name.strip() for name in (args.warm_l2 or "").split(",") if name.strip())
    if args.warm_l2 is not None and not warm:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            option_span("--warm-l2", args.warm_l2), "--warm-l2 names no tensor",
            "--warm-l2 x,w"), args.warm_l2)
    refuse_repeated("--warm-l2", [args.warm_l2 or ""], "tensor")  # reads taken from L2 twice
    if warm and not machines:
        raise SizeError(Code.OPTION_NEEDS_MACHINE, Diagnostic(
            None, "--warm-l2 needs a machine (its L2 capacity)",
            "add --machine h100 (or another id)"))
    if measurement and not machines:
        raise SizeError(Code.OPTION_NEEDS_MACHINE, Diagnostic(
            None, "--measured needs a machine to compare with",
            "add --machine h100 (or another id)"))
    return measurement, warm


def _with_inputs(machines: list, inputs: str | None) -> list:
    """The machines taken with the operands --inputs names (their achievable figures for
    them); as named where it is not given. Refused without a machine, as --measured is."""
    if inputs is None:
        return machines
    if not machines:
        raise SizeError(Code.OPTION_NEEDS_MACHINE, Diagnostic(
            None, "--inputs needs a machine (its achievable figures for those operands)",
            "add --machine a100 (or another id)"))
    from ..base.kinds import Inputs
    from ..hardware.machinefile import load_machine

    return [dataclasses.replace(load_machine(machine), inputs=Inputs(inputs))
            for machine in machines]


def _answers(args, result, machines, precisions, raw, *, measurement, warm) -> list:
    """The verdicts on each machine; an error about --measured or --warm-l2 placed on its
    value."""
    from ..answers.answer import answers

    stage("comparing with the machines")
    from ..base.kinds import WorkClass
    from ..gpu.polyexp import parse_exp_on_fma

    option = parse_exp_on_fma(args.exp_on_fma) if args.exp_on_fma else None
    if option is not None and result.cost.work.get(WorkClass.SFU, 0) == 0:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(  # it moved nothing, and said so
            option_span("--exp-on-fma", args.exp_on_fma), f"--exp-on-fma: `{result.kernel}` "
            "computes no exponential (no work on the SFU) to move", "drop --exp-on-fma"),
            args.exp_on_fma)
    try:
        return answers(result, machines, precisions, measurement, exp_on_fma=option,
                       warm_l2=warm, raw=raw)
    except MeasurementError as error:  # about the measurement: placed on its value
        raise placed(error, option_span("--measured", args.measured or ""),
                     args.measured or "") from None
    except SizeError as error:
        if error.code != Code.NOT_A_TENSOR_READ:
            raise
        raise placed(error, option_span("--warm-l2", args.warm_l2 or ""),
                     args.warm_l2 or "") from None


def _print_analysis_json(result, found, machines, dropped, failed: bool) -> int:
    from ..present import report

    document = report.analysis_json(result)
    if machines:
        document.update(report.answers_json(found))
        document["dropped_machines"] = report.dropped_json(dropped)
    print_json(document)
    if failed:
        print(report.verification_error(result.verified), file=sys.stderr)
        return EXIT_MISMATCH
    return EXIT_OK


def _print_analysis(args, result, found, dropped) -> None:
    """The analysis as Markdown, LaTeX or the terminal's tables and sentences."""
    from ..present import report

    if args.markdown:
        print(report.analysis_markdown(result, found), end="")
        if report.dropped_line(dropped) is not None:
            print(f"\n{report.dropped_line(dropped)}")
    elif args.latex:
        print(report.analysis_latex(result, found), end="")
    else:
        console, width = page(args)
        for renderable in report.analysis_tables(result, width):
            console.print(renderable)
        if found:
            print_fitted(console, report.verdict_table(found, width))
            print_prose(console, report.answer_lines(found), width)
        if report.dropped_line(dropped) is not None:
            print_prose(console, [report.dropped_line(dropped)], width)
            if console.is_terminal:
                _print_text_roofline(console, found)


def _print_text_roofline(console, found) -> None:
    """A roofline preview for a terminal without a figure viewer."""
    from ..present.textplot import drawable, render

    results = [answer.verdict for answer in found if drawable(answer.verdict)]
    if results:
        console.print(render(results[:1], width=min(console.width, 100)), markup=False,
                      highlight=False)


