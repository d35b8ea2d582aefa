"""The stand-in for sympy.tensor.tensor: sums are built without loading it, and tensors still
work, with the real module, as soon as anything asks for it."""

import subprocess
import sys

SUMS_WITHOUT_TENSORS = """
import sys
import sympy
from kernelcost.algebra import no_tensors
no_tensors.install()
N, M = sympy.symbols("N M")
total = sympy.expand((N + M + 1) ** 3) + sympy.Rational(1, 2) * N
assert total.subs({N: 2, M: 1}) == 65, total
print(sorted(m for m in ("sympy.combinatorics", "sympy.tensor.tensor") if m in sys.modules
             and not isinstance(sys.modules[m], no_tensors._NoTensors)))
"""

TENSORS_AFTER_THE_STAND_IN = """
import sys
import sympy
from kernelcost.algebra import no_tensors
no_tensors.install()
x = sympy.Symbol("x") + 1  # the stand-in answers flatten
from sympy.tensor.tensor import TensorHead, TensorIndexType, tensor_indices
real = sys.modules["sympy.tensor.tensor"]
assert not isinstance(real, no_tensors._NoTensors)
Lorentz = TensorIndexType("Lorentz", dummy_name="L")
i = tensor_indices("i", Lorentz)
A, B = TensorHead("A", [Lorentz]), TensorHead("B", [Lorentz])
total = A(i) + B(i)  # Add.flatten now meets a tensor: it must see the real classes
assert isinstance(total, real.TensAdd), type(total)
assert (total - B(i)) == A(i)
print("tensors work")
"""


def run(code: str) -> str:
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               check=True)
    return completed.stdout.strip()


def test_sums_are_built_without_loading_the_tensor_module():
    assert run(SUMS_WITHOUT_TENSORS) == "[]"


def test_tensors_work_once_anything_asks_for_the_real_module():
    assert run(TENSORS_AFTER_THE_STAND_IN) == "tensors work"


def test_a_loaded_tensor_module_is_left_alone():
    code = ("import sympy.tensor.tensor as real, sys\nfrom kernelcost.algebra import no_tensors\n"
            "no_tensors.install()\nprint(sys.modules['sympy.tensor.tensor'] is real)")
    assert run(code) == "True"
