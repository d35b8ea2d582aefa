"""Stage: Cost x Machine -> t_floor, what no implementation of the computation beats on the
machine from a cold L2 (DESIGN.md, "Three times").

    t_floor = max( compulsory global bytes / HBM bandwidth ,
                   max over work classes W_c / (the fastest rate the class may legally use) )

- The bytes are the compulsory ones (Cost.compulsory_B): each element an input holds read
  once, each element written once, whatever the spec keeps, stages or tiles. With a warm L2
  (module warm), the warm reads L2 can hold at all, min(warm bytes, capacity), come from L2
  at its bandwidth, and only the rest from HBM: the state t_bound assumes too.
- The HBM bandwidth is the machine file's datasheet figure: it does not scale with the SM
  clock.
- The work of each class goes on the fastest units it may legally use, at the peaks of the
  machine file (its maximum clock): a contraction the machine can run as MMA (`fma`) on the
  tensor peak of the precision, dense; element-wise arithmetic (`vector`) on the vector
  peak; special functions (`sfu`) on the SFU and the FP32 FMA units together, since an
  exponential computed as a polynomial on the FMA units is legal (FlashAttention-4): the
  FMA units add fp32 peak / (FLOP of one such exponential: FlashAttention-4's degree-3
  polynomial with its range reduction, 10 FLOP, module polyexp) to the SFU's rate.
  `legal_rate` is the one place that says which units a class may use.
- Classes are taken apart (the largest of their times), as t_bound takes them: units of
  different classes run at once. Nothing is quantised: a floor knows no blocks.

Each term is at most a term of t_bound (the same bytes or fewer, the same work on a rate at
least as high, unquantised), so t_floor <= t_bound holds by construction; `order` checks it
at every verdict with numbers."""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from ..algebra.decide import largest
from ..base.kinds import Precision, TermKey, TermKind, WorkClass, term_key
from ..base.levels import Level
from ..base.records import record
from ..count.values import evaluate, exact
from ..hardware.machine import Machine, Roof, level_roof
from .polyexp import DEFAULT_DEGREE, ExpOnFma
from .warm import WarmL2

POLYNOMIAL_PRECISION = Precision.FP32  # an exponential as a polynomial runs on the FP32 FMA units

Values = Mapping[sympy.Symbol, sympy.Expr]  # sizes by symbol


@record
class FloorTerm:
    """One term of t_floor: a work class on its fastest legal rate, or compulsory bytes on a
    level's bandwidth."""

    kind: TermKind
    key: TermKey  # the work class (fma, vector, sfu) or the level (global, l2)
    units: tuple[Roof, ...]  # the ceilings whose rates add up: the bf16 tensor peak alone,
    # the sfu rate and the fp32 vector peak for special functions; the level's for traffic
    amount: sympy.Expr  # FLOP or B
    rate: sympy.Rational  # FLOP/s or B/s
    seconds: sympy.Expr  # amount / rate


@record
class Floor:
    terms: tuple[FloorTerm, ...]
    seconds: sympy.Expr | None  # t_floor: the largest term; None without any term


def legal_rate(machine: Machine, precision: str, work_class: str) -> tuple[tuple[Roof, ...],
                                                                           sympy.Rational]:
    """The ceilings a work class may use at once and their summed rate, in FLOP/s of the
    class's own counting (one FLOP an SFU operation). A class split differently (tensor
    contractions apart from element-wise FMA) changes this function only."""
    ceiling = machine.ceiling(precision, work_class)
    rate = exact(ceiling.peak_FLOPps)
    if work_class != WorkClass.SFU or machine.sfu_OPps is None:
        return (ceiling.roof,), rate
    fma = machine.ceiling(POLYNOMIAL_PRECISION, WorkClass.VECTOR)
    per_exp = ExpOnFma(sympy.Integer(1), DEFAULT_DEGREE).vector_FLOP_per_exp
    return (ceiling.roof, fma.roof), rate + exact(fma.peak_FLOPps) / per_exp


def floor(compulsory_B: sympy.Expr | None, machine: Machine, precision: str,
          values: Values, work_by_class: Mapping[str, sympy.Expr],
          warm: WarmL2 | None = None) -> Floor:
    """t_floor of a kernel whose compulsory bytes are `compulsory_B` (None: not counted, no
    traffic term) and whose work is `work_by_class` (at the sizes of `values` already), on
    `machine` at `precision`, from a cold L2 or the stated warm one."""
    terms = [_work_term(machine, precision, work_class, amount)
             for work_class, amount in work_by_class.items() if amount != 0]
    hbm = machine.bandwidth(Level.GLOBAL)
    if compulsory_B is not None and hbm is not None:
        amount = evaluate(compulsory_B, values)
        if warm is not None:  # (a warm `out` tensor's reads are no compulsory bytes)
            served = warm.bound_B
            amount = sympy.Max(0, amount - served)
            terms.append(FloorTerm(TermKind.TRAFFIC, Level.L2, (level_roof(Level.L2),), served,
                                   warm.l2_bandwidth_Bps, served / warm.l2_bandwidth_Bps))
        if amount != 0:
            rate = exact(hbm)
            terms.append(FloorTerm(TermKind.TRAFFIC, Level.GLOBAL, (level_roof(Level.GLOBAL),),
                                   amount, rate, amount / rate))
    seconds = largest(*[term.seconds for term in terms]) if terms else None
    return Floor(tuple(terms), seconds)


def _work_term(machine: Machine, precision: str, work_class: str,
               amount: sympy.Expr) -> FloorTerm:
    units, rate = legal_rate(machine, precision, work_class)
    return FloorTerm(TermKind.WORK, term_key(work_class), units, amount, rate, amount / rate)
