"""Causal tiles whose key loop runs a ratio of tile sizes that is no integer (FA3's 192 x 128
and 128 x 80): the counts close once the tile sizes are numbers (algebra.floor_sums), with
the sequence length left free, and equal brute-force enumeration of the nest."""

from __future__ import annotations

import sympy
from conftest import SPECS, size

import kernelcost
from kernelcost.algebra.numeric_sums import sum_values
from kernelcost.count.values import evaluate
from kernelcost.oracle import enumerate_counts

S = size("S")

# query tile i0 runs the key tiles up to the diagonal, both clipped at S (the last query tile
# of 192 rows is ragged where 192 does not divide S, the last key tile where 128 does not);
# the score tile's rows run whole, as a register tile does
CAUSAL = """
kernel causal_tiles(S, d = 1, Br = 192, Bc = 128) {
    in  Q: f32[S, d]
    in  K: f32[S, d]
    out O: f32[S, d]
    for i0 in 0..S by Br parallel(threads = 128) {
        let m: f32[Br] in registers = 0
        keep Q in shared {
            for j0 in 0..min(i0 + Br, S) by Bc {
                keep K in shared {
                    for i in i0..min(i0 + Br, S), j in j0..min(j0 + Bc, S), k in 0..d {
                        O[i, k] += Q[i, k] * K[j, k]
                    }
                    for i in i0..i0 + Br {
                        m[i - i0] = exp(m[i - i0])
                    }
                }
            }
        }
    }
}
"""


def _amounts(cost) -> dict[str, sympy.Expr]:
    return {**{f"work[{name}]": amount for name, amount in cost.work.items()},
            **{f"traffic[{level}]": amount for level, amount in cost.traffic.items()}}


def test_a_causal_nest_of_192_by_128_tiles_counts_as_its_enumeration():
    spec = kernelcost.loads(CAUSAL)
    cost = spec.cost()
    closed = {name: evaluate(amount, cost.defaults) for name, amount in _amounts(cost).items()}
    assert not any(amount.has(sympy.Sum) for amount in closed.values())
    assert closed["work[sfu]"].free_symbols == {S}
    # one ragged query tile, whole ones, a ragged one past them; at 640 the last key tile of
    # the next-to-last query tile is clipped at S (the min the closed form splits at)
    for length in (100, 192, 193, 448, 640):
        counts = enumerate_counts(spec.checked, {"S": length})
        enumerated = {**{f"work[{name}]": value for name, value in counts.work.items()},
                      **{f"traffic[{level}]": value for level, value in counts.traffic.items()}}
        for name in set(closed) | set(enumerated):
            amount = closed.get(name, sympy.Integer(0))  # a class the nest never runs: 0
            assert amount.xreplace({S: length}) == enumerated.get(name, 0), (name, length)


def test_fa3s_causal_tiles_close_and_agree_with_the_summed_terms():
    # the shipped spec at FA3's d = 64 and d = 256 tiles (its header gives the source): each
    # amount closed in S, against its open sum added up term by term at the corpus's lengths
    cost = kernelcost.load(SPECS / "flash_attention_causal_hopper.kcost").cost()
    for tiles in ({"d": 64, "Br": 192, "Bc": 128, "RT": 128}, {"d": 256, "Br": 128, "Bc": 80}):
        values = {**cost.defaults, **{size(name): value for name, value in tiles.items()}}
        for name, amount in _amounts(cost).items():
            closed = evaluate(amount, values)
            assert not closed.has(sympy.Sum) and closed.free_symbols == {S}, name
            for length in (512, 2048, 16384):
                summed = sum_values(amount.xreplace({**values, S: length}))
                assert closed.xreplace({S: length}) == summed, (name, tiles, length)


def test_the_ridge_in_s_is_solved_with_the_tile_sizes_the_spec_gives():
    # with the tile sizes symbols the intensity keeps its Sum; solve takes the defaults (128 x
    # 128), where it closes, and finds where I_global meets the H100's bf16 ridge
    from kernelcost.answers.solve import ridge_crossings
    from kernelcost.hardware.machinefile import load_machine

    cost = kernelcost.load(SPECS / "flash_attention_causal_hopper.kcost").cost()
    crossing, *_ = ridge_crossings(cost, "S", load_machine("h100"), "bf16")
    intensity = cost.intensity("global")
    below, above = (float(evaluate(intensity, {**cost.defaults, S: length}))
                    for length in (int(crossing.value), int(crossing.value) + 1))
    assert below < float(crossing.ridge) < above
