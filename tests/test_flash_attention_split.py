"""flash_attention_split.kcost, FlashAttention-2's forward with the keys split across blocks, as
PyTorch's flash backend runs it when the query tiles are too few to fill the GPU (the H = 1
rows of this project's H200 run): the split count PyTorch's heuristic picks at the run's
sizes, and the spec's work and bytes against the kernel's tiles counted by hand."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hand_counts import counts_at
from test_decode_attention_split import num_splits_heuristic

import kernelcost

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "flash_attention_split.kcost"
H200_SMS = 132  # src/kernelcost/machines/h200.toml


def splits(S: int, H: int, d: int = 128) -> int:
    """PyTorch's mha_fwd: set_params_splitkv with num_splits = 0 passes H x ceil(S / 64)
    query tiles, twice the SMs, ceil(S / kBlockN) key tiles (kBlockN = 128 at d = 128) and
    at most 128 splits to num_splits_heuristic (flash_api.cpp)."""
    block_n = 256 if d <= 64 else (128 if d <= 128 else 64)
    return num_splits_heuristic(H * -(-S // 64), 2 * H200_SMS, -(-S // block_n), 128)


@pytest.mark.parametrize(("S", "H", "d", "P"), [
    (1024, 1, 128, 8),  # 16 query tiles, 8 key tiles: 8 splits, 128 blocks (48 % of a wave)
    (4096, 1, 128, 4),  # 64 query tiles: 4 splits, 256 blocks, 97 % of 264 slots
    (16384, 1, 128, 1),  # 256 query tiles >= 211.2: no split
    (4096, 32, 128, 1), (1024, 64, 128, 1), (16384, 8, 128, 1),
    (1024, 64, 64, 1), (4096, 32, 64, 1), (16384, 8, 64, 1),
])
def test_the_heuristic_splits_only_the_single_head_runs_below_16384(S, H, d, P):
    assert splits(S, H, d) == P


def test_work_and_bytes_are_the_kernels_tiles_counted_by_hand():
    S, H, P, d, Br, Bc, WM = 1024, 1, 8, 128, 64, 128, 16
    cost, values, work, traffic = counts_at(SPEC, {"S": S, "H": H, "P": P})
    blocks = H * P * (S // Br)  # grid (query tile, split, batch x heads)
    assert int(cost.grid.blocks.subs(cost.defaults).subs(values)) == blocks == 128
    tiles = (S // P) // Bc  # key tiles a block runs: one of 128 keys at S = 1024, P = 8
    assert tiles == 1
    # the two MMAs over every 64 x 128 tile: the unsplit kernel's 4 H S^2 d
    assert work["tensor"] == blocks * tiles * 2 * 2 * Br * Bc * d == 4 * H * S * S * d
    # shared: per tile each of the 4 warps reads its 16 query rows and the whole K and V tiles
    per_tile = (Br // WM) * (WM * d + 2 * Bc * d) * 2
    assert per_tile == 278_528
    assert traffic["shared"] == blocks * tiles * per_tile
    # global: Q, K, V read and O written in bf16, the fp32 partial outputs and log-sum-exps
    # written once (the combine reads them back from L2: 4 MiB)
    assert traffic["global"] == 4 * H * S * d * 2 + P * H * S * d * 4 + P * H * S * 4


def _project_rows(shape_is) -> list[dict[str, str]]:
    """The rows of validate/published/project_h200.csv whose shape (the run's kernel) passes."""
    path = ROOT / "validate" / "published" / "project_h200.csv"
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    return [row for row in csv.DictReader(lines) if shape_is(row["shape"])]


def _sizes_and_splits(row: dict[str, str]) -> tuple[dict[str, int], int]:
    """The row's sizes, and the splits PyTorch's heuristic gives them."""
    sizes = {k: int(v) for k, v in (item.split("=") for item in row["sizes"].split(";"))}
    return sizes, splits(sizes["S"], sizes["H"], sizes.get("d", 128))


def test_the_corpus_puts_every_split_run_on_the_split_spec():
    """validate/published/project_h200.csv: each non-causal flash row runs on the split spec
    exactly when the heuristic splits its size, with its P; the others keep the unsplit one."""
    flash = _project_rows(lambda shape: shape.removesuffix("_graph") == "flash_attention")
    assert len(flash) == 10
    for row in flash:
        sizes, P = _sizes_and_splits(row)
        split = row["spec"] == "specs/flash_attention_split.kcost"
        assert split == (P > 1), row["citation"]
        assert sizes.get("P", 1) == P
    assert sum(row["spec"] == "specs/flash_attention_split.kcost" for row in flash) == 3


CAUSAL = ROOT / "specs" / "flash_attention_causal_split.kcost"


def running_blocks(S: int, Br: int = 64, Bc: int = 128) -> list[tuple[int, int]]:
    """FlashAttention-2's compute_attn_1rowblock_splitkv with one key tile a split: block
    (split p, query tile m) runs key tiles p up to min(p + 1, ceil((m + 1) Br / Bc)); where
    that range is empty the block exits early."""
    P = S // Bc
    return [(p, m) for p in range(P) for m in range(S // Br)
            if p < min(p + 1, -(-(m + 1) * Br // Bc))]


def test_the_causal_split_runs_the_blocks_below_the_diagonal_counted_by_hand():
    S, H, d, Br, Bc, WM = 1024, 1, 128, 64, 128, 16
    assert splits(S, H, d) == S // Bc == 8  # the causal run splits as the non-causal one
    cost, values, work, traffic = counts_at(CAUSAL, {"S": S, "H": H})
    blocks = running_blocks(S)
    assert len(blocks) == 72  # of 8 x 16: split p runs the query tiles from p x Bc on
    assert int(cost.grid.blocks.subs(cost.defaults).subs(values)) == len(blocks)
    # each running block: the two MMAs over one whole 64 x 128 tile, the diagonal's included
    assert work["tensor"] == len(blocks) * 2 * 2 * Br * Bc * d
    assert traffic["shared"] == len(blocks) * (Br // WM) * (WM * d + 2 * Bc * d) * 2
    # global: every tensor whole, as the kernel touches them (the blocks that exit early
    # write their zero partials and -inf log-sum-exps; the combine writes all of O)
    P = S // Bc
    assert traffic["global"] == 4 * H * S * d * 2 + P * H * S * d * 4 + P * H * S * 4


def test_the_causal_split_does_no_more_than_the_split_it_masks():
    """Every count of the causal split is at most the non-causal split's at the same P: the
    blocks that exit early are left out, no block does more."""
    S, P = 1024, 8
    causal, full = kernelcost.load(CAUSAL).cost(), kernelcost.load(SPEC).cost()

    def at(cost, expr):
        given = {"S": S, "H": 1, "P": P}
        return int(expr.subs(cost.defaults).subs(
            {s: given[s.name] for s in cost.parameters if s.name in given}))

    for unit, expr in causal.work.items():
        assert at(causal, expr) <= at(full, full.work[unit]), unit
    for level, expr in causal.traffic.items():
        assert at(causal, expr) <= at(full, full.traffic[level]), level


def test_the_corpus_puts_the_causal_split_run_on_the_causal_split_spec():
    causal = _project_rows(lambda shape: shape == "flash_attention_causal")
    assert len(causal) == 6
    for row in causal:
        _, P = _sizes_and_splits(row)
        on_split = row["spec"] == "specs/flash_attention_causal_split.kcost"
        assert on_split == (P > 1), row["citation"]
    assert sum(row["spec"] == "specs/flash_attention_causal_split.kcost" for row in causal) == 1
