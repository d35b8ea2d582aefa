"""kernelcost: symbolic cost analysis of GPU kernels.

    spec = kernelcost.load("specs/gemm_tiled.kcost")      # parse and check
    result = kernelcost.analyze(spec, {"M": "N", "K": "N"})  # closed forms and values
    result.intensity["global"].limit                        # T/2

Importing the package leaves sympy, numpy and the garbage collector as they were: the public
calls put kernelcost's deductions in sympy's place only while they compute (sympy_scope).
"""

import gc as _gc
import sys as _sys

from .algebra import lean_sympy as _lean_sympy
from .base.version import VERSION as __version__

# A kernelcost command owns its process. There sympy is imported without the modules no
# computation uses (lean_sympy), with the collector off: sympy and the parser tables build
# some 100,000 objects that live as long as the process, which the collector would traverse
# again and again, about 50 ms of a command's 0.6 s CPU, to free next to nothing; what is
# then alive is frozen out of collection, and kernelcost's deductions stay in sympy's place.
# Its one time budget counts from the process's start: the watchdog is forked first (launch),
# and the imports below run in the watched child.
_OWNS_THE_PROCESS = _lean_sympy.runs_a_command(_sys.argv, getattr(_sys, "orig_argv", _sys.argv))
if _OWNS_THE_PROCESS:
    from .base import launch as _launch

    _launch.start()
    _gc.disable()
    _lean_sympy.import_sympy()
    from .algebra.sympy_scope import own_process as _own_process

    _own_process()  # before any module builds an expression
try:
    from .algebra.sympy_scope import patched
    from .analysis.api import Analysis, Intensity, Quantity, Spec, analyze, load, loads
    from .base.errors import Diagnostic, KcostError
    from .count.cost import Cost
    from .present.display import register as _register_display
finally:
    if _OWNS_THE_PROCESS:
        _gc.freeze()
        _gc.enable()

_register_display()

__all__ = ["Analysis", "Cost", "Diagnostic", "Intensity", "KcostError", "Quantity", "Spec",
           "__version__", "analyze", "load", "loads", "patched"]
