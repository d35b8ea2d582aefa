"""What the commands share: exit codes, the --set, --reuse and --machine options and their
readers, a --measured value, and the progress bar of long work."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path

from ..base.errors import (
    Code,
    Diagnostic,
    KcostError,
    MachineFileError,
    MeasurementError,
    SizeError,
    option_span,
    placed,
    quoted,
)
from ..base.kinds import Precision, Reuse
from ..base.tree import Span

EXIT_OK, EXIT_MISMATCH, EXIT_USER_ERROR, EXIT_INTERNAL = 0, 1, 2, 3


_GIVEN = "_kernelcost_given"  # the single-valued options given so far, while parsing


class _StoreOnce(argparse._StoreAction):
    """A single-valued option: argparse keeps the last of two values without a word
    (`--vary TM=64,128 --vary TN=128,256` varied TN alone, `--batch 1 --batch 64` ran 64).
    Given twice with one value, it is that value, as --set's `n=1024,n=1024` is."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault(_GIVEN, {})
        if self.dest in given and given[self.dest] != values:
            raise argparse.ArgumentError(self, f"given twice, as `{given[self.dest]}` and as "
                                               f"`{values}`, and only one would be read: give "
                                               "it once")
        given[self.dest] = values
        setattr(namespace, self.dest, values)


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose single-valued options refuse a second, different value
    (its subcommands' parsers are of this class too)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    json_wanted = False

    def parse_known_args(self, args=None, namespace=None):
        self.json_wanted = "--json" in (sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(args, namespace)
        namespace.__dict__.pop(_GIVEN, None)
        return namespace, extras

    def error(self, message):
        """A usage error, as argparse words it, with its code (every error has one) and,
        under --json, its JSON error object on stdout, as every other error has (a script
        reading stdout found nothing there). Exit 2."""
        hint = f"see `{self.prog} --help`"
        if self.json_wanted:
            import json

            print(json.dumps(SizeError(Code.USAGE, Diagnostic(None, message, hint)).as_json(),
                             indent=2))
        self.print_usage(sys.stderr)
        self.exit(EXIT_USER_ERROR, f"{self.prog}: error: {message}\n  error[{Code.USAGE}]: "
                                   f"{Code.USAGE.summary}; {hint}\n")


def add_sizes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", dest="settings", action="append", default=[],
                        metavar="NAME=VALUE",
                        help="size value: N=4096, n=1e8, or an expression M=N, K=2*N; "
                             "repeat, or separate by commas")


def whole_number(text: str) -> int:
    """An option's whole number (argparse's type), in ASCII digits as --set reads numbers:
    int() reads any script's digits (`١٠` as 10) and a digit group's underscore (`1_0` as
    10). A sign is read, and the option's own check places a number out of its range."""
    if not text.isascii() or "_" in text:
        raise argparse.ArgumentTypeError(
            f"a whole number in ASCII digits 0-9, not {quoted(text)}")
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not {quoted(text)}") from None


def parse_settings(items: list[str]) -> dict[str, str]:
    """The --set arguments as {name: value text}, with where each name was written."""
    from ..lang.settings import read_settings

    return read_settings(items)


WIDE_COLUMNS = 1000  # --wide: no table leaves a column out; the terminal wraps what it must


def add_wide(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wide", action="store_true",
                        help="every column of the tables, however wide the page")


def page(args):
    """The console to print on and the width the tables and sentences fit (None with
    --wide: every column, no line wrapped)."""
    wide = getattr(args, "wide", False)
    console = stdout_console(width=WIDE_COLUMNS if wide else None)
    return console, None if wide else console.width


def stdout_console(**options):
    """A rich Console on stdout (no highlighting) whose reader leaving early (`| head`) ends
    the command as `--json` does, quietly with 0: rich's own handler exits with 1."""
    from rich.console import Console

    class Page(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    console = Page(highlight=False, **options)
    if console.width < 1:  # COLUMNS=0, a width some shells report where none is known: rich
        console.width = _UNKNOWN_WIDTH  # takes it as a page of no column, and wrapping raises
    return console


_UNKNOWN_WIDTH = 80  # rich's own where it finds no terminal


def print_fitted(console, fitted) -> None:
    """A table from report.page.fitted_table (or noted_table: then its notes under it,
    wrapped), then which columns --wide would add."""
    from ..present.report.page import left_out_note, wrap_lines

    table, left_out, *notes = fitted
    console.print(table)
    if notes and notes[0]:
        console.print(wrap_lines(notes[0], console.width), markup=False, highlight=False,
                      soft_wrap=True)
    note = left_out_note(left_out)
    if note:
        console.print(note, markup=False)


def print_items(console, items, width: int | None) -> None:
    """What a report yields, in order: a fitted table (a tuple, print_fitted), sentences to
    wrap (a list, print_prose) or a renderable printed as it is."""
    for item in items:
        if isinstance(item, tuple):
            print_fitted(console, item)
        elif isinstance(item, list):
            print_prose(console, item, width)
        else:
            console.print(item)


def print_prose(console, lines, width: int | None) -> None:
    """Sentences wrapped between words (report.page.wrap), printed as they are."""
    from ..present.report.page import wrap_lines

    if lines:
        console.print(wrap_lines(lines, width), markup=False, soft_wrap=True)


def add_reuse(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reuse", type=named(Reuse), choices=tuple(mode.value for mode in Reuse),
                        default=Reuse.SPEC,
                        help="count keep scopes as written (spec), or force perfect or no "
                             "reuse for every tensor")


def named(kind: type[StrEnum]) -> Callable[[str], StrEnum | str]:
    """An option's text as a member of `kind` (Reuse), the command's value from here on; a
    word `kind` lacks stays text, for argparse's `choices` to refuse with the words it takes."""
    def member(text: str) -> StrEnum | str:
        try:
            return kind(text)
        except ValueError:
            return text

    return member


def machine_ids(items: list[str], default: list[str],
                precisions: Sequence[str] | None = None) -> list[str]:
    """The machines asked for. With `all` and precisions, the built-in machines that have
    every one of them (a machine named on its own that lacks one is refused later)."""
    return machine_choice(items, default, precisions)[0]


def machine_choice(items: list[str], default: list[str], precisions: Sequence[str] | None = None
                   ) -> tuple[list[str], tuple]:
    """machine_ids, and the built-in machines `all` left out for lacking a precision asked
    for (hardware.Dropped records, for the verdict to name)."""
    ids = [part.strip() for item in items for part in item.split(",") if part.strip()]
    dropped: tuple = ()
    if "all" in ids:  # and the files named beside it, which it dropped without a word
        from ..hardware.machinefile import builtin_machine_ids, builtin_machines_with

        kept, dropped = builtin_machines_with(precisions or [])
        if not kept:
            raise MachineFileError(Code.NO_PRECISION_PEAK, Diagnostic(
                None, f"no built-in machine has {' and '.join(precisions or [])}"))
        ids = [*kept, *(i for i in ids if i != "all" and i not in builtin_machine_ids())]
    if len(ids) > 1:
        refuse_one_id_twice(items, ids)
    return ids or default, dropped


def refuse_one_id_twice(items: list[str], ids: list[str], option: str = "--machine") -> None:
    """Two machines of one id: their rows were told apart by nothing (`H100 FP32` twice, or
    `"machine": "h100"` twice in JSON), and plot wrote both figures to one file."""
    from ..hardware.machinefile import load_machine

    seen: dict[str, str] = {}
    for name in ids:
        machine_id = load_machine(name).id
        if machine_id not in seen:
            seen[machine_id] = name
            continue
        first = seen[machine_id]
        message = (f"`{name}` is given twice" if name == first else
                   f"`{first}` and `{name}` are both machines of the id `{machine_id}`")
        item = next((i for i in reversed(items)
                     if name in [part.strip() for part in i.split(",")]), None)
        given = [part.strip() for part in (item or "").split(",")]
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            None if item is None else _part_span(option, item, len(given) - 1
                                                 - given[::-1].index(name)),
            message, "name each machine once; give a machine file an `id` of its own"),
            item)


