"""Property tests: every closed form of count.py against brute-force enumeration (oracle.py).

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
  nested too; loops written one a header or several in one (`for i in .., j in ..`);
- the known cases (issue 9's reproducers and what the generator found since), each at the
  sizes where it failed and at sampled ones.
Besides the numbers, every closed form must hold only the sizes (no internal symbol such as
`K__over__T`) and no ceiling or floor that the divisibility facts make an integer.

A spec is counted once per session and reuse mode (Spec.cost caches); the examples only
enumerate and evaluate. The default profile runs 200 examples per spec and 100 generated nests
(widened nests cost 0.1-0.3 s each to count); KERNELCOST_PROPERTY_EXAMPLES sets the
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
from dataclasses import dataclass
from pathlib import Path

import pytest
import sympy
from hypothesis import HealthCheck, Phase, assume, example, given, seed, settings
from hypothesis import strategies as st

import kernelcost
from kernelcost.errors import KcostError
from kernelcost.oracle import (
    assumptions_hold, compare, count_steps, draw_sizes, enumerate_counts, evaluate, sample_sizes,
)
from kernelcost.symbols import size_symbol

from conftest import Hang, time_budget

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
def sizes_for(draw, kernel, extra_facts=(), max_steps=SPEC_STEPS):
    """Small sizes meeting the kernel's assumptions, drawn as sample_sizes draws them
    (oracle.draw_sizes): tile-like parameters (divisors, and those with a default) from 1..4,
    the others from 1..12, and each dividend as a multiple of the least common multiple of
    its divisors; relations (`T <= N`) filter."""
    values = draw_sizes(kernel, lambda name, top: draw(st.integers(1, top), label=name))
    assume(assumptions_hold(kernel, values, extra_facts))
    assume(count_steps(kernel, values, max_steps) <= max_steps)
    return values


def check_against_enumeration(kernel, cost, sizes) -> list[str]:
    """Mismatches of one Cost at one size assignment, as readable lines; also that a Cost with
    any upper-bound footprint or scope says so in cost.exact (compare then checks >=)."""
    problems = [str(m) for m in compare(cost, enumerate_counts(kernel, sizes, cost.reuse),
                                        max_entries=MAX_ENTRIES)]
    bounded = [f"footprint[{name}]" for name, footprint in cost.footprints.items()
               if not footprint.exact]
    bounded += [f"scope {scope.index}" for scope in cost.scopes if not scope.exact]
    if bounded and cost.exact:
        problems.append(f"{', '.join(bounded)} reported as upper bound, but cost.exact is True")
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


@pytest.mark.parametrize("name", SPEC_NAMES)
def test_shipped_spec_closed_forms_match_enumeration(name):
    spec = load_spec(name)
    costs = {mode: spec.cost(mode) for mode in REUSE_MODES}  # counted once per session
    leftovers = [f"reuse={mode}: {problem}" for mode, cost in costs.items()
                 for problem in leftover_problems(spec.checked, cost)]
    assert not leftovers, f"{name}:\n" + "\n".join(leftovers[:8])

    @SPEC_SETTINGS
    @given(sizes=sizes_for(spec.checked))
    def closed_forms_equal_enumeration(sizes):
        for mode, cost in costs.items():
            problems = check_against_enumeration(spec.checked, cost, sizes)
            assert not problems, f"{name} reuse={mode} at {sizes}:\n" + "\n".join(problems[:8])

    closed_forms_equal_enumeration()


def test_size_strategy_respects_divisibility_and_defaults():
    kernel = load_spec("int4_decode").checked  # d*d | Theta, g | d, d and g with defaults

    @settings(max_examples=30, deadline=None, database=None)
    @given(sizes=sizes_for(kernel))
    def divisible(sizes):
        assert sizes["Theta"] % (sizes["d"] ** 2) == 0 and sizes["d"] % sizes["g"] == 0
        assert count_steps(kernel, sizes, SPEC_STEPS) <= SPEC_STEPS

    divisible()


# --- generated nests ---------------------------------------------------------------------

ITERATORS = ("i", "j", "k", "l")
TILE_ITERATORS = ("i0", "j0", "k0", "l0")

# Divisibility facts: none, one, several on one size (`T | N, U | N`), and chains (`T | K,
# K | N`), whose order in the text is shuffled (a chain written outside in, too).
DIVISIBILITY = (
    (), (), ("T | N",), ("T | N", "T | M"),
    ("T | N", "U | N"), ("T | M", "U | M", "U | N"),
    ("T | K", "K | N"), ("T | K", "K | N", "K | M"),
)
# Relations between sizes, strict and not; each may come with the steps it makes positive.
RELATIONS = {
    "T <= N": (), "T < N": (), "T <= M": (), "M <= N": (), "M < N": ("N - M",),
    "N >= 3": ("N - 2",), "N > 3": ("N - 3",), "M >= 2": ("M - 1",), "2 * T <= N": (),
    "T + 1 <= M": ("M - T",),
}


@dataclass
class Head:
    """The kernel's parameters and `assume` lines, the positive size expressions that may be
    loop steps, and the tile sizes (the steps of tile pairs)."""

    params: list[str]
    facts: list[str]  # the text of each `assume` line
    steps: list[str]
    tiles: list[str]

    @property
    def wide(self) -> str:
        """An extent every index the generator writes stays below: indices are at most two
        iterators, each below max(N, M) plus two tiles plus 3."""
        return " + ".join(f"4 * {param}" for param in self.params) + " + 8"


@st.composite
def heads(draw) -> Head:
    divisibility = list(draw(st.sampled_from(DIVISIBILITY)))
    relations = draw(st.lists(st.sampled_from(sorted(RELATIONS)), max_size=2, unique=True))
    if "K" in " ".join(divisibility) and draw(st.booleans()):
        relations.append("K <= M")
    facts = draw(st.permutations(divisibility + relations))
    lines: list[str] = []
    if facts:
        if draw(st.booleans()):  # one `assume` line, or one a fact
            lines.append("assume " + ", ".join(facts))
        else:
            lines += [f"assume {fact}" for fact in facts]
    text = " ".join(facts)
    params = ["N", "M", "T"] + [extra for extra in ("K", "U") if extra in text.split()]
    steps = ["2", "T", "2 * T", "T + 1"]
    tiles = ["T", "T", "2 * T", "T + 1"]
    for extra in params[3:]:
        steps += [extra, f"{extra} * T"]
        tiles += [extra, extra]
    for relation in relations:
        steps += RELATIONS.get(relation, ())
    return Head(params, lines, steps, tiles)


@dataclass
class LoopLine:
    var: str
    range: str  # `v in lo..hi [by s]`
    at_least_one: bool  # the iterator is >= 1 everywhere: `v - 1` stays inside the tensor


@dataclass
class Nest:
    """A generated kernel, kept as parts so that a failure prints readable text."""

    head: Head
    loops: list[LoopLine]
    keeps: dict[int, list[str]]  # loop position (0 outermost, len(loops) innermost) -> keeps
    inner: list[str]  # statements in the innermost body
    after: dict[int, str]  # loop position -> a statement after the loop at that position
    roles: dict[str, str]
    ranks: dict[str, int]
    settings: list[str]  # `reuse none`
    merged: frozenset[int] = frozenset()  # loops written in the header of the loop outside

    def text(self) -> str:
        lines = [f"kernel generated({', '.join(self.head.params)}) {{",
                 *("    " + line for line in self.settings + self.head.facts)]
        for tensor, role in self.roles.items():
            shape = ", ".join([self.head.wide] * self.ranks[tensor])
            lines.append(f"    {role} {tensor}: f32[{shape}]")
        lines += self._block(0, 1)
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _block(self, position: int, depth: int) -> list[str]:
        """The keeps opened at this position, the loop there (with the loops merged into its
        header) or the innermost statements, then the statement that follows it in the
        enclosing loop."""
        keeps = self.keeps.get(position, [])
        lines = ["    " * (depth + n) + keep + " {" for n, keep in enumerate(keeps)]
        inside = depth + len(keeps)
        if position < len(self.loops):
            last = position
            while last + 1 in self.merged:
                last += 1
            ranges = ", ".join(line.range for line in self.loops[position:last + 1])
            lines.append("    " * inside + f"for {ranges} {{")
            lines += self._block(last + 1, inside + 1)
            lines.append("    " * inside + "}")
        else:
            lines += ["    " * inside + statement for statement in self.inner]
        lines += ["    " * (depth + n) + "}" for n in reversed(range(len(keeps)))]
        if position in self.after:
            lines.append("    " * depth + self.after[position])
        return lines


@st.composite
def loop_lines(draw, depth: int, head: Head) -> list[LoopLine]:
    """Loops outermost first: rectangular, stepped (`by 2`, `by 2 * T`, `by N - M` under
    `M < N`), triangular (`0..i + 1`, `i..N`, with outer loops over other sizes), bounds with
    min/max of sizes, iterators and constants (`0..min(T, i)`, `max(1, i)..N`,
    `0..min(N, M)`), and tile pairs (`i0 in 0..N by T` then `i in i0..i0 + T` or its
    clipped form `i0..min(i0 + T, N)`), which take two of the depth's loops."""
    lines: list[LoopLine] = []
    sizes = ["N", "M"]
    odd_tiles_used: set[str] = set()
    extremum_bounds = 0
    while len(lines) < depth:
        var = ITERATORS[len(lines)]
        outer = list(lines)
        # at most two bounds with min/max a nest: three in a four-deep nest take sympy
        # seconds, and the profile would spend its time on them
        extrema = ["size_extremum"] if extremum_bounds < 2 else []
        kinds = ["rect", "rect", "from_one", "step", *extrema]
        if outer:
            kinds += ["lower_triangle", "lower_triangle_open", "upper_triangle",
                      "upper_triangle", "upper_triangle_step"]
            if extremum_bounds < 2:
                kinds += ["iterator_extremum", "iterator_extremum", "lower_extremum"]
        if len(lines) + 2 <= depth:
            kinds += ["tile", "tile"]
        kind = draw(st.sampled_from(kinds))
        extremum_bounds += kind.endswith("extremum")
        size = draw(st.sampled_from(sizes))
        other = draw(st.sampled_from(outer)) if outer else None
        # what min/max compare an iterator or a size with: sizes, tile sizes, constants
        partner = draw(st.sampled_from([s for s in sizes if s != size]
                                       + head.params[2:] + ["2", "3"]))
        extremum = draw(st.sampled_from(["min", "max"]))
        at_least_one = False
        if kind == "rect":
            bounds = f"0..{size}"
        elif kind == "from_one":
            bounds, at_least_one = f"1..{size}", True
        elif kind == "step":
            bounds = f"0..{size} by {draw(st.sampled_from(head.steps))}"
        elif kind == "size_extremum":
            lo = draw(st.sampled_from(["0", "1"]))
            bounds, at_least_one = f"{lo}..{extremum}({size}, {partner})", lo == "1"
        elif kind == "lower_triangle":
            bounds = f"0..{other.var} + 1"
        elif kind == "lower_triangle_open":
            bounds = f"0..{other.var}"
        elif kind == "upper_triangle":
            bounds, at_least_one = f"{other.var}..{size}", other.at_least_one
        elif kind == "upper_triangle_step":
            step = draw(st.sampled_from(head.steps))
            bounds, at_least_one = f"{other.var}..{size} by {step}", other.at_least_one
        elif kind == "iterator_extremum":
            hi = draw(st.sampled_from([f"{extremum}({partner}, {other.var})",
                                       f"{extremum}({other.var} + 1, {partner})",
                                       f"{extremum}({other.var}, {size})"]))
            bounds = f"0..{hi}"
        elif kind == "lower_extremum":
            lo, at_least_one = draw(st.sampled_from([
                (f"max(1, {other.var})", True), (f"min({partner}, {other.var})", False),
                (f"max({other.var}, {partner})", other.at_least_one)]))
            hi = draw(st.sampled_from([size, "min(N, M)", "max(N, M)"]))
            bounds = f"{lo}..{hi}"
        else:
            tile = TILE_ITERATORS[len(lines)]
            # a tile no fact divides (`T + 1`) once a nest: two of them, clipped, take
            # sympy a minute
            tiles = [t for t in head.tiles if t not in odd_tiles_used]
            step = draw(st.sampled_from(tiles))
            if step == "T + 1":
                odd_tiles_used.add(step)
            lines.append(LoopLine(tile, f"{tile} in 0..{size} by {step}", False))
            var = ITERATORS[len(lines)]
            clipped = draw(st.booleans())
            hi = f"min({tile} + {step}, {size})" if clipped else f"{tile} + {step}"
            bounds = f"{tile}..{hi}"
        lines.append(LoopLine(var, f"{var} in {bounds}", at_least_one))
    return lines


