"""sympy's monomial arithmetic for polynomial rings, compiled with the package.

Replaces `sympy.polys.monomials.MonomialOps._build`. Every PolyRing takes seven functions
of its number of generators from MonomialOps (monomial_mul, _pow, _mulpow, _ldiv, _div,
_lcm and _gcd), which writes each one's source from a template and `exec`s it, once for
each number of generators a process meets: 5 ms for the one to nine generators of a
count's rings, as much as a fiftieth of an analysis. `monomial_bodies` holds those
functions for up to MOST_GENERATORS generators, each under the very text sympy's template
writes, compiled with the package. In MonomialOps's place, `_build` gives the function
compiled from the text it is handed, and any text not held there it execs as sympy does:
the functions are sympy's own. tests/test_monomial_ops.py holds the file to the templates."""

from __future__ import annotations

from sympy.polys.monomials import MonomialOps

from .sympy_patch import Patch

MOST_GENERATORS = 12  # a count's rings have at most nine or so
_OPERATIONS = ("mul", "pow", "mulpow", "ldiv", "div", "lcm", "gcd")


def _build(ops, code: str, name: str):
    from .monomial_bodies import BODIES  # loaded with the first ring

    found = BODIES.get(code)
    if found is not None and found.__name__ == name:
        return found
    return _SYMPY_BUILD(ops, code, name)


class _Writer:
    """What a MonomialOps template reads of its instance, with _build handing back the text
    instead of executing it."""

    _vars = MonomialOps._vars

    def __init__(self, ngens: int):
        self.ngens = ngens

    @staticmethod
    def _build(code: str, name: str) -> str:
        return code


def monomial_bodies_source() -> str:
    """The text of monomial_bodies: each template's function for 1 to MOST_GENERATORS
    generators, then its entry in BODIES under its text."""
    header = (
        '"""sympy\'s monomial arithmetic (MonomialOps) for 1 to 12 generators, compiled with\n'
        "the package, each function under the text sympy's template writes. Written by\n"
        'monomial_ops.monomial_bodies_source(); tests/test_monomial_ops.py holds this file\n'
        'to it."""\n\n'
        "# mypy: ignore-errors\n"
        "# ruff: noqa\n\n"
        "BODIES = {}\n")
    entries = []
    for ngens in range(1, MOST_GENERATORS + 1):
        for operation in _OPERATIONS:
            template = getattr(MonomialOps, operation).__wrapped__
            code = template(_Writer(ngens))
            name = code.split("(", 1)[0].removeprefix("def ")
            entries.append(f"\n{code}\nBODIES[{code!r}] = {name}\n")
    return header + "".join(entries)


# sympy's own, which the replacement calls on other texts; a second copy of this module finds
# the first one's replacement there
_SYMPY_BUILD = getattr(MonomialOps._build, "wraps", MonomialOps._build)
_build.wraps = _SYMPY_BUILD  # type: ignore[attr-defined]

# in sympy's place while kernelcost computes (sympy_scope)
PATCHES = (Patch(MonomialOps, "_build", _build),)
