"""A library leaves its dependencies alone: sympy answers the same questions the same way, and
numpy and the garbage collector keep their state, whether or not the process imported
kernelcost, and after kernelcost analysed a spec in it. Each case runs in a fresh
interpreter, since what a process imported or patched cannot be undone in it."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import textwrap

from conftest import SPECS

# Questions a user's own sympy work asks: Min, Max, floor and ceiling under assumptions (the
# ones kernelcost's own deductions answer otherwise among them), facts, simplification,
# summation and every printer's order of terms and factors.
CORPUS = r'''
import sympy
from sympy import (Eq, Max, Min, Rational, Sum, Symbol, ceiling, expand, factor, floor,
                   latex, oo, simplify, sstr, summation)
a, b, c = (Symbol(name, integer=True, positive=True) for name in "abc")
N, K = (Symbol(name, integer=True, positive=True) for name in ("N", "K"))
k, x, y = Symbol("k", integer=True), Symbol("x"), Symbol("y", positive=True)
QUESTIONS = {
    "min_false_order": lambda: Min(200 / (a * b**2), 2),
    "max_false_order": lambda: Max(1 / (a * b), Rational(1, 2)),
    "min_floor": lambda: Min(16, floor(167936 / (8 * a * b + 1024))),
    "min_sizes": lambda: Min(N, 128), "max_sizes": lambda: Max(N * K, N + K),
    "positive": lambda: (1 / (a * b) - Rational(1, 2)).is_positive,
    "nonnegative": lambda: (1 / (a * b) - Rational(1, 2)).is_nonnegative,
    "negative_one_symbol": lambda: (1 / (a + 1) - 1).is_negative,
    "integer_even_over_odd": lambda: (6 / (2 * a + 1)).is_integer,
    "eq_even_over_odd": lambda: Eq(6 / (2 * a + 1), 2),
    "floor_below": lambda: floor(6 / (2 * a + 1)) < 6 / (2 * a + 1),
    "floor_sum": lambda: floor(N / 2 + K), "ceiling_quotient": lambda: ceiling((N + 1) / 2),
    "floor_product": lambda: floor(a * b / 3), "floor_number": lambda: floor(Rational(7, 2)),
    "ceiling_iterator": lambda: ceiling(k / 4 + 2),
    "prime": lambda: sympy.Integer(7919).is_prime,
    "facts": lambda: sorted((f, v) for f, v in Rational(-3, 4).assumptions0.items()),
    "simplify": lambda: simplify((a**2 - b**2) / (a - b)),
    "factor": lambda: factor(N**2 * K + 2 * N * K + K), "expand": lambda: expand((N + K)**3),
    "summation": lambda: summation(k**2, (k, 1, N)),
    "sum_open": lambda: Sum(1 / k**2, (k, 1, oo)).doit(),
    "str": lambda: str(-2 * a * b + 3 + N / K - x**2 * y),
    "str_number_first": lambda: str(1 - 2 * x),
    "sstr_lex": lambda: sstr(3 * N**2 + K * N - 7 + x, order="lex"),
    "latex": lambda: latex(Min(N, 2 * K) / (N + 1) - floor(N / 3)),
    "ordered_terms": lambda: (a + b**2 + 3 + 2.5 * x).as_ordered_terms(),
    "product_text": lambda: str(-x * Min(a, b) * (N + K) / 2),
}
answers = {}
for name, question in QUESTIONS.items():
    try:
        answers[name] = repr(question())
    except Exception as error:
        answers[name] = f"raised {type(error).__name__}: {error}"
'''

# what must keep its identity: every attribute of every sympy and numpy module loaded, every
# class's own attributes, and each entry of the tables sympy dispatches through
STATE = r'''
import gc, sys, numpy

def state():
    held = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or not module_name.startswith(("sympy", "numpy")):
            continue
        for name, value in list(vars(module).items()):
            held[(module_name, name)] = value
            if isinstance(value, type) and value.__module__ == module_name:
                for attribute, member in list(vars(value).items()):
                    held[(module_name, name, attribute)] = member
                    if isinstance(member, dict) and attribute == "_prop_handler":
                        for key, handler in member.items():
                            held[(module_name, name, attribute, key)] = handler
            elif isinstance(value, dict) and name.isupper():
                for key, entry in list(value.items()):
                    if callable(entry):
                        held[(module_name, name, repr(key))] = entry
    return held

# the number of Dummy symbols made, which any sympy work advances
COUNTERS = {("sympy.core.symbol", "Dummy", "_count")}

def changed(before):
    after = state()
    return sorted(repr(key) for key, value in before.items()
                  if key in after and after[key] is not value and key not in COUNTERS)

def collector():
    return [gc.isenabled(), gc.get_freeze_count(), list(gc.get_threshold()),
            sorted(numpy.geterr().items()), numpy.get_printoptions()["precision"]]
'''


@functools.cache
def _run(then: str) -> dict:
    """The corpus's answers in a fresh interpreter, after `then` ran there (once a process:
    both tests compare with sympy alone)."""
    program = "\n".join([STATE, "collector_before = collector()", "import sympy",
                         "held = state()", textwrap.dedent(then), CORPUS,
                         "print(json.dumps({'answers': answers, 'changed': changed(held), "
                         "'collector': [collector_before, collector()]}))"])
    done = subprocess.run([sys.executable, "-c", "import json\n" + program],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_importing_kernelcost_changes_no_answer_of_sympy():
    alone = _run("")
    imported = _run("import kernelcost")
    assert imported["changed"] == []
    assert imported["answers"] == alone["answers"]
    assert imported["collector"][0] == imported["collector"][1]
    # the corpus holds the questions kernelcost's own deductions answer otherwise
    assert alone["answers"]["min_false_order"] == "2"
    assert alone["answers"]["positive"] == "True"


def test_an_analysis_in_the_process_changes_no_answer_of_sympy():
    alone = _run("")
    analysed = _run(f"""
        import kernelcost
        for name, sizes in (("gemm_hopper", {{"M": "N", "K": "N"}}), ("flash_attention", {{}})):
            spec = kernelcost.load({str(SPECS)!r} + "/" + name + ".kcost")
            kernelcost.analyze(spec, sizes, verify=True).report("h100")._repr_markdown_()
    """)
    assert analysed["changed"] == []
    assert analysed["answers"] == alone["answers"]
    assert analysed["collector"][0] == analysed["collector"][1]


def test_importing_kernelcost_first_leaves_the_collector_as_it_was():
    """The first import of sympy, through kernelcost's, builds most of the process's objects:
    the collector stays on, nothing is frozen, its thresholds are the same."""
    program = ("import gc, json\nbefore = [gc.isenabled(), gc.get_freeze_count(), "
               "gc.get_threshold()]\nimport kernelcost, sympy\nprint(json.dumps([before, "
               "[gc.isenabled(), gc.get_freeze_count(), gc.get_threshold()]]))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    before, after = json.loads(done.stdout)
    assert after == before
