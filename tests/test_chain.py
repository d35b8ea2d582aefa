"""The chain effect: a block whose streaming loop runs once or twice, its warps waiting on
their own loads, runs its first load, its traffic and its work one after the other; each round
of resident blocks on the busiest SM exposes one global latency. Checked against the figures
by hand at FlashAttention-2's decode (ort-pr21414's sizes), nothing where the loop is longer,
the loads staged or no tensor work runs; t_bound untouched, the ledger exact."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy
from wording import plural_slips

import kernelcost
from kernelcost.answers.ledger import ledger
from kernelcost.answers.model import verdict
from kernelcost.base.kinds import WorkClass
from kernelcost.base.levels import Level
from kernelcost.gpu.derates import derated
from kernelcost.gpu.effects.chain import CHAIN
from kernelcost.gpu.effects.fill_drain import FILL_DRAIN
from kernelcost.gpu.effects.overlap import OVERLAP, TRAFFIC, norm
from kernelcost.gpu.effects.serial import SERIAL
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.derate_text import derate_text

SPECS = Path(__file__).resolve().parent.parent / "specs"
H100 = load_machine("h100")
LATENCY = sympy.Rational(655) / sympy.Rational(1755000000)  # h100.toml [[latency]] global
DECODE = {"b": 64, "h": 64, "g": 8, "d": 128}  # ort-pr21414: 64 sequences, 64 heads, GQA 8


def _result(spec: str, sizes: dict[str, int], machine=H100):
    cost = kernelcost.load(SPECS / spec).cost()
    values = {symbol: sizes[symbol.name] for symbol in cost.parameters if symbol.name in sizes}
    return verdict(cost, machine, values=values)


def _by_hand(L: int) -> dict[str, sympy.Expr]:
    """What FlashAttention-2's decode moves and computes at ort-pr21414's sizes on the H100:
    64 x 8 = 512 blocks, 4 on the busiest of 132 SMs, 2 resident (80 KiB of shared each)."""
    b, h, g, d = DECODE["b"], DECODE["h"], DECODE["g"], DECODE["d"]
    kv_heads, steps, busiest = h // g, -(-L // 128), 4
    global_B = 2 * b * h * d * 2 + 2 * b * kv_heads * L * d * 2 + b * h * 4  # Q, O; K, V; lse
    copy = sympy.Rational("3.35e12") * sympy.Rational("0.8657")  # achievable global rate
    # each step's two 64 x 128 x 128 MMAs, on mma.sync's 65.26 % of the bf16 peak, and its
    # 64 x 128 exponentials and 64 rescales, and the g logarithms of the log-sum-exp, at
    # 3.9e12 a second, on the busiest SM
    tensor = busiest * 132 * steps * 2 * (2 * 64 * 128 * 128) / (
        sympy.Rational("990e12") * sympy.Rational("0.6526"))
    sfu = busiest * 132 * (steps * (64 * 128 + 64) + g) / sympy.Rational("3.9e12")
    return {"rounds": sympy.Integer(2), "steps": sympy.Integer(steps),
            "traffic": global_B / copy, "tensor": tensor, "sfu": sfu}


@pytest.mark.parametrize("L", [32, 64, 128, 256])
def test_each_round_of_a_one_or_two_step_loop_runs_its_chain(L):
    result = _result("decode_attention_split.kcost", {**DECODE, "L": L})
    hand = _by_hand(L)
    [chain] = [d for d in result.derates if d.cause == CHAIN]
    found = chain.finding
    assert (found.steps, found.rounds, found.latency_s) == (hand["steps"], hand["rounds"],
                                                           LATENCY)
    assert round(float(LATENCY) * 1e9, 1) == 373.2
    assert float(found.traffic_s) == pytest.approx(float(hand["traffic"]), rel=1e-12)
    earlier = [d for d in result.derates if d.cause != CHAIN]
    terms = {term.key: sympy.sympify(derated(term, earlier).seconds)
             for term in result.grid.wave_terms}
    assert float(terms[WorkClass.SFU]) == pytest.approx(float(hand["sfu"]), rel=1e-12)
    # the `serial` group's sum on the tensor term: tensor + sfu + vector
    serial = hand["tensor"] + hand["sfu"] + _alone(result, WorkClass.VECTOR)
    assert float(terms[WorkClass.TENSOR]) == pytest.approx(float(serial), rel=1e-12)
    work = norm([serial, _alone(result, Level.SHARED)], TRAFFIC)  # the fitted p of (work, traffic)
    assert float(found.work_s) == pytest.approx(float(work), rel=1e-12)
    before = max(terms.values())
    expected = before + 2 * LATENCY + (hand["traffic"] + work - before) / hand["steps"]
    assert float(result.t_model) == pytest.approx(float(expected), rel=1e-12)
    if L <= 128:  # one step: the first load's latency, then the bytes, then the work
        assert float(result.t_model) == pytest.approx(
            float(2 * LATENCY + hand["traffic"] + work), rel=1e-12)
    steps = ledger(result)
    assert steps is not None and steps.total == result.t_model
    assert CHAIN in [step.effect for step in steps.steps]
    assert result.t_floor <= result.t_bound <= result.t_model


def _alone(result, key) -> sympy.Expr:
    """A term's time after the derates that cap its own rate (achievable, latency, ...)."""
    kept = [d for d in result.derates if d.cause not in (SERIAL, OVERLAP, FILL_DRAIN, CHAIN)]
    term = next(term for term in result.grid.wave_terms if term.key == key)
    return sympy.sympify(derated(term, kept).seconds)


