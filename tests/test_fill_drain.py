"""The fill-and-drain effect: the tiles a block moves before and after its streaming loop, at
its SM's share of the global bandwidth, added to the loop's time; nothing where the global
term already holds them (a memory-bound kernel); t_bound untouched, the ledger exact."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

import kernelcost
from kernelcost.answers.ledger import ledger
from kernelcost.answers.model import verdict
from kernelcost.base.levels import Level
from kernelcost.gpu.derates import derated
from kernelcost.gpu.effects.fill_drain import FILL_DRAIN, is_edge
from kernelcost.hardware.machinefile import load_machine

ROOT = Path(__file__).resolve().parent.parent


def _result(spec: str, sizes: dict[str, int], machine: str):
    cost = kernelcost.load(ROOT / "specs" / spec).cost()
    values = {symbol: sizes[symbol.name] for symbol in cost.parameters if symbol.name in sizes}
    return cost, verdict(cost, load_machine(machine), values=values)


@pytest.mark.parametrize("spec, step, edges", [
    ("flash_attention_hopper.kcost", "j0", ["Q", "O"]),  # Q before the key loop, O after it
    ("flash_attention_causal.kcost", "j0", ["Q", "O"]),
    ("gemm_hopper.kcost", "k0", ["C"]),  # the epilogue's tile
    ("decode_attention.kcost", "l0", ["Qm", "O", "Op", "lse"]),
    ("gemv_decode.kcost", "k0", ["Y"]),
    ("copy.kcost", "i", []),  # every tensor streams through the one loop
])
def test_the_edge_tensors_are_those_no_step_of_the_streaming_loop_streams(spec, step, edges):
    grid = kernelcost.load(ROOT / "specs" / spec).cost().grid
    assert str(grid.step_iterator) == step
    assert [tile.tensor for tile in grid.tiles if is_edge(tile)] == edges


def test_a_block_of_two_passes_over_its_row_has_no_edges_to_fill():
    """rmsnorm reads its row for the sum of squares, then again for the outputs: two loops,
    no one streaming loop, so no pipeline to fill and drain."""
    cost, result = _result("rmsnorm.kcost", {"R": 4096, "n": 8192}, "h100")
    assert cost.grid.step_iterator is None
    assert not [d for d in result.derates if d.cause == FILL_DRAIN]


def test_flash_attention_3_at_a_short_sequence_waits_for_its_query_and_output_tiles():
    sizes = {"S": 512, "H": 1024, "d": 64, "Br": 192, "Bc": 128, "CM": 1, "RT": 128}
    _, result = _result("flash_attention_hopper.kcost", sizes, "h100")
    machine = load_machine("h100")
    # by hand: 1024 heads x ceil(512 / 192) = 3 query tiles; each block reads a 192 x 64 bf16
    # query tile before its key loop and writes a 192 x 64 output tile after it
    blocks, edge_B = 1024 * 3, 2 * 192 * 64 * 2
    busiest = -(-blocks // 132)
    assert busiest == 24
    earlier = [d for d in result.derates if d.cause != FILL_DRAIN]
    terms = {term.key: term for term in result.grid.wave_terms}
    global_term = terms[Level.GLOBAL]
    fraction = min(d.factor for d in earlier if d.key == Level.GLOBAL)
    rate = machine.bandwidth(Level.GLOBAL) * fraction
    edge_s = sympy.Rational(busiest * edge_B * 132) / sympy.nsimplify(rate)
    times = {key: sympy.sympify(derated(term, earlier).seconds) for key, term in terms.items()}
    amount = sympy.sympify(global_term.amount)
    times[Level.GLOBAL] *= (amount - blocks * edge_B) / amount
    expected = max(times.values()) + edge_s
    assert float(result.t_model) == pytest.approx(float(expected), rel=1e-9)
    # 24 blocks x 48 KiB x 132 SMs: 156 MB, at no more than the data sheet's 3.35 TB/s
    assert float(edge_s) >= 24 * 49152 * 132 / machine.bandwidth(Level.GLOBAL) > 46e-6
    [fill] = [d for d in result.derates if d.cause == FILL_DRAIN]
    assert fill.finding.tensors == ("Q", "O") and fill.finding.blocks == busiest
    assert ledger(result).total == result.t_model
    assert FILL_DRAIN in [step.effect for step in ledger(result).steps]
    assert result.t_floor <= result.t_bound <= result.t_model


@pytest.mark.parametrize("spec, sizes, machine", [
    ("gemv_decode.kcost", {"N": 12288, "K": 5376, "b": 1, "TK": 256}, "h100"),
    ("rmsnorm.kcost", {"R": 4096, "n": 8192}, "h100"),
])
def test_a_memory_bound_kernel_holds_its_edges_in_its_global_term(spec, sizes, machine):
    _, result = _result(spec, sizes, machine)
    assert FILL_DRAIN not in [d.cause for d in result.derates]


def test_the_edges_weigh_less_the_longer_the_loop():
    shares = []
    for seq, heads in ((512, 1024), (16384, 32)):  # the same 16k tokens: similar edge bytes
        sizes = {"S": seq, "H": heads, "d": 64, "Br": 192, "Bc": 128, "CM": 1, "RT": 128}
        _, result = _result("flash_attention_hopper.kcost", sizes, "h100")
        [fill] = [d for d in result.derates if d.cause == FILL_DRAIN]
        shares.append(fill.finding.edge_s / result.t_model)
    assert shares[1] < shares[0] / 10
