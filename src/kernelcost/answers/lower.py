"""Q_lower(sizes, S) of a kernel at one memory level, from the programs of `bound`, with the
spec's own traffic into that level beside it and, on a machine, whether any schedule can be
compute-bound there. The formulas and their sources are in bound.py's docstring.

Levels name the fast memory whose inflow is bounded:
    registers  S = registers per SM, with the tensor memory beside them where the machine has
               it (sm_100: the tensor cores' accumulators); fed by shared memory (the spec's
               shared traffic)
    shared     S = registers + shared memory (+ tensor memory) per SM, the SM's fast memory
               together; fed by L2 (the spec's L2 traffic in a parallel spec, else its global
               traffic)
    l2         S = L2 (the device); fed by HBM (the spec's global traffic)
Tensor memory is no bound level of its own: nothing flows into it from a slower level (the
tensor cores write it), so it counts with the registers, inside the fast memory of both
on-chip levels: a tensor homed there is no compulsory traffic, and its accesses are not the
inflow into the registers."""

from __future__ import annotations

import math
from dataclasses import replace

import sympy

from ..algebra.factored_forms import factor
from ..algebra.quotients import cancel
from ..analysis.api import Spec
from ..base.kinds import Reuse
from ..base.levels import Level
from ..base.records import record
from ..base.symbols import LEVELS
from ..hardware.machine import Machine
from .bound import StatementBound, analyse

BOUND_LEVELS = (Level.SHARED, Level.L2, Level.REGISTERS)
# the level whose bandwidth feeds each level
FED_BY: dict[str, Level] = {Level.REGISTERS: Level.SHARED, Level.SHARED: Level.L2,
                            Level.L2: Level.GLOBAL}
# the fast memory each level stands for, where the machine has these levels (docstring)
FAST_MEMORY: dict[str, tuple[Level, ...]] = {
    Level.REGISTERS: (Level.REGISTERS, Level.TMEM),
    Level.SHARED: (Level.REGISTERS, Level.TMEM, Level.SHARED),
    Level.L2: (Level.L2,)}


@record
class Verdict:
    """The sentence's figures on one machine."""

    machine: str
    capacity_B: float  # S
    capacity_parts: tuple[Level, ...]  # the levels S adds up: L2, or the SM's fast memory
    bandwidth_level: str  # whose bandwidth feeds the fast memory
    ridge: float  # P / B, FLOP/B
    i_max: float  # the highest intensity any schedule reaches as the sizes grow, FLOP/B
    can: bool  # i_max >= ridge
    from_size: float | None  # every free size equal: compute-bound possible from here
    gap: float | None  # the spec's traffic into the level over Q_lower, as the sizes grow
    below_from: float | None  # every free size equal: from here the spec's traffic into the
    # level is below Q_lower (it counts reuse that S cannot hold)


@record
class LevelBound:
    kernel: str
    level: str
    S: sympy.Symbol  # capacity in words of `word_bytes`
    word_bytes: sympy.Expr  # b
    statements: tuple[StatementBound, ...]
    headline: StatementBound  # the statement with the most work
    compulsory: sympy.Expr  # words: each element of the arrays outside the level once
    hbl: sympy.Expr  # words: the segment bound of the headline statement
    tight: sympy.Expr | None  # words: Smith et al.'s bound, for a matrix product
    reference: sympy.Expr | None  # words: 2 |Z| / sqrt(S_e), the tight leading term
    q_lower: sympy.Expr  # words: the largest of the bounds above
    leading: sympy.Expr  # words: the leading term of the best size-growing bound
    i_max: sympy.Expr  # FLOP/B: W / leading, as a function of S
    spec_level: str | None  # where the spec charges the traffic into this level
    spec_traffic: sympy.Expr | None  # bytes
    gap: sympy.Expr | None  # spec_traffic's leading term over `leading`
    work: sympy.Expr
    verdict: Verdict | None


