"""One machine's roofs at one precision, the part of the verdict every level and term
shares: each memory level's verdict (its intensity against the ridge P / B, the regime, the
attainable FLOP/s) and the time terms t_min is the largest of (a work class on its ceiling, a
level's traffic on its bandwidth), with the term that binds."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import field

import sympy

from ..algebra.decide import pair_sign, smallest_of_two
from ..algebra.quotients import cancel, scaled
from ..base.kinds import TermKey, TermKind, term_key
from ..base.records import record
from ..count.cost import Cost
from ..count.values import evaluate, exact
from ..hardware.machine import UNBOUNDING_LEVELS, Machine, Roof, level_roof
from .regimes import Regime, Zone, regime_of, zone_of

Substitutions = Mapping[sympy.Symbol, sympy.Expr]  # parameters to their values


@record
class LevelVerdict:
    """The kernel against one memory level's roof."""

    level: str
    traffic_B: sympy.Expr  # Q_l, bytes moved at this level
    intensity: sympy.Expr  # I_l = W / Q_l, FLOP/B
    peak_FLOPps: sympy.Rational  # P: the kernel's main ceiling at the precision
    peak_roof: Roof  # P's ceiling: the bf16 tensor peak
    bandwidth_Bps: sympy.Rational  # B_l
    ridge: sympy.Rational  # I_crit = P / B_l, FLOP/B
    regime: Regime | None  # memory-bound when I_l < I_crit; None while undecided
    performance: sympy.Expr  # attainable FLOP/s under this roof: min(P, I_l * B_l)
    against_ridge: int | None = field(default=None, compare=False, repr=False)  # the sign
    # of ridge - I at every size, None while undecided

    # Worked out on first use: the JSON prints none of them, and a grid's times do not
    # read the levels' own; each verdict builds several levels on every machine.
    @functools.cached_property
    def zone(self) -> Zone | None:
        """The chapter's zone of the ratio; None while the ratio is symbolic."""
        return zone_of(self.intensity, self.ridge)

    @functools.cached_property
    def ratio(self) -> sympy.Expr:
        """I_l / I_crit, in lowest terms."""
        return scaled(self.intensity, 1 / self.ridge)

    @functools.cached_property
    def peak_fraction(self) -> sympy.Expr:
        """performance / P = min(1, ratio)."""
        return smallest_of_two(1, self.ratio, self.against_ridge)

    @functools.cached_property
    def time_s(self) -> sympy.Expr:
        """Q_l / B_l."""
        return self.traffic_B / self.bandwidth_Bps


@record
class TimeTerm:
    """One term of t_min: a work class on its ceiling, or a level's traffic on its bandwidth."""

    roof: Roof  # the ceiling or bandwidth it runs against: the bf16 tensor peak, the sfu
    # rate, the global bandwidth
    key: TermKey  # the work class (tensor, fma, vector, sfu) or the level (global, l2, ...)
    rate: sympy.Rational  # FLOP/s or B/s
    amount: sympy.Expr  # FLOP or B
    seconds: sympy.Expr  # amount / rate

    @property
    def kind(self) -> TermKind:
        return self.roof.kind


def level_verdicts(cost: Cost, machine: Machine, substitutions: Substitutions,
                    work: sympy.Expr, peak: sympy.Rational,
                    peak_roof: Roof) -> tuple[list[LevelVerdict], list[str]]:
    """A LevelVerdict per level with traffic and a bandwidth that is a roof; the levels
    without a bandwidth. The register file is no roof (UNBOUNDING_LEVELS): its traffic is the
    analysis's, its capacity the fit's, and it has no verdict."""
    levels, unmodelled = [], []
    for level in cost.levels:
        if level in UNBOUNDING_LEVELS:
            continue
        bandwidth = machine.bandwidth(level)
        if bandwidth is None:
            unmodelled.append(level)
            continue
        traffic = evaluate(cost.traffic[level], substitutions)
        # nothing moves there at these sizes (empty loops): no roof
        if not positive_by_terms(traffic) and traffic.is_zero:
            continue
        levels.append(level_verdict(level, work, traffic, peak, peak_roof, exact(bandwidth)))
    return levels, unmodelled


