"""kernelcost: symbolic cost analysis of GPU kernels.

    spec = kernelcost.load("specs/gemm_tiled.kcost")      # parse and check
    result = kernelcost.analyze(spec, {"M": "N", "K": "N"})  # closed forms and values
    result.intensity["global"].limit                        # T/2
"""

import gc as _gc
import sys as _sys

__version__ = "0.1.0"

# Importing sympy and the parser tables builds some 100,000 container objects that live as
# long as the process; the collector traverses them again and again while they are built,
# about 50 ms of a command's 0.6 s CPU, and finds next to nothing to free. In a process that
# has not loaded sympy yet (a command, a script) the package is imported with the collector
# off and what is then alive is frozen out of collection (cli freezes once more before its
# fork). A process that already holds sympy, a notebook, imports the rest as usual: what it
# holds is left alone.
_importing_sympy = "sympy" not in _sys.modules and _gc.isenabled()
if _importing_sympy:
    _gc.disable()
try:
    from . import lean_sympy as _lean_sympy

    if _lean_sympy.runs_a_command(_sys.argv, getattr(_sys, "orig_argv", _sys.argv)):
        _lean_sympy.import_sympy()
    from . import sound_signs as _sound_signs

    _sound_signs.install()
    from . import number_facts as _number_facts

    _number_facts.install()
    from . import rounding as _rounding

    _rounding.install()
    from . import texts as _texts

    _texts.install()
    from .analysis import Analysis, Intensity, Quantity, Spec, analyze, load, loads
    from .cost import Cost
    from .display import register as _register_display
    from .errors import Diagnostic, KcostError
finally:
    if _importing_sympy:
        _gc.freeze()
        _gc.enable()

_register_display()

__all__ = ["Analysis", "Cost", "Diagnostic", "Intensity", "KcostError", "Quantity", "Spec",
           "analyze", "load", "loads"]
