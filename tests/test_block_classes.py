"""Blocks by classes (issue 35) against enumeration.

Grids are generated as .kcost text: one, two or three grid axes; edges ragged (clipped with
min) or divisible; a causal mask (the k loop of a block runs to the end of its row tile, so
its work and its B box grow with i0); a causal diagonal (a block's j stops at its i: full
blocks below the grid's diagonal, partial on it, empty above); halos (x[i + h], boxes that
overlap); clusters of two along i0; row, column and grouped rasters (grouped falls back to
row order off 2-D grids).
At small sizes the oracle enumerates every block (its work and the elements it touches, with
Python sets), and the figures the classes give must be the enumeration's:
- the busiest SM's share of each per-block amount (the largest block, or the ceil(B / SMs)
  smallest blocks together, whichever is more), from the oracle's per-block work;
- per wave, the union of the elements its blocks touch (launch order by the raster's
  definition, cut into waves of 1 .. 10 blocks), from the oracle's element sets;
- the wave estimate's figures, against block_enumeration (which the classes replace);
- t_bound and t_model of a verdict on a machine of 3 SMs, against the same verdict with the
  classes turned off (every grid then enumerated).
The large grids are checked by hand, in closed form (the axis engine under the classes, in
test_axis_classes.py)."""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from functools import cache

import pytest
import sympy
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from test_waves import launch_order
from tiers import tiered

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.base.kinds import Compulsory, WaveRule
from kernelcost.gpu import block_enumeration, wave_classes, waves
from kernelcost.gpu.block_classes import AmountClass, numeric_sizes, smallest_sum
from kernelcost.gpu.unclassified import Fallback, Reason, Stage, TooLarge, Unclassified, Why
from kernelcost.hardware.machinefile import load_machine
from kernelcost.oracle import enumerate_counts
from kernelcost.present.model_text import (
    REASON_TEXTS,
    fallback_text,
    model_rule_text,
    unclassified_text,
)

# -- the generated grids ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Grid:
    axes: int  # 1, 2 or 3 grid axes
    ragged: tuple[bool, ...]  # per tiled axis: min-clipped edge (else `assume T | size`)
    causal: bool  # 2-D: the k loop runs to the end of the row tile
    halo: bool  # reads x[i + h], h < 3: boxes that overlap
    diagonal: bool  # 2-D: a block's j stops at i (a causal mask across the grid's diagonal)
    cluster: bool  # 2-D: clusters of two along i0
    raster: str
    tiles: tuple[int, int, int]  # TM, TN, TK

    def text(self) -> str:
        tm, tn, tk = self.tiles
        header = (f"parallel(threads = 64{', cluster i0 = 2' if self.cluster else ''}, "
                  f"raster = {self.raster})")
        if self.axes == 1:
            return self._one(header, tm)
        rows = "min(i0 + TM, M)" if self.ragged[0] else "i0 + TM"
        cols = "min(j0 + TN, N)" if self.ragged[1] else "j0 + TN"
        if self.diagonal:
            cols = f"min({cols.removeprefix('min(').removesuffix(')')}, i + 1)"
        assume = [f"{t} | {s}" for t, s, r in (("TM", "M", self.ragged[0]),
                                                ("TN", "N", self.ragged[1])) if not r]
        plane = "e, " if self.axes == 3 else ""
        head = "e in 0..E, i0 in 0..M by TM" if self.axes == 3 else "i0 in 0..M by TM"
        a_rows = "M + 2" if self.halo else "M"
        a_at = "i + h" if self.halo else "i"
        if self.causal:  # keys up to the end of the row tile, as a causal mask
            k_end = "min(k0 + TK, M)" if self.ragged[0] else "k0 + TK"
            depth, b_rows, a_cols = "0.." + rows, "M", "M"
            assume.append("TK | TM")
        else:
            depth, k_end, b_rows, a_cols = "0..K", "min(k0 + TK, K)", "K", "K"
        halo_loop = ", h in 0..3" if self.halo else ""
        return f"""
kernel generated(E, M, N, K, TM = {tm}, TN = {tn}, TK = {tk}) {{
    {('assume ' + ', '.join(assume)) if assume else ''}
    in  A: f32[{'E, ' if self.axes == 3 else ''}{a_rows}, {a_cols}]
    in  B: f32[{b_rows}, N]
    out C: f32[{'E, ' if self.axes == 3 else ''}M, N]
    for {head}, j0 in 0..N by TN {header} {{
        for k0 in {depth} by TK {{
            keep A, B in shared {{
                for i in i0..{rows}, j in j0..{cols}, k in k0..{k_end}{halo_loop} {{
                    C[{plane}i, j] += A[{plane}{a_at}, k] * B[k, j]
                }}
            }}
        }}
    }}
}}
"""

    def _one(self, header: str, tile: int) -> str:
        end = "min(b0 + T, n)" if self.ragged[0] else "b0 + T"
        reads = "x[i + h]" if self.halo else "x[i]"
        return f"""
kernel generated(n, T = {tile}) {{
    {'' if self.ragged[0] else 'assume T | n'}
    in  x: f32[n + 2]
    out y: f32[n]
    for b0 in 0..n by T {header} {{
        for i in b0..{end}{', h in 0..3' if self.halo else ''} {{
            y[i] += {reads} * 2
        }}
    }}
}}
"""


