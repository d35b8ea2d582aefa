"""Property tests: every closed form of the count package against brute-force enumeration (the
oracle).

Three families:
- every shipped spec (specs/*.kcost) at random small sizes that satisfy its assumptions, under
  each reuse mode (spec, perfect, none): work by class, traffic per level, footprints and
  per-entry scope costs must equal the enumeration (or bound it from above where the Cost says
  it is an upper bound);
- random affine loop nests, generated as .kcost text, parsed, checked, counted and compared the
  same way at a few sampled sizes: depth 1-4; assumptions `<`, `<=`, `>=`, `>` between sizes
  and constants; one, several (`T | N, U | N`) and chained (`T | K, K | N`) divisibility
  facts; rectangular, triangular (`i..N` under a loop over M), min/max bounds of sizes,
  iterators and constants (`0..min(T, i)`, `max(1, i)..min(N, M)`); steps that are size
  expressions (`by 2 * T`, `by T + 1`, `by N - M` under `M < N`); tiles and clipped tiles;
  shifted accesses; several accesses of one kept tensor; keeps in l2, shared and registers,
  nested too; loops written one a header or several in one (`for i in .., j in ..`); two in
  seven nests (the generator is tests/nestgen.py) run as thread blocks: their outermost one
  or two loops form a `parallel(threads = .., registers = .., cluster AXIS = 2 or 3,
  raster = row | column | grouped(2))` header, the nest up to three deep with the bounds
  above but min/max (per-block sums in free grid iterators cost seconds with them) save one
  clipped tile (most grids start with a tile pair, the grid `i0 in 0..N by T` and in the
  block `i in i0..min(i0 + T, N)`: the edge blocks of a cluster), keeps of `stages 2, 3
  or T`, a third of them a local array of the block in registers or shared memory that the
  statements write and read like a tensor, and half of the tiled ones one tensor read alike
  by the blocks of a cluster along the tile; the grid's closed forms are compared too: the
  block count, each block's work and on-chip traffic, the box of each global tensor a block
  touches, the L2 fills read once a cluster, and the union of the elements each wave of 1,
  2 or 6 blocks touches in raster order (waves.estimate); half of them also hand a loop
  inside the block to the lanes of a warp (`for v in 0..E lanes`, sometimes `by 2`, with
  full and partial warps), around global
  tensors, tensors kept in shared and a swizzled shared tile, whose warp instructions,
  useful bytes, 32-byte sectors and bank-conflict degrees are compared with the oracle's
  lanes, warp by warp (lane accesses stay sector-aligned, as lanes.py assumes; `per` lines
  are left out: their item count is the spec's own expression, which nothing counts);
- the known cases (issue 9's reproducers and what the generator found since), each at the
  sizes where it failed and at sampled ones.
Besides the numbers, every closed form must hold only the sizes (no internal symbol such as
`K__over__T`) and no ceiling or floor that the divisibility facts make an integer.

A spec is counted once per session and reuse mode (Spec.cost caches); the examples only
enumerate and evaluate. The default profile runs 200 examples per spec and 100 generated nests
(widened nests cost 0.1-0.3 s each to count and check); KERNELCOST_PROPERTY_EXAMPLES sets the
examples per spec (the nests scale with it), KERNELCOST_PROPERTY_SEED replays a run:

    KERNELCOST_PROPERTY_EXAMPLES=2000 .venv/bin/python -m pytest tests/test_properties.py

The long campaign (marked slow, left out unless -m slow) checks every nest of a seeded run,
prints each failure as it comes and a summary line with the seed, the count and the time:

    KERNELCOST_CAMPAIGN_NESTS=10000 KERNELCOST_PROPERTY_SEED=1 nice .venv/bin/python \
        -m pytest -m slow -s tests/test_properties.py -k campaign
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import time
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from conftest import Hang, sample_seconds_left, sample_spent, time_budget
from hypothesis import HealthCheck, Phase, assume, example, given, seed, settings
from hypothesis import strategies as st
from known_cases import KNOWN_CASES
from nestgen import nests
from nestparts import GridHeader, Head, LoopLine, Nest
from tiers import SHARE, slow_tier

import kernelcost
from kernelcost.base.errors import KcostError
from kernelcost.base.symbols import size_symbol
from kernelcost.gpu.transfer import transfers
from kernelcost.gpu.waves import estimate, raster_order
from kernelcost.oracle import (
    assumptions_hold,
    compare,
    count_steps,
    draw_sizes,
    enumerate_counts,
    enumerate_lanes,
    evaluate,
    sample_sizes,
)

SPECS = Path(__file__).resolve().parent.parent / "specs"
SPEC_NAMES = sorted(path.stem for path in SPECS.glob("*.kcost"))
REUSE_MODES = ("spec", "perfect", "none")

DEFAULT_EXAMPLES = 200  # per shipped spec; the issue asks for at least 200 in CI
DEFAULT_NESTS = 100  # generated nests in CI: the widened nests take 0.1-0.3 s each
EXAMPLES = int(os.environ.get("KERNELCOST_PROPERTY_EXAMPLES", DEFAULT_EXAMPLES))
NESTS = max(DEFAULT_NESTS, DEFAULT_NESTS * EXAMPLES // DEFAULT_EXAMPLES)

SPEC_STEPS = 4_000  # loop iterations plus statements per enumeration: small sizes, fast runs
NEST_STEPS = 3_000
SAMPLES_PER_NEST = 3
MAX_ENTRIES = 24  # scope entries checked per enumeration, spread over the run
SECONDS_PER_NEST = 60  # CPU seconds to parse, check, count and compare one nest; more fails

for name, examples in (("kernelcost-properties", EXAMPLES), ("kernelcost-nests", NESTS)):
    # no explain phase: its tracer slows sympy tenfold while a failure is being reported
    settings.register_profile(name, max_examples=examples, deadline=None, database=None,
                              phases=[Phase.explicit, Phase.reuse, Phase.generate,
                                      Phase.target, Phase.shrink],
                              suppress_health_check=[HealthCheck.too_slow,
                                                     HealthCheck.filter_too_much,
                                                     HealthCheck.data_too_large])
SPEC_SETTINGS = settings.get_profile("kernelcost-properties")
NEST_SETTINGS = settings.get_profile("kernelcost-nests")


# --- shipped specs -----------------------------------------------------------------------


@functools.cache
def load_spec(name: str) -> kernelcost.Spec:
    """Parsed and checked once; its Spec caches one Cost per reuse mode."""
    return kernelcost.load(SPECS / f"{name}.kcost")


@st.composite
def sizes_for(draw, name):
    """Small sizes meeting the assumptions of the shipped spec `name`, drawn as sample_sizes
    draws them (oracle.draw_sizes): tile-like parameters (divisors, and those with a default)
    from 1..4, the others from 1..12, and each dividend as a multiple of the least common
    multiple of its divisors; relations (`T <= N`) filter. The spec goes by its name: hypothesis
    writes a strategy's arguments into its repr, and a checked kernel's runs to 100 kB."""
    kernel = load_spec(name).checked
    values = draw_sizes(kernel, lambda size, top: draw(st.integers(1, top), label=size))
    assume(assumptions_hold(kernel, values))
    assume(count_steps(kernel, values, SPEC_STEPS) <= SPEC_STEPS)
    return values


def check_against_enumeration(kernel, cost, sizes, *, waves_and_lanes=False) -> list[str]:
    """Mismatches of one Cost at one size assignment, as readable lines; also that the steps
    counted before the enumeration are the steps it took, and that a Cost with
    any upper-bound footprint or scope says so in cost.exact (compare then checks >=). The
    grid's blocks are compared by `compare`; with waves_and_lanes, also the wave unions
    (wave_problems) and the warps of the lanes loops (lane_problems)."""
    counts = enumerate_counts(kernel, sizes, cost.reuse)
    problems = [str(m) for m in compare(cost, counts, max_entries=MAX_ENTRIES)]
    # the steps counted before the run (from trip counts where a body does not move with
    # its loop) are the steps the run took
    if (counted := count_steps(kernel, sizes, counts.steps)) != counts.steps:
        problems.append(f"count_steps gives {counted}, the enumeration took {counts.steps}")
    if waves_and_lanes:
        problems += wave_problems(cost, counts, sizes) + lane_problems(kernel, cost, sizes)
    bounded = [f"footprint[{name}]" for name, footprint in cost.footprints.items()
               if not footprint.exact]
    bounded += [f"scope {scope.index}" for scope in cost.scopes if not scope.exact]
    if bounded and cost.exact:
        problems.append(f"{', '.join(bounded)} reported as upper bound, but cost.exact is True")
    return problems


# (SMs, resident blocks per SM): waves of one block, of two, of six
WAVE_SHAPES = ((1, 1), (2, 1), (3, 2))
HUGE_L2_B = 1e18  # the fit test always passes: the wave rule applies


def wave_problems(cost, counts, sizes) -> list[str]:
    """The model's wave unions against the oracle's blocks: the raster order holds each
    enumerated block once, and per wave of `SMs x resident` blocks in that order, the distinct
    elements of each global tensor the wave's blocks touch together (Python sets), times its
    element bytes, equal waves.estimate's figure where the tile box is exact, and at most it
    where the box is a bounding box."""
    grid = cost.grid
    if grid is None or not counts.blocks:
        return []
    values = {size_symbol(name): sympy.Integer(value) for name, value in sizes.items()}
    bounds = [bound for tile in grid.tiles for box in (tile.whole, tile.per_step)
              for pair in box for bound in pair]
    if set().union(*(sympy.sympify(bound).free_symbols for bound in bounds)) - {
            *values, *grid.iterators, grid.step_iterator}:
        return []  # a box that moves with a loop inside the block: the model does not estimate
    touched = {tuple(block.coordinates.values()): block.elements for block in counts.blocks}
    order = raster_order(grid, values)
    if sorted(order) != sorted(touched):
        return [f"raster order {order} is not the enumerated blocks {sorted(touched)}"]
    problems = []
    for sms, resident in WAVE_SHAPES:
        result = estimate(grid, values, sms, resident, usable_l2_B=HUGE_L2_B,
                          stages=1, fills_B=Fraction(0))
        size = sms * resident
        for tile in grid.tiles:
            waves = [order[start:start + size] for start in range(0, len(order), size)]
            distinct = sum(len(frozenset().union(*(touched[block].get(tile.tensor, ())
                                                   for block in wave))) for wave in waves)
            if tile.written:  # an inout tensor read and written: its writes cross again
                written = {tuple(block.coordinates.values()): block.written
                           for block in counts.blocks}
                distinct += sum(len(frozenset().union(*(written[block].get(tile.tensor, ())
                                                        for block in wave))) for wave in waves)
            expected = distinct * int(tile.element_bytes)
            estimated = result.bytes_by_tensor.get(tile.tensor, 0)
            if estimated != expected if tile.exact else estimated < expected:
                problems.append(f"waves of {size} blocks: {tile.tensor} {estimated} B "
                                f"{'exact' if tile.exact else 'bound'}, enumerated "
                                f"{expected} B")
    return problems


def lane_problems(kernel, cost, sizes) -> list[str]:
    """Every access of a lanes loop, per warp instruction (transfer.transfers from lanes.py's
    closed forms) against the oracle's enumeration of every lane of every warp: the warp
    instructions, the useful bytes, the 32-byte sectors of a global access and the
    bank-conflict degree of a shared one."""
    counted = enumerate_lanes(kernel, sizes, reuse=cost.reuse)
    values = {size_symbol(name): sympy.Integer(value) for name, value in sizes.items()}

    def at(expr):
        value = evaluate(expr, values)
        return sympy.nan if value is None else sympy.Rational(value.numerator,
                                                              value.denominator)

    # an access no warp ever runs (an empty loop around it) is not enumerated
    closed = [found for found in transfers(cost, at) if found.useful_B]
    problems = []
    if [(t.access.tensor, t.access.is_write, t.access.level) for t in closed] != [
            (c.tensor, c.is_write, c.level) for c in counted]:
        return [(f"lanes accesses {[t.access.text for t in closed]} do not match the "
                 f"enumerated {[(c.tensor, c.is_write, c.level) for c in counted]}")]
    for found, oracle in zip(closed, counted):
        if oracle.level == "global":
            moved = ("sector bytes", found.cost_B, oracle.sectors * 32)
        else:
            moved = ("bank degree", found.ratio,
                     sympy.Rational(oracle.wavefronts, oracle.ideal_wavefronts))
        for what, closed_value, enumerated in (
                ("warp instructions", found.instructions, oracle.instructions),
                ("useful bytes", found.useful_B, oracle.useful_B), moved):
            if closed_value != enumerated:
                problems.append(f"lanes {found.access.text} ({found.access.level}): {what} "
                                f"{closed_value}, enumerated {enumerated}")
    return problems


def intensity_problems(cost, intensities, sizes) -> list[str]:
    """The intensity analyze prints (cancelled, and factored where that is cheap) equals W / Q
    of the closed forms at one size assignment."""
    values = {size_symbol(name): sympy.Integer(value) for name, value in sizes.items()}
    work = evaluate(cost.total_work, values)
    problems = []
    for level, intensity in intensities.items():
        traffic = evaluate(cost.traffic[level], values)
        if work is None or not traffic:
            continue
        shown = evaluate(intensity, values)
        if shown != work / traffic:
            problems.append(f"I[{level}] = {intensity} gives {shown}, W/Q gives "
                            f"{work / traffic}")
    return problems


@pytest.mark.tiered
@pytest.mark.parametrize("name", SPEC_NAMES)
def test_shipped_spec_closed_forms_match_enumeration(name):
    """Every example under the spec's own reuse; under `perfect` and `none`, every example
    where the slow tier runs and one in tiers.SHARE in the fast tier."""
    spec = load_spec(name)
    costs = {mode: spec.cost(mode) for mode in REUSE_MODES}  # counted once per session
    leftovers = [f"reuse={mode}: {problem}" for mode, cost in costs.items()
                 for problem in leftover_problems(spec.checked, cost)]
    assert not leftovers, f"{name}:\n" + "\n".join(leftovers[:8])
    drawn = itertools.count()
    every_mode = slow_tier()

    @SPEC_SETTINGS
    @given(sizes=sizes_for(name))
    def closed_forms_equal_enumeration(sizes):
        if sample_spent():
            return
        all_modes = every_mode or next(drawn) % SHARE == 0
        for mode, cost in costs.items():
            if mode != "spec" and not all_modes:
                continue
            problems = check_against_enumeration(spec.checked, cost, sizes)
            assert not problems, f"{name} reuse={mode} at {sizes}:\n" + "\n".join(problems[:8])

    closed_forms_equal_enumeration()


def test_size_strategy_respects_divisibility_and_defaults():
    kernel = load_spec("int4_decode").checked  # d*d | Theta, g | d, d and g with defaults

    @settings(max_examples=30, deadline=None, database=None)
    @given(sizes=sizes_for("int4_decode"))
    def divisible(sizes):
        assert sizes["Theta"] % (sizes["d"] ** 2) == 0 and sizes["d"] % sizes["g"] == 0
        assert count_steps(kernel, sizes, SPEC_STEPS) <= SPEC_STEPS

    divisible()


# --- what every closed form must satisfy besides the numbers ------------------------------


def leftover_problems(kernel, cost) -> list[str]:
    """Closed forms hold only the sizes (and, per entry of a scope, the iterators around it):
    no internal symbol such as `K__over__T`; and no ceiling or floor of something the
    divisibility facts make an integer (`assume T | N` drops ceiling(N/T)), which the
    enumeration cannot see, since the value is right."""
    sizes = set(kernel.parameters) | {size_symbol(name) for name in kernel.sizes}
    forms = [(f"work[{name}]", form, sizes) for name, form in cost.work.items()]
    forms += [(f"traffic[{level}]", form, sizes) for level, form in cost.traffic.items()]
    for name, footprint in cost.footprints.items():
        forms += [(f"footprint[{name}].read", footprint.read_elements, sizes),
                  (f"footprint[{name}].write", footprint.write_elements, sizes)]
    for scope in cost.scopes:
        around = sizes | set(scope.outer_iterators)
        forms.append((f"scope {scope.index} entries", scope.entries, sizes))
        forms += [(f"scope {scope.index} read[{name}]", form, around)
                  for name, form in scope.read_elements.items()]
        forms += [(f"scope {scope.index} write[{name}]", form, around)
                  for name, form in scope.write_elements.items()]
        forms.append((f"scope {scope.index} held bytes", scope.held_bytes, around))
    integral = _integral_under_divisibility(kernel)
    problems = []
    for quantity, form, allowed in forms:
        if not isinstance(form, sympy.Basic):
            continue
        stray = sorted(str(symbol) for symbol in form.free_symbols - allowed)
        if stray:
            problems.append(f"{quantity}: internal symbols {', '.join(stray)} in {form}")
        for rounding in form.atoms(sympy.ceiling, sympy.floor):
            fact = integral(rounding.args[0])
            if fact:
                problems.append(f"{quantity}: {rounding} stays although `assume {fact}` "
                                f"makes it an integer, in {form}")
    return problems


def _integral_under_divisibility(kernel):
    """A test: the facts (as text) under which an expression is an integer, or None. Each
    dividend is written as one of its divisors times a fresh positive integer, for every
    choice of divisor, and chains are followed (`T | K, K | N`: N = q1 K = q1 q2 T)."""
    divisors: dict[sympy.Symbol, list[sympy.Expr]] = {}
    for divisor, dividend in kernel.divisibility:
        if isinstance(dividend, sympy.Symbol):
            divisors.setdefault(dividend, []).append(divisor)
    dividends = list(divisors)
    choices = []
    for picked in itertools.product(*(divisors[d] for d in dividends)):
        substitution = {dividend: divisor * sympy.Symbol(f"_q_{dividend}", integer=True,
                                                         positive=True)
                        for dividend, divisor in zip(dividends, picked)}
        facts = ", ".join(f"{divisor} | {dividend}" for dividend, divisor in zip(dividends,
                                                                                  picked))
        choices.append((substitution, facts))

    def integral(expression: sympy.Expr) -> str | None:
        if expression.is_integer:
            return None  # sympy would have dropped the rounding itself
        for substitution, facts in choices:
            value = expression
            for _ in range(len(substitution) + 1):  # a chain takes one pass a link
                value = value.xreplace(substitution)
            if sympy.cancel(value).is_integer:
                return facts
        return None

    return integral


def nest_problems(text: str, mode: str, seed: int,
                  seconds: float = SECONDS_PER_NEST) -> list[str]:
    """Parse, check and count one generated kernel, then compare its closed forms with the
    enumeration at SAMPLES_PER_NEST sampled sizes; the problems of the first failing sample,
    after those of leftover_problems."""
    with time_budget(seconds, cpu=True):
        try:
            spec = kernelcost.loads(text, "generated.kcost")
        except KcostError as error:  # the strategy writes valid text: a rejection is its bug
            raise AssertionError(
                f"the checker rejects generated text:\n{text}\n{error}") from error
        cost = spec.cost(mode)
        problems = [f"reuse={mode}: {p}" for p in leftover_problems(spec.checked, cost)]
        intensities = {level: cost.intensity(level) for level in cost.levels}
        samples = sample_sizes(spec.checked, SAMPLES_PER_NEST, random.Random(seed),
                               max_steps=NEST_STEPS)
        for sizes in samples:
            mismatches = (check_against_enumeration(spec.checked, cost, sizes,
                                                    waves_and_lanes=True)
                          + intensity_problems(cost, intensities, sizes))
            if mismatches:
                problems += [f"reuse={mode} at {sizes}:", *mismatches[:8]]
                break
    return problems


# --- known cases: each found once, each run every time (tests/known_cases.py) -------------


@pytest.mark.parametrize("case", sorted(KNOWN_CASES))
@pytest.mark.parametrize("mode", REUSE_MODES)
def test_known_case(case, mode):
    """Exact at the sizes where it once failed and at a few sampled ones, in every reuse
    mode, with nothing left over in the closed forms."""
    text, failing_sizes, *in_bounds = KNOWN_CASES[case]
    spec = kernelcost.loads(text, f"{case}.kcost")
    with time_budget(SECONDS_PER_NEST, cpu=True):
        cost = spec.cost(mode)
        intensities = {level: cost.intensity(level) for level in cost.levels}
    problems = leftover_problems(spec.checked, cost)
    in_bounds = [sympy.Le(*(size_symbol(name) for name in fact.split(" <= ")))
                 for fact in in_bounds]
    samples = sample_sizes(spec.checked, SAMPLES_PER_NEST, random.Random(0),
                           max_steps=NEST_STEPS, extra_facts=in_bounds)
    for sizes in [failing_sizes, *samples]:
        problems += [f"at {sizes}: {p}"
                     for p in (check_against_enumeration(spec.checked, cost, sizes,
                                                         waves_and_lanes=True)
                               + intensity_problems(cost, intensities, sizes))]
    assert not problems, "\n".join(problems[:12])


def known_nest(params, facts, ranges, inner, *, keeps=None, ranks=None, merged=(), grid=None,
               lets=()):
    """A known case in the generator's own parts: that the generator can write it. `grid`:
    (the loops of the parallel header, its settings); `lets`: the block's local arrays."""
    head = Head(params, [f"assume {facts}"] if facts else [], [], [])
    loops = [LoopLine(text.split()[0], text, False, lanes=text.endswith(" lanes"))
             for text in ranges]
    roles = {"x": "in", "y": "out", "z": "out"}
    ranks = {tensor: (ranks or {}).get(tensor, 1) for tensor in roles}
    return Nest(head, loops, keeps or {}, inner, {}, roles, ranks, [], frozenset(merged),
                None if grid is None else GridHeader(*grid), list(lets))