def positive_by_terms(expr: sympy.Expr) -> bool:
    """Whether every term is a positive rational times powers of positive symbols and of
    ceilings of such sums: no size makes it zero, and sympy's is_zero, which seeks a sum's
    monotonic sign first (13 ms for S**3/8192 + ... + 16384), is not asked."""
    for term in sympy.Add.make_args(expr):
        coefficient, rest = term.as_coeff_Mul()
        if not (coefficient.is_Rational and coefficient > 0):
            return False
        for factor in sympy.Mul.make_args(rest) if rest != 1 else ():
            base, exponent = factor.as_base_exp()
            positive = (base.is_Symbol and base.is_positive) or (
                isinstance(base, sympy.ceiling) and positive_by_terms(base.args[0]))
            if not (positive and exponent.is_Rational):
                return False
    return True


def nest_model_terms(cost: Cost, machine: Machine, precision: str, substitutions: Substitutions,
                work_by_class: Mapping[str, sympy.Expr]) -> tuple[TimeTerm, ...]:
    """t_model's terms of a nest whose global traffic differs from t_min's (a warm L2 that
    t_bound counts and the estimate does not)."""
    main = machine.ceiling(precision, cost.main_class)
    levels, _ = level_verdicts(cost, machine, substitutions, sympy.Add(*work_by_class.values()),
                                exact(main.peak_FLOPps), main.roof)
    return tuple(work_terms(work_by_class, machine, precision) + traffic_terms(levels))


def level_verdict(level: str, work: sympy.Expr, traffic: sympy.Expr, peak: sympy.Rational,
                  peak_roof: Roof, bandwidth: sympy.Rational) -> LevelVerdict:
    intensity = _intensity(work, traffic)
    ridge = peak / bandwidth
    # peak - I * bandwidth and 1 - I / ridge have the sign of ridge - I: the questions are
    # asked of I, whose witnesses and coefficients every machine shares (thresholds)
    order = pair_sign(intensity, ridge)
    against_ridge = None if order is None else -order
    return LevelVerdict(
        level=level,
        traffic_B=traffic,
        intensity=intensity,
        peak_FLOPps=peak,
        peak_roof=peak_roof,
        bandwidth_Bps=bandwidth,
        ridge=ridge,
        regime=regime_of(intensity, ridge) if order is None  # else the side order proved
        else Regime.MEMORY_BOUND if order < 0 else Regime.COMPUTE_BOUND,
        performance=smallest_of_two(peak, intensity * bandwidth, against_ridge),
        against_ridge=against_ridge,
    )


@functools.lru_cache(maxsize=256)
def _intensity(work: sympy.Expr, traffic: sympy.Expr) -> sympy.Expr:
    """W / Q_l in lowest terms, kept: every machine and precision has the same."""
    return cancel(work / traffic)


def work_terms(work_by_class: Mapping[str, sympy.Expr], machine: Machine,
               precision: str) -> list[TimeTerm]:
    terms = []
    for work_class, amount in work_by_class.items():
        ceiling = machine.ceiling(precision, work_class)
        rate = exact(ceiling.peak_FLOPps)
        terms.append(TimeTerm(ceiling.roof, term_key(work_class), rate, amount, amount / rate))
    return terms


def traffic_terms(levels: list[LevelVerdict]) -> list[TimeTerm]:
    """A roof per level verdict (the register file has none: it feeds the units at their own
    rate, its bandwidth derived from the fp32 rate, no bound for tensor-core work)."""
    return [TimeTerm(level_roof(level.level), term_key(level.level), level.bandwidth_Bps,
                     level.traffic_B, level.time_s) for level in levels]


def binding_term(terms: list[TimeTerm], t_min: sympy.Expr) -> TimeTerm | None:
    """The term no other exceeds, or None when symbolic terms cannot be ordered. Ties go to
    the first term (work before traffic). `t_min` is `largest` of the terms' times, which
    keeps one of them only where its comparisons proved every other no larger (the first of
    equals kept): that term, found without asking them again."""
    if isinstance(t_min, sympy.Max):
        return None
    return next((term for term in terms if term.seconds == t_min), None)
