"""Unequal blocks in launch order: the assignment against an independent simulation (all SMs
advanced together, in exact fractions), its busiest SM between the bound's share and Graham's
list-scheduling bound, and the dispatch effect on a causal FlashAttention-2 against the
blocks' tile counts by hand."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

import kernelcost
from kernelcost.answers.ledger import ledger
from kernelcost.answers.model import verdict
from kernelcost.gpu.block_enumeration import launch_amounts, raster_order
from kernelcost.gpu.effects.dispatch import DISPATCH
from kernelcost.gpu.launch_order import assignment, busiest_sum
from kernelcost.hardware.machinefile import load_machine

ROOT = Path(__file__).resolve().parent.parent


def simulated(durations: list[int], sms: int, resident: int) -> list[int]:
    """The SM of each block: every SM advanced to the next ending anywhere, each block on an
    SM progressing at 1 / (blocks the SM holds); a free slot takes the next block, the SMs
    in order at the start and at each moment."""
    placed: list[int] = []
    held: list[list[list[Fraction]]] = [[] for _ in range(sms)]  # [remaining] per block
    following = 0

    def fill() -> None:
        nonlocal following
        for _ in range(resident):
            for sm in range(sms):
                if len(held[sm]) < resident and following < len(durations):
                    held[sm].append([Fraction(durations[following])])
                    placed.append(sm)
                    following += 1

    fill()
    while any(held):
        step = min(block[0] * len(blocks) for blocks in held if blocks for block in blocks)
        for blocks in held:
            for block in blocks:
                block[0] -= step / len(blocks)
        for sm in range(sms):
            held[sm] = [block for block in held[sm] if block[0] > 0]
        fill()
    return placed


# few distinct durations too: SMs that end together (equal blocks) are the tie to get right
cases = st.tuples(st.lists(st.integers(1, 40) | st.integers(1, 2), min_size=1, max_size=60),
                  st.integers(1, 7), st.integers(1, 4))


@tiered(300)
@given(cases)
def test_the_assignment_is_the_simulation(case):
    durations, sms, resident = case
    assert assignment(durations, sms, resident).tolist() == simulated(durations, sms, resident)


@tiered(300)
@given(cases)
def test_the_busiest_sm_lies_between_the_bound_and_grahams(case):
    durations, sms, resident = case
    busiest = busiest_sum(durations, assignment(durations, sms, resident), sms)
    smallest = sorted(durations)[:math.ceil(len(durations) / sms)]
    assert busiest >= max(max(durations), math.ceil(sum(durations) / sms), sum(smallest))
    # every SM is busy until the busiest SM's last block starts; after it, what it holds
    assert busiest <= sum(durations) / sms + resident * max(durations)


def test_equal_blocks_take_their_waves():
    placed = assignment([5] * 300, 132, 2)
    assert busiest_sum([5] * 300, placed, 132) == 3 * 5  # ceil(300 / 132) blocks


def test_a_causal_attention_ends_on_its_last_query_tiles():
    # FlashAttention-2, causal, d = 128, S = 16384, H = 16 on an H100: 2048 blocks of 128
    # query rows, query tile i runs i + 1 key tiles of 128 (Bc = 64: two a tile of Br), two
    # blocks an SM; tensor FLOP of a block: 4 Br d (i0 + Br)
    cost = kernelcost.load(ROOT / "specs" / "flash_attention_causal.kcost").cost()
    sizes = {"S": 16384, "H": 16, "d": 128}
    values = {symbol: sizes[symbol.name] for symbol in cost.parameters if symbol.name in sizes}
    result = verdict(cost, load_machine("h100"), values=values)
    [tensor] = [d for d in result.derates
                if d.cause == DISPATCH and d.key == "tensor"]
    tiles = [i + 1 for _ in range(16) for i in range(128)]  # in launch order, i fastest
    flop = [4 * 128 * 128 * 128 * count for count in tiles]
    placed = simulated(tiles, 132, 2)  # the same order of endings at any scale
    assert tensor.finding.share == sympy.Rational(sum(flop), 132)
    assert tensor.finding.dispatched == max(
        sum(f for f, sm in zip(flop, placed, strict=True) if sm == k) for k in range(132))
    assert 1.10 < float(tensor.finding.dispatched / tensor.finding.share) < 1.20
    assert ledger(result).total == result.t_model
    assert result.t_floor <= result.t_bound <= result.t_model


@pytest.mark.parametrize("spec, sizes", [
    ("gemm_hopper.kcost", {"M": 1024, "N": 2048, "K": 64}),  # grouped(8): not the grid's order
    ("flash_attention_causal.kcost", {"S": 1024, "H": 4}),  # row order
])
def test_amounts_come_in_launch_order(spec, sizes):
    # each grid iterator's value at every block, in the order raster_order starts them
    cost = kernelcost.load(ROOT / "specs" / spec).cost()
    values = {symbol: sizes[symbol.name] for symbol in cost.parameters if symbol.name in sizes}
    values = {**{s: v for s, v in cost.defaults.items() if s not in values}, **values}
    grid = cost.grid
    started = raster_order(grid, values)
    found = launch_amounts(grid, values, list(grid.iterators))
    for k, amounts in enumerate(found):
        assert amounts.tolist() == [block[k] for block in started]


@pytest.mark.parametrize("spec, sizes", [
    ("gemm_hopper.kcost", {"M": 4096, "N": 4096, "K": 4096}),  # equal blocks
    ("flash_attention_causal.kcost", {"d": 128}),  # S unset: no sizes to take blocks at
])
def test_no_dispatch_where_blocks_are_equal_or_sizes_unset(spec, sizes):
    cost = kernelcost.load(ROOT / "specs" / spec).cost()
    values = {symbol: sizes[symbol.name] for symbol in cost.parameters if symbol.name in sizes}
    result = verdict(cost, load_machine("h100"), values=values)
    assert DISPATCH not in [d.cause for d in result.derates]
