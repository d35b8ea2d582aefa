"""Property tests: every closed form of count.py against brute-force enumeration (oracle.py).

Two families:
- every shipped spec (specs/*.kcost) at random small sizes that satisfy its assumptions, under
  each reuse mode (spec, perfect, none): work by class, traffic per level, footprints and
  per-entry scope costs must equal the enumeration (or bound it from above where the Cost says
  it is an upper bound);
- random affine loop nests, generated as .kcost text (depth 1-4, triangular bounds, steps,
  tiles and clipped tiles, shifted accesses, keeps in shared and registers, nested too),
  parsed, checked, counted and compared the same way at a few sampled sizes.

A spec is counted once per session and reuse mode (Spec.cost caches); the examples only
enumerate and evaluate. The default profile runs 200 examples per spec and 500 generated nests;
KERNELCOST_PROPERTY_EXAMPLES sets the examples per spec (the nests scale with it):

    KERNELCOST_PROPERTY_EXAMPLES=2000 .venv/bin/python -m pytest tests/test_properties.py
"""

from __future__ import annotations

import functools
import os
import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

import kernelcost
from kernelcost.errors import KcostError
from kernelcost.oracle import (
    _divisors_known, _divisors_lcm, assumptions_hold, compare, count_steps, enumerate_counts,
    sample_sizes,
)

from conftest import time_budget

SPECS = Path(__file__).resolve().parent.parent / "specs"
SPEC_NAMES = sorted(path.stem for path in SPECS.glob("*.kcost"))
REUSE_MODES = ("spec", "perfect", "none")

