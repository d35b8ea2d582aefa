"""t_floor <= t_bound <= t_model (DESIGN.md, "Three times"; issue 34): every shipped spec on
every shipped machine, at the sizes the README and the H200 validation run use and at 100
seeded log-uniform sizes a spec (a third of them ragged: no rounding to the spec's
divisibility facts; many grids smaller than the machine). `verdict` checks the order itself
(module order: an internal error, exit 3); the test asserts it again from the times, and
that every verdict has a t_floor.

The fast runs put the first quarter of the seeded sizes on one machine each in turn (every
machine sees about 3 sizes of every spec, a ragged one among every 3 draws; `verdict` checks
the order at every analysis of the rest of the suite as well); the `slow` campaign puts every
seeded size on every machine."""

from __future__ import annotations

import csv
import functools
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from kernelcost.algebra.sympy_scope import patched
from kernelcost.analysis.api import Spec
from kernelcost.analysis.api import load as load_file
from kernelcost.answers.model import verdict
from kernelcost.base.errors import Code, InternalError
from kernelcost.base.symbols import size_symbol
from kernelcost.gpu.order import check_order, divisibility_met
from kernelcost.hardware.machinefile import builtin_machine_ids, load_machine

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.kcost"))
MACHINES = [load_machine(machine) for machine in builtin_machine_ids()]
VALIDATION = ROOT / "validate" / "results" / "h200-2026-12-04.csv"
SEED = 20261204
SAMPLES = 100
RAGGED_EVERY = 3  # one sample in three keeps its raw draw
TOP = 2 ** 14  # sizes drawn in 1..TOP, log-uniform
MAX_BLOCKS = 1 << 15  # a draw whose grid has more blocks is halved until it has fewer

# the sizes of the README's commands and of its spec table's examples, then the H200
# validation's rows (read from its CSV below); a spec in neither runs at 4096 a size
README_SIZES = {
    "gemm_hopper": [{"M": 8192, "N": 8192, "K": 8192}, {"M": 512, "N": 512, "K": 512}],
    "gemm_tiled": [{"M": 8192, "N": 8192, "K": 8192}],
    "gemm": [{"M": 4096, "N": 4096, "K": 4096}],
    "moe_gemm": [{"Ea": 7, "Mt": 3, "N": 14336, "K": 4096}],
    "llm_decode": [{"Theta": 70_000_000_000, "b": 1}],
    "vector_add": [{"n": 100_000_000}],
    "flash_attention": [{"S": 4096}],
    "attention": [{"S": 4096, "d": 128}],
    "transpose_naive": [{"n": 8192}],
    "transpose_tiled": [{"n": 8192}],
    "strided_read": [{"n": 16777216, "s": 8}],
    # the published corpus's rows for it (validate/published/decode_attention.csv)
    "decode_attention_split": [{"b": 64, "h": 64, "L": L} for L in (32, 64, 128, 256)],
    # the corpus's rows for it (validate/published/project_h200.csv: H = 1, PyTorch's splits)
    "flash_attention_split": [{"S": 1024, "H": 1, "P": 8}, {"S": 4096, "H": 1, "P": 4}],
    "flash_attention_causal_split": [{"S": 1024, "H": 1}],  # the causal run's P = 8
}


@functools.cache
def load(path: Path) -> Spec:
    """A shipped spec parsed and checked once a process (its Spec counts each reuse mode
    once): five tests a spec read it."""
    return load_file(path)


def _validation_sizes() -> dict[str, list[dict[str, int]]]:
    rows = [line for line in VALIDATION.read_text().splitlines() if not line.startswith("#")]
    found: dict[str, list[dict[str, int]]] = {}
    for row in csv.DictReader(rows):
        name = Path(row["spec"]).stem
        sizes = {key: int(value) for key, value in
                 (item.split("=") for item in row["sizes"].split(";"))}
        if sizes not in found.setdefault(name, []):
            found[name].append(sizes)
    return found


def documented_sizes(name: str, free: list[str]) -> list[dict[str, int]]:
    sizes = README_SIZES.get(name, []) + _validation_sizes().get(name, [])
    return sizes or [{parameter: 4096 for parameter in free}]


def _free(cost) -> list[str]:
    return [symbol.name for symbol in cost.parameters if symbol not in cost.defaults]


