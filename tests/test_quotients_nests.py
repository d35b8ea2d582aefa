"""The shortcuts of the analysis stage against sympy's own steps, over the random loop nests of
the property campaign (tests/nestgen.py): each nest is analyzed once as shipped and once with
every shortcut replaced by the sympy call it stands for, and the two results must be the same
sympy trees, field by field.

The shortcuts, each claimed to give sympy's expression exactly:
- quotients.cancel and factored_forms.factor (sympy.cancel and sympy.factor without their
  preparation passes), and factored, scaled and readable_cancelled (factor(cancel(e)),
  cancel(k e) and readable(cancel(e)) from cancel's reduced pair), and readable_expanded
  (readable(expand(e)) from the ring), bound by name in every module that imported them;
- asymptotic._leading_in_scale (for sympy's Poly in the scale lam);
- Asymptotics._fraction's `as_numer_denom` (for sympy.fraction(sympy.together(...)): a common
  factor is said to leave every shown ratio as it was);
- sums._power_sums, Faulhaber's formula (for sympy.summation).

Per nest: the symbolic analysis (closed forms, leading terms, limits), one with a symbolic
setting (M = N and the like, which goes through cancel and factor again), one at sampled
sizes (values), and a machine verdict at those sizes (a grid verdict where the nest runs as
thread blocks). An error is an outcome too: both runs must raise the same one.

The fast tier checks FAST_NESTS nests, leaving out any whose shipped analysis takes more than
FAST_SECONDS of CPU; the slow tier (pytest -m slow) checks SLOW_NESTS with a wider budget,
from the seed KERNELCOST_PROPERTY_SEED where it is set (CI's slow sample sets the day's date):

    PYTHONPATH=src .venv/bin/python -m pytest -m slow tests/test_quotients_nests.py
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import os
import random
import sys
from contextlib import contextmanager

import pytest
import sympy
from conftest import Hang, sample_seconds_left, time_budget
from hypothesis import HealthCheck, Phase, assume, given, seed, settings
from hypothesis import strategies as st
from nestgen import nests

import kernelcost
from kernelcost.algebra import factored_forms, quotients
from kernelcost.analysis.api import analyze
from kernelcost.answers.model import verdict
from kernelcost.base.errors import KcostError
from kernelcost.base.levels import Level
from kernelcost.count import asymptotic, sums
from kernelcost.hardware.machinefile import load_machine
from kernelcost.oracle import sample_sizes

FAST_NESTS = int(os.environ.get("KERNELCOST_QUOTIENT_NESTS", 7))
FAST_SEED = 20261206
SLOW_NESTS = int(os.environ.get("KERNELCOST_QUOTIENT_SLOW_NESTS", 300))
FAST_SECONDS = 2.0  # the shipped run's CPU budget: sympy's reference run takes a few times it
SLOW_SECONDS = 20.0
SLOW_SEED = os.environ.get("KERNELCOST_PROPERTY_SEED")  # replays a slow run

# Every module the brief of the shortcut names as a caller: imported here so that a module
# loaded lazily later (phase, lower) is patched too, and asserted patched so that a renamed
# import cannot leave this test comparing the shortcut with itself.
CALLERS = ("analysis.api", "count.asymptotic", "answers.bound", "count.cost", "count.spec_count",
           "algebra.held_quotients", "gpu.effects.launch_overhead", "gpu.execution", "count.facts",
           "answers.lower", "answers.level_terms", "present.phase", "count.values")
for _name in CALLERS:
    importlib.import_module(f"kernelcost.{_name}")

# Caches of results that hold a cancel or factor: a reference run reading the shipped run's
# entries (or the other way round) would compare a result with itself. The parsers' and the
# symbols' caches hold nothing either changes.
KEPT_CACHES = {"kernelcost.lang.parse", "kernelcost.lang.settings",
               "kernelcost.lang.syntax_errors", "kernelcost.base.symbols",
               "kernelcost.algebra.witnesses"}


def _clear_caches() -> None:
    for name, module in list(sys.modules.items()):
        if not name.startswith("kernelcost") or name in KEPT_CACHES:
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)) and getattr(
                    value, "__module__", None) == name:
                value.cache_clear()


def _together_fraction(self, growing: tuple) -> tuple:
    """Asymptotics._fraction as it was before a410ee8: sympy's together, then fraction."""
    rounded = frozenset(node for node in self.expr.atoms(sympy.floor, sympy.ceiling)
                        if node.args[0].free_symbols & set(growing))
    settled = self.expr.has(sympy.Max, sympy.Min)
    key = (rounded, tuple(growing) if settled else ())
    if key not in self._fractions:
        expr = asymptotic.eventual(self.expr, growing) if settled else self.expr
        self._fractions[key] = sympy.fraction(sympy.together(asymptotic._smooth(expr, growing)))
    return self._fractions[key]


