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


COMMANDS = {"analyze": run_analyze}


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