def _part_span(option: str, item: str, index: int) -> Span:
    """The place of the comma-separated part `index` of an option's value."""
    parts = item.split(",")
    start = sum(len(part) + 1 for part in parts[:index]) + 1
    start += len(parts[index]) - len(parts[index].lstrip())
    return Span(option, 1, start, 1, start + len(parts[index].strip()))


def precision_names(items: list[str]) -> list[Precision] | None:
    """The precisions asked for, each a name kernelcost knows (a machine refuses those it
    lacks when it is loaded), as members."""
    names = [p.strip() for item in items for p in item.split(",") if p.strip()]
    if not names:  # the machine database loads only for a command that needs it
        return None
    from ..hardware.machine import check_precision_name

    for item in items:
        for index, part in enumerate(item.split(",")):
            try:
                if part.strip():
                    check_precision_name(part.strip())
            except KcostError as error:  # placed under the name in its option
                raise placed(error, _part_span("--precision", item, index), item) from None
    refuse_repeated("--precision", items, "precision")  # its rows were printed twice
    return [Precision(name) for name in names]


def refuse_repeated(option: str, items: list[str], noun: str) -> None:
    """A name an option's comma lists give twice, refused under the second: each use of it
    counted again (`--level shared,shared` and `--precision fp32,fp32` printed their rows
    twice; `--warm-l2 x,x` took x's reads from L2 twice)."""
    seen: set[str] = set()
    for item in items:
        for index, part in enumerate(item.split(",")):
            name = part.strip()
            if name and name in seen:
                raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                    _part_span(option, item, index), f"{option} names `{name}` twice",
                    f"name each {noun} once"), item)
            seen.add(name)


