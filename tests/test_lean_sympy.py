"""A kernelcost command imports sympy without the modules it never uses (lean_sympy): sympy's
namespace is then the same as without kernelcost, name for name, once a deferred name is
asked for; no placeholder is left anywhere; a command loads none of the deferred modules;
where a module other than a package takes a deferred name, everything is loaded at once
instead; and a process that is no command (a script, a notebook) gets sympy as it is. Each
case runs in a fresh interpreter, where sympy is not loaded yet; `COMMAND` makes it look
like the console script's as the package is imported."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

LEAN_SYMPY = Path(__file__).parent.parent / "src" / "kernelcost" / "algebra" / "lean_sympy.py"
COMMAND = "import sys\nsys.argv[0] = '/usr/local/bin/kernelcost'\n"

# Each name of the packages named on the command line described by what it is: deferred ones
# are loaded as they are asked for.
DESCRIBE = """
import importlib, json, sys, types
import sympy

def described(value):
    if isinstance(value, types.ModuleType):
        return "module " + value.__name__
    return " ".join((type(value).__name__, str(getattr(value, "__module__", "")),
                     str(getattr(value, "__qualname__", ""))))

packages = [importlib.import_module(name) for name in sys.argv[1:]]
listed = {package.__name__: sorted(dir(package)) for package in packages}
names = {package.__name__: {name: described(getattr(package, name)) for name in
                            sorted(set(dir(package)) | set(getattr(package, "__all__", ())))}
         for package in packages}
print(json.dumps({"listed": listed, "names": names}))
"""

# What `import kernelcost` leaves: the packages answering for deferred names, the modules
# that hold a placeholder or a stand-in (none), and the deferred modules loaded (none).
LEFT = COMMAND + """
import json
import kernelcost
from kernelcost.algebra.lean_sympy import DEFERRED, _Placeholder, _StandIn, deferred_names
modules = [module for module in list(sys.modules.values()) if module is not None]
holders = sorted(module.__name__ for module in modules if deferred_names(module))
kept = [(module.__name__, key) for module in modules
        for key, value in list(vars(module).items())
        if isinstance(value, (_Placeholder, _StandIn))]
print(json.dumps([holders, kept, [name for name in DEFERRED if name in sys.modules]]))
"""


def _python(code: str, *arguments: str) -> str:
    result = subprocess.run([sys.executable, "-c", code, *arguments], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_sympys_names_are_the_same_with_the_deferred_modules():
    holders, kept, loaded = json.loads(_python(LEFT))
    assert {"sympy", "sympy.printing", "sympy.functions"} <= set(holders)
    assert kept == [] and loaded == []
    plain = json.loads(_python(DESCRIBE, *holders))
    assert json.loads(_python(COMMAND + "import kernelcost\n" + DESCRIBE, *holders)) == plain
    assert len(plain["names"]["sympy"]) > 900  # the whole namespace was described


def test_no_deferred_module_is_named_as_a_name_its_package_imports_from_it():
    """The import system binds a loaded submodule on its package: where the package had
    bound a name of the same name over it (sympy.printing.mathml, a function), a deferred
    one would leave the module there."""
    shadowed = _python("""
import importlib, sys
import sympy
from kernelcost.algebra.lean_sympy import DEFERRED
print([name for name in DEFERRED if getattr(importlib.import_module(name.rpartition(".")[0]),
                                            name.rpartition(".")[2]) is not sys.modules[name]])
""")
    assert shadowed.strip() == "[]"


def test_deferred_modules_load_at_first_use_as_sympy_binds_them():
    code = """
import kernelcost, sympy
x = sympy.Symbol("x")
import sympy.printing.tree
from sympy import Quaternion, plot_implicit
print(sympy.Point(1, 2), sympy.julia_code(x**2), sympy.printing.octave_code(x**3),
      type(sympy.printing.tree).__name__, Quaternion(1, 2, 3, 4), sympy.geometry.Circle,
      sympy.plotting.plot is sympy.plot, plot_implicit.__module__,
      sympy.integrals.laplace.__name__, sympy.solve(x**2 - 4, x), sympy.legendre(2, x))
"""
    assert _python(COMMAND + code) == _python(code.replace("import kernelcost, sympy",
                                                           "import sympy"))


def test_a_command_loads_none_of_the_deferred_modules():
    loaded = _python(COMMAND + """
import os
import kernelcost.cli as cli
from kernelcost.algebra.lean_sympy import DEFERRED
sys.stdout = open(os.devnull, "w")
for arguments in (["analyze", "specs/flash_attention_causal.kcost", "--machine", "all"],
                  ["analyze", "specs/gemm_tiled.kcost", "--json", "--machine", "all"],
                  ["analyze", "specs/decode_attention.kcost", "--markdown"],
                  ["solve", "specs/gemm_tiled.kcost", "--for", "N"]):
    assert cli.main(arguments) == 0, arguments
