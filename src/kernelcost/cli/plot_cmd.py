"""`kernelcost plot`: its options and its run. A figure per machine; each spec may have its
own sizes (`--set gemm_tiled:T=64`) and its own measurement (`--measured gemm:412us`)."""

from __future__ import annotations

import re
from pathlib import Path

from ..base.errors import Code, Diagnostic, MeasurementError, SizeError, option_span, placed
from ..base.watchdog import stage
from ..lang.settings import split_commas
from .shared import (
    EXIT_OK,
    add_reuse,
    add_sizes,
    machine_ids,
    measurement_of,
    parse_settings,
    precision_names,
    progress_bar,
)

# `gemm_tiled:T=64,N=N`: a spec's file name, a colon, what belongs to it alone
_OWN = re.compile(r"^\s*([A-Za-z_][\w.-]*)\s*:(?!\s*=)(.*)$")


def build_plot_parser(commands) -> None:
    plot = commands.add_parser("plot", help="a roofline figure (SVG, PNG or PDF) of one or "
                                            "more specs, one per machine")
    plot.add_argument("specs", nargs="+", metavar="SPEC", help=".kcost files, on one figure")
    plot.add_argument("--machine", action="append", required=True, metavar="ID|PATH",
                      help="a machine id (h100), a .toml file, or `all`; repeat or separate "
                           "by commas: one figure per machine")
    plot.add_argument("--precision", nargs="+", action="extend", default=[],
                      help="precisions whose roofs are drawn; the first places every kernel "
                           "(default: each spec's own)")
    add_sizes(plot)
    plot.add_argument("--measured", action="append", default=[], metavar="[SPEC:]VALUE",
                      help="a measured run drawn under its roof: 412us, 400TFLOP/s, 3.1TB/s; "
                           "with several specs, name the spec: gemm_tiled:412us")
    add_reuse(plot)
    plot.add_argument("--sweep", metavar="NAME=LOW..HIGH",
                      help="draw each kernel's path as this size grows, e.g. N=64..65536")
    plot.add_argument("-o", "--output", required=True, action="append",
                      help="the figure file: .svg, .png, .pdf; repeat for several formats. "
                           "With several machines each file gets the machine's id: "
                           "fig.h100.svg")


def _refuse_one_name_twice(specs: list[str], names: list[str]) -> None:
    """`--set gemm:N=2048` and `--measured gemm:1ms` name a spec by its file's stem: two
    specs of one stem both took them, and were drawn under one name."""
    for index, name in enumerate(names):
        if name in names[:index]:
            first = specs[names.index(name)]
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                option_span("SPEC", specs[index]),
                f"`{first}` and `{specs[index]}` are both the spec `{name}`" if
                first != specs[index] else f"the spec `{specs[index]}` is given twice",
                "the figure and the options name a spec by its file's name: copy one to "
                "another name"), specs[index])


def run_plot(args) -> int:
    from ..hardware.machinefile import load_machine
    from ..lang.sizerange import parse_range
    from ..present.plot import check_figure_path, require_matplotlib, roofline_figure, save

    require_matplotlib()  # before any work, with how to install it
    names = [Path(spec).stem for spec in args.specs]
    _refuse_one_name_twice(args.specs, names)
    shared, own = split_by_spec(args.settings, names, "--set")
    measured = _measurements(args.measured, names)
    precisions = precision_names(args.precision) or []
    machines = [load_machine(m) for m in machine_ids(args.machine, [], precisions)]
    if any(measured) and len(machines) > 1:
        raise MeasurementError(Code.MEASUREMENT_AMBIGUOUS, Diagnostic(
            None, "a measurement was taken on one machine: give one --machine with --measured"))
    for machine in machines:
        if precisions:
            machine.require_precision(precisions[0])
    outputs = {machine.id: figure_paths(args.output, machine.id, len(machines) > 1)
               for machine in machines}
    for paths in outputs.values():  # every destination checked before any is drawn
        for path in paths:
            check_figure_path(path)
    size_range = parse_range(args.sweep) if args.sweep else None
    with progress_bar("drawing", len(machines) * len(args.specs)) as advance:
        for machine in machines:
            stage(f"drawing the figure for {machine.id}")
            try:
                figure = roofline_figure(args.specs, machine, precisions,
                                         settings=parse_settings(shared),
                                         own_settings=[parse_settings(own[name])
                                                       for name in names],
                                         size_range=size_range, reuse=args.reuse,
                                         measured=measured, on_kernel=advance)
            except MeasurementError as error:  # about the one measurement: placed on it
                if len(args.measured) != 1:
                    raise
                raise placed(error, option_span("--measured", args.measured[0]),
                             args.measured[0]) from None
            except SizeError as error:  # the swept name: the figure knows it, not the option
                if error.code != Code.UNKNOWN_PARAMETER or size_range is None:
                    raise
                raise placed(error, option_span("--sweep", size_range.parameter),
                             args.sweep) from None
            for path in outputs[machine.id]:
                print(save(figure, path))
    return EXIT_OK


def figure_paths(outputs: list[str], machine_id: str, several: bool) -> list[Path]:
    """The files of one machine's figure: as given, or with the machine's id before the
    suffix when there are several machines (fig.svg -> fig.h100.svg)."""
    if not several:
        return [Path(output) for output in outputs]
    return [Path(output).with_suffix(f".{machine_id}{Path(output).suffix}")
            for output in outputs]


def split_by_spec(items: list[str], names: list[str],
                  option: str) -> tuple[list[str], dict[str, list[str]]]:
    """Values of a repeatable option that every spec shares, and those written
    `SPEC:VALUE` that belong to the specs of that file name. A --set list is read item by
    item: `rmsnorm:R=64,rmsnorm:n=4096` sets both in rmsnorm, and a name's scope runs to
    the next one (`rmsnorm:R=64,n=4096` sets both there too)."""
    shared: list[str] = []
    own: dict[str, list[str]] = {name: [] for name in names}
    for argument in items:
        parts = [part for _, part in split_commas(argument)] if option == "--set" else [argument]
        scope: str | None = None
        for item in parts:
            match = _OWN.match(item)
            if match is not None:
                scope, item = match.groups()
                if scope not in own:
                    raise SizeError(Code.UNKNOWN_SPEC_NAME, Diagnostic(
                        None, f"{option} {argument}: no spec named `{scope}` on the figure",
                        f"the specs: {', '.join(dict.fromkeys(names))}"))
            (shared if scope is None else own[scope]).append(item)
    return shared, own


def _measurements(items: list[str], names: list[str]) -> list[dict | None]:
    """One measurement (or None) per spec, in the order of the specs."""
    shared, own = split_by_spec(items, names, "--measured")
    if shared and len(names) > 1:
        raise MeasurementError(Code.MEASUREMENT_AMBIGUOUS, Diagnostic(
            None, f"--measured {shared[0]}: which spec was measured?",
            f"name it: --measured {names[0]}:{shared[0]}"))
    measured = []
    for name in names:
        values = own[name] or shared
        if len(values) > 1:
            raise MeasurementError(Code.MEASUREMENT_AMBIGUOUS, Diagnostic(
                None, f"two measurements of `{name}`", "give one run per spec"))
        measured.append(measurement_of(values[0]) if values else None)
    return measured
