"""`tune` a chunk of the space at a time (answers.search_chunks): the chunks are the whole
space in its order, once; the answers of a space cut into chunks of 1 to some hundreds of
candidates are those of the space evaluated at once (the rows, their ties, the counts, the
first rejections, the Pareto set, the spec's own place); no evaluation holds more than a
chunk; and a space is refused for the time it would take, not for its size."""

import dataclasses
import itertools
import json

import numpy
import pytest
from conftest import SPECS

from kernelcost.analysis.api import load
from kernelcost.answers import search_chunks
from kernelcost.answers import tune as tune_module
from kernelcost.answers.search import Evaluator
from kernelcost.answers.search_chunks import Shortlist, chunks
from kernelcost.answers.tune import tune
from kernelcost.cli import main
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.varied import parse_vary

H100 = load_machine("h100")
HOPPER = SPECS / "gemm_hopper.kcost"
SQUARE_8192 = {"M": "N", "K": "N", "N": "8192"}
WHOLE = 1 << 40  # a chunk larger than any space here: the space evaluated at once


def _at_once(*arguments, **keywords):
    """tune over the space evaluated at once, every fitting candidate kept for the ranking
    (none dropped as past the pool's ties): the answers the chunks must give."""
    def keep_all(fold, found):
        fold.kept = found if fold.kept is None else Shortlist.joined([fold.kept, found])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search_chunks, "_keep", keep_all)
        return tune(*arguments, chunk=WHOLE, **keywords)


@pytest.mark.parametrize(("lengths", "size"), [
    ((5, 3, 4), 1), ((5, 3, 4), 7), ((5, 3, 4), 12), ((5, 3, 4), 13), ((5, 3, 4), 60),
    ((5, 3, 4), 1000), ((2, 1, 9, 2), 5), ((7,), 3), ((), 4),
])
def test_the_chunks_are_the_space_once_in_order(lengths, size):
    axes = [numpy.arange(n, dtype=float) * 10 + k for k, n in enumerate(lengths)]
    every = list(itertools.product(*axes)) or [()]
    seen = []
    for chunk in chunks(axes, size):
        points = list(itertools.product(*chunk.axes)) or [()]
        assert len(points) <= size
        assert points == every[chunk.start:chunk.start + len(points)]
        seen += points
    assert seen == every


def _same(chunked, whole) -> None:
    """Every field of two rankings equal but the seconds they took."""
    timing = {"seconds": 0.0, "rescore_seconds": 0.0}
    assert dataclasses.replace(chunked, **timing) == dataclasses.replace(whole, **timing)


SCHEDULE = "stages=1..4,threads=128..512:128,cluster=1,2,raster=row,grouped"
CASES = {  # name: (--vary, --set, keyword arguments, chunk sizes)
    # t_bound tied across stages, threads and clusters: hundreds of ties at the pool's edge
    "ties": (f"TM=64..512:64,TN=64..512:64,TK=64,{SCHEDULE}", SQUARE_8192,
             {"rescore": 8, "pareto_set": True}, (7, 61, 500)),
    "ties by t_bound": (f"TM=64..512:64,TN=64..512:64,TK=64,{SCHEDULE}", SQUARE_8192,
                        {"rescore": 0, "top": 40, "pareto_set": True}, (1, 64, 333)),
    # every reason: tiles past shared memory, a broken `assume`, threads past 1024
    "rejections": ("TM=16,48,128,256,1024,TN=16,128,256,2048,TK=16,64,256,"
                   "threads=128,1280", SQUARE_8192,
                   {"rescore": 4, "show_rejected": 3, "pareto_set": True}, (1, 5, 40)),
    "split-K": ("TM=64,128,256,TN=128,256,split_k=1..8,raster=row,grouped", SQUARE_8192,
                {"rescore": 6, "pareto_set": True}, (3, 17)),
    "two shapes": ("TM=64..512:64,TN=128,256,stages=2,4", {"M": "N", "K": "N"},
                   {"rescore": 4, "shapes": [{"N": "2304"}, {"N": "8192"}],
                    "pareto_set": True}, (1, 9)),
    # 2 fit, 1 re-scored: its t_model 1.47 ms is over the other's t_bound 1.30 ms, which
    # the chunks dropped (past the pool of one): not proven
    "unproven": ("TM=64..512:64,TN=256,TK=64", SQUARE_8192, {"rescore": 1, "top": 1},
                 (1, 3)),
}


@pytest.mark.parametrize("name", CASES)
def test_a_space_in_chunks_answers_as_the_space_at_once(name):
    vary, settings, options, sizes = CASES[name]
    spec, varied = load(HOPPER), parse_vary(vary)
    whole = _at_once(spec, H100, varied, None, settings, **options)
    assert whole.fitting > 0 and whole.top
    assert not whole.proven if name == "unproven" else whole.pareto
    for size in sizes:
        _same(tune(spec, H100, varied, None, settings, chunk=size, **options), whole)


