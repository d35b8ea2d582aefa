"""The overlap effect: the work of different units, and the traffic that feeds them, hide
each other only in part.

The roofline takes the largest of its times, as if each unit ran beside the others at its own
peak and every byte arrived before it was needed. Units of one SM share its warp schedulers'
issue slots and its register file: a kernel that keeps the tensor units busy and also issues
exponentials and FMA work (an attention's softmax between its matmuls) waits on one while it
feeds the other, even where its warps are specialised to overlap them (FlashAttention-3's
ping-pong). And a tile's loads hide behind another tile's work only once the pipeline is
full. The estimate takes two p-norms of the times after the effects before this one (the
members of a `serial` group after its first are already in that first term's sum):

    w = (t_1^u + t_2^u + ...)^(1/u)     over the work terms
    t = (w^p + q^p)^(1/p)              q: the largest traffic term

each between the largest of its times and their sum (an exponent of infinity is the
roofline's perfect overlap, 1 none). A GEMM at the achievable rate has one work term, and its
traffic, well under its matmuls, adds little at a large p (the MAMF figures are measured with
it). UNITS and TRAFFIC are one figure each for every machine and spec, chosen together on the
calibration rows of the published corpus alone (`tools/fit_overlap.py`, which
`tests/test_overlap.py` holds them to); no validation row was read to choose them.

factor = (the larger term's time before any derate) / t, on that term (Derate.whole: it holds
the earlier derates of its term): its time becomes t, the other terms stay under it. As every
effect, it acts at the verdict's sizes: terms an unset size leaves symbolic get none."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import sympy

from ...base.architectures import MmaPath
from ...base.kinds import EffectCause, TermKey, TermKind
from ...base.levels import Level
from ...base.records import record
from ..derates import NEGLIGIBLE, Derate, derated
from .achievable import mma_path
from .context import ROOFS, EffectContext

OVERLAP = EffectCause("overlap")

UNITS = Fraction(7, 5)  # p of the work terms' norm: tools/fit_overlap.py
TRAFFIC = Fraction(2)  # p of (work, traffic): tools/fit_overlap.py


@record
class OverlapFinding:
    """The times that overlap in part, and what they take together."""

    work: tuple[tuple[TermKey, sympy.Expr], ...]  # each work term's key and time (s)
    units: Fraction  # p of the work terms' norm
    units_s: sympy.Expr  # the work terms' norm (s)
    traffic: tuple[TermKey, sympy.Expr] | None  # the largest traffic term's key and time (s)
    exponent: Fraction  # p of (the work terms' norm, the traffic time)
    together: sympy.Expr  # s


class Overlap:
    """The work terms by their norm, then with the largest traffic term by theirs."""

    name = OVERLAP
    stage = ROOFS
    findings = (OverlapFinding,)

    def derates(self, context: EffectContext) -> tuple[Derate, ...]:
        summed = serial_followers(context)
        timed = [(term, sympy.sympify(derated(term, context.earlier).seconds))
                 for term in context.terms if term.key not in summed]
        if not all(time.is_number for _, time in timed):
            return ()  # an unset size: the effects act at the verdict's sizes
        timed = [pair for pair in timed if pair[1] > 0]
        work = [pair for pair in timed if pair[0].roof.kind == TermKind.WORK]
        waited = waited_levels(context)
        traffic = max((pair for pair in timed if pair[0].key in waited),
                      key=lambda pair: pair[1], default=None)
        if not work or (len(work) < 2 and traffic is None):
            return ()
        busiest = max(work, key=lambda pair: pair[1])
        units = norm([time for _, time in work], UNITS)
        together = units if traffic is None else norm([units, traffic[1]], TRAFFIC)
        larger = busiest[0] if traffic is None or units >= traffic[1] else traffic[0]
        if together <= max(pair[1] for pair in timed) * (1 + NEGLIGIBLE):
            return ()  # a time that dwarfs the others: no cause to name for what is left
        finding = OverlapFinding(tuple((term.key, time) for term, time in work), UNITS, units,
                                 None if traffic is None else (traffic[0].key, traffic[1]),
                                 TRAFFIC, together)
        factor = sympy.sympify(larger.seconds) / together  # <= 1: derates only lower rates
        return (Derate(OVERLAP, factor, finding, larger.key, whole=True),)


def serial_followers(context: EffectContext) -> frozenset[str]:
    """The terms of a `serial` group after its first: their time is already in the first's."""
    return frozenset(key for group in context.cost.serial for key in group[1:])


def waited_levels(context: EffectContext) -> frozenset[Level]:
    """The levels whose traffic the computing warps wait on: shared unless an asynchronous
    MMA (wgmma, tcgen05) reads its operands there itself; global and L2 unless a keep of two
    stages or more fills one tile while another computes."""
    levels = {Level(level) for level in context.cost.traffic} - {Level.TMEM}
    if mma_path(context.cost.requirements) in (MmaPath.WGMMA, MmaPath.TCGEN05):
        levels.discard(Level.SHARED)
    stages = [context.at(scope.stages) for scope in context.cost.scopes]
    if any(stage.is_number and stage >= 2 for stage in stages):
        levels -= {Level.GLOBAL, Level.L2, Level.MALL}
    return frozenset(levels)


def norm(times: Sequence[sympy.Expr], exponent: Fraction) -> sympy.Expr:
    """(t_1^p + t_2^p + ...)^(1/p) of positive times as an exact rational, never under the
    largest: the largest time times the norm of the ratios in floats, whose 15 digits no
    later step needs more of."""
    exact = sorted((_fraction(time) for time in times), reverse=True)
    p = float(exponent)
    scale = Fraction(sum(float(time / exact[0]) ** p for time in exact) ** (1 / p))
    value = exact[0] * max(scale, Fraction(1))
    return sympy.Rational(value.numerator, value.denominator)


def _fraction(value: sympy.Expr) -> Fraction:
    return Fraction(int(value.p), int(value.q)) if value.is_Rational else Fraction(float(value))