DEFAULT_EXAMPLES = 200  # per shipped spec; the issue asks for at least 200 in CI
DEFAULT_NESTS = 500  # generated nests in CI; the issue asks for at least 500
EXAMPLES = int(os.environ.get("KERNELCOST_PROPERTY_EXAMPLES", DEFAULT_EXAMPLES))
NESTS = max(DEFAULT_NESTS, DEFAULT_NESTS * EXAMPLES // DEFAULT_EXAMPLES)

SPEC_STEPS = 4_000  # loop iterations plus statements per enumeration: small sizes, fast runs
NEST_STEPS = 3_000
SAMPLES_PER_NEST = 3
MAX_ENTRIES = 24  # scope entries checked per enumeration, spread over the run
SECONDS_PER_NEST = 60  # parse, check, count and compare of one nest; a hang fails the test

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


def divisor_names(kernel) -> set[str]:
    return {symbol.name for divisor, _ in kernel.divisibility for symbol in divisor.free_symbols}


@st.composite
def sizes_for(draw, kernel, extra_facts=(), max_steps=SPEC_STEPS):
    """Small sizes meeting the kernel's assumptions, drawn as sample_sizes draws them: tile-like
    parameters (divisors, and those with a default) from 1..4, the others from 1..12, and each
    dividend as a multiple of the least common multiple of its divisors."""
    tile_like = divisor_names(kernel) | {symbol.name for symbol in kernel.defaults}
    values: dict[str, int] = {}
    pending = [symbol.name for symbol in kernel.parameters]
    while pending:
        ready = [n for n in pending if _divisors_known(kernel, n, values)]
        name = ready[0] if ready else pending[0]  # a cycle of facts: drawn freely, then filtered
        base = _divisors_lcm(kernel, name, values) if ready else 1
        top = 4 if name in tile_like else 12
        values[name] = base * draw(st.integers(1, max(1, top // base)), label=name)
        pending.remove(name)
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


@pytest.mark.parametrize("name", SPEC_NAMES)
def test_shipped_spec_closed_forms_match_enumeration(name):
    spec = load_spec(name)
    costs = {mode: spec.cost(mode) for mode in REUSE_MODES}  # counted once per session
    conditions = tuple(c for cost in costs.values() for c in cost.conditions)

    @SPEC_SETTINGS
    @given(sizes=sizes_for(spec.checked, conditions))
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
WIDE = "2 * N + 2 * M + 2 * T + 4"  # every index the generator writes stays below this


@dataclass
class LoopLine:
    var: str
    header: str  # `for v in lo..hi [by s]`
    at_least_one: bool  # the iterator is >= 1 everywhere: `v - 1` stays inside the tensor


@dataclass
class Nest:
    """A generated kernel, kept as parts so that a failure prints readable text."""

    loops: list[LoopLine]
    keeps: dict[int, list[str]]  # loop position (0 outermost, len(loops) innermost) -> keeps
    inner: list[str]  # statements in the innermost body
    after: dict[int, str]  # loop position -> a statement after the loop at that position
    roles: dict[str, str]
    ranks: dict[str, int]
    head: list[str]

    def text(self) -> str:
        lines = ["kernel generated(N, M, T) {", *("    " + h for h in self.head)]
        for tensor, role in self.roles.items():
            shape = ", ".join([WIDE] * self.ranks[tensor])
            lines.append(f"    {role} {tensor}: f32[{shape}]")
        lines += self._block(0, 1)
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _block(self, position: int, depth: int) -> list[str]:
        """The keeps opened at this position, the loop there (or the innermost statements),
        then the statement that follows it in the enclosing loop."""
        keeps = self.keeps.get(position, [])
        lines = ["    " * (depth + n) + keep + " {" for n, keep in enumerate(keeps)]
        inside = depth + len(keeps)
        if position < len(self.loops):
            lines.append("    " * inside + self.loops[position].header + " {")
            lines += self._block(position + 1, inside + 1)
            lines.append("    " * inside + "}")
        else:
            lines += ["    " * inside + statement for statement in self.inner]
        lines += ["    " * (depth + n) + "}" for n in reversed(range(len(keeps)))]
        if position in self.after:
            lines.append("    " * depth + self.after[position])
        return lines


@st.composite
def loop_lines(draw, depth: int) -> list[LoopLine]:
    """Loops outermost first: rectangular, triangular (`0..i + 1`, `i..N`), stepped
    (`by 2`, `by T`), and tile pairs (`i0 in 0..N by T` then `i in i0..i0 + T` or its clipped
    form `i0..min(i0 + T, N)`), which take two of the depth's loops."""
    lines: list[LoopLine] = []
    while len(lines) < depth:
        var = ITERATORS[len(lines)]
        outer = [line for line in lines]
        kinds = ["rect", "rect", "from_one", "step"]
        if outer:
            kinds += ["lower_triangle", "lower_triangle_open", "upper_triangle"]
        if len(lines) + 2 <= depth:
            kinds += ["tile", "tile"]
        kind = draw(st.sampled_from(kinds))
        size = draw(st.sampled_from(["N", "M"]))
        if kind == "rect":
            lines.append(LoopLine(var, f"for {var} in 0..{size}", False))
        elif kind == "from_one":
            lines.append(LoopLine(var, f"for {var} in 1..{size}", True))
        elif kind == "step":
            step = draw(st.sampled_from(["2", "T"]))
            lines.append(LoopLine(var, f"for {var} in 0..{size} by {step}", False))
        elif kind == "lower_triangle":
            other = draw(st.sampled_from(outer))
            lines.append(LoopLine(var, f"for {var} in 0..{other.var} + 1", False))
        elif kind == "lower_triangle_open":
            other = draw(st.sampled_from(outer))
            lines.append(LoopLine(var, f"for {var} in 0..{other.var}", False))
        elif kind == "upper_triangle":
            other = draw(st.sampled_from(outer))
            lines.append(LoopLine(var, f"for {var} in {other.var}..{size}", other.at_least_one))
        else:
            tile = TILE_ITERATORS[len(lines)]
            lines.append(LoopLine(tile, f"for {tile} in 0..{size} by T", False))
            inner = ITERATORS[len(lines)]
            clipped = draw(st.booleans())
            hi = f"min({tile} + T, {size})" if clipped else f"{tile} + T"
            lines.append(LoopLine(inner, f"for {inner} in {tile}..{hi}", False))
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
    loops = draw(loop_lines(depth))
    roles = {"x": "in", "y": draw(st.sampled_from(["out", "inout"])),
             "z": draw(st.sampled_from(["in", "out", "inout"]))}
    ranks = {tensor: draw(st.integers(1, 2)) for tensor in roles}
    head = []
    if draw(st.integers(0, 3)) == 0:
        head.append("reuse none")
    divisibility = draw(st.sampled_from(["", "", "T | N", "T | N, T | M"]))
    if divisibility:
        head.append(f"assume {divisibility}")

    def statement(scope_loops):
        target_roles = roles
        targets = [t for t, role in target_roles.items() if role != "in"]
        target = draw(st.sampled_from(targets))
        sources = [t for t in roles if roles[t] != "out"]
        count = draw(st.integers(1, 3))
        reads = []
        for _ in range(count):
            source = draw(st.sampled_from(sources))
            reads.append(draw(access_text(source, ranks[source], scope_loops)))
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

    inner = [statement(loops) for _ in range(draw(st.integers(1, 2)))]
    after = {}
    if depth > 1 and draw(st.booleans()):
        position = draw(st.integers(1, depth - 1))
        after[position] = statement(loops[:position])
    keeps = draw(keep_lines(depth, list(roles)))
    return Nest(loops, keeps, inner, after, roles, ranks, head)


@st.composite
def keep_lines(draw, depth: int, tensors: list[str]) -> dict[int, list[str]]:
    """No keep, one keep, or a keep nested in another (l2 or shared, then shared or
    registers further in): each tensor is kept only in faster levels as it goes in."""
    keeps: dict[int, list[str]] = {}
    count = draw(st.sampled_from([0, 1, 1, 2]))
    levels = ["l2", "shared", "registers"]
    position = 0
    level_floor = 0
    for _ in range(count):
        position = draw(st.integers(position, depth))
        level_index = draw(st.integers(level_floor, len(levels) - 1 - (count - 1)))
        level_floor = level_index + 1
        chosen = draw(st.lists(st.sampled_from(tensors), min_size=1, max_size=2, unique=True))
        keeps.setdefault(position, []).append(
            f"keep {', '.join(chosen)} in {levels[level_index]}")
        count -= 1
    return keeps




@NEST_SETTINGS
@given(nest=nests(), mode=st.sampled_from(REUSE_MODES), seed=st.integers(0, 2**32 - 1))
def test_generated_nests_match_enumeration(nest, mode, seed):
    text = nest.text()
    with time_budget(SECONDS_PER_NEST):
        try:
            spec = kernelcost.loads(text, "generated.kcost")
        except KcostError as error:  # the strategy writes valid text: a rejection is its bug
            raise AssertionError(f"the checker rejects generated text:\n{text}\n{error}")
        cost = spec.cost(mode)
        samples = sample_sizes(spec.checked, SAMPLES_PER_NEST, random.Random(seed),
                               max_steps=NEST_STEPS, extra_facts=cost.conditions)
        for sizes in samples:
            problems = check_against_enumeration(spec.checked, cost, sizes)
            assert not problems, (f"reuse={mode} at {sizes}:\n{text}\n"
                                  + "\n".join(problems[:8]))
