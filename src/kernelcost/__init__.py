"""kernelcost: symbolic cost analysis of GPU kernels.

    spec = kernelcost.load("specs/gemm_tiled.kcost")      # parse and check
    result = kernelcost.analyze(spec, {"M": "N", "K": "N"})  # closed forms and values
    result.intensity["global"].limit                        # T/2
"""

__version__ = "0.1.0"

from .analysis import Analysis, Intensity, Quantity, Spec, analyze, load, loads
from .cost import Cost
from .display import register as _register_display  # noqa: E402
from .errors import Diagnostic, KcostError

_register_display()

__all__ = ["Analysis", "Cost", "Diagnostic", "Intensity", "KcostError", "Quantity", "Spec",
           "analyze", "load", "loads"]
