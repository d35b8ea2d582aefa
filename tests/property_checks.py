"""The checks the property tests share (test_properties.py, test_property_cases.py and the
nests of test_minrange_nests.py): one Cost against the oracle's enumeration at one size
assignment (work, traffic, footprints, scopes, the grid's waves, the warps of lanes loops,
intensities), what every closed form must hold besides the numbers, and one generated nest
parsed, counted and checked (nest_problems); with the hypothesis profiles they run under."""

from __future__ import annotations

import itertools
import math
import os
import random
from fractions import Fraction

import sympy
from conftest import time_budget
from hypothesis import HealthCheck, Phase, seed, settings

import kernelcost
from kernelcost.base.errors import KcostError
from kernelcost.base.symbols import size_symbol
from kernelcost.gpu.transfer import transfers
from kernelcost.gpu.waves import estimate, raster_order
from kernelcost.oracle import (
    compare,
    count_steps,
    enumerate_counts,
    enumerate_lanes,
    evaluate,
    sample_sizes,
)

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

SEED = os.environ.get("KERNELCOST_PROPERTY_SEED")  # replays a run (CI derandomizes anyway)


def seeded(test):
    return seed(int(SEED))(test) if SEED else test


_COUNTED: list = [None, {}]  # the last kernel counted, and its step counts by sizes


def steps_within(kernel, sizes, limit: int) -> float:
    """count_steps(kernel, sizes, limit), the counts remembered for the last kernel: the size
    strategy counts a draw's steps and the comparison counts them again after the run. A
    count within one limit is the count within any limit at or above it, inf below it."""
    if _COUNTED[0] is not kernel:
        _COUNTED[:] = [kernel, {}]
    known, key = _COUNTED[1], tuple(sorted(sizes.items()))
    found = known.get(key)  # (the count, the limit it was counted within)
    if found is None or (found[0] == math.inf and limit > found[1]):
        found = known[key] = (count_steps(kernel, sizes, limit), limit)
    return found[0] if found[0] <= limit else math.inf


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
    if (counted := steps_within(kernel, sizes, counts.steps)) != counts.steps:
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