def level_bound(spec: Spec, level: str, machine: Machine | None = None) -> LevelBound:
    """Every bound is in words of b bytes (b: the narrowest element type of the headline
    statement) with S the capacity in such words; bytes are b times words."""
    statements = analyse(spec.checked)
    headline = max(statements, key=lambda s: _size(s.work, spec))
    taken = {str(p) for p in spec.checked.parameters} | set(spec.checked.sizes)
    S = sympy.Symbol("S" if "S" not in taken else "S_mem", positive=True)
    b = headline.element_bytes
    sigma = headline.program.exponent
    points = headline.points
    hbl = points / (2 ** sigma * S ** (sigma - 1)) - S
    leading = points / (2 ** sigma * S ** (sigma - 1))
    tight = reference = None
    if headline.product is not None:
        tight = 2 * points / sympy.sqrt(S) - 2 * S
        reference = 2 * points / sympy.sqrt(S)
        leading = reference
    compulsory = factor(_compulsory(spec, level) / b)
    floor = _leading_in(compulsory, headline, spec)  # compulsory traffic of |Z|'s order
    hbl_lead = _leading_in(leading, headline, spec)
    if sigma == 1 and floor and hbl_lead:
        ratio = sympy.simplify(floor / hbl_lead)
        if ratio.is_number and ratio > 1:
            leading = floor  # no reuse beyond linear: each element once is the larger bound
    q_lower = sympy.Max(*[q for q in (compulsory, hbl, tight) if q is not None])
    work = spec.cost(Reuse.SPEC).total_work
    work_lead = _leading_in(headline.work, headline, spec)
    bound_lead = _leading_in(leading, headline, spec)
    i_max = sympy.simplify(headline.work / (b * leading) if None in (work_lead, bound_lead)
                           else work_lead / (b * bound_lead))
    spec_level, spec_traffic = _spec_inflow(spec, level)
    gap = None
    if spec_traffic is not None:
        spec_lead = _leading_in(spec_traffic, headline, spec)
        gap = None if spec_lead is None else sympy.simplify(spec_lead / (b * leading))
    bound = LevelBound(spec.name, level, S, b, statements, headline, compulsory, hbl, tight,
                       reference, q_lower, leading, i_max, spec_level, spec_traffic, gap,
                       work, None)
    return bound if machine is None else replace(bound, verdict=_verdict(spec, bound, machine))


def machine_capacity(machine: Machine, level: str) -> tuple[float | None, tuple[Level, ...]]:
    """S of the level on the machine in bytes, and the levels it adds up: the device's L2,
    or the capacities of an SM's fast memory (FAST_MEMORY), tensor memory where the machine
    has it."""
    if level == Level.L2:
        return machine.capacity(Level.L2), (Level.L2,)
    parts = tuple(part for part in FAST_MEMORY[level]
                  if part != Level.TMEM or machine.memory_level(Level.TMEM) is not None)
    capacities = [machine.capacity(part) for part in parts]
    if any(capacity is None for capacity in capacities):
        return None, parts
    return sum(capacity for capacity in capacities if capacity is not None), parts