@st.composite
def index_text(draw, loops: list[LoopLine]) -> str:
    """An affine index: an iterator, shifted by +-1 (down only where it stays >= 0), a
    constant, or occasionally a sum of two iterators or a doubled one."""
    if not loops or draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["0", "1"]))
    line = draw(st.sampled_from(loops))
    form = draw(st.sampled_from(["plain", "plain", "plain", "up", "down", "sum", "double"]))
    if form == "up":
        return f"{line.var} + 1"
    if form == "down" and line.at_least_one:
        return f"{line.var} - 1"
    if form == "sum" and len(loops) > 1:
        other = draw(st.sampled_from([o for o in loops if o is not line]))
        return f"{line.var} + {other.var}"
    if form == "double":
        return f"2 * {line.var}"
    return line.var


@st.composite
def access_text(draw, tensor: str, rank: int, loops: list[LoopLine]) -> str:
    indices = [draw(index_text(loops)) for _ in range(rank)]
    return f"{tensor}[{', '.join(indices)}]"


@st.composite
def nests(draw) -> Nest:
    # four-deep nests with triangles over tiles take seconds of sympy each: fewer of them
    depth = draw(st.sampled_from([1, 2, 2, 3, 3, 4]))
    head = draw(heads())
    loops = draw(loop_lines(depth, head))
    roles = {"x": "in", "y": draw(st.sampled_from(["out", "inout"])),
             "z": draw(st.sampled_from(["in", "out", "inout"]))}
    ranks = {tensor: draw(st.integers(1, 2)) for tensor in roles}
    settings_lines = ["reuse none"] if draw(st.integers(0, 3)) == 0 else []
    targets = [t for t, role in roles.items() if role != "in"]
    sources = [t for t, role in roles.items() if role != "out"]

    def statement(scope_loops, target=None, source=None):
        target = target or draw(st.sampled_from(targets))
        reads = []
        for _ in range(draw(st.integers(1, 3))):
            read = source or draw(st.sampled_from(sources))
            reads.append(draw(access_text(read, ranks[read], scope_loops)))
        shape = draw(st.sampled_from(["product", "sum", "exp", "scaled"]))
        if shape == "product":
            value = " * ".join(reads)
        elif shape == "sum":
            value = " + ".join(reads)
        elif shape == "exp":
            value = f"exp({reads[0]})" + "".join(f" - {r}" for r in reads[1:])
        else:
            value = f"2 * {reads[0]}"
        op = draw(st.sampled_from(["=", "+=", "+=", "max="]))
        return f"{draw(access_text(target, ranks[target], scope_loops))} {op} {value}"

    # one tensor accessed by several statements (written) or reads (read), and kept
    focus = None
    pattern = draw(st.sampled_from(["free", "free", "free", "writes", "reads"]))
    if pattern == "writes":
        focus = draw(st.sampled_from(targets))
        inner = [statement(loops, target=focus) for _ in range(draw(st.integers(2, 3)))]
    elif pattern == "reads":
        focus = draw(st.sampled_from(sources))
        inner = [statement(loops, source=focus) for _ in range(draw(st.integers(1, 2)))]
    else:
        inner = [statement(loops) for _ in range(draw(st.integers(1, 2)))]
    after = {}
    if depth > 1 and draw(st.booleans()):
        position = draw(st.integers(1, depth - 1))
        after[position] = statement(loops[:position])
    keeps = draw(keep_lines(depth, list(roles), focus))
    mergeable = [p for p in range(1, depth) if p not in keeps and p not in after]
    merged = frozenset(p for p in mergeable if draw(st.integers(0, 2)) == 0)
    return Nest(head, loops, keeps, inner, after, roles, ranks, settings_lines, merged)


