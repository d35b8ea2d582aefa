"""Import statements run again, answered in a command's own process with the module they gave
the first time.

sympy imports inside its busiest functions: Mul.flatten asks for
sympy.calculus.accumulationbounds and sympy.matrices.expressions on every product it builds,
Add.flatten for sympy.tensor.tensor, default_sort_key for `.basic` and `.singleton`,
Basic.__new__ of an operation for `.relational`. Once a command has imported what it needs,
its analysis with every machine still runs some 13,000 such statements (decode_attention_split),
each through Python's `__import__`, which for a name imported from a package calls importlib's
`_handle_fromlist` and for a relative import reads the module spec's `parent` property, both
Python code: 2 to 3 % of the analysis's instructions. Here a statement answered before is
answered with the same module while sys.modules still holds the module the statement resolved
to (`no_tensors` replaces its stand-in with the real module: the statement then goes to Python
again); any other goes to Python's own `__import__`, whose answer is kept. It replaces
`builtins.__import__`, a statement at a time the same module (tests/test_import_cache.py
holds the two equal).

Installed only where kernelcost owns the process (a command run as a program), as no_tensors
is: a caller's process imports as Python does."""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

_Key = tuple[str, Any, int, Any]
# a statement's key: (the module it returned, the name it resolved to, the module there)
_Answer = tuple[ModuleType, str, ModuleType]


class ImportCache:
    """`__import__` with each statement's answer kept, in front of `importer`."""

    def __init__(self, importer: Callable[..., ModuleType]):
        self.importer = importer
        self.answers: dict[_Key, _Answer] = {}

    def __call__(self, name: str, globals: Mapping[str, Any] | None = None,
                 locals: Mapping[str, Any] | None = None,
                 fromlist: Sequence[str] | None = (), level: int = 0) -> ModuleType:
        package = (globals.get("__package__"), globals.get("__name__")) if (
            level and globals is not None) else None
        key = (name, fromlist, level, package)
        try:
            module, resolved, held = self.answers[key]
        except KeyError:
            pass
        except TypeError:  # a list for fromlist (the C API's imports): not kept
            return self.importer(name, globals, locals, fromlist, level)
        else:
            if sys.modules.get(resolved) is held:
                return module
        module = self.importer(name, globals, locals, fromlist, level)
        target = _resolved(name, package, level)
        now = sys.modules.get(target) if target is not None else None
        if target is not None and now is not None:
            self.answers[key] = (module, target, now)
        return module


def _resolved(name: str, package: tuple[Any, Any] | None, level: int) -> str | None:
    """The absolute name a statement imports (a relative one from its `__package__`); None
    where that is not a plain name."""
    if not level:
        return name
    base = package[0] if package is not None else None
    if not isinstance(base, str) or base.count(".") < level - 1:
        return None
    base = base.rsplit(".", level - 1)[0] if level > 1 else base
    return f"{base}.{name}" if name else base


def install() -> None:
    """Put the cache in front of Python's `__import__`, once."""
    if not isinstance(builtins.__import__, ImportCache):
        builtins.__import__ = ImportCache(builtins.__import__)
