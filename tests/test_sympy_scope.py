"""kernelcost's deductions in sympy's place only inside `patched()`: nested, across threads
and through an exception, sympy's own functions are back, the same objects, when the last
caller leaves; a thread outside gets sympy's answers meanwhile."""

from __future__ import annotations

import subprocess
import sys
import threading

import sympy

from kernelcost.algebra import sympy_scope

a, b = (sympy.Symbol(name, integer=True, positive=True) for name in "ab")


def _answers() -> tuple:
    sympy.core.cache.clear_cache()
    return (sympy.Min(200 / (a * b**2), 2), (1 / (a * b) - sympy.Rational(1, 2)).is_positive,
            (6 / (2 * a + 1)).is_integer)


SYMPYS = (2, True, False)  # sympy 1.14's answers, false at a = 1, b = 17 and a = 1
OURS = (sympy.Min(2, 200 / (a * b**2), evaluate=False), None, None)


def test_the_session_computes_with_kernelcost_s_deductions():
    assert sympy_scope.active()
    assert _answers() == OURS
    with sympy_scope.sympys_own():
        assert not sympy_scope.active()
        assert _answers() == SYMPYS
        with sympy_scope.patched():  # a public call from inside: kernelcost's again
            assert _answers() == OURS
        assert _answers() == SYMPYS
    assert _answers() == OURS


def test_another_thread_gets_sympy_s_answers_while_an_analysis_runs():
    found = {}

    def outside():
        found["outside"] = (sympy_scope.active(), _answers())
        with sympy_scope.patched():
            found["inside"] = (sympy_scope.active(), _answers())
        found["after"] = sympy_scope.active()

    worker = threading.Thread(target=outside)
    worker.start()
    worker.join()
    assert found == {"outside": (False, SYMPYS), "inside": (True, OURS), "after": False}
    assert sympy_scope.active()  # this thread's scope is its own


RESTORED = r'''
import sys, sympy, threading
from sympy.core import exprtools
from sympy.printing.precedence import PRECEDENCE_FUNCTIONS
from kernelcost.algebra import sympy_scope

def places():
    return (exprtools._monotonic_sign, vars(sympy.Mul)["_eval_is_integer"],
            sympy.Mul._prop_handler["integer"],
            vars(sympy.functions.elementary.miscellaneous.MinMaxBase)["_is_connected"],
            vars(sympy.functions.elementary.miscellaneous.MinMaxBase)["__new__"],
            sys.modules["sympy.core.assumptions"]._ask, vars(sympy.floor).get("eval"),
            vars(sympy.ceiling).get("eval"),
            PRECEDENCE_FUNCTIONS["Mul"], vars(sympy.Add).get("as_ordered_terms"))

before = places()
entered = threading.Event(); leave = threading.Event()

def hold():
    with sympy_scope.patched():
        entered.set(); leave.wait()

holder = threading.Thread(target=hold); holder.start(); entered.wait()
try:
    with sympy_scope.patched():
        with sympy_scope.patched():
            assert sympy_scope.active()
            raise KeyError("inside")
except KeyError:
    pass
assert places() != before  # the other thread still holds the scope
assert not sympy_scope.active()
leave.set(); holder.join()
assert all(x is y for x, y in zip(places(), before, strict=True))
print("restored")
'''


def test_sympy_s_own_functions_are_back_when_the_last_caller_leaves():
    done = subprocess.run([sys.executable, "-c", RESTORED], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["restored"]


def test_a_command_s_own_process_keeps_them_without_dispatch():
    program = ("import kernelcost.cli, sympy\nfrom sympy.core import exprtools\n"
               "from kernelcost.algebra import sound_signs, sympy_scope\n"
               "print(exprtools._monotonic_sign is sound_signs._sound_monotonic_sign, "
               "sympy_scope.active())")
    done = subprocess.run([sys.executable, "-m", "kernelcost.cli", "--version"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    owned = subprocess.run([sys.executable, "-c", f"import sys\nsys.argv[0] = 'kernelcost'\n"
                            f"{program}"], capture_output=True, text=True, timeout=120,
                           check=False)
    assert owned.returncode == 0, owned.stderr
    assert owned.stdout.split() == ["True", "True"]


def test_an_error_sympy_raises_building_a_min_is_the_same_error_inside_the_scope():
    # sympy cannot order a Sum whose evaluation asks for ceiling's derivative: its TypeError
    # carries a lazy message, which sympy's cache wrapper (around kernelcost's Min and Max
    # built once) read as a str and turned into an AttributeError: exit 3 for the nest
    # `for i in 0..N, j in i..M by 2` at M = N
    k = sympy.Symbol("k", integer=True)
    unordered = sympy.Sum(k * sympy.ceiling(k / 2), (k, 0, 40))
    raised = []
    for scope in (sympy_scope.sympys_own, sympy_scope.patched):
        with scope():
            sympy.core.cache.clear_cache()
            try:
                sympy.Min(unordered, 5)
            except Exception as error:  # noqa: BLE001 - the type is what is compared
                raised.append(type(error))
    assert raised == [TypeError, TypeError]
