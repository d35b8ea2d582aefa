"""Clamped sizes: a difference whose sizes appear only as Min(c, n) takes its values at
n = 1..c, so its sign there, counted exactly, is its sign at every size; and occupancy, whose
limits are such differences, names the resource that sets it."""

from __future__ import annotations

import itertools

import sympy
from conftest import SPECS
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelcost
from kernelcost.algebra.decide import MOST_CLAMPED_POINTS, clamped_sign
from kernelcost.base.levels import Level
from kernelcost.base.symbols import size_symbol
from kernelcost.count.values import parameter_values
from kernelcost.gpu.occupancy import occupancy
from kernelcost.hardware.machinefile import load_machine

Mt, Nt, K = (size_symbol(name) for name in ("Mt", "Nt", "K"))


@st.composite
def clamped_terms(draw, clamps: list) -> sympy.Expr:
    """A quotient of clamped sizes, rounded or not: the shape of an occupancy limit."""
    linear = sum((draw(st.integers(0, 600)) * clamp for clamp in clamps), sympy.Integer(0))
    quotient = draw(st.integers(1, 250_000)) / (linear + draw(st.integers(1, 70_000)))
    rounding = draw(st.sampled_from((sympy.floor, sympy.ceiling, None)))
    return quotient if rounding is None else rounding(quotient)


def exact_signs(difference: sympy.Expr, sizes: tuple, top: int) -> set[int]:
    """The signs the difference takes with every size in 1..top."""
    signs = set()
    for point in itertools.product(range(1, top + 1), repeat=len(sizes)):
        value = difference.xreplace(dict(zip(sizes, map(sympy.Integer, point))))
        signs.add(int(sympy.sign(value)))
    return signs


@given(st.sampled_from(((Mt,), (Mt, Nt))), st.data())
@settings(max_examples=80, deadline=None)
def test_clamped_sign_is_the_sign_at_every_size(sizes, data):
    clamps = [sympy.Min(data.draw(st.integers(1, 70)), size) for size in sizes]
    first, second = data.draw(clamped_terms(clamps)), data.draw(clamped_terms(clamps))
    difference = first - second
    sign = clamped_sign(difference)
    # every size up to past the largest clamp: the values beyond it repeat those at c
    signs = exact_signs(difference, sizes, 72 if len(sizes) == 1 else 12)
    if sign is not None:
        assert signs == {sign}
    elif len(sizes) == 1 and difference.free_symbols:
        assert len(exact_signs(difference, sizes, 72)) > 1  # one size: always decided


def test_sizes_outside_a_clamp_are_left_to_the_others():
    assert clamped_sign(sympy.Min(64, Mt) - 65) == -1
    assert clamped_sign(sympy.Min(64, Mt) - Mt) is None  # Mt stands bare
    assert clamped_sign(sympy.Min(64, Mt) - sympy.Min(32, Mt)) is None  # one size, two clamps
    assert clamped_sign(sympy.Min(64, Mt) - 32) is None  # both signs
    too_many = sympy.Min(MOST_CLAMPED_POINTS + 1, Mt)
    assert clamped_sign(too_many + 1) is None


def test_moe_gemm_is_limited_by_shared_memory_at_its_tiles():
    """The shared limit floor(233472/(512 Min(64, Mt) + 66560)) stays below the registers'
    floor(65536/(8 Min(64, Mt) + 9216)) for every Mt: H100 holds 2 blocks at Mt >= 64, 3 at
    Mt = 1, limited by shared memory, whatever the tokens per expert."""
    spec = kernelcost.load(SPECS / "moe_gemm.kcost")
    cost = spec.cost()
    occ = occupancy(cost.grid, load_machine("h100"), parameter_values(cost, {}, True))
    assert occ.limited_by == Level.SHARED
    assert occ.resident.xreplace({Mt: 1}) == 3  # 233472 // (512 + 66560)
    assert occ.resident.xreplace({Mt: 4096}) == 2  # 233472 // (512 * 64 + 66560)
