"""The packages of kernelcost by floor, lowest first: the one declaration of the layering.

A package imports from itself and from the packages of lower floors, never from its own floor
or above; TYPE_CHECKING imports count too. Each package's `__init__` names its floor and what
it may import, the layering test (tests/test_architecture.py) reads this table to check every
import, and docs/architecture.md draws it."""

from __future__ import annotations

FLOORS: tuple[tuple[str, ...], ...] = (
    ("base",),                 # errors and codes, spans, symbols, units, files, budget, records
    ("algebra", "lang", "frontend"),  # exact arithmetic; the language; kernels of other languages
    ("count",),                # W and Q in closed form: the counting and reuse contract
    ("hardware", "oracle"),    # machine and model files; enumeration at small sizes
    ("analysis", "gpu"),       # load and analyze, self-verified; the GPU execution model
    ("answers",),              # verdicts, the three times, solve, bounds, tune, validate: data
    ("present",),              # every printer and figure, sweeps, notebook display
    ("cli",),                  # argv to the API and back
)

FLOOR_OF = {package: floor for floor, packages in enumerate(FLOORS) for package in packages}


def may_import(package: str) -> tuple[str, ...]:
    """The packages `package` may import from, besides itself, in floor order."""
    return tuple(other for floor in FLOORS[:FLOOR_OF[package]] for other in floor)