@st.composite
def keep_lines(draw, depth: int, tensors: list[str], focus: str | None = None
               ) -> dict[int, list[str]]:
    """No keep, one keep, or a keep nested in another (l2 or shared, then shared or
    registers further in): each tensor is kept only in faster levels as it goes in. A focus
    tensor (one that several accesses touch) is kept by the first keep, mostly."""
    keeps: dict[int, list[str]] = {}
    count = draw(st.sampled_from([1, 1, 2] if focus else [0, 1, 1, 2]))
    levels = ["l2", "shared", "registers"]
    position = 0
    level_floor = 0
    for _ in range(count):
        position = draw(st.integers(position, depth))
        level_index = draw(st.integers(level_floor, len(levels) - 1 - (count - 1)))
        level_floor = level_index + 1
        chosen = draw(st.lists(st.sampled_from(tensors), min_size=1, max_size=2, unique=True))
        if focus and focus not in chosen and draw(st.integers(0, 3)):
            chosen = [focus, *chosen[:1]]
        focus = None
        keeps.setdefault(position, []).append(
            f"keep {', '.join(chosen)} in {levels[level_index]}")
        count -= 1
    return keeps


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


def nest_problems(text: str, mode: str, seed: int) -> list[str]:
    """Parse, check and count one generated kernel, then compare its closed forms with the
    enumeration at SAMPLES_PER_NEST sampled sizes; the problems of the first failing sample,
    after those of leftover_problems."""
    with time_budget(SECONDS_PER_NEST, cpu=True):
        try:
            spec = kernelcost.loads(text, "generated.kcost")
        except KcostError as error:  # the strategy writes valid text: a rejection is its bug
            raise AssertionError(f"the checker rejects generated text:\n{text}\n{error}")
        cost = spec.cost(mode)
        problems = [f"reuse={mode}: {p}" for p in leftover_problems(spec.checked, cost)]
        intensities = {level: cost.intensity(level) for level in cost.levels}
        samples = sample_sizes(spec.checked, SAMPLES_PER_NEST, random.Random(seed),
                               max_steps=NEST_STEPS)
        for sizes in samples:
            mismatches = (check_against_enumeration(spec.checked, cost, sizes)
                          + intensity_problems(cost, intensities, sizes))
            if mismatches:
                problems += [f"reuse={mode} at {sizes}:", *mismatches[:8]]
                break
    return problems


