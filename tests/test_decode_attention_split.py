"""decode_attention_split.kcost, FlashAttention-2's split-KV kernel as flash-attention v2.6.3's
mha_fwd_kvcache runs it at decode (the ORT pull request 21414 rows of the published corpus):
the split count its heuristic picks, and the spec's work, bytes, blocks and occupancy against
the kernel's tiles counted by hand at a calibration size."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hand_counts import counts_at

from kernelcost.answers.model import verdict
from kernelcost.hardware.machinefile import load_machine

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "decode_attention_split.kcost"
H100_SMS = 132  # src/kernelcost/machines/h100.toml


def num_splits_heuristic(blocks: int, sms: int, n_blocks: int, max_splits: int) -> int:
    """flash-attention v2.6.3, csrc/flash_attn/flash_api.cpp:258-292, as written there."""
    if blocks >= 0.8 * sms:
        return 1
    max_splits = min(max_splits, sms, n_blocks)
    efficiency = []
    for splits in range(1, max_splits + 1):
        eligible = splits == 1 or -(-n_blocks // splits) != -(-n_blocks // (splits - 1))
        waves = blocks * splits / sms
        efficiency.append(waves / math.ceil(waves) if eligible else 0.0)
    best = max(efficiency)
    for splits in range(1, max_splits + 1):
        if efficiency[splits - 1] and efficiency[splits - 1] >= 0.85 * best:
            return splits
    return 1


@pytest.mark.parametrize("L", [32, 64, 128, 256])
def test_the_heuristic_keeps_one_split_at_the_corpus_sizes(L):
    # 64 sequences, 64 query heads over 8 KV heads: the 8 query heads of a KV head are the
    # query rows (flash_api.cpp:1376), one 64-row block of them; set_params_splitkv passes
    # b x (h / g) x 1 blocks and twice the SMs (:312); the paged cache's seqlen_k is whole
    # 256-token pages (:1363), 2 key blocks of 128
    assert num_splits_heuristic(64 * 8 * 1, 2 * H100_SMS, 256 // 128, 128) == 1
    # a batch of 8 would split: 64 blocks < 211.2; the spec is not that launch
    assert num_splits_heuristic(8 * 8 * 1, 2 * H100_SMS, 2, 128) > 1


@pytest.mark.parametrize("L", [32, 256])
def test_work_and_bytes_are_the_kernels_tiles_counted_by_hand(L):
    b, h, g, d, BM, BN, WM = 64, 64, 8, 128, 64, 128, 16
    _, _, work, traffic = counts_at(SPEC, {"b": b, "h": h, "L": L})
    blocks = b * (h // g)  # grid (1, b, h / g): flash_fwd_launch_template.h:104
    tiles = -(-L // BN)  # 128-key tiles, the last one whole to the MMAs
    # two MMAs a tile over the whole 64-row, 128-key tile: 2 x 2 BM BN d FLOP
    assert work["tensor"] == blocks * tiles * 2 * 2 * BM * BN * d
    # an exp per score of the tile, one per row for the rescale; one log per output row
    assert work["sfu"] == blocks * (tiles * (BM * BN + BM) + g)
    # per row of the tile: BN maxima, a difference for the rescale, d products, BN
    # differences and BN sums, the two of l's update; then a division per output element
    # and the log-sum-exp's addition, g rows
    assert work["vector"] == blocks * (tiles * BM * (3 * BN + d + 3) + g * d + g)
    # only L keys and g rows cross from memory: K and V, the query, the bf16 output and its
    # fp32 log-sum-exp (flash_fwd_kernel.h:785, :822, :870 predicate the loads)
    kv_B = 2 * b * (h // g) * L * d * 2
    assert traffic["global"] == kv_B + b * h * d * 2 * 2 + b * h * 4
    # shared: each block stores its g query rows, L keys and L values; per tile each of the
    # 4 warps reads its 16 query rows and the whole K tile (Q.K^T), and the whole V tile
    per_block = g * d * 2 + 2 * L * d * 2 + tiles * (BM // WM) * (
        WM * d * 2 + BN * d * 2 + BN * d * 2)
    assert traffic["shared"] == blocks * per_block
    if L == 32:  # 9 MiB read (8 of cache, 1 of queries), the PR's nvbench "Read" column
        assert kv_B + b * h * d * 2 == 9 * 2**20


def test_occupancy_and_the_busiest_sm_on_an_h100():
    cost, values, _, _ = counts_at(SPEC, {"b": 64, "h": 64, "L": 32})
    result = verdict(cost, load_machine("h100"), values=values)
    occupancy = result.grid.occupancy
    # 80 KiB of shared memory a block (kernel_traits.h:109: Q 64 x 128 + K and V 128 x 128,
    # bf16) plus the 1 KiB reservation: floor(233472 / 82944) = 2 blocks an SM
    assert 64 * 128 * 2 + 2 * 128 * 128 * 2 == 81920
    assert occupancy.resident == 233472 // (81920 + 1024) == 2
    assert occupancy.blocks == 512
    # 512 blocks on 132 SMs: the busiest runs 4, in two waves of 264
    assert occupancy.busiest_sm_blocks == math.ceil(512 / 132) == 4
    assert occupancy.waves == math.ceil(512 / (132 * 2)) == 2
    assert result.t_floor <= result.t_bound <= result.t_model


def test_no_work_is_counted_on_rows_past_the_cache():
    # L = 32 and L = 128 fill one 128-key tile alike: the same MMAs and exps, only the bytes
    # of the keys differ (32 x 128 x 2 B for K and V each, per block)
    _, _, short_work, short = counts_at(SPEC, {"b": 64, "h": 64, "L": 32})
    _, _, long_work, long = counts_at(SPEC, {"b": 64, "h": 64, "L": 128})
    assert short_work == long_work
    assert long["global"] - short["global"] == 512 * 2 * (128 - 32) * 128 * 2