def _leading_by_scaling(part, growing):
    """asymptotic._leading_in_scale by the step it stands for: sympy's Poly in lam."""
    polynomial = sympy.Poly(part.xreplace({s: asymptotic._SCALE * s for s in growing}),
                            asymptotic._SCALE)
    if polynomial.is_zero:
        return asymptotic.Leading(-1, sympy.Integer(0))
    return asymptotic.Leading(polynomial.degree(), polynomial.LC())


@contextmanager
def sympys_own_steps():
    """Every shortcut replaced by the sympy call it stands for, caches emptied on the way in
    and out."""
    ours = {"cancel": quotients.cancel, "factor": factored_forms.factor,
            "factored": factored_forms.factored, "scaled": quotients.scaled,
            "readable_cancelled": factored_forms.readable_cancelled,
            "readable_expanded": factored_forms.readable_expanded}
    theirs = {"cancel": sympy.cancel, "factor": sympy.factor,
              "factored": lambda expr: sympy.factor(sympy.cancel(expr)),
              "scaled": lambda expr, factor: sympy.cancel(factor * expr),
              # readable through factored_forms.factor, patched in its own module below
              "readable_cancelled": lambda expr: factored_forms.readable(sympy.cancel(expr)),
              "readable_expanded": lambda expr: factored_forms.readable(sympy.expand(expr))}
    _clear_caches()
    with pytest.MonkeyPatch.context() as patch:
        patched = set()
        for name, module in list(sys.modules.items()):
            if not name.startswith("kernelcost"):
                continue
            for attribute, function in ours.items():
                if vars(module).get(attribute) is function:
                    patch.setattr(module, attribute, theirs[attribute])
                    patched.add(name.removeprefix("kernelcost."))
            # readable factors through factored_forms.factor, patched in its own module above
            if vars(module).get("readable") is factored_forms.readable:
                patched.add(name.removeprefix("kernelcost."))
        missing = {caller for caller in CALLERS if caller not in patched}
        assert not missing, f"no quotients.cancel, factor or readable bound in {sorted(missing)}"
        patch.setattr(asymptotic.Asymptotics, "_fraction", _together_fraction)
        patch.setattr(asymptotic, "_leading_in_scale", _leading_by_scaling)
        patch.setattr(sums, "_power_sums", lambda *arguments: None)
        try:
            yield
        finally:
            _clear_caches()


def differences(ours, theirs, path: str = "") -> list[str]:
    """Where two results differ: dataclasses field by field, dicts key by key (in order),
    sequences item by item, sympy trees by structure (==, and their types)."""
    if type(ours) is not type(theirs):
        return [f"{path}: {ours!r} ({type(ours).__name__}) != {theirs!r} "
                f"({type(theirs).__name__})"]
    if dataclasses.is_dataclass(ours):
        return [found for field in dataclasses.fields(ours) if field.name != "spec"
                for found in differences(getattr(ours, field.name),
                                         getattr(theirs, field.name), f"{path}.{field.name}")]
    if isinstance(ours, dict):
        if list(ours) != list(theirs):
            return [f"{path}: keys {list(ours)} != {list(theirs)}"]
        return [found for key in ours
                for found in differences(ours[key], theirs[key], f"{path}[{key!r}]")]
    if isinstance(ours, (list, tuple)):
        if len(ours) != len(theirs):
            return [f"{path}: {len(ours)} items != {len(theirs)}"]
        return [found for n, (a, b) in enumerate(zip(ours, theirs))
                for found in differences(a, b, f"{path}[{n}]")]
    if isinstance(ours, float) and math.isnan(ours) and math.isnan(theirs):
        return []
    if ours != theirs:
        return [f"{path}: {ours} != {theirs}"]
    return []


def _outcome(compute):
    """A stage's result, or the error it raised (type and message), which the other run must
    raise too."""
    try:
        return compute()
    except (KcostError, ValueError, TypeError, ZeroDivisionError) as error:
        return f"{type(error).__name__}: {error}"


def outcomes(text: str, reuse: str, setting: dict, machine: str, size_seed: int) -> dict:
    """Every result compared, from a fresh parse (a Spec keeps its counts)."""
    spec = kernelcost.loads(text, "generated.kcost")
    results = {"cost": _outcome(lambda: spec.cost(reuse))}
    if isinstance(results["cost"], str):
        return results
    results["symbolic"] = _outcome(lambda: analyze(spec, reuse=reuse))
    results["setting"] = _outcome(lambda: analyze(spec, setting, reuse=reuse))
    for sizes in sample_sizes(spec.checked, 1, random.Random(size_seed)):
        results[f"at {sizes}"] = _outcome(lambda sizes=sizes: analyze(spec, sizes, reuse=reuse))
        results[f"{machine} at {sizes}"] = _outcome(
            lambda sizes=sizes: verdict(spec.cost(reuse), load_machine(machine), None, sizes))
    return results