# --- known cases: each found once, each run every time -----------------------------------

# Issue 9's reproducers, as written there, with the sizes where they failed and, where
# needed, what keeps the sampled sizes' indices inside the tensors (`y[k]`, k < M, in f32[N]);
# new cases that the generator finds are added here too (docs/property-findings.md has
# the closed forms and enumerations).
KNOWN_CASES = {
    "non-strict-le-min-T-i": ("""
        kernel k(N, T) {
            assume T <= N
            in x: f32[N]
            out y: f32[N]
            for i in 0..N {
                for j in 0..min(T, i) {
                    y[i] += x[j]
                }
            }
        }""", {"N": 10, "T": 2}),
    "non-strict-ge-min-3-i": ("""
        kernel k(N) {
            assume N >= 3
            in x: f32[N]
            out y: f32[N]
            for i in 0..N {
                for j in 0..min(3, i) {
                    y[i] += x[j]
                }
            }
        }""", {"N": 10}),
    "triangle-mixed-outer-sizes": ("""
        kernel k(N, M) {
            in x: f32[N]
            out y: f32[N]
            for i in 0..M, j in i..N, k in j..M { y[k] = x[j] * 2 }
        }""", {"N": 7, "M": 5}, "M <= N"),
    "keep-two-writes-of-one-tensor": ("""
        kernel k(N, M) {
            in x: f32[N]
            out z: f32[N]
            for i in 0..N, j in i..M { keep z in l2 { z[i] = x[0]; z[j] = x[0] } }
        }""", {"N": 3, "M": 3}, "M <= N"),
    "chained-divisibility": ("""
        kernel k(N, K, T) {
            assume T | K, K | N
            in x: f32[N]
            out y: f32[N]
            for i0 in 0..N by K { for i in i0..i0 + K by T { y[i] += x[i] } }
        }""", {"N": 16, "K": 4, "T": 2}),
    "two-divisors-of-one-size": ("""
        kernel k(S, Br, Bc) {
            assume Br | S, Bc | S
            in x: f32[S]
            out y: f32[S, S]
            for i0 in 0..S by Br, j0 in 0..S by Bc {
                keep x in shared { for i in i0..i0 + Br, j in j0..j0 + Bc { y[i, j] += x[j] } }
            }
        }""", {"S": 12, "Br": 3, "Bc": 4}),
    # found by the widened generator (docs/property-findings.md F1-F5, F7, F8)
    "F1-inner-loop-empty-at-N-1": ("""
        kernel k(N) {
            in x: f32[N]
            out y: f32[N]
            for i in 0..N, j in max(1, i)..N { y[i] += x[j] }
        }""", {"N": 1}),
    "F2-stepped-triangle-sum": ("""
        kernel k(N) {
            in x: f32[N]
            out y: f32[N]
            for i in 0..N, j in 0..i + 1, k in j..N by 2 { y[k] += x[j] }
        }""", {"N": 7}),
    "F3-min-of-an-unevaluated-sum": ("""
        kernel k(N) {
            in x: f32[N]
            out y: f32[N]
            for i in 0..N, j in 0..i, k in j..N by 2 { y[0] = x[0] }
        }""", {"N": 7}),
    "F4-triangle-under-max-of-sizes": ("""
        kernel k(N, M) {
            in x: f32[N + M]
            out y: f32[N]
            for i in 0..max(N, M), j in i..N { y[j] += x[i] }
        }""", {"N": 5, "M": 9}),
    "F5-step-T-plus-1-box": ("""
        kernel k(N, T) {
            in x: f32[N]
            out y: f32[N]
            for j0 in 0..N by T + 1, k in j0..min(j0 + T + 1, N) {
                keep x in shared { y[0] = x[0] * x[j0] * x[k] }
            }
        }""", {"N": 7, "T": 1}),
    "F7-keep-two-elements-in-one-update": ("""
        kernel k(N, M) {
            inout y: f32[N + M]
            for i in 0..N, j in i..M {
                keep y in l2 {
                    for k in 0..N { y[j] += y[i] }
                }
            }
        }""", {"N": 7, "M": 7}),
    "F8-non-strict-ge-min-2-i": ("""
        kernel k(N, M) {
            assume M >= 2
            in x: f32[N]
            out y: f32[N]
            for i in 1..M, j in min(2, i)..N { y[j] += x[i] }
        }""", {"N": 8, "M": 7}),
    "four-deep-stepped-minmax-triangle": ("""
        kernel generated(N, M, T) {
            in x: f32[4 * N + 4 * M + 4 * T + 8, 4 * N + 4 * M + 4 * T + 8]
            out y: f32[4 * N + 4 * M + 4 * T + 8]
            out z: f32[4 * N + 4 * M + 4 * T + 8]
            for i in 0..N {
                for j in i..N by T {
                    for k in j..M by 2 * T {
                        for l in max(j, 2)..min(N, M) {
                            keep z in shared {
                                y[j + i] += exp(x[l, l + j])
                                z[l] += x[l + i, l] + x[i + 1, l + j]
                            }
                        }
                    }
                }
                z[i] += x[i + 1, i]
            }
        }""", {"N": 5, "M": 7, "T": 2}),  # F6: counting once ran past 5 minutes
    "intensity-with-many-min-max-generators": ("""
        kernel generated(N, M, T, K) {
            assume K <= M
            assume K | N
            assume T | K
            in x: f32[4 * N + 4 * M + 4 * T + 4 * K + 8]
            inout y: f32[4 * N + 4 * M + 4 * T + 4 * K + 8]
            out z: f32[4 * N + 4 * M + 4 * T + 4 * K + 8]
            for i in 0..N {
                for j in 0..N by K {
                    keep x, y in shared {
                        for k in max(1, i)..min(N, M) {
                            for l in 0..M {
                                z[2 * k] += 2 * y[l]
                                z[0] = 2 * x[l]
                            }
                            y[j] += 2 * x[k]
                        }
                    }
                }
            }
        }""", {"N": 8, "M": 7, "T": 2, "K": 4}),  # F10: its intensity once took 244 s
}


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
                     for p in (check_against_enumeration(spec.checked, cost, sizes)
                               + intensity_problems(cost, intensities, sizes))]
    assert not problems, "\n".join(problems[:12])


