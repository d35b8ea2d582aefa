"""A stand-in for sympy.tensor.tensor in a command's own process.

sympy's Add.flatten imports sympy.tensor.tensor on the first sum it builds, only to ask
whether a term is a tensor expression; that import brings sympy.combinatorics, whose
polyhedra are built on import: 20 to 37 ms of CPU in every command, a tenth of importing
sympy itself. A kernelcost command never builds a tensor expression, so until something asks
the module for another name, a stand-in answers with two classes nothing is an instance of.
The first other name asked for loads the real module in its place, and every later flatten
then imports the real classes, before any tensor expression can exist.

Installed only where kernelcost owns the process (a command run as a program): a caller's
own code could hold the stand-in itself and compare with its classes."""

from __future__ import annotations

import importlib
import sys
import types

REAL = "sympy.tensor.tensor"


class _NoTensors(types.ModuleType):
    class TensExpr:
        """No object is one: the process builds no tensor expression."""

    class TensAdd(TensExpr):
        pass

    def __getattr__(self, name: str):
        if name.startswith("__"):  # the import system asks for __path__ and the like
            raise AttributeError(name)
        return getattr(_real_module(), name)


def _real_module() -> types.ModuleType:
    if isinstance(sys.modules.get(REAL), _NoTensors):
        del sys.modules[REAL]
    return importlib.import_module(REAL)


def install() -> None:
    """Stand in for sympy.tensor.tensor unless it is loaded already."""
    if REAL not in sys.modules:
        sys.modules[REAL] = _NoTensors(REAL)
