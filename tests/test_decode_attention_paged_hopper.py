"""decode_attention_paged_hopper.kcost, FlashAttention-3's decode over a paged cache whose
pages are not whole key tiles (Dao-AILab/flash-attention hopper/ at commit 7ff73af4): the
path, tile and split count its host and device code pick at the published rows' sizes, and
the spec's work, bytes and occupancy against the kernel's tiles counted by hand."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hand_counts import counts_at

from kernelcost.answers.model import verdict
from kernelcost.hardware.machinefile import load_machine

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "decode_attention_paged_hopper.kcost"
H100_SMS = 132  # src/kernelcost/machines/h100.toml
BM = BN = 128  # tile_size.h:32 at d = 128, causal (kept for a paged cache, flash_api.cpp:763)


def pagedkv_tma(page_size: int, seqlen_q: int, g: int) -> bool:
    """flash_api.cpp:404-413, get_pagedkv_tma, at the tile above."""
    return page_size % BN == 0 and seqlen_q * g > BM


def host_splits(blocks: int, sms: int, n_blocks: int, max_splits: int = 128) -> int:
    """heuristics.h:25-60, num_splits_heuristic, for a causal call (no L2 split)."""
    if blocks >= 0.8 * sms:
        return 1
    if n_blocks <= 4:
        return 1
    max_splits = min(max_splits, sms, n_blocks)
    efficiency = [blocks * s / sms / math.ceil(blocks * s / sms) for s in range(1, max_splits + 1)]
    return next(s for s, eff in enumerate(efficiency, 1) if eff >= 0.85 * max(efficiency))


def device_splits(b: int, kv_heads: int, L: int, static: int, sms: int) -> int:
    """flash_prepare_scheduler.cu:93-102: the split count each sequence gets on the device."""
    n_blocks = -(-L // BN)
    total = b * 1 * n_blocks  # one 128-row block of packed query rows a sequence
    per_sm = math.ceil(total * 1.1 * kv_heads / sms)
    return max(min(-(-n_blocks // per_sm), static), 1)


@pytest.mark.parametrize("L", [128, 2000, 4000])
def test_the_rows_take_the_cp_async_path_and_one_split(L):
    # batch 16, 32 heads over 32 KV heads (g = 1), pages of 8 tokens: no TMA for K and V
    assert not pagedkv_tma(8, 1, 1)
    n_blocks = -(-L // BN)
    # the host pretends batch = 1 when the split is dynamic (flash_api.cpp:457): 32 m-blocks
    static = host_splits(1 * 32 * 1, H100_SMS, n_blocks)
    assert static == (1 if L == 128 else 4)
    assert device_splits(16, 32, L, static, H100_SMS) == 1
    # one sequence would split its cache: the spec is not that launch
    if L == 4000:
        assert device_splits(1, 32, L, static, H100_SMS) == 4


def test_work_and_bytes_are_the_kernels_tiles_counted_by_hand():
    b, h, g, d, L, WM = 16, 32, 1, 128, 2000, 64
    _, _, work, traffic = counts_at(SPEC, {"b": b, "h": h, "L": L, "g": g})
    blocks = b * h // g  # tiles of the persistent scheduler: one 128-row block, one split
    tiles = -(-L // BN)  # 16 key tiles, the last of 80 keys
    # both MMAs over all 128 rows, the keys counted to L: 4 BM L d a block
    assert work["tensor"] == blocks * 4 * BM * L * d == 67_108_864_000
    # the softmax of the whole tile, a rescale exp a row, a log a real row
    assert work["sfu"] == blocks * (tiles * BM * (BN + 1) + g)
    assert work["vector"] == blocks * (tiles * BM * (3 * BN + d + 3) + g * (d + 1))
    # only the L keys and the g rows cross: K and V, the query, the output and its lse
    assert traffic["global"] == blocks * (2 * L * d * 2 + g * d * 2 * 2 + g * 4) == 524_552_192
    # shared: the query rows stored; per key tile each warpgroup reads its 64 x 128 of Q
    # (in 64 x 16 slices) and the tile's keys of K and V (the wgmma operands)
    per_block = g * d * 2 + tiles * BM * d * 2 + (BM // WM) * 2 * L * d * 2
    assert traffic["shared"] == blocks * per_block


def test_one_block_an_sm_and_four_tiles_on_the_busiest_h100_sm():
    cost, values, _, _ = counts_at(SPEC, {"b": 16, "h": 32, "L": 2000, "g": 1})
    result = verdict(cost, load_machine("h100"), values=values)
    occupancy = result.grid.occupancy
    # Q 128 x 128 and two stages of K and V 128 x 128, bf16: 160 KiB, one block an SM
    assert 128 * 128 * 2 + 2 * 2 * 128 * 128 * 2 == 160 * 1024
    assert occupancy.resident == 1
    assert occupancy.blocks == 512
    # 512 tiles on 132 persistent blocks: the busiest SM runs 4
    assert occupancy.busiest_sm_blocks == math.ceil(512 / 132) == 4
    assert result.t_floor <= result.t_bound <= result.t_model