@st.composite
def grids(draw) -> tuple[Grid, dict[str, int]]:
    axes = draw(st.sampled_from((1, 2, 2, 3)))
    ragged = tuple(draw(st.booleans()) for _ in range(1 if axes == 1 else 2))
    causal = axes == 2 and draw(st.booleans())
    diagonal = axes == 2 and draw(st.booleans())
    halo = axes < 3 and not causal and draw(st.booleans())  # both: test_staircase_...
    cluster = axes == 2 and draw(st.booleans())
    raster = draw(st.sampled_from(("row", "column", "grouped(1)", "grouped(2)", "grouped(3)")))
    tm, tn = draw(st.sampled_from((2, 3, 4))), draw(st.sampled_from((2, 4)))
    tk = draw(st.sampled_from((1, 2) if tm % 2 == 0 else (1,)) if causal
              else st.sampled_from((2, 3)))
    grid = Grid(axes, ragged, causal, halo, diagonal, cluster, raster, (tm, tn, tk))

    def extent(tile: int, clipped: bool) -> int:
        count = draw(st.integers(1, 6))
        return count * tile - (draw(st.integers(0, tile - 1)) if clipped else 0)

    if axes == 1:
        return grid, {"n": extent(tm, ragged[0])}
    sizes = {"M": extent(tm, ragged[0]), "N": extent(tn, ragged[1]),
             "K": draw(st.integers(1, 7)), "E": draw(st.integers(1, 3))}
    return grid, sizes


@cache
def spec(text: str):
    return kernelcost.loads(text)


def values_of(cost, sizes: dict[str, int]) -> dict:
    return {symbol: sympy.Integer(sizes.get(symbol.name, cost.defaults.get(symbol, 1)))
            for symbol in cost.parameters}


def by_definition(blocks, raster: str) -> list[tuple]:
    """Launch order from the raster's definition; grouped needs two axes at least (those
    before the last two are batches)."""
    coordinates = [coordinates for coordinates, _ in blocks]
    if raster.startswith("grouped") and len(coordinates[0]) < 2:
        raster = "row"
    return launch_order(coordinates, raster)


# -- the classes against the oracle ------------------------------------------------------------