def measurement_of(text: str, option: str = "--measured") -> dict[str, float]:
    """A --measured value as {'seconds' | 'FLOPps' | 'Bps': number}; an error placed on it."""
    from ..base.units import parse_measurement

    measurement = parse_measurement(text)
    if measurement is None:
        raise MeasurementError(Code.UNREADABLE_MEASUREMENT, Diagnostic(
            option_span(option, text), f"cannot read the measurement `{text}`",
            "a time (412us, 1.2ms), a FLOP rate (400TFLOP/s) or a byte rate (3.1TB/s)"), text)
    ((kind, value),) = measurement.items()
    low, high = MEASURED_RANGE[kind]
    if not low <= value <= high:  # 0us would divide by zero, 1e400us is inf, 5e-324s makes
        # an infinite rate
        unit = {"seconds": "s", "FLOPps": "FLOP/s", "Bps": "B/s"}[kind]
        raise MeasurementError(Code.MEASUREMENT_NOT_POSITIVE, Diagnostic(
            option_span(option, text),
            f"the measurement `{text}` must be positive and finite, from {low:g} to "
            f"{high:g} {unit}", "a time such as 412us, or a rate"), text)
    return measurement


# what a measured run can be: a picosecond to 11 days; a rate a thousandth to 10^30 a second
# (machine figures stop there too); past them the rates and fractions derived overflow
MEASURED_RANGE = {"seconds": (1e-12, 1e6), "FLOPps": (1e-3, 1e30), "Bps": (1e-3, 1e30)}


@contextmanager
def progress_bar(description: str, total: int) -> Iterator[Callable[..., None]]:
    """A rich progress bar on stderr while the work runs, only when stderr is a terminal
    (a pipe or a log file gets no bar); yields `advance(steps=1)`. The bar goes away when
    the work is done, leaving the terminal as the output left it."""
    if not sys.stderr.isatty():
        yield lambda steps=1: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True, force_terminal=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, transient=True) as progress:
        task = progress.add_task(description, total=total)
        yield lambda steps=1: progress.advance(task, steps)


