"""t_floor <= t_bound <= t_model over the random nests of the property campaign
(tests/nestgen.py) that run as a grid of blocks, the ones that state the instructions a block
issues among them (the issue and first-loads effects then time those instructions): each at
sampled sizes, small and scaled up to thousands of blocks, on one machine a nest (the slow
tier: on every machine). `verdict` checks
the order itself (an internal error, exit 3); the test asserts it again from the times, and
that no sentence of the verdict (its JSON, its grid clause, its derates) counts one of a thing
in the plural (tests/wording.py).

The fast tier checks FAST_NESTS nests from a fixed seed; the slow tier (pytest -m slow)
checks SLOW_NESTS."""

from __future__ import annotations

import json
import os
import random
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, Phase, assume, given, seed, settings
from hypothesis import strategies as st
from nestgen import nests
from wording import plural_slips

import kernelcost
from kernelcost.algebra.sympy_scope import patched
from kernelcost.answers.model import verdict
from kernelcost.base.errors import Code, SizeError
from kernelcost.base.symbols import size_symbol
from kernelcost.count.values import evaluate, parameter_values
from kernelcost.hardware.machinefile import builtin_machine_ids, load_machine
from kernelcost.oracle import sample_sizes
from kernelcost.present.derate_text import derate_text
from kernelcost.present.report.grid import grid_clause, grid_json

FAST_NESTS = int(os.environ.get("KERNELCOST_NEST_TIMES", 6))
SLOW_NESTS = int(os.environ.get("KERNELCOST_NEST_TIMES_SLOW", 150))
FAST_SEED = 20261207
MACHINES = [load_machine(machine) for machine in builtin_machine_ids()]
SCALE = 256  # a sampled size (1..12) times this: grids of thousands of blocks


def _ordered(result, where: str) -> None:
    floor, bound, model = (None if t is None else Fraction(str(sympy.Rational(t)))
                           for t in (result.t_floor, result.t_bound, result.t_model))
    assert floor is not None, f"no t_floor: {where}"
    assert bound is None or floor <= bound, f"t_floor > t_bound: {where}"
    assert bound is None or model is None or bound <= model, f"t_bound > t_model: {where}"


def check(nest, size_seed: int, machines) -> int:
    """The verdicts of a generated grid nest on `machines`, each checked; how many."""
    text = nest.text()
    assume("parallel(" in text)
    with patched():
        spec = kernelcost.loads(text, "generated.kcost")
        cost = spec.cost()
        rng = random.Random(size_seed)
        # a divisor or a tile size keeps its value: `assume T | N` holds with N scaled
        fixed = set(cost.defaults).union(*(sympy.sympify(divisor).free_symbols
                                           for divisor, _ in spec.checked.divisibility))
        checked = 0
        for sizes in sample_sizes(spec.checked, 2, rng, partial=True):
            scaled = {name: value * SCALE if size_symbol(name) not in fixed else value
                      for name, value in sizes.items()}
            for drawn in (sizes, scaled):
                values = {size_symbol(name): sympy.Integer(v) for name, v in drawn.items()}
                if evaluate(cost.grid.blocks, parameter_values(cost, values, True)) <= 0:
                    with pytest.raises(SizeError) as raised:  # no launch: refused, not timed
                        verdict(cost, machines[0], values=values)
                    assert raised.value.code == Code.NOT_POSITIVE_AT_SIZES
                    continue
                for machine in machines:
                    result = verdict(cost, machine, values=values)
                    _ordered(result, f"{text}on {machine.id} at {drawn}")
                    said = " ".join([json.dumps(grid_json(result), ensure_ascii=False),
                                     grid_clause(result),
                                     *(derate_text(found) for found in result.derates)])
                    assert not plural_slips(said), f"{text}on {machine.id} at {drawn}: {said}"
                    checked += 1
    return checked


NEST_SETTINGS = dict(deadline=None, database=None,
                     phases=[Phase.explicit, Phase.generate],
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                            HealthCheck.data_too_large])


@seed(FAST_SEED)
@settings(max_examples=FAST_NESTS, **NEST_SETTINGS)
@given(nest=nests(), size_seed=st.integers(0, 2**16))
def test_generated_grids_have_ordered_times(nest, size_seed):
    check(nest, size_seed, [MACHINES[size_seed % len(MACHINES)]])


@pytest.mark.slow
@settings(max_examples=SLOW_NESTS, **NEST_SETTINGS)
@given(nest=nests(), size_seed=st.integers(0, 2**16))
def test_many_generated_grids_have_ordered_times(nest, size_seed):
    check(nest, size_seed, MACHINES)


def test_the_generator_states_instructions():
    """The nests this test draws hold stated instructions, or it would not time them."""
    texts = []

    @seed(FAST_SEED)
    @settings(max_examples=60, **NEST_SETTINGS)
    @given(nest=nests())
    def collect(nest):
        texts.append(nest.text())

    collect()
    assert sum("instructions = " in text for text in texts) >= 3
