"""Stream-K (the wave tail under the declared schedule): `stream_k k0 = W` spreads the tiles'
k-steps evenly over W persistent workers (gpu.stream_split, after CUTLASS's sm90 stream-K
scheduler): the closed form of the partial tiles against an enumeration of the workers'
ranges, the busiest worker in place of whole tiles in t_bound, the fix-up at global and L2,
figures worked by hand, and refusals at their place."""

import random
from collections import Counter

import pytest
import sympy
from conftest import SPECS

from kernelcost.analysis.api import loads
from kernelcost.answers.model import verdict
from kernelcost.answers.tune import tune
from kernelcost.base.errors import KcostError
from kernelcost.base.levels import Level
from kernelcost.gpu.stream_split import stream_k_split
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.varied import parse_vary

H100 = load_machine("h100")
STREAMK = SPECS / "gemm_hopper_streamk.kcost"
HOPPER = SPECS / "gemm_hopper.kcost"
CUBE = {"M": 8192, "N": 8192, "K": 8192}


def owners(tiles: int, iterations: int, workers: int) -> list[int]:
    """The worker of every k-step, tile after tile, enumerated: W workers (at most one a
    k-step), the first TI mod W one step more, in order (sm90_tile_scheduler_stream_k.hpp:
    818-831, big units first)."""
    total = tiles * iterations
    workers = min(workers, total)
    found: list[int] = []
    for worker in range(workers):
        found += [worker] * (total // workers + (worker < total % workers))
    assert len(found) == total
    return found


def enumerated(tiles: int, iterations: int, workers: int) -> tuple[int, int]:
    """(the busiest worker's k-steps, the partial tiles: over the tiles, its workers less
    one), counted from the enumeration."""
    owner = owners(tiles, iterations, workers)
    busiest = max(Counter(owner).values())
    peers = sum(len(set(owner[t * iterations:(t + 1) * iterations])) - 1
                for t in range(tiles))
    return busiest, peers


def test_the_closed_form_equals_the_enumeration_of_the_workers_ranges():
    rng = random.Random(2301)
    cases = [(t, i, w) for t in range(1, 13) for i in range(1, 11) for w in range(1, 40)]
    cases += [(rng.randint(1, 400), rng.randint(1, 300), rng.randint(1, 600))
              for _ in range(300)]
    for tiles, iterations, workers in cases:
        split = stream_k_split(tiles, iterations, workers, partial_B=7)
        assert (split.busiest, split.peers) == enumerated(tiles, iterations, workers), \
            (tiles, iterations, workers)
        assert split.fixup_B == 2 * 7 * split.peers


def test_the_8192_cube_on_an_h100_by_hand():
    # 128 x 256 tiles: 8192 / 128 x 8192 / 256 = 64 x 32 = 2048 tiles of 8192 / 64 = 128
    # k-steps; 384 threads x 168 registers fill the 65536 registers: 1 block an SM, so 132
    # workers. Data-parallel: ceil(2048 / 132) = 16 tiles on the busiest SM (15.5 waves).
    # Stream-K: 2048 x 128 = 262144 k-steps = 132 x 1985 + 124: the busiest 1986. (The
    # decomposition a run forces: CUTLASS's Heuristic mode would keep these tiles
    # data-parallel, the 16th wave's 68 tiles being over half of 132.)
    streamk = verdict(loads(STREAMK.read_text(), STREAMK.name).cost(), H100, values=CUBE)
    tiled = verdict(loads(HOPPER.read_text(), HOPPER.name).cost(), H100, values=CUBE)
    split = streamk.grid.stream_k
    assert (split.tiles, split.iterations, split.workers, split.busiest) == (2048, 128, 132,
                                                                             1986)
    assert tiled.grid.stream_k is None and tiled.grid.occupancy.busiest_sm_blocks == 16
    # worker w starts at 1986 w for w <= 124: on a tile's edge (a multiple of 128) where
    # 64 | w, once (w = 64); after, at 124 x 1986 + 1985 j = 120 + 65 j (mod 128), never for
    # j = 1..7. So 131 boundaries, 130 inside a tile: 130 fp32 partial tiles of 128 x 256
    # x 4 B = 131072 B, each written and read
    assert split.peers == 130
    assert split.fixup_B == 2 * 130 * 131072 == 34078720
    # the tensor roof binds both: the busiest SM's FLOP go from 16 tiles to 1986 / 128
    assert streamk.grid.bound == tiled.grid.bound
    assert streamk.grid.bound.unit == "tensor"
    assert streamk.t_bound / tiled.t_bound == sympy.Rational(1986, 128 * 16)
    for level in (Level.GLOBAL, Level.L2):
        gained = [_amount(found.grid.bound_terms, level) for found in (streamk, tiled)]
        assert gained[0] - gained[1] == 34078720, level
    for found in (streamk, tiled):
        assert found.t_floor <= found.t_bound <= found.t_model


def test_a_skinny_gemm_streams_its_few_tiles_over_every_sm():
    # M = N = 512, K = 65536: 4 x 2 = 8 tiles of 1024 k-steps, 8192 = 132 x 62 + 8 k-steps:
    # the busiest worker 63. Worker w starts at 63 w (w <= 8, all under 1024) or 504 + 62 j
    # (j = 1..123); 62 j = 1024 t - 504 has no whole j for t = 1..7: 131 partial tiles
    sizes = {"M": 512, "N": 512, "K": 65536}
    found = verdict(loads(STREAMK.read_text(), STREAMK.name).cost(), H100, values=sizes)
    split = found.grid.stream_k
    assert (split.workers, split.busiest, split.peers) == (132, 63, 131)
    assert found.grid.fill is None  # no idle SMs to name: the workers fill them
    # A and B once, C once (bf16) and the fix-up: the global term binds, at 3.35 TB/s
    global_B = 2 * 512 * 65536 * 2 + 2 * 512 * 512 + 2 * 131 * 128 * 256 * 4
    assert _amount(found.grid.bound_terms, Level.GLOBAL) == global_B == 169_082_880
    machine = H100.at_max_clock
    assert found.t_bound == sympy.Rational(global_B, 335 * 10**10)
    assert machine.bandwidth(Level.GLOBAL) == 3.35e12
    # the tensor term: 63 / 1024 of one tile's 2 x 128 x 256 x 65536 FLOP on one SM
    tensor = sympy.nsimplify(machine.ceiling("bf16", "tensor").peak_FLOPps)
    flop = sympy.Rational(63, 1024) * 2 * 128 * 256 * 65536
    assert _amount(found.grid.bound_terms, "tensor") == flop
    assert flop * machine.sm_count / tensor < found.t_bound


def test_tiles_that_fill_the_workers_are_the_data_parallel_schedule():
    # M = 66 x 256, N = 256: 132 x 1 tiles, one a worker; 128 k-steps each, none shared
    sizes = {"M": 66 * 256, "N": 256, "K": 8192}
    streamk = verdict(loads(STREAMK.read_text(), STREAMK.name).cost(), H100, values=sizes)
    tiled = verdict(loads(HOPPER.read_text(), HOPPER.name).cost(), H100, values=sizes)
    assert (streamk.grid.stream_k.busiest, streamk.grid.stream_k.peers) == (128, 0)
    assert streamk.t_bound == tiled.t_bound


def test_declared_workers_and_more_workers_than_k_steps():
    text = STREAMK.read_text()
    # 264 workers, 2 an SM: 993 k-steps each, 2 x 993 / 128 tiles on the busiest SM
    twice = verdict(loads(text.replace("k0 = persistent", "k0 = 264"), "w.kcost").cost(),
                    H100, values=CUBE)
    assert (twice.grid.stream_k.workers, twice.grid.stream_k.busiest) == (264, 993)
    assert twice.grid.stream_k.peers == enumerated(2048, 128, 264)[1]
    # 2 x 1 tiles of 4 k-steps (M = 256, N = 256, K = 256) on 132 workers: 8 get one step
    # each, every tile shared by 4: 2 x 3 partial tiles
    small = verdict(loads(text, STREAMK.name).cost(), H100,
                    values={"M": 256, "N": 256, "K": 256})
    split = small.grid.stream_k
    assert (split.workers, split.busiest, split.peers) == (8, 1, 6)
    assert split.fixup_B == 2 * 6 * 131072
    assert small.t_floor <= small.t_bound <= small.t_model


def test_tune_takes_the_busiest_worker_in_its_vectorised_bound():
    # the 8192 cube, TM and TN varied: at 128 x 256 the busiest SM runs 1986 / 128 tiles'
    # worth of 2 x 128 x 256 x 8192 FLOP on one SM's tensor rate, in the vectorised t_bound
    # as in the analysis's (the fix-up's bytes bind neither)
    ranking = tune(STREAMK, H100, parse_vary("TM=64,128,256,TN=64,128,256"), None,
                   {k: str(v) for k, v in CUBE.items()}, rescore=8)
    best = ranking.top[0]
    assert best.values == (128, 256)
    machine = H100.at_max_clock
    tensor = machine.ceiling("bf16", "tensor").peak_FLOPps
    t_tensor = sympy.Rational(1986, 128) * 2 * 128 * 256 * 8192 * machine.sm_count / tensor
    assert best.t_bound == pytest.approx(float(t_tensor), rel=1e-9)
    assert best.analysis_t_bound == pytest.approx(float(t_tensor), rel=1e-9)
    assert all(row.t_bound <= row.analysis_t_bound * (1 + 1e-9) for row in ranking.top)


SETTING, K_LOOP = "stream_k k0 = persistent", "for k0 in 0..K by TK {"


@pytest.mark.parametrize("written, wrong, message", [
    (SETTING, "split_k k0 = 2, stream_k k0 = persistent", "split one k-loop two ways"),
    (SETTING, "stream_k i0 = persistent", "is not a sequential loop directly inside"),
    (SETTING, "stream_k k0 = 0", "a worker count is a whole number above 0"),
    (K_LOOP, "for k0 in 0..i0 + TM by TK {", "k-steps that depends on the tile (`i0`)"),
])
def test_a_wrong_stream_k_is_refused_at_its_place(written, wrong, message):
    text = STREAMK.read_text().replace(written, wrong)
    with pytest.raises(KcostError) as raised:
        loads(text, "wrong.kcost").cost()
    assert raised.value.code == "KC228"
    assert message in raised.value.render()
    assert "wrong.kcost:" in raised.value.render()


def _amount(terms, level: str) -> sympy.Expr:
    return next(term.amount for term in terms if term.key == level)
