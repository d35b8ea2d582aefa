"""sympy imported without the parts no kernelcost computation uses, loaded at their first use.

`import sympy` imports every subpackage and binds their names in sympy's namespace, among
them geometry and plotting, the printers for other languages (MathML, Julia, Octave, ...),
the quaternions, the parser and the interactive session's set-up: a tenth of its CPU time
(some 40 ms of 0.45 s), and none of it serves a count, a verdict or a report. `import_sympy`
imports sympy with each of those modules stood in for: the stand-in hands the package that
imports a name from it a placeholder, and once sympy is in, the stand-ins leave sys.modules
and each package that took placeholders answers for those names with a module __getattr__
that imports the real module at the first one asked for. `sympy.plot`, `from sympy import
Point`, `import sympy.geometry` and `from sympy import *` work as they do without kernelcost.

Only packages may hold placeholders (their names are read as attributes, which reach the
__getattr__; a module's own functions would read a placeholder from their globals): where a
sympy version has some other module take a name from a deferred one, every deferred module
is imported at once and every placeholder replaced, as if none had been deferred."""

from __future__ import annotations

import importlib
import sys
import types

# Each imported only by a package's __init__ (sympy or sympy.printing) while sympy loads.
# Not the printers named as their module (mathml, python, preview, rcode, jscode): the
# import system binds a submodule on its package once it is loaded, and sympy.printing then
# binds the function over it; a deferred one would stay the module.
DEFERRED = ("sympy.geometry", "sympy.plotting", "sympy.algebras", "sympy.parsing",
            "sympy.interactive",
            *(f"sympy.printing.{name}" for name in (
                "smtlib", "glsl", "julia", "mathematica", "octave", "gtk", "tree",
                "tableform", "dot", "maple")))


class _Placeholder:
    """What a stand-in hands out for `name` of the deferred `module`."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name


class _StandIn(types.ModuleType):
    def __init__(self, name: str):
        super().__init__(name)
        self.takers: set[str] = set()

    def __getattr__(self, name: str):
        if name.startswith("__"):  # the import system asks for __path__ and the like
            raise AttributeError(name)
        frame = sys._getframe(1)
        while frame.f_globals.get("__name__", "").startswith("importlib"):
            frame = frame.f_back  # `from m import *` asks through the import system
        self.takers.add(frame.f_globals.get("__name__", ""))
        return _Placeholder(self.__name__, name)


def import_sympy() -> None:
    """Import sympy with the DEFERRED modules loaded at their first use; sympy as it is
    where it is loaded already."""
    if "sympy" in sys.modules:
        return
    stand_ins = {name: _StandIn(name) for name in DEFERRED}
    sys.modules.update(stand_ins)
    try:
        importlib.import_module("sympy")
    finally:
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
    holders = _holders(stand_ins.values())
    if all(hasattr(holder, "__path__") for holder in holders):
        for holder in holders:
            _defer(holder)
    else:
        for holder in holders:
            _resolve(holder)


def deferred_names(module: types.ModuleType) -> dict[str, tuple[str, str | None]]:
    """The names `module` answers for through the import of a deferred module: name ->
    (module, its name there; None for the module itself)."""
    answer = vars(module).get("__getattr__")
    return dict(getattr(answer, "deferred", {}))


def _holders(stand_ins) -> list[types.ModuleType]:
    """The modules that took a placeholder, with the packages above them (which import the
    names again from them), and the parents the deferred modules are submodules of."""
    names = set()
    for stand_in in stand_ins:
        for taker in (*stand_in.takers, stand_in.__name__.rpartition(".")[0]):
            parts = taker.split(".")
            names.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    return [sys.modules[name] for name in sorted(names) if name in sys.modules]


def _placeholders(holder: types.ModuleType) -> dict[str, tuple[str, str | None]]:
    """The placeholders in holder's namespace, and the deferred modules it is the package
    of (a submodule's name is its package's attribute unless a name imported from it is
    bound there: sympy.printing.mathml is the function)."""
    submodules = {module.rpartition(".")[2]: (module, None) for module in DEFERRED
                  if module.rpartition(".")[0] == holder.__name__}
    return submodules | {key: (value.module, value.name) for key, value in vars(holder).items()
                         if isinstance(value, _Placeholder)}


def _defer(holder: types.ModuleType) -> None:
    deferred = _placeholders(holder)
    if not deferred:
        return
    for key in deferred:
        vars(holder).pop(key, None)
    previous = vars(holder).get("__getattr__")

    def __getattr__(name: str):
        if name not in deferred:
            if previous is not None:
                return previous(name)
            raise AttributeError(f"module {holder.__name__!r} has no attribute {name!r}")
        value = _loaded(*deferred[name])
        setattr(holder, name, value)
        return value

    def __dir__():
        return sorted((set(vars(holder)) | set(deferred)) - {"__getattr__", "__dir__"})

    __getattr__.deferred = deferred
    holder.__getattr__ = __getattr__
    holder.__dir__ = __dir__


def _resolve(holder: types.ModuleType) -> None:
    for key, (module, name) in _placeholders(holder).items():
        if isinstance(vars(holder).get(key), _Placeholder):
            setattr(holder, key, _loaded(module, name))


def _loaded(module: str, name: str | None):
    real = importlib.import_module(module)
    return real if name is None else getattr(real, name)
