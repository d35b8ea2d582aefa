"""A regular (not editable) install of this checkout in a scratch virtual environment, as a
user's `pip install .` makes it: the whole-command benches time its console script and its
own python's `import sympy`, with no PYTHONPATH, so that the figures are an install's (its
bytecode compiled on the first run, its files in site-packages), not the dev venv's.

    with regular_install(None) as venv:   # built for this run (pip fetches the dependencies)
        run([str(venv / "bin" / "kernelcost"), ...])
    with regular_install(Path("/tmp/v")):  # one built before, as it is"""

from __future__ import annotations

import contextlib
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def regular_install(given: Path | None) -> Iterator[Path]:
    """A venv holding `pip install ROOT`: `given` where one is named, else one built in a
    temporary folder and removed afterwards."""
    if given is not None:
        yield given.resolve()
        return
    with tempfile.TemporaryDirectory(prefix="kernelcost-bench-") as folder:
        venv = Path(folder) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        print(f"installing {ROOT} into {venv} (pip install, not editable) ...", file=sys.stderr,
              flush=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", str(ROOT)],
                       check=True, cwd=folder, env=_clean())
        yield venv


def _clean() -> dict[str, str]:
    """The environment an install runs in: no PYTHONPATH (the checkout's src would shadow
    the install), bytecode written as a user's run writes it."""
    environment = dict(os.environ)
    environment.pop("PYTHONPATH", None)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment.setdefault("KERNELCOST_BUDGET_S", "600")
    return environment


def cpu_seconds(command: list[str]) -> float:
    """CPU time (user + system) of `command` and its children, run from the checkout's root
    (the specs' paths) in the install's environment."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=_clean())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def kernelcost(venv: Path, *arguments: str) -> list[str]:
    return [str(venv / "bin" / "kernelcost"), *arguments]


def floor(venv: Path) -> list[str]:
    return [str(venv / "bin" / "python"), "-c", "import sympy"]