@tiered(32, suppress_health_check=[HealthCheck.too_slow])
@given(grids(), st.integers(1, 10))
def test_classes_match_enumeration(generated, wave_blocks):
    grid_spec, sizes = generated
    cost = spec(grid_spec.text()).cost()
    grid, values = cost.grid, values_of(cost, sizes)
    counts = enumerate_counts(spec(grid_spec.text()).checked,
                              {name: sizes.get(name, 1) for name in map(str, cost.parameters)
                               if name in sizes})
    blocks = [(tuple(block.coordinates.values()), block) for block in counts.blocks]
    assert len(blocks) == int(waves.fraction_of(grid.blocks, numeric_sizes(values)))
    # the busiest SM's share of the work, from the oracle's blocks: all classes together (at
    # small sizes the oracle puts a contraction under its MMA minimum on the FMA units, where
    # the closed forms, with the sizes symbolic, keep it on the tensor units)
    if grid.work:
        per_block = sorted(sum(block.work.values()) for _, block in blocks)
        at_sizes = sympy.sympify(sum(grid.work.values())).xreplace(values)
        for sms in (1, 2, 3, 7):
            expected = max(per_block[-1], sum(per_block[:-(-len(per_block) // sms)]))
            found = waves.busiest_share(grid, values, at_sizes, sms)
            if found is None:  # a sum left open: no share (the flat bound), as before
                assert at_sizes.doit().has(sympy.Sum)
            else:
                assert found == expected, sms
    # per wave, the elements its blocks touch, united with Python sets
    order = by_definition(blocks, grid_spec.raster)
    elements = {coordinates: block.elements for coordinates, block in blocks}
    volumes = wave_classes.per_wave_volumes(grid, numeric_sizes(values), wave_blocks)
    for tile in grid.tiles:
        brute = [len(set().union(*(elements[c].get(tile.tensor, frozenset())
                                   for c in order[start:start + wave_blocks])))
                 for start in range(0, len(order), wave_blocks)]
        found = volumes[tile.tensor].tolist()
        if tile.exact:
            assert found == brute, tile.tensor
        else:  # a bounding box: never below the elements touched
            assert all(f >= b for f, b in zip(found, brute)), tile.tensor
    # the estimate's figures, against the block-by-block path they replace
    sized = numeric_sizes(values)
    assert wave_classes.wave_unions(grid, sized, wave_blocks) == \
        block_enumeration.wave_unions(grid, sized, wave_blocks)


def small_machine():
    return dataclasses.replace(load_machine("h100"), sm_count=3)


@tiered(16, suppress_health_check=[HealthCheck.too_slow])
@given(grids())
def test_times_match_with_the_classes_off(generated):
    """t_bound and t_model (and every term) are the enumeration's: the classes only count."""
    grid_spec, sizes = generated
    cost = spec(grid_spec.text()).cost()
    values = values_of(cost, sizes)
    machine = small_machine()
    by_classes = verdict(cost, machine, values=values).grid
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wave_classes, "wave_unions", _refuse)
        patch.setattr(waves, "amount_classes", _refuse)
        enumerated = verdict(cost, machine, values=values).grid
    assert by_classes.t_bound == enumerated.t_bound
    assert by_classes.t_model == enumerated.t_model
    assert by_classes.bound_terms == enumerated.bound_terms
    assert by_classes.model_terms == enumerated.model_terms
    assert by_classes.global_count == enumerated.global_count
    assert by_classes.fallbacks == enumerated.fallbacks == ()
    if by_classes.t_bound is not None:
        assert by_classes.t_bound <= by_classes.t_model


def _refuse(*args, **kwargs):
    raise Unclassified(Why(Reason.OF_INDEX, "turned off by the test"))


# -- the busiest SM's smallest blocks ---------------------------------------------------------

@tiered(200)
@given(st.lists(st.tuples(st.integers(-5, 20), st.integers(-3, 3), st.integers(1, 6),
                          st.integers(1, 4)), min_size=1, max_size=4), st.integers(1, 1))
def test_smallest_sum_is_the_sorted_prefix(classes, _):
    """The k smallest amounts of arithmetic classes, against sorting them all."""
    found = [AmountClass(Fraction(first), Fraction(slope), length, multiplicity)
             for first, slope, length, multiplicity in classes]
    values = sorted(c.first + c.slope * q for c in found for q in range(c.length)
                    for _ in range(c.multiplicity))
    for count in range(1, len(values) + 1):
        assert smallest_sum(found, count) == sum(values[:count])


# -- large grids: by hand, and the fallback ---------------------------------------------------


def test_gemm_hopper_at_ten_to_the_eighth_blocks_by_hand(spec_cost):
    """10^4 x 10^4 tiles of 128 x 256, row raster, waves of 10^4 blocks (a machine of 100 SMs
    x 100 resident): each wave is one row of tiles, so it reads one row tile of A (128 x K),
    all of B (K x N) and its own C tiles: A = M K, B = 10^4 K N, C = M N elements, 2 bytes
    each. The largest step: one A tile 128 x 64 and 10^4 B tiles 64 x 256, x 4 stages."""
    cost = spec_cost("gemm_hopper")
    grid = dataclasses.replace(cost.grid, raster="row")
    M, N, K = 128 * 10**4, 256 * 10**4, 8192
    values = values_of(cost, {"M": M, "N": N, "K": K})
    start = time.process_time()
    result = waves.estimate(grid, values, 100, 100, usable_l2_B=1e18, stages=4, fills_B=Fraction(0))
    assert time.process_time() - start < 60  # a guard against a hang, not a benchmark
    assert (result.waves, result.wave_blocks) == (10**4, 10**4)
    assert result.bytes_by_tensor == {"A": Fraction(2 * M * K), "B": Fraction(2 * 10**4 * K * N),
                                      "C": Fraction(2 * M * N)}
    assert result.step_B == 4 * 2 * (128 * 64 + 10**4 * 64 * 256)


TRIANGLE = """
kernel tri(M, T = 4) {
    assume T | M
    in  A: f32[M, M]
    out C: f32[M, M]
    for i0 in 0..M by T, j0 in 0..i0 + T by T parallel(threads = 64, registers = 32) {
        for i in i0..i0 + T, j in j0..j0 + T {
            C[i, j] = A[i, j] * 2
        }
    }
}
"""


def test_a_large_triangular_grid_keeps_a_bound_and_says_why():
    """The grid's trips hold i0: no classes. 4 x 4 tiles of a 40 x 40 triangle (55 blocks)
    are enumerated; of a 4000 x 4000 one (500,500 blocks), t_model takes the compulsory
    traffic (t_bound's) and the verdict says why."""
    cost = kernelcost.loads(TRIANGLE).cost()
    machine = load_machine("h100")
    small = verdict(cost, machine, values={"M": 40}).grid
    assert small.fallbacks == () and small.global_count.estimate.rule == WaveRule.ONE_WAVE
    large = verdict(cost, machine, values={"M": 4000}).grid
    assert large.global_count.compulsory == Compulsory.CLASSES
    rule = model_rule_text(large.global_count)
    assert rule.startswith("compulsory: the wave estimate needs blocks in classes")
    assert "not a rectangle" in rule and "500500 blocks" in rule
    assert large.fallbacks == (Fallback(Stage.WAVE_UNION, large.global_count.unclassified),)
    assert large.global_count.unclassified.why.reason == Reason.NOT_RECTANGLE
    hbm = [term.amount for term in large.model_terms if term.key == "global"]
    assert hbm == [term.amount for term in large.bound_terms if term.key == "global"]
    assert large.t_bound <= large.t_model


def test_a_staircase_box_is_enumerated_when_small():
    """A causal tile with a halo (rows i0 .. i0 + T + 1, keys 0 .. i0 + T - 1): two growing
    dimensions on one axis are no class; a small grid is enumerated and agrees with sets."""
    grid_spec = Grid(2, (False, False), True, True, False, False, "row", (2, 2, 1))
    cost = spec(grid_spec.text()).cost()
    values = values_of(cost, {"M": 8, "N": 4, "K": 1, "E": 1})
    with pytest.raises(Unclassified) as raised:
        wave_classes.wave_unions(cost.grid, numeric_sizes(values), 3)
    assert raised.value.reason.reason == Reason.BOX_SHAPE
    assert unclassified_text(raised.value.reason).endswith("neither tile nor grow along a grid "
                                                          "axis")
    result = waves.estimate(cost.grid, values, 3, 1, usable_l2_B=1e18,
                            stages=1, fills_B=Fraction(0))
    counts = enumerate_counts(spec(grid_spec.text()).checked,
                              {"M": 8, "N": 4, "K": 1, "E": 1})
    blocks = [(tuple(block.coordinates.values()), block.elements) for block in counts.blocks]
    order = by_definition(blocks, "row")
    elements = dict(blocks)
    expected = sum(len(set().union(*(elements[c].get("A", frozenset())
                                     for c in order[start:start + 3]))) * 4
                   for start in range(0, len(order), 3))
    assert result.bytes_by_tensor["A"] == expected


@pytest.mark.parametrize("raster", ("row", "column", "grouped(8)", "grouped(3)"))
@pytest.mark.parametrize("shape", ((300 * 128 - 37, 97 * 256 - 5, 40), (257 * 128, 75 * 256, 64)),
                         ids=str)
def test_one_period_of_waves_stands_for_the_interior(raster, shape, monkeypatch):
    """2-block clusters off, ragged or whole edges, 29,100 and 19,275 blocks in waves of 132
    and 264: the figures with the interior's waves in periods are those with every wave
    evaluated, and those of the enumeration."""
    M, N, K = shape
    text = Grid(2, (True, True), False, False, False, False, raster, (128, 256, 64)).text()
    cost = spec(text).cost()
    sizes = numeric_sizes(values_of(cost, {"M": M, "N": N, "K": K, "E": 1}))
    for wave_blocks in (132, 264):
        periods = wave_classes.wave_unions(cost.grid, sizes, wave_blocks)
        monkeypatch.setattr(wave_classes, "PERIODS", False)
        every = wave_classes.wave_unions(cost.grid, sizes, wave_blocks)
        monkeypatch.setattr(wave_classes, "PERIODS", True)
        assert periods == every == block_enumeration.wave_unions(cost.grid, sizes, wave_blocks)


def test_every_reason_has_its_sentence():
    """present.model_text writes each reason's clause from its figures, as the engines
    wrote it before the reasons were data."""
    assert set(REASON_TEXTS) == set(Reason)
    off = Why(Reason.OFF_DIAGONAL, "floor(j0/4)", ("j0", "i0"))
    assert unclassified_text(off) == "`floor(j0/4)` is not a function of `j0 - i0`"
    needs = Why(Reason.NEEDS_VALUES, "M*x", ("K", "M"))
    assert unclassified_text(TooLarge(needs, None, 100_000)) == (
        "`M*x` needs a value for K, M, and the number of blocks is unknown")
    cell = Why(Reason.CELL_DEGREE, "q0**2", degree=2, blocks=5000)
    assert fallback_text(Fallback(Stage.BUSIEST_SM, TooLarge(cell, 250_000, 100_000))) == (
        "busiest SM: `q0**2` is of degree 2 over 5000 blocks, over 250000 blocks (more than "
        "100000 to enumerate)")