KNOWN_NESTS = [
    known_nest(["N", "M", "T"], "T <= N", ["i in 0..N", "j in 0..min(T, i)"],
               ["y[i] += x[j]"]),
    known_nest(["N", "M", "T"], "N >= 3", ["i in 0..N", "j in 0..min(3, i)"],
               ["y[i] += x[j]"]),
    known_nest(["N", "M", "T"], "", ["i in 0..M", "j in i..N", "k in j..M"],
               ["y[k] = x[j] * 2"], merged=(1, 2)),
    known_nest(["N", "M", "T"], "", ["i in 0..N", "j in i..M"],
               ["z[i] = x[0]", "z[j] = x[0]"], keeps={2: ["keep z in l2"]}, merged=(1,)),
    known_nest(["N", "M", "T", "K"], "T | K, K | N", ["i0 in 0..N by K", "i in i0..i0 + K by T"],
               ["y[i] += x[i]"]),
    known_nest(["N", "M", "T", "U"], "T | N, U | N",
               ["i0 in 0..N by T", "j0 in 0..N by U", "i in i0..i0 + T", "j in j0..j0 + U"],
               ["y[i, j] += x[j]"], keeps={2: ["keep x in shared"]}, ranks={"y": 2},
               merged=(1, 3)),
    # a tiled grid in clusters of two along i0, x's tile in shared (read from L2 once a
    # cluster), with a lanes loop inside the block: x down a column, y along a row
    known_nest(["N", "M", "T"], "T | N", ["i0 in 0..N by T", "j in 0..M", "i in 0..T lanes"],
               ["y[j, i] += x[i0 + i, j]"], keeps={1: ["keep x in shared"]},
               ranks={"x": 2, "y": 2}, grid=(1, "threads = 128, cluster i0 = 2")),
    # issue 34: a clipped row tile in clusters of two, x's tile in shared in two stages (read
    # from L2 once a cluster), a register array of the block carrying a partial sum
    known_nest(["N", "M", "T"], "", ["i0 in 0..N by T", "i in i0..min(i0 + T, N)",
                                     "j in 0..M"],
               ["a[j] += x[j]", "y[i, j] = a[j] * x[j]"], keeps={1: ["keep x in shared stages 2"]},
               ranks={"y": 2}, merged=(2,), grid=(1, "threads = 32, cluster i0 = 2"),
               lets=["let a: f32[M] in registers = 0"]),
    # a loop empty in the first block of a cluster: its fills bound the cluster's from above
    known_nest(["N", "M", "T"], "T | N", ["i0 in 0..N by T", "k in 0..i0"],
               ["y[i0, k] = 2 * x[1]"], keeps={1: ["keep x in shared"]}, ranks={"y": 2},
               grid=(1, "threads = 32, cluster i0 = 2")),
]


