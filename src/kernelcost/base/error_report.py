"""How the command line shows an error: its text on stderr and, when the command was asked for
--json, the JSON error object on stdout as well, so that a script reading stdout gets the code
whether the command succeeded or not. The watchdog's parent reports a timeout the same way,
so the choice is made once, when the arguments are read (cli.main)."""

from __future__ import annotations

import json
import sys

from .errors import KcostError

_as_json = False


def request_json(wanted: bool) -> None:
    global _as_json
    _as_json = bool(wanted)


def report(error: KcostError) -> int:
    """Print the error; return the command's exit code for it (2 bad input, 3 a bug)."""
    print(error.render(), file=sys.stderr)
    if _as_json:
        try:
            print(json.dumps(error.as_json(), indent=2))
        except (OSError, ValueError):  # stdout closed or gone: stderr has said it
            pass
    return error.exit_code