sys.stdout = sys.__stdout__
print([name for name in DEFERRED if name in sys.modules])
""")
    assert loaded.strip() == "[]"


def _import_with(deferred: tuple[str, ...], then: str) -> str:
    """import_sympy with DEFERRED set to `deferred`, in a fresh interpreter, then `then`."""
    return _python(f"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("lean_sympy", {str(LEAN_SYMPY)!r})
lean_sympy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lean_sympy)
lean_sympy.DEFERRED = {deferred!r}
lean_sympy.import_sympy()
import sympy
{then}
""")


@pytest.mark.parametrize("deferred", ["sympy.simplify.hyperexpand", "sympy.geometry"])
def test_a_name_taken_by_a_module_that_is_no_package_loads_everything(deferred):
    # sympy.simplify.simplify, a module, takes hyperexpand from sympy.simplify.hyperexpand: a
    # placeholder there would be read from its globals, where no __getattr__ answers
    result = _import_with(("sympy.geometry", deferred), """
module = importlib.import_module("sympy.simplify.hyperexpand")
left = [(m.__name__, key) for m in list(sys.modules.values())
        for key, value in list(vars(m).items()) if isinstance(value, lean_sympy._Placeholder)]
print(left, sys.modules["sympy.simplify.simplify"].hyperexpand is module.hyperexpand,
      "sympy.geometry" in sys.modules, sympy.Point(1, 2))
""")
    loaded_at_once = deferred != "sympy.geometry"
    assert result.split() == ["[]", "True", str(loaded_at_once), "Point2D(1,", "2)"]


def test_a_module_this_sympy_does_not_import_is_not_deferred():
    # another sympy version may lack a module: asking its package for a name it does not
    # have must still be an AttributeError (hasattr is False), not a failed import
    printed = _import_with(("sympy.geometry", "sympy.printing.no_such_printer"), """
print(hasattr(sympy.printing, "no_such_printer"), hasattr(sympy, "no_such_name"),
      "sympy.geometry" in sys.modules, sympy.Point(1, 2))
""")
    assert printed.split() == ["False", "False", "True", "Point2D(1,", "2)"]


def test_a_sympy_that_cannot_load_with_the_stand_ins_loads_as_it_is():
    # sympy.polys.domains is a package many modules import submodules of as sympy loads: a
    # stand-in (no package) fails that import, and sympy is then imported from the start
    printed = _import_with(("sympy.geometry", "sympy.polys.domains"), """
print(type(sys.modules["sympy.polys.domains"]).__name__, sympy.polys.domains.ZZ,
      "sympy.geometry" in sys.modules, sympy.factor(sympy.Symbol("x")**2 - 1))
""")
    assert printed.split() == ["module", "ZZ", "True", "(x", "-", "1)*(x", "+", "1)"]


def test_only_a_command_imports_sympy_lean():
    """A script or a notebook that imports kernelcost gets sympy as it is: its own code may
    read sympy's namespace as a dict, patch a module before sympy's names are read, or
    reach a submodule only a deferred module imports, none of which a command does."""
    assert _python("import sys, kernelcost\nprint('sympy.geometry' in sys.modules)") == "True\n"
    from kernelcost.algebra.lean_sympy import runs_a_command
    assert runs_a_command(["/venv/bin/kernelcost"], ["/venv/bin/python", "/venv/bin/kernelcost"])
    assert runs_a_command(["-m"], ["python", "-m", "kernelcost.cli", "analyze", "spec.kcost"])
    assert runs_a_command(["-m"], ["python", "-X", "importtime", "-m", "kernelcost.cli"])
    for argv, orig_argv in ((["-c"], ["python", "-c", "import kernelcost"]),
                            (["script.py"], ["python", "script.py"]),
                            (["/venv/bin/pytest"], ["python", "/venv/bin/pytest"]),
                            (["-m"], ["python", "-m", "pytest"]), (["-m"], ["python", "-m"]),
                            (["/venv/bin/kernelcost-tools"], ["python", "kernelcost-tools"])):
        assert not runs_a_command(argv, orig_argv), orig_argv


def test_a_load_of_every_module_cut_short_is_tried_again():
    printed = _python(COMMAND + """
import kernelcost, sympy
from kernelcost.algebra import lean_sympy
loaded = lean_sympy._loaded

def cut_short(*where):
    lean_sympy._loaded = loaded
    raise KeyboardInterrupt

lean_sympy._loaded = cut_short
try:
    dir(sympy)
except KeyboardInterrupt:
    print("cut short")
print("solve" in dir(sympy), sympy.integrals.laplace.__name__)
""")
    assert printed.split() == ["cut", "short", "True", "sympy.integrals.laplace"]