# --- generated nests: CI's bounded sample, and the long campaign --------------------------

SEED = os.environ.get("KERNELCOST_PROPERTY_SEED")  # replays a run (CI derandomizes anyway)


def seeded(test):
    return seed(int(SEED))(test) if SEED else test


@seeded
@NEST_SETTINGS
@given(nest=nests(), mode=st.sampled_from(REUSE_MODES), sample_seed=st.integers(0, 2**32 - 1))
def test_generated_nests_match_enumeration(nest, mode, sample_seed):
    text = nest.text()
    problems = nest_problems(text, mode, sample_seed)
    assert not problems, f"{text}\n" + "\n".join(problems[:12])


for _nest in KNOWN_NESTS:  # explicit examples: run first, every time
    test_generated_nests_match_enumeration = example(
        nest=_nest, mode="spec", sample_seed=0)(test_generated_nests_match_enumeration)


CAMPAIGN_NESTS = int(os.environ.get("KERNELCOST_CAMPAIGN_NESTS", 10_000))


@pytest.mark.slow
def test_generated_nests_campaign():
    """The long run: CAMPAIGN_NESTS generated nests from the seed KERNELCOST_PROPERTY_SEED
    (default 0), every one checked (a failure is printed at once and the run goes on), a
    progress line every PROGRESS_EVERY nests, then a summary line with the seed, the counts
    and the time. Run it with -s to see them:

        KERNELCOST_CAMPAIGN_NESTS=10000 KERNELCOST_PROPERTY_SEED=1 nice .venv/bin/python \\
            -m pytest -m slow -s tests/test_properties.py -k campaign

    A nest whose count outruns its budget (the count's own positioned error, or the CPU
    budget of this test) is not a wrong number: it is listed and counted apart, and fails
    the run only when more than MAX_OVER_BUDGET of the nests do (one is allowed in a short
    run, such as CI's slow sample)."""
    run_seed = int(SEED or 0)
    failures: list[str] = []
    over_budget: list[str] = []
    checked = 0
    started = time.monotonic()

    def summary(what: str) -> str:
        return (f"campaign {what}: {checked} nests, seed {run_seed}, {len(failures)} failing, "
                f"{len(over_budget)} over budget, {time.monotonic() - started:.0f} s")

    @seed(run_seed)
    @settings(NEST_SETTINGS, max_examples=CAMPAIGN_NESTS, derandomize=False,
              phases=[Phase.generate])
    @given(nest=nests(max_extrema=3), mode=st.sampled_from(REUSE_MODES),
           sample_seed=st.integers(0, 2**32 - 1))
    def campaign(nest, mode, sample_seed):
        nonlocal checked
        left = sample_seconds_left()  # in CI's slow sample, no nest runs past its end
        if left is not None and left <= 0:
            return  # the sample is out of time: the remaining nests go unchecked
        checked += 1
        text = nest.text()
        try:
            problems = nest_problems(text, mode, sample_seed, SECONDS_PER_NEST if left is None
                                     else max(1.0, min(SECONDS_PER_NEST, left)))
        except Exception as error:  # noqa: BLE001 - a crash is a finding too
            problems = [f"reuse={mode}: {type(error).__name__}: {error}"]
            if _is_over_budget(error) and sample_spent():
                checked -= 1  # cut short by the sample's end: not checked, not over budget
                return
            if _is_over_budget(error):
                over_budget.append(text)
                print(f"\n--- over budget {len(over_budget)} (nest {checked}, reuse={mode})\n"
                      f"{text}{problems[0]}", flush=True)
                problems = []
        if problems:
            failures.append(text)
            print(f"\n--- failure {len(failures)} (nest {checked}, sample seed {sample_seed})\n"
                  f"{text}" + "\n".join(problems[:12]), flush=True)
        if checked % PROGRESS_EVERY == 0:
            print(summary("progress"), flush=True)

    campaign()
    print("\n" + summary("done"), flush=True)
    assert not failures, f"{len(failures)} of {checked} generated nests fail (seed {run_seed})"
    assert len(over_budget) <= max(1, MAX_OVER_BUDGET * checked), summary(
        "over budget too often")


PROGRESS_EVERY = 100
MAX_OVER_BUDGET = 0.01  # a share of the nests; more means counting got slower


def _is_over_budget(error: Exception) -> bool:
    return isinstance(error, Hang) or "symbolic work" in str(error)