def _verdict(spec: Spec, bound: LevelBound, machine: Machine) -> Verdict:
    """The bound at the machine's capacity against its ridge."""
    from ..base.errors import Code, Diagnostic, MachineFileError, SpecCheckError

    level, S, b, i_max, work = bound.level, bound.S, bound.word_bytes, bound.i_max, bound.work
    compulsory, gap = b * bound.compulsory, bound.gap

    capacity, parts = machine_capacity(machine, level)
    feeder = FED_BY[level]
    bandwidth = machine.bandwidth(feeder) or (machine.bandwidth(Level.GLOBAL)
                                              if feeder == Level.L2 else None)
    if capacity is None or bandwidth is None:
        raise MachineFileError(Code.MACHINE_LACKS_FIGURE, Diagnostic(
            None, f"{machine.id} gives no capacity or bandwidth for {level}",
            "pick another level or machine"))
    by_class = spec.cost(Reuse.SPEC).work
    work_class = max(by_class, key=lambda c: _size(by_class[c], spec))
    ridge = machine.peak(spec.checked.precision, work_class) / bandwidth
    words = sympy.Float(capacity, 30) / b
    at_capacity = i_max.subs(S, words)
    if not at_capacity.is_number:
        raise SpecCheckError(Code.OUTSIDE_BOUND_CLASS, Diagnostic(
            None, f"I_max = {i_max} keeps sizes where the sizes grow (a min or max of "
                  "sizes has no single leading term): no verdict on a machine",
            "bound it without --machine, or write the loop bounds without min and max"))
    value = float(at_capacity)
    n = sympy.Symbol("n", positive=True)
    diagonal = _diagonal(spec, n)
    try:
        small = sympy.limit(cancel((work / compulsory).subs(diagonal)), n, sympy.oo)
    except (NotImplementedError, ValueError, TypeError):  # Min, Max: sympy has no series
        small = sympy.oo
    best = min(value, float(small)) if small.is_finite and small.is_real else value
    can = best >= ridge
    from_size = None
    if can:
        from_size = math.ceil(_crossing(cancel((work / compulsory).subs(diagonal)), n,
                                        ridge))
    gap_value = None
    if gap is not None:
        gap_at = gap.subs(S, words).subs(_defaults(spec))
        gap_value = float(gap_at) if gap_at.is_number else None
    below_from = None
    if gap_value == 0 and bound.spec_traffic is not None:
        lower = b * bound.leading
        ratio = cancel((lower.subs(S, words) / bound.spec_traffic).subs(diagonal))
        below_from = math.ceil(_crossing(ratio, n, 1))
    return Verdict(machine.id, capacity, parts, feeder, ridge, best, can, from_size, gap_value,
                   below_from)


def _defaults(spec: Spec) -> dict[sympy.Symbol, sympy.Integer]:
    return {p: sympy.Integer(v) for p, v in spec.checked.defaults.items()}


def _diagonal(spec: Spec, n: sympy.Symbol) -> dict[sympy.Symbol, sympy.Expr]:
    """Every size without a default set to n; defaults at their values."""
    values = {}
    for p in spec.checked.parameters:
        values[p] = sympy.Integer(spec.checked.defaults[p]) if p in spec.checked.defaults else n
    return values


def _crossing(intensity: sympy.Expr, n: sympy.Symbol, ridge: float) -> float:
    """The least n >= 1 from which intensity(n) >= ridge (intensity grows with n here)."""
    numerator, denominator = sympy.fraction(sympy.together(intensity))
    equation = sympy.expand(numerator - sympy.nsimplify(ridge) * denominator)
    if not equation.is_polynomial(n):  # sqrt(S) made numeric above keeps it polynomial
        return 1.0
    poly = sympy.Poly(equation, n)
    roots = [float(r) for r in poly.nroots() if abs(sympy.im(r)) < 1e-9 and sympy.re(r) > 0]
    return max(roots) if roots else 1.0


def _outside(level: str) -> list[str]:
    """The levels slower than `level` that lie outside its fast memory, slowest first."""
    return [lv for lv in LEVELS[:LEVELS.index(level)] if lv not in FAST_MEMORY[level]]


def _compulsory(spec: Spec, level: str) -> sympy.Expr:
    """Bytes: each element of the tensors homed outside the level once, as perfect reuse
    counts them (an `out` accumulated from zero is written, never read)."""
    traffic = spec.cost(Reuse.PERFECT).traffic
    outside = _outside(level)
    homes = {t.level for t in spec.checked.tensors.values() if t.level in outside}
    return factor(sympy.Add(*[traffic[lv] for lv in sorted(homes) if lv in traffic]))


