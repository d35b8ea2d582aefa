"""sympy imported without the parts no kernelcost computation uses, loaded at their first use.

`import sympy` imports every subpackage and binds their names in sympy's namespace, among
them geometry and plotting, the solvers, the integral transforms, the orthogonal polynomials,
matrix expressions, the printers for other languages (Julia, Octave, ...), the parser and the
interactive session's set-up: a fifth of its instructions, and none of it serves a count, a
verdict or a report (a root kernelcost cannot write itself loads the solvers then).
`import_sympy` imports sympy with each of those modules stood in for: the stand-in hands the
package that imports a name from it a placeholder, and once sympy is in, the stand-ins leave
sys.modules and each package that took placeholders answers for those names with a module
__getattr__ that imports the real module at the first one asked for. A name it does not
know, or dir(), loads every deferred module first (one of them may import a submodule of
the package: sympy.integrals.laplace). `sympy.plot`, `from sympy import Point`, `import
sympy.geometry` and `from sympy import *` work as they do without kernelcost.

Only a command's process imports sympy so (runs_a_command: the console script, `python -m
kernelcost.cli`), where kernelcost's code is the only code that reads sympy. In a caller's
process (a script, a notebook) the deferred names would be missing from vars(sympy) before
their first use, a mock of a deferred module's function set before it would become
sympy's, and a submodule only a deferred module imports (sympy.assumptions.relation.
equality) would be no attribute of its package until then: there sympy is imported as it is.

sympy>=1.12 may load otherwise. Only packages may hold placeholders (their names are read as
attributes, which reach the __getattr__; a module's own functions would read a placeholder
from their globals): where some other module takes a name from a deferred one, every
deferred module is imported at once and every placeholder replaced. A sympy whose import
fails with the stand-ins (it imports a submodule of one) is imported again as it is, and a
stand-in it never asked for a name stands for a module it does not import: not deferred."""

from __future__ import annotations

import importlib
import os
import sys
import types

# Each imported, while sympy loads, only by a package's __init__ (sympy, sympy.printing,
# sympy.functions, ...), and none registers anything with another module (a dispatch
# handler, a converter) that sympy would miss before it is loaded. Not a module named as a
# name its package imports from it (sympy.printing.mathml, the function; sympy.ntheory.qs):
# the import system binds a submodule on its package once it is loaded, and the package
# then binds the name over it; a deferred one would stay the module.
DEFERRED = ("sympy.geometry", "sympy.plotting", "sympy.algebras", "sympy.parsing",
            "sympy.interactive", "sympy.solvers", "sympy.integrals.transforms",
            *(f"sympy.printing.{name}" for name in (
                "smtlib", "glsl", "julia", "mathematica", "octave", "gtk", "tree",
                "tableform", "dot", "maple")),
            *(f"sympy.functions.special.{name}" for name in (
                "polynomials", "spherical_harmonics", "mathieu_functions", "bsplines",
                "beta_functions")),
            *(f"sympy.polys.numberfields.{name}" for name in (
                "galoisgroups", "subfield", "primes")),
            *(f"sympy.matrices.expressions.{name}" for name in (
                "adjoint", "blockmatrix", "companion", "diagonal", "dotproduct", "funcmatrix",
                "hadamard", "kronecker", "sets")),
            "sympy.series.fourier", "sympy.calculus.euler", "sympy.calculus.finite_diff",
            "sympy.calculus.util", "sympy.tensor.index_methods",
            "sympy.tensor.array.array_comprehension", "sympy.tensor.array.arrayop",
            "sympy.polys.numberfields.basis",
            "sympy.polys.agca.homomorphisms", "sympy.sets.ordinals", "sympy.sets.powerset",
            "sympy.strategies.branch.tools", "sympy.integrals.singularityfunctions")


class _Placeholder:
    """What a stand-in hands out for `name` of the deferred `module`."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name


class _StandIn(types.ModuleType):
    """A deferred module while sympy loads; after, where something kept it, the real
    module's attributes (the module loaded at the first one asked for)."""

    def __init__(self, name: str):
        super().__init__(name)
        self.takers: set[str] = set()
        self.loading = True

    def __getattr__(self, name: str):
        if name.startswith("__"):  # the import system asks for __path__ and the like
            raise AttributeError(name)
        if not self.loading:
            return getattr(importlib.import_module(self.__name__), name)
        frame = sys._getframe(1)
        while frame.f_globals.get("__name__", "").startswith("importlib"):
            # `from m import *` asks through the import system, whose frames have callers
            frame = frame.f_back  # type: ignore[assignment]
        self.takers.add(frame.f_globals.get("__name__", ""))
        return _Placeholder(self.__name__, name)


def runs_a_command(argv: list[str], orig_argv: list[str]) -> bool:
    """Whether the process is a kernelcost command, the only process sympy is imported lean
    in: its console script, or `python -m kernelcost.cli` (argv and orig_argv as sys has
    them while the package is imported)."""
    if os.path.basename(argv[0]) in ("kernelcost", "kernelcost.exe"):
        return True
    if "-m" not in orig_argv[:-1]:
        return False
    return orig_argv[orig_argv.index("-m") + 1] in ("kernelcost.cli", "kernelcost")