# settings that tie sizes symbolically: _apply cancels and factors the substituted forms
SETTINGS = ({"M": "N"}, {"M": "2 * N"}, {"T": "N"}, {"N": "M + T"}, {"T": "2"})
MACHINES = ("h100", "a100", "mi300x")


def check_nest(nest, reuse, setting, machine, size_seed, seconds) -> None:
    text = nest.text()
    try:
        with time_budget(seconds, cpu=True):
            shipped = outcomes(text, reuse, setting, machine, size_seed)
    except Hang:
        assume(False)  # a slow nest: the slow tier's budget takes more of them
    with sympys_own_steps():
        reference = outcomes(text, reuse, setting, machine, size_seed)
    found = differences(shipped, reference)
    assert not found, (f"{text}reuse={reuse}, setting {setting}: the shortcuts differ "
                       "from sympy's own steps\n" + "\n".join(found[:12]))


NEST_SETTINGS = dict(deadline=None, database=None,
                     phases=[Phase.explicit, Phase.generate, Phase.shrink],
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                            HealthCheck.data_too_large])
ARGUMENTS = dict(nest=nests(), reuse=st.sampled_from(("spec", "perfect", "none")),
                 setting=st.sampled_from(SETTINGS), machine=st.sampled_from(MACHINES),
                 size_seed=st.integers(0, 2**16))


# the fast tier draws the same nests every run, so that CI's verdict is the code's; the slow
# tier explores from the day's seed, and what it finds gets a test of its own (below)
@seed(FAST_SEED)
@settings(max_examples=FAST_NESTS, **NEST_SETTINGS)
@given(**ARGUMENTS)
def test_nests_analyze_alike_with_sympys_own_steps(nest, reuse, setting, machine, size_seed):
    check_nest(nest, reuse, setting, machine, size_seed, FAST_SECONDS)


@pytest.mark.slow
@(seed(int(SLOW_SEED)) if SLOW_SEED else lambda test: test)
@settings(max_examples=SLOW_NESTS, **NEST_SETTINGS)
@given(**ARGUMENTS)
def test_many_nests_analyze_alike_with_sympys_own_steps(nest, reuse, setting, machine,
                                                         size_seed):
    left = sample_seconds_left()  # in CI's slow sample, no nest starts after its end
    if left is not None and left <= 0:
        return  # the sample is out of time: the remaining nests go unchecked
    check_nest(nest, reuse, setting, machine, size_seed,
               SLOW_SECONDS if left is None else max(1.0, min(SLOW_SECONDS, left)))


# Found by this comparison: a step N - M under `M < N` leaves a sum open (Summer cannot close
# ceiling((N - j)/(N - M))); with the setting M = N, quotients.cancel kept N*Sum(ceiling(zoo*j
# + zoo), ...) where sympy.cancel gives zoo, until open sums went to sympy.cancel.
OPEN_SUM = """kernel k(N, M, T) {
    assume M < N
    in x: f32[4 * N + 4 * M + 8]
    out y: f32[4 * N + 4 * M + 8]
    for i in 0..M {
        for j in 0..min(N, 3) {
            for k in j..N by N - M { y[k] += x[i] }
        }
    }
}
"""


def test_an_open_sum_under_a_setting_analyzes_alike():
    shipped = outcomes(OPEN_SUM, "spec", {"M": "N"}, "h100", 1)
    assert shipped["cost"].work["vector"].has(sympy.Sum)  # the case is still an open sum
    with sympys_own_steps():
        reference = outcomes(OPEN_SUM, "spec", {"M": "N"}, "h100", 1)
    assert not differences(shipped, reference)


# Found by the comparison on 2026-12-06: Faulhaber's formula summed -T t and -t apart, where
# summation adds the terms of one power first, so the Sum left open around it read
# -T*(m**2/2 - m/2) - m**2/2 + m/2 against sympy's (-T - 1)*(m**2/2 - m/2).
STRIDED_OPEN_SUM = """kernel generated(N, M, T) {
    reuse none
    in x: f32[4 * N + 4 * M + 4 * T + 8]
    inout y: f32[4 * N + 4 * M + 4 * T + 8]
    for i in 0..N, j in i..N by T + 1, k in j..N {
        y[0] = y[0]
    }
}
"""


def test_a_strided_open_sum_keeps_its_summand_as_sympy_writes_it():
    shipped = outcomes(STRIDED_OPEN_SUM, "spec", {"M": "N"}, "h100", 0)
    assert shipped["cost"].traffic[Level.GLOBAL].has(sympy.Sum)  # still an open sum
    with sympys_own_steps():
        reference = outcomes(STRIDED_OPEN_SUM, "spec", {"M": "N"}, "h100", 0)
    assert not differences(shipped, reference)