def _spec_inflow(spec: Spec, level: str) -> tuple[str | None, sympy.Expr | None]:
    """Where the spec charges the traffic that enters this level: the next slower level with
    traffic outside its fast memory (fills of a keep are charged at the level they come
    from; tensor memory's accesses stay inside the registers' fast memory)."""
    traffic = spec.cost(Reuse.SPEC).traffic
    for candidate in reversed(_outside(level)):
        if candidate in traffic:
            return candidate, traffic[candidate]
    return None, None


def _leading_in(expr: sympy.Expr, headline: StatementBound,
                spec: Spec) -> sympy.Expr | None:
    """The part of expr of the headline's degree as every size without a default grows."""
    t = sympy.Symbol("t", positive=True)
    grow = {p: t * p for p in spec.checked.parameters if p not in spec.checked.defaults}
    try:
        degree = sympy.Poly(sympy.expand(_unrounded(headline.points).subs(grow)), t).degree()
        scaled = sympy.expand(cancel(_unrounded(expr).subs(grow)))
        numerator, denominator = sympy.fraction(cancel(scaled))
        top = sympy.Poly(numerator, t)
        bottom = sympy.Poly(denominator, t)
    except sympy.PolynomialError:  # Min, Max of sizes: no single leading term here
        return None
    shift = top.degree() - bottom.degree()
    if shift < degree:
        return sympy.Integer(0)  # lower order than the bound: vanishes against it
    lead = top.LC() / bottom.LC()
    return factor(lead)


def _unrounded(expr: sympy.Expr) -> sympy.Expr:
    """A ceiling or floor (ragged edge tiles) taken as its argument: it grows as its
    argument does, with the same leading term."""
    return sympy.sympify(expr).replace(sympy.ceiling, lambda a: a).replace(sympy.floor,
                                                                            lambda a: a)


def _size(expr: sympy.Expr, spec: Spec) -> float:
    """A rough value at every size 1000 (defaults kept), to pick the statement that works most."""
    values = {p: spec.checked.defaults.get(p, 1000) for p in spec.checked.parameters}
    try:
        return float(sympy.sympify(expr).subs(values))
    except (TypeError, ValueError):
        return 0.0


@record
class AtSizes:
    """The bound in numbers at set sizes, on the machine's S."""

    sizes: tuple[tuple[str, float], ...]
    q_lower_B: float
    spec_B: float | None  # the spec's traffic into the level
    i_bound: float | None  # W / Q_lower: no schedule exceeds it at these sizes, FLOP/B;
    # None where Q_lower is 0 B (nothing compulsory: an empty loop at these sizes)


def at_sizes(spec: Spec, result: LevelBound, raw: dict[str, str]) -> AtSizes | None:
    """Q_lower and the spec's traffic at the sizes set (None unless every size and the
    machine's S have values). Sizes at which the compulsory words come out negative break an
    `assume` bound the closed forms take to hold (stencil2d5pt at N = 1 against `assume
    N >= 3`): refused at the fact, as a verdict refuses them (answer.refuse_verdict_sizes)."""
    from ..analysis.api import _numeric_values
    from ..lang.settings import resolve_settings
    from ..lang.sizes import refuse_broken_bounds

    if not raw:
        return None
    values = _numeric_values(spec, resolve_settings(raw, spec.parameters))
    compulsory = sympy.sympify(result.compulsory).xreplace(values)
    if compulsory.is_number and compulsory < 0:
        refuse_broken_bounds(spec.checked, values)
    if result.verdict is None or any(p not in values for p in spec.checked.parameters):
        return None
    b = result.word_bytes
    words = sympy.Rational(repr(result.verdict.capacity_B)) / b
    q_lower = b * result.q_lower.xreplace(values).subs(result.S, words)
    spec_B = (None if result.spec_traffic is None
              else float(sympy.sympify(result.spec_traffic).xreplace(values)))
    work = sympy.sympify(result.work).xreplace(values)
    return AtSizes(tuple((str(p), float(values[p])) for p in spec.checked.parameters
                         if p not in spec.checked.defaults),
                   float(q_lower), spec_B, float(work / q_lower) if q_lower else None)
