"""`kernelcost sweep`: the closed forms over a range of sizes, as CSV (every size, streamed a
chunk at a time) or as a table that fits a screen (the first and last sizes, and how to get
the rest)."""

from __future__ import annotations

import sys

from ..base.errors import Code, Diagnostic, SizeError, option_span, placed
from ..base.tree import Span
from ..base.watchdog import stage
from .shared import (
    EXIT_OK,
    add_reuse,
    add_sizes,
    add_wide,
    page,
    parse_settings,
    precision_names,
    print_fitted,
    progress_bar,
    whole_number,
)

MAX_TABLE_POINTS = 100_000  # --all: a rich table of more rows takes minutes to lay out
TABLE_CHROME_LINES = 8  # title, header lines, rules and the note under a table
MIN_TABLE_ROWS = 30  # a screenful where the console does not say (a pipe, a file)


def build_sweep_parser(commands) -> None:
    sweep = commands.add_parser("sweep", help="W, Q, I, t_min and the binding roof over a "
                                              "range of sizes")
    sweep.add_argument("spec", help="a .kcost file")
    sweep.add_argument("--sweep", required=True, metavar="NAME=LOW..HIGH",
                       help="the size to vary and its range, e.g. N=64..65536")
    sweep.add_argument("--points", type=whole_number, default=20,
                       help="how many sizes (default 20)")
    spacing = sweep.add_mutually_exclusive_group()
    spacing.add_argument("--log", action="store_true",
                         help="space the sizes geometrically (the default)")
    spacing.add_argument("--linear", action="store_true", help="space the sizes equally")
    sweep.add_argument("--machine", help="a machine id or .toml path: adds t_min, the "
                                         "binding roof and the fraction of peak")
    sweep.add_argument("--precision", help="the precision on the machine (default: the "
                                           "spec's own)")
    views = sweep.add_mutually_exclusive_group()
    views.add_argument("--csv", action="store_true", help="CSV in SI base units, every size")
    views.add_argument("--all", action="store_true",
                       help=f"the table with every size (at most {MAX_TABLE_POINTS:,}); "
                            "without it a table longer than a screen shows its first and "
                            "last sizes")
    add_sizes(sweep)
    add_wide(sweep)
    add_reuse(sweep)


def run_sweep(args) -> int:
    from ..hardware.machinefile import load_machine
    from ..lang.sizerange import parse_range
    from ..present.sweep import Sweeper, stream_csv

    machine = load_machine(args.machine) if args.machine else None
    if args.precision:
        names = precision_names([args.precision])
        precision = names[0] if names else args.precision
        if machine is not None:
            machine.require_precision(precision)
    size_range = parse_range(args.sweep, args.points, log=not args.linear)
    if args.all and size_range.made > MAX_TABLE_POINTS:
        raise SizeError(Code.TOO_MANY_POINTS, Diagnostic(
            option_span("--points", str(size_range.points)),
            f"a table of {size_range.points:,} rows is too long to read",
            f"use --csv, or at most {MAX_TABLE_POINTS:,} points with --all"),
            str(size_range.points))
    settings = parse_settings(args.settings)
    _refuse_swept_and_set(size_range.parameter, settings, args.sweep)
    stage("sweeping")
    try:
        sweeper = Sweeper(args.spec, size_range.parameter, settings=settings,
                          machine=machine, precision=args.precision, reuse=args.reuse)
    except SizeError as error:  # the swept name: the sweeper knows the name, not the option
        if error.code != Code.UNKNOWN_PARAMETER:
            raise
        raise placed(error, Span("--sweep", 1, 1, 1, len(size_range.parameter) + 1),
                     args.sweep) from None
    size_range = size_range.with_step(sweeper.step)  # sizes the spec's `assume d | N` allow
    if size_range.multiples == 0:  # the nearest multiple, past the range, was swept instead
        raise SizeError(Code.BAD_RANGE, Diagnostic(
            option_span("--sweep", args.sweep),
            f"no multiple of {sweeper.step:,} lies in {size_range.low:g}..{size_range.high:g}, "
            f"and the spec's `assume` makes `{size_range.parameter}` one",
            f"a range that holds one: {size_range.parameter}={sweeper.step}.."
            f"{sweeper.step * 64}"), args.sweep)
    if not args.csv:
        _print_table(sweeper, size_range, args)
        return EXIT_OK
    sys.stdout.flush()
    _keep_freed_memory()
    with progress_bar("sweeping", size_range.chunk_count()) as advance:
        broken = stream_csv(sweeper, size_range, sys.stdout.buffer.write, advance)
    sys.stdout.buffer.flush()
    from ..present.report import broken_bound_lines

    for line in broken_bound_lines(broken, str(sweeper.symbol)):
        print(line, file=sys.stderr)
    return EXIT_OK


def _refuse_swept_and_set(name: str, settings, sweep: str) -> None:
    """`--sweep M=64..128 --set M=64`: the swept size's own --set was dropped without a
    word (tune refuses a size both varied and set)."""
    if name not in settings:
        return
    argument, start = settings.places[name]
    raise SizeError(Code.SET_AND_VARIED, Diagnostic(
        Span("--set", 1, start, 1, start + len(name)),
        f"`{name}` is both swept ({sweep}) and set",
        f"leave `{name}` out of --set, or sweep another size"), argument)


def _keep_freed_memory() -> None:
    """Each chunk allocates and frees the same large arrays again; glibc gives the freed
    memory back to the system at once and faults it in again for the next chunk, a quarter
    of a long sweep's CPU time (measured: 0.55 s of system time per 2 million rows, 0.04 s
    with this). Fixed thresholds keep it in the process; the peak is unchanged. Elsewhere
    than glibc, nothing to do."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    trim_threshold, mmap_threshold = -1, -3  # glibc's M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
    mallopt(mmap_threshold, 32 << 20)  # glibc's largest: arrays under it reuse the heap
    mallopt(trim_threshold, 256 << 20)


def _print_table(sweeper, size_range, args) -> None:
    """The whole table when it fits a screen (or with --all); else its first and last rows,
    with how many sizes were left out and how to see them all."""
    import numpy


    console, width = page(args)
    rows = max(console.height - TABLE_CHROME_LINES, MIN_TABLE_ROWS)
    if args.all or size_range.made <= rows:
        _print_rows(console, sweeper, size_range.values(), width)
        return
    first, last, total = size_range.ends(rows // 2)
    if total <= rows:
        _print_rows(console, sweeper, numpy.union1d(first, last), width)
        return
    _print_rows(console, sweeper, numpy.concatenate([first, last]), width, len(first))
    whole_table = f" (up to {MAX_TABLE_POINTS:,} sizes)" if total > MAX_TABLE_POINTS else ""
    console.print(f"{total:,} sizes: the first {len(first)} and the last {len(last)} shown, "
                  f"{total - len(first) - len(last):,} left out; all of them: --csv, or --all "
                  f"for the whole table{whole_table}")


def _print_rows(console, sweeper, sizes, width, gap_after: int | None = None) -> None:
    """The table of these sizes, then a warning for each assumed bound they break."""
    from ..present.report import broken_bound_lines, sweep_table

    print_fitted(console, sweep_table(sweeper(sizes), gap_after=gap_after, width=width))
    for line in broken_bound_lines(sweeper.broken(sizes), str(sweeper.symbol),
                                   shown=gap_after is not None):
        console.print(line)
