"""Figures of docs/validation.md, "The rows just over 25 %", and docs/efficiency.md, "launch
and cold start", each computed again: the grouped GEMMs' row tiles under CUTLASS's grouped
scheduler from the routing the pull request printed, and the cold start's other forms on
the calibration rows alone."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pytest

from kernelcost.analysis.api import loads
from kernelcost.answers.model import verdict
from kernelcost.answers.published import Machine, calibration_rows, read_corpus
from kernelcost.answers.published_report import compare_rows
from kernelcost.hardware.machinefile import load_machine

SPEC = Path(__file__).resolve().parent.parent / "specs" / "moe_gemm_hopper.kcost"
TM, CLUSTER_M, SMS = 128, 2, 132  # the spec's row tile, its 2 x 1 cluster; H100 SXM's SMs


def _group_rows(shape: str) -> list[int]:
    """The groups' rows from the row's printed `offs` (each group's end)."""
    ends = [int(word) for word in shape.split("(offs) ", 1)[1].split(":", 1)[0].split()]
    return [end - start for start, end in zip([0, *ends], ends)]


def _row_tiles(rows: int) -> int:
    """PersistentTileSchedulerSm90Group: ceil(rows / TM) rounded up to whole clusters."""
    ctas_along_m = math.ceil(rows / TM)
    return math.ceil(ctas_along_m / CLUSTER_M) * CLUSTER_M


@pytest.mark.parametrize("line, tiles, columns", [(3, 82, 8192 // 256), (4, 78, 5120 // 256)])
def test_unbalanced_groups_walk_more_row_tiles_than_the_balanced_spec(line, tiles, columns):
    """Groups of 112 to 1488 rows round up to 82 and 78 row tiles where 16 groups of 512
    make 64; on 132 SMs the busiest runs 20 and 12 tiles where the spec's grid gives 16 and
    10, and t_model follows the busiest SM's tiles (Mt = 768: 24 of them, 1.5x)."""
    [row] = [r for r in read_corpus() if r.source == "ao-pr2490" and r.line == line]
    groups = _group_rows(row.shape)
    assert (len(groups), sum(groups)) == (16, 8192)
    assert sum(map(_row_tiles, groups)) == tiles
    sizes = {k: int(v) for k, v in row.sizes.items()}
    balanced = sizes["Ea"] * sizes["Mt"] // TM
    assert balanced == 64
    assert (-(-tiles * columns // SMS), -(-balanced * columns // SMS)) == (
        {3: (20, 16), 4: (12, 10)}[line])
    cost = loads(SPEC.read_text()).cost("spec")
    h100 = load_machine("h100")
    at = {name: verdict(cost, h100, values={**sizes, "Mt": mt}).t_model for name, mt in
          (("spec", 512), ("three clusters", 768))}
    assert float(at["three clusters"] / at["spec"]) == pytest.approx(24 / 16, rel=2e-3)


@pytest.fixture(scope="module")
def cold_calibration():
    """Machine -> [(t_model, measured)] over the calibration rows timed after a flush."""
    found: dict[Machine, list[tuple[float, float]]] = {}
    for result in compare_rows([r for r in calibration_rows() if r.cold]):
        assert result.t_model is not None
        found.setdefault(result.row.machine, []).append((float(result.t_model), result.row.time_s))
    return found


def _median_error(pairs, predict) -> float:
    return statistics.median(abs(predict(t) - measured) / measured for t, measured in pairs)


def _best_floor(pairs) -> float:
    """max(t_model, c): the c (0.1 us steps) with the lowest median |error|, lowest c first."""
    grid = [step * 1e-7 for step in range(400)]
    return min(grid, key=lambda c: (_median_error(pairs, lambda t: max(t, c)), c))


def test_a_wholly_overlapped_cold_start_would_hold_the_kernels_own_time(cold_calibration):
    """max(t_model, c) fits c = 14.3 us on the H200 (its cold rows' 8.4 us copies took
    14.3 us) and 19.3 us on the H100, over nvbench's 6.2-10.4 us cold kernel of 2^16
    elements; on the H100 it raises the median from 5.1 % to 8.8 %."""
    h200, h100 = cold_calibration[Machine.H200], cold_calibration[Machine.H100]
    assert _best_floor(h200) == pytest.approx(14.3e-6, abs=1e-9)
    assert _best_floor(h100) == pytest.approx(19.3e-6, abs=1e-9)
    constant = statistics.median(measured - t for t, measured in h100)
    assert round(100 * _median_error(h100, lambda t: t + constant), 1) == 5.1
    assert round(100 * _median_error(h100, lambda t: max(t, _best_floor(h100))), 1) == 8.8


def test_the_h200_cold_rows_leave_less_beyond_t_model_as_they_grow():
    """A first-touch part growing with the bytes touched (up to L2) would leave more beyond
    t_model at 537 MB than at 33.5 MB; cccl-pr2086's cold copies leave 5.9 us and 0.95 us."""
    gaps = {}
    for result in compare_rows([r for r in calibration_rows() if r.cold
                                and r.machine is Machine.H200]):
        assert result.t_model is not None
        moved = 8 * int(result.row.sizes["n"])  # the spec's f32 copy: read and written
        gaps.setdefault(moved, []).append(result.row.time_s - float(result.t_model))
    assert sorted(gaps) == [33_554_432, 536_870_912]
    assert [round(g * 1e6, 2) for g in gaps[33_554_432]] == [5.92, 5.99]
    assert [round(g * 1e6, 2) for g in gaps[536_870_912]] == [0.95]