def placed_option(error: KcostError, args) -> KcostError:
    """An error about an option's value that its stage raised without a place (the machine
    and topology loaders know a name, not where it was written): placed under the name in
    its option, where the option holds it (a results CSV names machines too)."""
    if any(d.span is not None for d in error.diagnostics):
        return error
    if error.code in (Code.CANNOT_WRITE, Code.FIGURE_FORMAT):
        return _placed_output(error, args)
    options = _NAMING_OPTIONS.get(error.code, ())
    if getattr(args, "command", None) == "machines":  # `machines ID`: no option holds it
        options = ()
    if not options:  # an error that starts by naming its option: `--measured needs ...`
        named = re.match(r"(--[a-z][a-z0-9-]*)\b", error.diagnostics[0].message)
        value = None
        if named is not None:
            dest = _DESTS.get(named.group(1), named.group(1)[2:].replace("-", "_"))
            value = getattr(args, dest, None)
        if isinstance(value, list):  # the item the message quotes, or the only one
            quoted = [item for item in value if str(item) in error.diagnostics[0].message]
            value = (quoted or value)[0] if len(quoted or value) == 1 else None
        if named is None or isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return error
        return placed(error, option_span(named.group(1), str(value)), str(value))
    names = re.findall(r"`([^`]*)`", error.diagnostics[0].message)
    for option in options:
        for item in _given(args, option[2:].replace("-", "_")):
            if item.strip() in names:  # the whole value: `h100,h100` where one id is read
                start = 1 + len(item) - len(item.lstrip())
                return placed(error, Span(option, 1, start, 1, start + len(item.strip())), item)
            column = 1
            for part in item.split(","):
                if part.strip() in names:
                    start = column + len(part) - len(part.lstrip())
                    return placed(error, Span(option, 1, start, 1, start + len(part.strip())),
                                  item)
                column += len(part) + 1
    return error


# the options whose value an error names without a place: a machine or topology id, or the
# path of a file either loads (the spec's own path is no option's)
_NAMING_OPTIONS = {Code.UNKNOWN_MACHINE: ("--machine",), Code.UNKNOWN_TOPOLOGY: ("--topology",),
                   Code.NO_SUCH_FILE: ("--machine", "--topology"),
                   Code.NO_PRECISION_PEAK: ("--precision", "--weights", "--activations",
                                            "--kv-cache")}


def _placed_output(error: KcostError, args) -> KcostError:
    """A file that cannot be written, placed at the option that named it: the writers know a
    path, which a figure of several machines derives from its option (`a.svg` names
    `a.h100.svg`: plot_cmd.figure_paths), its message naming the file."""
    message = error.diagnostics[0].message
    for dest, option in _OUTPUT_OPTIONS.items():
        for item in _given(args, dest):
            text = str(item)
            base = re.escape(str(Path(text).with_suffix("")))
            derived = rf"cannot write {base}\.[^/:]+{re.escape(Path(text).suffix)}:"
            if any(message.startswith(f"cannot write {form}")
                   for form in (f"{text}:", f"`{text}`", repr(text))) or re.match(
                    derived, message):
                return placed(error, option_span(option, text), text)
    return error


def _given(args, dest: str) -> list:
    """The values an option was given: each of a repeated one, the one of a single one."""
    given = getattr(args, dest, None)
    return given if isinstance(given, list) else [given] if given else []


# the options that name a file written, by their dest (`-o` as import's own errors write it)
_OUTPUT_OPTIONS = {"output": "-o", "grid": "--grid", "curve": "--curve", "plot": "--plot",
                   "figure": "--figure"}
_DESTS = {"--tp": "gpus", "--set": "settings"}  # options whose value another name holds
