"""Figures of docs/validation.md, "Paged reads: what the two kernels do with their page
tables": the page-table loads on a block's path in FlashAttention-2's split kernel (tag v2.6.3)
at ort-pr21414's sizes and in FlashAttention-3's cp.async gathers (hopper/ at 7ff73af4) at
fa-issue-1572's, each against what its row leaves unexplained (measured - cold - t_model)."""

from __future__ import annotations

import math
from pathlib import Path

from kernelcost.analysis.api import loads
from kernelcost.answers.model import verdict
from kernelcost.answers.published import read_corpus
from kernelcost.answers.published_report import Result, compare_rows
from kernelcost.base.levels import Level
from kernelcost.hardware.machinefile import load_machine

ROOT = Path(__file__).resolve().parent.parent
H100 = load_machine("h100")


def _results(source: str) -> list[Result]:
    rows = [row for row in read_corpus() if row.source == source]
    return sorted(compare_rows(rows), key=lambda result: result.row.line)


def _sizes(result: Result) -> dict[str, int]:
    return {name: int(value) for name, value in result.row.sizes.items()}


def _unexplained_s(result: Result) -> float:
    assert result.t_model is not None
    return result.row.time_s - (result.cold_start_s or 0.0) - result.t_model


def _global_latency_s() -> float:
    latency = H100.latency(Level.GLOBAL)
    assert latency is not None
    return latency.cycles / latency.clock_Hz


def _blocks_an_sm(result: Result) -> tuple[int, int]:
    """(blocks on the busiest SM, resident blocks an SM) of the row's spec at its sizes."""
    cost = loads((ROOT / result.row.spec).read_text()).cost("spec")
    occupancy = verdict(cost, H100, values=_sizes(result)).grid.occupancy
    return int(occupancy.busiest_sm_blocks), int(occupancy.resident)


def fa2_table_loads_on_the_path(L: int, BN: int = 128, page: int = 256) -> int:
    """Loads of block_table a block waits on before a copy can be issued (flash_fwd_kernel.h
    at v2.6.3): one before the first K tile's address (:581-587, after the sequence's length,
    block_info.h:22), then, for each further key tile, one before its K copy (:897-904, then
    :964-971) and one before its V copy (:940-947), each re-reading the entry of the page
    already read where one page holds every tile; one key tile (L <= BN) re-reads nothing
    (its V copy takes the first address, :869-872; no K follows, :895)."""
    tiles = math.ceil(L / BN)
    assert math.ceil(L / page) == 1, "every key of the row's block is on one page"
    return 1 + 2 * (tiles - 1)


def test_fa2_blocks_read_one_page_table_entry_before_their_first_tile():
    """ort-pr21414 (page_size 256, L = 32 to 256): every block's keys lie on one page, so the
    table adds one dependent load (373 ns unloaded) to each round's path before the first K
    tile, two rounds on the busiest SM: 0.75 us, which the chain effect leaves out (the spec
    states no table). After the chain the rows leave 2.5, 1.2, 0.8 and 3.1 us: the table is
    24 % of the most and 97 % of the least."""
    found = _results("ort-pr21414")
    assert [result.row.sizes["L"] for result in found] == ["32", "64", "128", "256"]
    latency = _global_latency_s()
    assert round(latency * 1e9) == 373
    unexplained = [_unexplained_s(result) for result in found]
    assert [round(value * 1e6, 1) for value in unexplained] == [2.5, 1.2, 0.8, 3.1]
    for result, left in zip(found, unexplained, strict=True):
        busiest, resident = _blocks_an_sm(result)
        assert (busiest, resident) == (4, 2)  # 512 blocks on 132 SMs, 80 KiB of shared each
        rounds = math.ceil(busiest / resident)
        first = rounds * latency
        assert round(first * 1e6, 2) == 0.75
        assert 0.24 < first / left < 0.97
    assert [fa2_table_loads_on_the_path(int(result.row.sizes["L"])) for result in found] == \
        [1, 1, 1, 3]
    # at L = 256 the two re-reads of each round, even as L2 hits (151 ns), add 0.61 us
    l2 = H100.latency(Level.L2)
    assert l2 is not None
    rereads = 2 * 2 * l2.cycles / l2.clock_Hz
    assert round(rereads * 1e6, 2) == 0.61
    assert 0.44 < (2 * latency + rereads) / unexplained[-1] < 0.45


def fa3_page_entries_a_thread(BN: int = 128, d: int = 128, threads: int = 128,
                              element_B: int = 2) -> tuple[int, int]:
    """paged_kv.h at 7ff73af4, PagedKVManager: (page-table entries each producer thread loads a
    key tile, 16-byte cp.async each thread issues for the tile's K)."""
    per_load = 16 // element_B  # kGmemElemsPerLoad, :30
    row_B = d * element_B  # kBytePerRow, :36 (LoadsPerRow_LB = 1)
    block_k = (128 if row_B % 128 == 0 else 64 if row_B % 64 == 0 else 32) // element_B  # :37
    threads_a_row = block_k // per_load  # kGmemThreadsPerRow, :38
    rows_a_thread = BN // (threads // threads_a_row)  # size<1>(tKcK)
    entries = math.ceil(rows_a_thread / threads_a_row)  # kPageEntryPerThread, :75
    return entries, rows_a_thread * (d // block_k)


def test_fa3_page_table_loads_do_not_bind_the_producer():
    """fa-issue-1572 (page_size 8, 128-key tiles): each producer thread loads one entry a tile
    (16 pages a tile, all in parallel), issued before the wait for a free stage. It bounds the
    producer's period at one load latency a tile, 0.373 us, against the 2.98 us a tile's K and
    V (64 KiB) take at an SM's share of the achievable copy rate: it does not bind. To give the
    measured period at L = 2000 (4.56 us) the latency would have to be 12 times the unloaded."""
    entries, copies = fa3_page_entries_a_thread()
    assert (entries, copies) == (1, 16)
    assert copies * 16 * 128 == 128 * 128 * 2  # the K tile, 32 KiB
    assert 128 // 8 == 16  # pages a tile
    latency = _global_latency_s()
    fraction = next(entry.fraction for entry in H100.achievable if entry.roof == Level.GLOBAL)
    bandwidth = H100.bandwidth(Level.GLOBAL)
    assert bandwidth is not None
    rate = fraction * bandwidth  # the achievable copy's rate, 2.90 TB/s
    tile_s = H100.sm_count * 2 * 32 * 1024 / rate
    assert round(tile_s * 1e6, 2) == 2.98
    assert tile_s / latency > 7.9
    found = {result.row.line: result for result in _results("fa-issue-1572")}
    for line, L, tiles in ((8, 2000, 64), (9, 4000, 128)):
        result = found[line]
        busiest, _ = _blocks_an_sm(result)
        assert busiest * math.ceil(L / 128) == tiles  # 4 work tiles of ceil(L / 128) key tiles
        period = result.row.time_s / tiles
        left = _unexplained_s(result) / tiles
        assert round(period * 1e6, 2) == {8: 4.56, 9: 4.43}[line]
        assert round(left * 1e6, 2) == {8: 1.74, 9: 1.61}[line]
        assert latency / left < 0.24
    assert round(found[8].row.time_s / 64 / latency) == 12
