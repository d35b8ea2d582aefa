"""The parser built for the command an argument list names (cli.build_parser(command)) reads
those arguments as the whole parser does: the same namespace, the same help and the same
usage errors, for every command and a misspelt one."""

import argparse
import contextlib
import io

import pytest
from conftest import SPECS

from kernelcost import cli

GEMM = str(SPECS / "gemm.kcost")

ARGUMENTS = [
    ["analyze", GEMM, "--json", "--machine", "h100,a100", "--set", "M=64"],
    ["analyze", GEMM, "--machine", "all", "--no-verify", "--wide"],
    ["analyze", "--", GEMM],
    ["check", GEMM, "--samples", "3", "--rows"],
    ["solve", GEMM, "--for", "M", "--level", "global"],
    ["machines", "h100", "--json"],
    ["sweep", GEMM, "--vary", "M=64,128"],
    ["validate", "--published"],
    # usage errors: each parser's words and exit
    ["analyze"],
    ["analyze", GEMM, "--bogus"],
    ["analyze", GEMM, "--json", "--markdown"],
    ["check", GEMM, "--samples", "x"],
    ["analyse", GEMM],
    ["tune"],
]


def _commands() -> list[str]:
    [commands] = [action for action in cli.build_parser()._actions
                  if action.dest == "command"]
    return list(commands.choices)


def _comparable(value):
    """A value of the namespace, a parser's bound method (validate's `usage`) by its name and
    its parser's prog: each build makes its own parsers."""
    owner = getattr(value, "__self__", None)
    return (value.__name__, owner.prog) if owner is not None else value


def _parsed(parser, argv: list[str]) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    code = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            namespace = {name: _comparable(value)
                         for name, value in vars(parser.parse_args(argv)).items()}
        except SystemExit as exit_:
            namespace, code = None, exit_.code
    return namespace, code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", ARGUMENTS, ids=" ".join)
def test_the_named_commands_parser_reads_as_the_whole_one(argv):
    assert cli.named_command(argv) == argv[0]
    assert _parsed(cli.build_parser(argv[0]), argv) == _parsed(cli.build_parser(), argv)


@pytest.mark.parametrize("command", _commands())
def test_each_commands_help_is_the_whole_parsers(command):
    argv = [command, "--help"]
    one = _parsed(cli.build_parser(command), argv)
    assert one[1] == 0 and one[2].startswith(f"usage: kernelcost {command}")
    assert one == _parsed(cli.build_parser(), argv)


def test_an_argument_list_that_begins_with_an_option_gets_the_whole_parser():
    assert cli.named_command(["--help"]) is None
    assert cli.named_command(["--version", "analyze"]) is None
    assert cli.named_command([]) is None
    whole = _parsed(cli.build_parser(), ["--help"])
    assert all(command in whole[2] for command in _commands())


def test_an_argparse_that_keeps_its_choices_otherwise_gets_the_whole_parser(monkeypatch):
    """The one-command parser writes argparse's private bookkeeping of a choice: where a
    Python's argparse has none of it, the whole parser is built, and it parses alike."""
    monkeypatch.setattr(cli, "_BOOKKEEPING", (*cli._BOOKKEEPING, "_kept_otherwise"))
    parser = cli.build_parser("analyze")
    [commands] = [action for action in parser._actions
                  if isinstance(action, argparse._SubParsersAction)]
    assert all(commands.choices[name] is not None for name in commands.choices)
    argv = ["analyze", str(SPECS / "copy.kcost"), "--json"]
    assert _parsed(parser, argv) == _parsed(cli.build_parser(), argv)
