"""The GPU execution model against schedules worked out by hand: the steps of the quantised
compute term, unequal blocks' t_bound below every schedule, the tail share, and which loops
stream."""

from __future__ import annotations

import heapq
import re
from fractions import Fraction

import pytest
import sympy
from execution_by_hand import (
    RAGGED_CASES,
    ROOT,
    ByHand,
    case_id,
    config_of,
    cost_of,
    figures,
    fraction,
    rational,
    term,
    values,
    work_unit,
)

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.base.kinds import WaveRule
from kernelcost.gpu.grid_terms import worked_tail_share
from kernelcost.hardware.machinefile import load_machine

# -- the steps of the quantised compute term ------------------------------------------------


def test_quantised_compute_term_steps_exactly_on_a100():
    """M = N = K = 128 n, 128 x 128 tiles on 108 SMs: B = n^2 blocks, the busiest SM runs
    ceil(n^2 / 108) of them, each 2 x 128 x 128 x N FLOP: t = ceil(B / 108) W_block /
    (P / 108). The term, and the sizes where it steps, exactly, for n = 1 .. 40."""
    fig = figures("a100")
    machine = load_machine("a100")
    cost = cost_of("t128")
    steps_by_hand, steps_of_model = [], []
    previous = None
    for n in range(1, 41):
        size = 128 * n
        blocks = n * n
        share = -(-blocks // fig["sms"])
        expected = share * 2 * 128 * 128 * size / (fig["bf16"] / fig["sms"])
        v = verdict(cost, machine, values=values(size, size, size))
        work = term(v.grid.bound_terms, "tensor")
        assert v.grid.occupancy.busiest_sm_blocks == share
        assert work.seconds == rational(expected), n
        # per unit of K the term is flat between steps and jumps where B passes k x SMs
        per_k = work.seconds / size
        if previous is not None and per_k != previous:
            steps_of_model.append(n)
        previous = per_k
        if n > 1 and share != -(-(n - 1) ** 2 // fig["sms"]):
            steps_by_hand.append(n)
    assert steps_of_model == steps_by_hand
    # B = n^2 crosses 108, 216, 324, ...: n = 11, 15, 19, 21, 24, 26, 28, 30, 32, 33, ...
    assert steps_by_hand == [n for n in range(2, 41)
                             if any((n - 1) ** 2 <= 108 * k < n * n for k in range(1, 16))]
    assert steps_by_hand[:10] == [11, 15, 19, 21, 24, 26, 28, 30, 32, 33]
    # the same term, symbolic in N, evaluated at each size
    N = sympy.Symbol("N", integer=True, positive=True)
    symbolic = verdict(cost, machine, values={"M": N, "N": N, "K": N})
    work = term(symbolic.grid.bound_terms, "tensor").seconds
    for n in range(1, 41):
        size = 128 * n
        share = -(-n * n // fig["sms"])
        assert sympy.simplify(work.subs(N, size)) == rational(
            share * 2 * 128 * 128 * size / (fig["bf16"] / fig["sms"])), n


# -- unequal blocks: t_bound against schedules ------------------------------------------------


def greedy_makespan(loads: list[Fraction], machines: int) -> Fraction:
    """A list schedule: blocks in launch order, each to the least loaded SM."""
    heap = [Fraction(0)] * machines
    for load in loads:
        heapq.heapreplace(heap, heap[0] + load)
    return max(heap)


@pytest.mark.parametrize("case", RAGGED_CASES, ids=case_id)
def test_ragged_t_bound_is_below_every_schedule(case):
    """Clipped blocks are unequal: t_bound's work term is the largest of the busiest-SM
    lower bounds (sum / SMs, the largest block, the ceil(B / SMs) smallest blocks on one
    SM), which every schedule respects: it stays below a greedy list schedule."""
    name, machine, (M, N, K) = case
    fig = figures(machine)
    hand = ByHand(config_of(name), machine, M, N, K)
    v = verdict(cost_of(name), load_machine(machine), values=values(M, N, K))
    unit, rate = work_unit(config_of(name), fig)
    per_sm = rate / fig["sms"]
    times = [Fraction(hand.work(m, n)) / per_sm for m, n in hand.order]
    smallest = sorted(times)[:hand.busiest]
    lower = max(sum(times) / fig["sms"], max(times), sum(smallest))
    work = term(v.grid.bound_terms, unit)
    assert work.seconds == rational(lower)
    schedule = max(greedy_makespan(times, fig["sms"]),
                   *(fraction(t.seconds) for t in v.grid.bound_terms if t.key != unit))
    assert v.grid.t_bound <= rational(schedule)


@pytest.mark.parametrize("name, sizes", [
    ("decode_attention", {}), ("flash_attention", {}), ("moe_gemm", {}), ("gemm_hopper", {}),
    ("gemm_hopper", {"M": 8192, "N": 8192, "K": 8192}), ("flash_attention", {"S": 4096}),
    ("flash_attention_causal", {}), ("strided_read", {})])
def test_the_numeric_tail_share_is_the_share_where_that_is_a_number(name, sizes):
    """The share the JSON shows is told from the witness sizes before its form is worked out:
    it must be the form's value wherever that is a number (0 for a grid without waves to
    quantise, a fraction for a numeric one), and None only where the form holds a size."""
    analysis = kernelcost.analyze(kernelcost.load(ROOT / "specs" / f"{name}.kcost"), sizes)
    shares = []
    for machine_id in ("h100", "a100", "mi300x", "rtx4090"):
        grid = verdict(analysis.cost, load_machine(machine_id), values=analysis.values).grid
        if grid is None or grid.t_bound is None:
            continue
        numeric = grid.numeric_tail_share
        assert grid.tail_share == worked_tail_share(grid.t_bound, grid.flat_terms), machine_id
        if grid.tail_share.is_number:
            assert numeric == grid.tail_share, machine_id
        else:
            assert numeric is None, machine_id
        shares.append(numeric)
    assert shares  # every one of these has a grid that fits some machine
    # the shares that hold a size: those of specs with sizes left free and waves to quantise
    symbolic = not sizes and name in ("decode_attention", "flash_attention", "gemm_hopper")
    assert (None in shares) == symbolic


def test_a_grid_without_keeps_streams_its_one_sequential_loop():
    """The decode GEMV keeps nothing on chip: its k0 loop is what a block streams at a time,
    and the wave of 192 blocks shares each step's X through L2 (6.3 MB of W and X a step, under
    H100's usable 36.7 MB): HBM sees W, X and Y once (vLLM PR 49363's b = 64 row, measured 46.3
    us, where per-block fills re-read X for every block and doubled the bytes)."""
    cost = kernelcost.load(ROOT / "specs" / "gemv_decode.kcost").cost()
    assert cost.grid.step_iterator is not None and cost.grid.step_iterator.name == "k0"
    sizes = {"N": 12288, "K": 5376, "b": 64, "TK": 256}
    values = {symbol: sizes[symbol.name] for symbol in cost.parameters if symbol.name in sizes}
    result = verdict(cost, load_machine("h100"), values=values)
    [global_term] = [t for t in result.grid.wave_terms if t.key == "global"]
    n, k, b = 12288, 5376, 64
    assert global_term.amount == 2 * n * k + 2 * b * k + 2 * b * n  # W, X, Y: bf16, once
    assert result.grid.global_count.estimate.rule == WaveRule.ONE_WAVE


def test_reads_in_two_loops_one_after_the_other_have_no_streaming_loop():
    """rope reads q and k in two loops, one after the other: no one loop streams them."""
    cost = kernelcost.load(ROOT / "specs" / "rope.kcost").cost()
    assert cost.grid.step_iterator is None


@pytest.mark.parametrize("name", ["softmax_online", "softmax_rows"])
def test_two_loops_one_after_the_other_are_two_passes_whatever_their_iterators(name):
    """Two sibling loops of one header (`for i in 0..n` twice) are equal as records: they
    were taken for one streaming loop, so that the second pass over a row counted as served
    from L2 (softmax_online at n = 262144: 17.2 GB from HBM where 25.8 GB cross). Named
    alike or not, they are passes, and the wave rule sees the whole row."""
    text = (ROOT / "specs" / f"{name}.kcost").read_text()
    if name == "softmax_online":  # its second pass is `for j`: named as the first
        texts = (text, re.sub(r"\bj\b", "i", text))
    else:  # its three passes are `for i`: named apart
        head, *bodies = text.split("for i in 0..n {")
        texts = (text, head + "".join(f"for {name} in 0..n {{" + re.sub(r"\bi\b", name, body)
                                      for name, body in zip("ijk", bodies, strict=True)))
    assert texts[0] != texts[1]
    sizes = {"R": 8192, "n": 262144}
    found = []
    for source in texts:
        cost = kernelcost.loads(source).cost()
        values = {symbol: sizes[symbol.name] for symbol in cost.parameters}
        estimate = verdict(cost, load_machine("h100"), values=values).grid.global_count.estimate
        found.append((cost.grid.step_iterator, estimate.rule, estimate.total_B,
                      Fraction(estimate.usable_l2_B) / estimate.step_B))
    assert found[0] == found[1]
    x_reads = 2 if name == "softmax_online" else 1  # softmax_rows keeps its row: perfect reuse
    element = 4 if name == "softmax_online" else 2
    # each wave's rows read and written once, and of the second pass the share L2 misses
    union, fills = 2 * element * 8192 * 262144, (x_reads + 1) * element * 8192 * 262144
    step, rule, total, held = found[0]
    assert (step, rule) == (None, WaveRule.PARTIAL) and held < 1
    assert total == union + (fills - union) * (1 - held)
