"""The import cache answers each import statement with the module Python's own `__import__`
gives, the first time and every later time, and follows sys.modules when a module there is
replaced (no_tensors' stand-in by the real module)."""

import builtins
import subprocess
import sys
import types

import sympy.core.add
import sympy.core.mul
import sympy.core.power
import sympy.core.sorting
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost.base.import_cache import ImportCache

ORIGINAL = builtins.__import__

# (name, fromlist, level, module whose globals run the statement): the statements sympy runs
# inside its busiest functions, and the kinds around them (a package, a submodule of one, a
# relative import one and two levels up, a plain module, no fromlist)
STATEMENTS = [
    ("relational", ("Relational",), 1, sympy.core.mul),
    ("sympy.calculus.accumulationbounds", ("AccumBounds",), 0, sympy.core.mul),
    ("sympy.matrices.expressions", ("MatrixExpr",), 0, sympy.core.mul),
    ("basic", ("Basic",), 1, sympy.core.sorting),
    ("singleton", ("S",), 1, sympy.core.sorting),
    ("", ("numbers",), 1, sympy.core.power),
    ("polys", ("Poly",), 2, sympy.core.add),
    ("sympy.core", None, 0, sympy.core.add),
    ("sympy.core.mul", None, 0, sympy.core.add),
    ("fractions", ("Fraction",), 0, sympy.core.add),
    ("sympy", ("core",), 0, sympy.core.add),
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=12))
def test_every_statement_gives_what_pythons_import_gives(statements):
    cache = ImportCache(ORIGINAL)
    for name, fromlist, level, module in statements:
        expected = ORIGINAL(name, vars(module), None, fromlist, level)
        assert cache(name, vars(module), None, fromlist, level) is expected
        assert cache(name, vars(module), None, fromlist, level) is expected


def test_a_replaced_module_is_imported_anew():
    name = "kernelcost_import_cache_probe"
    first, second = types.ModuleType(name), types.ModuleType(name)
    cache = ImportCache(ORIGINAL)
    sys.modules[name] = first
    try:
        assert cache(name, {}, None, ("x",), 0) is first
        assert cache(name, {}, None, ("x",), 0) is first
        sys.modules[name] = second
        assert cache(name, {}, None, ("x",), 0) is second
    finally:
        del sys.modules[name]


def test_a_list_for_fromlist_goes_to_python():
    cache = ImportCache(ORIGINAL)
    assert cache("sympy.core", {}, None, ["mul"], 0) is sympy.core
    assert not cache.answers


def test_a_failed_import_raises_every_time():
    cache = ImportCache(ORIGINAL)
    for _ in range(2):
        try:
            cache("kernelcost_no_such_module", {}, None, None, 0)
        except ImportError:
            continue
        raise AssertionError("imported a module that does not exist")


TENSORS_AFTER_THE_STAND_IN = """
import sys
import sympy
from kernelcost.algebra import no_tensors
from kernelcost.base import import_cache
no_tensors.install()
import_cache.install()
x = sympy.Symbol("x") + 1  # the stand-in answers flatten, the cache keeps the statement
from sympy.tensor.tensor import TensorHead, TensorIndexType, tensor_indices
real = sys.modules["sympy.tensor.tensor"]
Lorentz = TensorIndexType("Lorentz", dummy_name="L")
i = tensor_indices("i", Lorentz)
A, B = TensorHead("A", [Lorentz]), TensorHead("B", [Lorentz])
total = A(i) + B(i)  # Add.flatten imports the real classes, not the stand-in's
assert isinstance(total, real.TensAdd), type(total)
print("tensors work")
"""


def test_the_real_tensor_module_replaces_the_stand_in_in_a_cached_statement():
    completed = subprocess.run([sys.executable, "-c", TENSORS_AFTER_THE_STAND_IN],
                               capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "tensors work"


def test_importing_kernelcost_leaves_pythons_import_alone():
    code = "import builtins, kernelcost.cli\nprint(type(builtins.__import__).__name__)"
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               check=True)
    assert completed.stdout.strip() == "builtin_function_or_method"