def test_the_chain_at_l_32_reads_as_its_figures():
    result = _result("decode_attention_split.kcost", {**DECODE, "L": 32})
    [chain] = [d for d in result.derates if d.cause == CHAIN]
    assert derate_text(chain) == (
        "each block's streaming loop runs 1 step, too few to hide its loads behind its work: "
        "2 rounds on the busiest SM, each waiting 373 ns for its first tile, then 1/1 of "
        "3.62 µs of traffic and of 7.11 µs of work with nothing to overlap (blocks started "
        "together run the chain together), 4.37 µs after the overlapped 7.11 µs")


def test_one_round_reads_in_the_singular():
    # b = 1: 8 KV heads' blocks on 132 SMs, 1 on the busiest: one round of 373 ns, then the
    # traffic with nothing to overlap (one step), 373 ns + 93.5 ns = 467 ns
    result = _result("decode_attention_split.kcost", {**DECODE, "b": 1, "L": 32})
    [chain] = [d for d in result.derates if d.cause == CHAIN]
    assert (result.grid.occupancy.blocks, chain.finding.rounds) == (8, 1)
    assert chain.finding.chain_s == chain.finding.latency_s + chain.finding.traffic_s
    said = derate_text(chain)
    assert "work: 1 round on the busiest SM, each waiting 373 ns" in said
    assert not plural_slips(said)


@pytest.mark.parametrize("spec, sizes", [
    ("decode_attention_split.kcost", {**DECODE, "L": 384}),  # three key tiles: a steady state
    ("decode_attention_paged_hopper.kcost", {"b": 16, "h": 32, "L": 128, "g": 1}),  # 2 stages
    ("gemm_hopper.kcost", {"M": 512, "N": 512, "K": 128}),  # staged keep
    ("flash_attention.kcost", {"S": 512}),  # four key tiles
    ("copy.kcost", {"n": 1 << 20}),  # no tensor work
])
def test_no_chain_where_the_loop_is_longer_the_loads_staged_or_no_mma_runs(spec, sizes):
    result = _result(spec, sizes)
    assert CHAIN not in [d.cause for d in result.derates]


def test_the_chain_is_read_off_the_key_loop_of_a_spec_without_a_keep():
    """FlashAttention-2's decode copies its query tile in one loop, then streams K and V in
    the key loop: the loop whose reads span the most tensors, ceil(L / BN) steps."""
    grid = kernelcost.load(SPECS / "decode_attention_split.kcost").cost().grid
    assert grid.step_iterator is None
    symbols = {symbol.name: symbol for symbol in grid.stream_steps.free_symbols}
    assert set(symbols) == {"L", "BN"}
    for L, BN, steps in ((32, 128, 1), (128, 128, 1), (129, 128, 2), (256, 128, 2),
                         (384, 64, 6)):
        assert grid.stream_steps.subs({symbols["L"]: L, symbols["BN"]: BN}) == steps