def known_nest(params, facts, ranges, inner, *, keeps=None, ranks=None, merged=()):
    """A known case in the generator's own parts: that the generator can write it."""
    head = Head(params, [f"assume {facts}"] if facts else [], [], [])
    loops = [LoopLine(text.split()[0], text, False) for text in ranges]
    roles = {"x": "in", "y": "out", "z": "out"}
    ranks = {tensor: (ranks or {}).get(tensor, 1) for tensor in roles}
    return Nest(head, loops, keeps or {}, inner, {}, roles, ranks, [], frozenset(merged))


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
    the run only when more than MAX_OVER_BUDGET of the nests do."""
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
    @given(nest=nests(), mode=st.sampled_from(REUSE_MODES),
           sample_seed=st.integers(0, 2**32 - 1))
    def campaign(nest, mode, sample_seed):
        nonlocal checked
        checked += 1
        text = nest.text()
        try:
            problems = nest_problems(text, mode, sample_seed)
        except Exception as error:  # noqa: BLE001 - a crash is a finding too
            problems = [f"reuse={mode}: {type(error).__name__}: {error}"]
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
    assert len(over_budget) <= MAX_OVER_BUDGET * checked, summary("over budget too often")


PROGRESS_EVERY = 100
MAX_OVER_BUDGET = 0.01  # a share of the nests; more means counting got slower


def _is_over_budget(error: Exception) -> bool:
    return isinstance(error, Hang) or "symbolic work" in str(error)