def import_sympy() -> None:
    """Import sympy with the DEFERRED modules loaded at their first use; sympy as it is
    where it is loaded already."""
    if "sympy" in sys.modules:
        return
    asked = _import_with_stand_ins()
    if asked is None:  # a sympy that imports a submodule of one, or uses a name as it loads
        for name in [name for name in sys.modules if name.partition(".")[0] == "sympy"]:
            del sys.modules[name]
        importlib.import_module("sympy")
        return
    deferred = [stand_in.__name__ for stand_in in asked]
    holders = _holders(asked)
    if all(hasattr(holder, "__path__") for holder in holders):
        for holder in holders:
            _defer(holder, deferred)
    else:
        for holder in holders:
            _resolve(holder, deferred)


def _import_with_stand_ins() -> list[_StandIn] | None:
    """Import sympy with each DEFERRED module stood in for: the stand-ins sympy asked for a
    name (another stands for a module this sympy does not import); None where it failed."""
    stand_ins = {name: _StandIn(name) for name in DEFERRED}
    sys.modules.update(stand_ins)
    try:
        importlib.import_module("sympy")
    except Exception:
        return None
    finally:
        for name, stand_in in stand_ins.items():
            stand_in.loading = False
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
    return [stand_in for stand_in in stand_ins.values() if stand_in.takers]


def deferred_names(module: types.ModuleType) -> dict[str, tuple[str, str | None]]:
    """The names `module` answers for through the import of a deferred module: name ->
    (module, its name there; None for the module itself)."""
    answer = vars(module).get("__getattr__")
    return dict(getattr(answer, "deferred", {}))


def _holders(stand_ins) -> list[types.ModuleType]:
    """The modules that took a placeholder, with the packages above them (which import the
    names again from them), and the parents the deferred modules are submodules of."""
    names: set[str] = set()
    for stand_in in stand_ins:
        for taker in (*stand_in.takers, stand_in.__name__.rpartition(".")[0]):
            parts = taker.split(".")
            names.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    return [sys.modules[name] for name in sorted(names) if name in sys.modules]


def _placeholders(holder: types.ModuleType, deferred_modules: list[str]
                  ) -> dict[str, tuple[str, str | None]]:
    """The placeholders in holder's namespace, and the deferred modules it is the package
    of (a submodule's name is its package's attribute unless a name imported from it is
    bound there: sympy.printing.mathml is the function)."""
    submodules = {module.rpartition(".")[2]: (module, None) for module in deferred_modules
                  if module.rpartition(".")[0] == holder.__name__}
    return submodules | {key: (value.module, value.name) for key, value in vars(holder).items()
                         if isinstance(value, _Placeholder)}


# Each package answering for deferred names, with them: (package, name -> where it is).
_HOLDING: list[tuple[types.ModuleType, dict[str, tuple[str, str | None]]]] = []
_everything = "deferred"  # then "loading", then "loaded"


def _defer(holder: types.ModuleType, deferred_modules: list[str]) -> None:
    deferred = _placeholders(holder, deferred_modules)
    if not deferred:
        return
    for key in deferred:
        vars(holder).pop(key, None)
    previous = vars(holder).get("__getattr__")

    def __getattr__(name: str):
        if name in deferred:
            value = _loaded(*deferred[name])
            setattr(holder, name, value)
            return value
        if not name.startswith("__") and _load_everything():
            return getattr(holder, name)  # a submodule one of them imports (integrals.laplace)
        if previous is not None:
            return previous(name)
        raise AttributeError(f"module {holder.__name__!r} has no attribute {name!r}")

    def __dir__():
        _load_everything()
        return sorted(set(vars(holder)) - {"__getattr__", "__dir__"})

    __getattr__.deferred = deferred
    holder.__getattr__ = __getattr__
    holder.__dir__ = __dir__
    _HOLDING.append((holder, deferred))


def _load_everything() -> bool:
    """Load every deferred module and bind each deferred name: whatever sympy binds as it
    loads them (a submodule they import) is then there too. True the first time; a load cut
    short (an interrupt, the recursion limit) is tried again at the next name."""
    global _everything
    if _everything != "deferred":
        return False
    _everything = "loading"  # the modules it loads may ask the packages for names
    try:
        for holder, deferred in _HOLDING:
            for key, where in deferred.items():
                if key not in vars(holder):
                    setattr(holder, key, _loaded(*where))
    except BaseException:
        _everything = "deferred"
        raise
    _everything = "loaded"
    return True


def _resolve(holder: types.ModuleType, deferred_modules: list[str]) -> None:
    for key, (module, name) in _placeholders(holder, deferred_modules).items():
        if isinstance(vars(holder).get(key), _Placeholder):
            setattr(holder, key, _loaded(module, name))


def _loaded(module: str, name: str | None):
    real = importlib.import_module(module)
    return real if name is None else getattr(real, name)
