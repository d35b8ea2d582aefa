"""Running one example of tests/error_examples.py as a user meets it: its files written in a
folder, the command line (in process, or as the console script runs it) or the snippet run
there, and what the user sees, with the exit code and the first error code it names."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from error_examples import Example


@dataclass(frozen=True)
class Outcome:
    code: str | None  # the first code the output names
    exit_code: int | None  # None where a snippet raised instead of returning
    text: str  # what the user sees: stderr, or the raised error's rendering
    raised: str = ""  # the class a snippet raised
    stdout: str = ""  # in process only: the JSON error object under --json


def run_example(example: Example, folder: Path, extra: tuple[str, ...] = ()) -> Outcome:
    """Run the example in `folder` (emptied first by the caller): its text as shown to a
    user, with the exit code."""
    import contextlib
    import io
    import os
    import re
    import subprocess
    import sys

    for name, content in example.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, "utf-8")
    raised, exit_code = "", None
    if example.process:
        env = {**os.environ, **example.env}
        with open(example.stdout or os.devnull, "w") as stdout:
            done = subprocess.run([sys.executable, "-m", "kernelcost.cli", *example.argv,
                                   *extra], cwd=folder, env=env, stdout=stdout,
                                  stderr=subprocess.PIPE, text=True, timeout=120)
        text, exit_code = done.stderr, done.returncode
    else:
        from kernelcost import cli
        from kernelcost.base.errors import KcostError

        saved_env = {name: os.environ.get(name) for name in example.env}
        saved_modules, saved_commands = dict(sys.modules), dict(cli.COMMANDS)
        here = os.getcwd()
        err, out = io.StringIO(), io.StringIO()
        try:
            os.environ.update(example.env)
            os.chdir(folder)
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                if example.python:  # the last line's value is the exit code of a main()
                    *body, last = example.python.rstrip().split("\n")
                    scope: dict = {}
                    exec(compile("\n".join(body), "<example>", "exec"), scope)
                    value = eval(compile(last, "<example>", "eval"), scope)
                    exit_code = value if isinstance(value, int) else None
                else:
                    exit_code = cli.main([*example.argv, *extra])
            text = err.getvalue()
        except KcostError as error:
            text, raised = error.render() + "\n", type(error).__name__
        finally:
            os.chdir(here)
            for name, value in saved_env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            for name in set(sys.modules) - set(saved_modules):
                if name == "matplotlib" or name.startswith("matplotlib."):
                    del sys.modules[name]
            sys.modules.update(saved_modules)
            cli.COMMANDS.clear()
            cli.COMMANDS.update(saved_commands)
    found = re.search(r"error\[(KC\d{3})\]", text)
    stdout = "" if example.process else out.getvalue()
    return Outcome(found.group(1) if found else None, exit_code, text, raised, stdout)