def test_the_ties_reach_past_a_chunk_and_the_spec_s_own_tile_ranks_alike():
    # the least t_bound is in a late chunk, a tie of it in each of the first ones: what a
    # chunk keeps is weighed against the least found so far, never one found later
    spec, varied = load(HOPPER), parse_vary(f"TM=512,448,384,320,256,192,128,TN=256,TK=64,"
                                            f"{SCHEDULE}")
    whole = _at_once(spec, H100, varied, None, SQUARE_8192, rescore=12)
    ties = [row for row in whole.top if row.t_bound == whole.top[0].t_bound]
    assert len(ties) > 1 and whole.own_place is not None
    for size in (1, 16, 32, 100, WHOLE):
        _same(tune(spec, H100, varied, None, SQUARE_8192, rescore=12, chunk=size), whole)


def test_a_chunk_keeps_every_candidate_a_tie_may_place_in_the_pool():
    # t_bound within some 1e-9 of each other, a tie or not as they round against the least
    # of all, which the first chunks do not know: whatever the cut, every candidate the rule
    # over the whole space ranks in the pool is kept, and the best one dropped is known
    rng = numpy.random.default_rng(41)
    for _ in range(300):
        n, pool = int(rng.integers(1, 200)), int(rng.integers(1, 12))
        t = rng.choice([1e-3, 1.7e-3, 2.3e-3], n) * (1 + rng.integers(0, 9, n) * 0.35e-9)
        fold = search_chunks._Fold(search_chunks.Wanted(pool, 0, False, None),
                                   numpy.zeros(1), {})
        cuts = numpy.sort(rng.integers(0, n, int(rng.integers(0, 8))))
        for piece in numpy.split(numpy.arange(n), cuts):
            zeros = numpy.zeros(piece.size)
            search_chunks._keep(fold, Shortlist(piece, t[piece], zeros, zeros, zeros, zeros,
                                                zeros, zeros[None]))
        level = numpy.round(t / t.min(), 9)
        edge = numpy.partition(level, pool - 1)[pool - 1] if pool < n else numpy.inf
        kept = set(fold.kept.index.tolist())
        assert set(numpy.flatnonzero(level <= edge).tolist()) <= kept
        dropped = [t[i] for i in range(n) if i not in kept]
        assert fold.dropped_best == min(dropped, default=numpy.inf)


def test_no_evaluation_holds_more_than_a_chunk(monkeypatch):
    held = []
    evaluate = Evaluator.__call__

    def counted(self, arrays):
        held.append(int(numpy.prod(numpy.broadcast_shapes((1,), *map(numpy.shape, arrays)))))
        return evaluate(self, arrays)

    monkeypatch.setattr(Evaluator, "__call__", counted)
    varied = parse_vary(f"TM=16..512:16,TN=16..512:16,TK=64,{SCHEDULE}")  # 32,768
    ranking = tune(load(HOPPER), H100, varied, None, SQUARE_8192, rescore=0, chunk=1000)
    assert ranking.points == 32 * 32 * 4 * 4 * 2 and max(held) <= 1000
    assert sum(held) >= ranking.points  # every candidate, and the warm-up's one


class Reached(BaseException):
    """The search was started (an exception the command line does not report)."""


def _reached(*arguments, **keywords):
    raise Reached


def test_a_space_past_the_time_budget_is_refused_before_any_array(capsys, monkeypatch):
    # 1,000 x 1,000 x 100 x 8 x 100 = 8 x 10^10 combinations: 80 s even at 10^9 a second
    monkeypatch.setenv("KERNELCOST_BUDGET_S", "60")
    monkeypatch.setattr(tune_module, "search", _reached)  # refused first, never reached
    command = ["tune", str(HOPPER), "--machine", "h100", "--vary",
               "TM=1..1000,TN=1..1000,TK=1..100,stages=1..8,split_k=1..100", "--set",
               "M=N,K=N,N=8192"]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.startswith("--vary:1:1: error[KC309]: 1,000 TM x 1,000 TN x 100 TK x 8 stages "
                          "x 100 split_k make 80,000,000,000 combinations: at "
                          "1,000,000,000 a second, faster than the search runs anywhere, "
                          "some 80 s, more than the time budget of 60 s"), err
    assert "KERNELCOST_BUDGET_S=SECONDS" in err
    monkeypatch.setenv("KERNELCOST_BUDGET_S", "90")  # a longer budget: searched, not refused
    with pytest.raises(Reached):
        main(command)


def test_a_space_whose_arrays_at_once_would_pass_a_gigabyte_is_searched(capsys):
    """TM, TN, TK in 256 values each (16.8 million combinations): every array holds all
    three axes, 65 B a combination, and the arrays at once took 1.11 GB; a chunk at a time
    they take some 35 MB, and each row shown is what the analysis gives there."""
    assert main(["tune", str(HOPPER), "--machine", "h100", "--set", "M=N,K=N,N=4096",
                 "--vary", "TM,TN,TK", "--values", "16..4096:16", "--top", "3", "--rescore",
                 "3", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["candidates"] == 256 ** 3
    assert found["fitting"] + sum(found["rejected"].values()) == found["candidates"]
    for row in found["top"]:
        assert row["t_bound_s"] == pytest.approx(row["analysis_t_bound_s"], rel=1e-9)
