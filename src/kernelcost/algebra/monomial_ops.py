"""sympy's monomial arithmetic for polynomial rings, compiled with the package.

Replaces the seven function makers of `sympy.polys.monomials.MonomialOps` (mul, pow,
mulpow, ldiv, div, lcm, gcd). Every PolyRing takes these functions of its number of
generators from MonomialOps, which writes each one's source from a template (dedented
through a regular expression compiled on first use) and `exec`s it, once for each number
of generators a process meets: 5 ms for the one to nine generators of a count's rings, as
much as a fiftieth of an analysis. `monomial_bodies` holds those functions for up to
MOST_GENERATORS generators, written from sympy's own templates and compiled with the
package, and the version of sympy that wrote them: under that version a maker gives the
function held, past MOST_GENERATORS generators or under another version sympy's own.
tests/test_monomial_ops.py holds the file to the templates of the sympy installed."""

from __future__ import annotations

from collections.abc import Callable

import sympy
from sympy.polys.monomials import MonomialOps

from .sympy_patch import Patch

MOST_GENERATORS = 12  # a count's rings have at most nine or so
OPERATIONS = ("mul", "pow", "mulpow", "ldiv", "div", "lcm", "gcd")


def _held(operation: str, sympys: Callable) -> Callable:
    """MonomialOps's maker of `operation`, the function held where there is one."""
    def maker(ops: MonomialOps) -> Callable:
        from .monomial_bodies import BODIES, SYMPY_VERSION  # loaded with the first ring

        found = BODIES.get((operation, ops.ngens))
        if found is None or sympy.__version__ != SYMPY_VERSION:
            return sympys(ops)
        return found

    maker.wraps = sympys  # type: ignore[attr-defined]
    return maker


class _Writer:
    """What a MonomialOps template reads of its instance, with _build handing back the text
    instead of executing it."""

    _vars = MonomialOps._vars

    def __init__(self, ngens: int):
        self.ngens = ngens

    @staticmethod
    def _build(code: str, name: str) -> str:
        return code


def template_text(operation: str, ngens: int) -> str:
    """The source sympy's template of `operation` writes for `ngens` generators."""
    return _SYMPYS[operation].__wrapped__(_Writer(ngens))


def monomial_bodies_source() -> str:
    """The text of monomial_bodies: each template's function for 1 to MOST_GENERATORS
    generators, each entered in BODIES under its operation and number of generators."""
    header = (
        '"""sympy\'s monomial arithmetic (MonomialOps) for 1 to 12 generators, compiled with\n'
        "the package: each function as sympy's template writes it. Written by\n"
        'monomial_ops.monomial_bodies_source(); tests/test_monomial_ops.py holds this file\n'
        'to it."""\n\n'
        "# mypy: ignore-errors\n"
        "# ruff: noqa\n\n"
        f"SYMPY_VERSION = {sympy.__version__!r}\n"
        "BODIES = {}\n")
    entries = []
    for ngens in range(1, MOST_GENERATORS + 1):
        for operation in OPERATIONS:
            code = template_text(operation, ngens)
            name = code.split("(", 1)[0].removeprefix("def ")
            entries.append(f"\n{code}\nBODIES[{operation!r}, {ngens}] = {name}\n")
    return header + "".join(entries)


# sympy's own, which the replacements call where nothing is held; a second copy of this
# module finds the first one's replacements there
_SYMPYS = {operation: getattr(vars(MonomialOps)[operation], "wraps",
                              vars(MonomialOps)[operation]) for operation in OPERATIONS}

# in sympy's place while kernelcost computes (sympy_scope)
PATCHES = tuple(Patch(MonomialOps, operation, _held(operation, sympys))
                for operation, sympys in _SYMPYS.items())
