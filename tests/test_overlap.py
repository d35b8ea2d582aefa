"""The overlap effect: work terms by their UNITS-norm, then with the largest traffic term by
the TRAFFIC-norm, on the larger term exactly; t_bound and t_floor untouched; members of a
`serial` group after its first stay out; the exponents are the calibration rows' optimum."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from conftest import sample_seconds_left
from hypothesis import given
from hypothesis import strategies as st

import kernelcost
from kernelcost.answers.ledger import ledger
from kernelcost.answers.model import verdict
from kernelcost.base.kinds import TermKind
from kernelcost.gpu.derates import derated
from kernelcost.gpu.effects.fill_drain import FILL_DRAIN
from kernelcost.gpu.effects.overlap import OVERLAP, TRAFFIC, UNITS, norm
from kernelcost.hardware.machinefile import load_machine

ROOT = Path(__file__).resolve().parent.parent
times = st.lists(st.fractions(min_value=Fraction(1, 10**9), max_value=10), min_size=1,
                 max_size=5)
exponents = st.fractions(min_value=1, max_value=16)


@given(times, exponents)
def test_a_norm_lies_between_the_largest_time_and_the_sum(values, exponent):
    together = norm([sympy.Rational(v.numerator, v.denominator) for v in values], exponent)
    assert together.is_Rational
    assert max(values) <= Fraction(int(together.p), int(together.q))
    assert Fraction(int(together.p), int(together.q)) <= sum(values) * (1 + Fraction(1, 10**12))


def test_a_norm_of_exponent_one_is_the_sum_and_a_large_one_the_largest():
    three = [sympy.Rational(3), sympy.Rational(4)]
    assert float(norm(three, Fraction(1))) == pytest.approx(7, rel=1e-12)
    assert float(norm(three, Fraction(2))) == pytest.approx(5, rel=1e-12)
    assert float(norm(three, Fraction(200))) == pytest.approx(4, rel=1e-3)


def _result(spec: str, sizes: dict[str, int], machine: str):
    cost = kernelcost.load(ROOT / "specs" / spec).cost()
    values = {symbol: sizes[symbol.name] for symbol in cost.parameters if symbol.name in sizes}
    return cost, verdict(cost, load_machine(machine), values=values)


def _before_overlap(result) -> dict[str, tuple[TermKind, sympy.Expr]]:
    earlier = [d for d in result.derates
               if d.cause not in (OVERLAP, FILL_DRAIN)]
    return {term.key: (term.kind, sympy.sympify(derated(term, earlier).seconds))
            for term in result.grid.wave_terms}


# FlashAttention-3 reads its operands from shared by wgmma and stages K and V in 2 buffers:
# its warps wait on no traffic; FlashAttention-2 loads every operand itself (mma.sync,
# ldmatrix) through one buffer: on every level
@pytest.mark.parametrize("spec, sizes, machine, waited", [
    ("flash_attention_hopper.kcost", {"S": 4096, "H": 64, "d": 128}, "h100", ()),
    ("flash_attention.kcost", {"S": 2048, "H": 16, "d": 128}, "a100",
     ("global", "l2", "shared")),
    ("flash_attention_causal.kcost", {"S": 4096, "H": 16, "d": 64}, "h200",
     ("global", "l2", "shared")),
])
def test_the_overlap_step_is_the_two_norms_of_the_terms_before_it(spec, sizes, machine,
                                                                   waited):
    cost, result = _result(spec, sizes, machine)
    found = _before_overlap(result)
    serial = {key for group in cost.serial for key in group[1:]}
    work = [time for key, (kind, time) in found.items()
            if kind == TermKind.WORK and key not in serial]
    units = norm(work, UNITS)
    traffic = [found[level][1] for level in waited if level in found]
    expected = norm([units, max(traffic)], TRAFFIC) if traffic else units
    # the fill and drain effect comes after: the largest term with every derate before it
    upto = [d for d in result.derates if d.cause != FILL_DRAIN]
    assert max(sympy.sympify(derated(term, upto).seconds)
               for term in result.grid.wave_terms) == expected
    assert ledger(result).total == result.t_model
    steps = [step.effect for step in ledger(result).steps]
    assert OVERLAP in steps
    assert result.t_floor <= result.t_bound <= result.t_model


def test_a_serial_groups_later_members_are_in_its_first_terms_sum_only():
    _, result = _result("flash_attention.kcost", {"S": 2048, "H": 16, "d": 128}, "h100")
    [overlap] = [d for d in result.derates if d.cause == OVERLAP]
    assert [key for key, _ in overlap.finding.work] == ["tensor"]  # sfu, vector: serial


def test_one_work_class_far_under_its_traffic_is_left_at_the_roofline():
    # a copy: no work term at all, so no derate
    _, result = _result("copy.kcost", {"n": 1 << 26}, "h100")
    assert OVERLAP not in [d.cause for d in result.derates]


@pytest.mark.slow
def test_the_exponents_are_the_calibration_optimum_among_their_neighbours():
    sys.path.insert(0, str(ROOT / "tools"))
    from fit_overlap import TRAFFIC as traffic_grid
    from fit_overlap import UNITS as units_grid
    from fit_overlap import score

    def beside(grid, value):
        index = grid.index(value)
        return [grid[k] for k in (index - 1, index + 1) if 0 <= k < len(grid)]

    def out_of_time() -> bool:  # in CI's bounded slow sample: each score takes seconds
        left = sample_seconds_left()
        return left is not None and left < 15

    if out_of_time():
        return  # the sample is out of time: the neighbours go unchecked
    best = score(UNITS, TRAFFIC)
    neighbours = [(units, TRAFFIC) for units in beside(units_grid, UNITS)] + [
        (UNITS, traffic) for traffic in beside(traffic_grid, TRAFFIC)]
    for pair in neighbours:
        if out_of_time():
            break
        assert best <= score(*pair), pair