def _divisor_lcm(spec, cost, name: str, values: dict[str, int]) -> int:
    """What `name` must be a multiple of for the spec's `assume d | name` facts, with the
    defaults and the sizes drawn so far."""
    known = {symbol: sympy.Integer(value) for symbol, value in cost.defaults.items()}
    known.update({size_symbol(key): sympy.Integer(value) for key, value in values.items()})
    step = 1
    for divisor, dividend in spec.checked.divisibility:
        if dividend != size_symbol(name):
            continue
        value = sympy.sympify(divisor).xreplace(known)
        if value.is_Integer and value > 0:
            step = math.lcm(step, int(value))
    return step


def seeded_sizes(spec, cost, count: int = SAMPLES) -> list[dict[str, int]]:
    """`count` draws of the spec's free sizes, log-uniform in 1..TOP; two in three rounded
    up to the spec's divisibility facts, the third left ragged."""
    rng = random.Random(f"{SEED}:{spec.name}")
    free = _free(cost)
    draws = []
    while len(draws) < count:
        ragged = len(draws) % RAGGED_EVERY == RAGGED_EVERY - 1
        values: dict[str, int] = {}
        for name in free:
            value = max(1, round(math.exp(rng.uniform(0, math.log(TOP)))))
            if not ragged:
                step = _divisor_lcm(spec, cost, name, values)
                value = -(-value // step) * step
            values[name] = value
        values = _within_blocks(cost, values)
        if _relations_hold(spec, cost, values):  # `assume N >= 3`: drawn again
            draws.append(values)
    return draws


def _relations_hold(spec, cost, values: dict[str, int]) -> bool:
    known = {size_symbol(key): sympy.Integer(value) for key, value in values.items()}
    known.update({symbol: sympy.Integer(value) for symbol, value in cost.defaults.items()})
    return all(relation.xreplace(known) is not sympy.false for relation in spec.checked.bounds)


def _within_blocks(cost, values: dict[str, int]) -> dict[str, int]:
    """The draw with its largest size halved while the grid has more than MAX_BLOCKS
    blocks (the wave estimate enumerates them)."""
    if cost.grid is None:
        return values
    while True:
        known = {size_symbol(key): sympy.Integer(value) for key, value in values.items()}
        known.update({symbol: sympy.Integer(value) for symbol, value in cost.defaults.items()})
        blocks = sympy.sympify(cost.grid.blocks).xreplace(known)
        if not blocks.is_number or blocks <= MAX_BLOCKS:
            return values
        largest = max(values, key=values.get)
        values = {**values, largest: max(1, values[largest] // 2)}


def assert_ordered(result, where: str, in_domain: bool) -> None:
    """Every verdict has a t_floor; the three are ordered where the sizes meet the spec's
    divisibility facts (elsewhere the closed forms are not the loops' counts: a ragged draw
    on a spec that assumes whole tiles must only not fail)."""
    times = [result.t_floor, result.t_bound, result.t_model]
    assert result.t_floor is not None, f"no t_floor: {where}"
    if not in_domain:
        return
    numbers = [Fraction(str(sympy.Rational(t))) if t is not None else None for t in times]
    floor, bound, model = numbers
    assert bound is None or floor <= bound, f"t_floor > t_bound: {where}"
    assert bound is None or model is None or bound <= model, f"t_bound > t_model: {where}"


def run(path: Path, sizes: list[dict[str, int]], machines_for) -> int:
    """Each size on the machines `machines_for(index)` names; the verdicts checked."""
    checked = 0
    with patched():
        spec = load(path)
        cost = spec.cost()
        for index, values in enumerate(sizes):
            numeric = {size_symbol(name): sympy.Integer(value) for name, value in values.items()}
            known = {**cost.defaults, **numeric}
            in_domain = divisibility_met(cost.divisibility, known)
            for machine in machines_for(index):
                result = verdict(cost, machine, values=numeric)
                assert_ordered(result, f"{spec.name} on {machine.id} at {values}", in_domain)
                checked += 1
    return checked


@pytest.mark.parametrize("path", SPECS, ids=lambda path: path.stem)
def test_the_three_times_are_ordered_at_the_documented_sizes(path):
    """Every machine; a grid of more than MAX_BLOCKS blocks (copy at n = 2^30: 2^20 blocks,
    each enumerated by the wave estimate) on the H200 it was measured on, every machine in
    the slow campaign."""
    with patched():
        cost = load(path).cost()
        sizes = documented_sizes(path.stem, _free(cost))
    h200 = [machine for machine in MACHINES if machine.id == "h200"]
    assert run(path, sizes, lambda index: MACHINES if _small(cost, sizes[index]) else h200) > 0


@pytest.mark.slow
@pytest.mark.parametrize("path", SPECS, ids=lambda path: path.stem)
def test_the_three_times_are_ordered_at_the_documented_sizes_on_every_machine(path):
    with patched():
        free = _free(load(path).cost())
    run(path, documented_sizes(path.stem, free), lambda index: MACHINES)


def _small(cost, values: dict[str, int]) -> bool:
    return _within_blocks(cost, values) == values


@pytest.mark.parametrize("path", SPECS, ids=lambda path: path.stem)
def test_the_three_times_are_ordered_at_seeded_sizes_one_machine_each(path):
    # the first quarter of the seeded draws (the same draws: one generator a spec); all of
    # them, on every machine, in the slow tier below
    with patched():
        spec = load(path)
        sizes = seeded_sizes(spec, spec.cost(), SAMPLES // 4)
    run(path, sizes, lambda index: [MACHINES[index % len(MACHINES)]])


@pytest.mark.slow
@pytest.mark.parametrize("path", SPECS, ids=lambda path: path.stem)
def test_the_three_times_are_ordered_at_seeded_sizes_on_every_machine(path):
    with patched():
        spec = load(path)
        sizes = seeded_sizes(spec, spec.cost())
    run(path, sizes, lambda index: MACHINES)


def test_the_seeded_sizes_hold_ragged_draws_and_grids_under_the_machine():
    """The campaign covers what the issue asks: ragged draws, and grids of fewer blocks
    than the SMs of the largest machine."""
    with patched():
        spec = load(ROOT / "specs" / "gemm_tiled_clipped.kcost")
        cost = spec.cost()
        sizes = seeded_sizes(spec, cost)
        hopper = load(ROOT / "specs" / "gemm_hopper.kcost")
        hopper_cost = hopper.cost()
        grids = [sympy.sympify(hopper_cost.grid.blocks).xreplace(
            {**{size_symbol(k): v for k, v in values.items()}, **hopper_cost.defaults})
            for values in seeded_sizes(hopper, hopper_cost)]
    assert any(values["M"] % 32 for values in sizes)  # T = 32: ragged edge tiles
    assert sum(1 for blocks in grids if blocks < 148) >= 10  # B200: 148 SMs


def test_an_out_of_order_verdict_is_an_internal_error_naming_the_sizes():
    n = size_symbol("n")
    with pytest.raises(InternalError) as raised:
        check_order("h100", "bf16", {n: sympy.Integer(4096)}, sympy.Rational(2),
                    sympy.Rational(1), sympy.Rational(3))
    assert raised.value.code == Code.TIMES_OUT_OF_ORDER
    assert raised.value.exit_code == 3
    message = raised.value.diagnostics[0].message
    assert "t_floor > t_bound on h100 bf16 at n = 4096" in message
    check_order("h100", "bf16", {}, sympy.Rational(1), sympy.Rational(1), None)  # equal: ok


@pytest.mark.parametrize("path", SPECS, ids=lambda path: path.stem)
def test_the_three_times_are_ordered_with_a_warm_l2(path):
    """`--warm-l2` on the spec's first input, at its documented sizes on H100 and A100:
    t_floor takes the warm bytes L2 can hold from L2, as t_bound does."""
    machines = [machine for machine in MACHINES if machine.id in ("h100", "a100")]
    with patched():
        spec = load(path)
        cost = spec.cost()
        inputs = [name for name, tensor in spec.checked.tensors.items()
                  if tensor.role == "in" and tensor.level == "global"
                  and sympy.sympify(cost.footprints[name].read_elements) != 0]
        assert inputs, f"{spec.name} reads no input from global memory"
        for values in documented_sizes(path.stem, _free(cost))[:2]:
            numeric = {size_symbol(name): sympy.Integer(value) for name, value in values.items()}
            for machine in machines:
                result = verdict(cost, machine, values=numeric, warm=(inputs[0],))
                assert_ordered(result, f"{spec.name} on {machine.id} at {values}", True)
                assert any(term.key == "l2" for term in result.floor.terms)
