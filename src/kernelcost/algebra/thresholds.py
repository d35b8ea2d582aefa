"""One expression against many numbers: what a verdict asks of every machine (an intensity
against each ridge, a tenth of it and ten times it; a grid's time against each peak). X - t
for a number t is c (G - t/c), with c > 0 the content of X and G the same for every machine:
G's values at the witness sizes and its shifted numerator and denominator are found once,
and each number then costs integer arithmetic, where the difference built in sympy is
evaluated and expanded anew. It answers as the witnesses and the shifted coefficients do
(module shifted) and leaves what they cannot tell to the other deciders of `decide`."""

from __future__ import annotations

import functools

import sympy

from . import rational_eval
from .rational_eval import Terms, Value
from .shifted import one_sign, part_sign, rational_sizes, rounded_as_sizes
from .witnesses import planned_value, sizes_of, split_signs, witness_values


class Core:
    """G, the primitive part of an expression: its values at the witness sizes, and its
    numerator and denominator with every size n written 1 + m where the denominator keeps
    one sign (None where it does not, or G is no rational function of sizes)."""

    def __init__(self, core: sympy.Expr, sizes: tuple[sympy.Symbol, ...],
                 plan: rational_eval.Plan):
        self.values: list[Value | None] = [planned_value(plan, point)
                                           for point in witness_values(len(sizes))]
        self.fraction: tuple[Terms, Terms] | None = None
        self.denominator_sign = 0
        rounded = rounded_as_sizes(core)
        shifted_sizes = None if rounded is None else rational_sizes(rounded)
        fraction = (None if shifted_sizes is None
                    else rational_eval.shifted_fraction(rounded, shifted_sizes))
        if fraction is not None and shifted_sizes is not None:
            self.denominator_sign = part_sign(fraction[1], shifted_sizes) or 0
            self.fraction = fraction if self.denominator_sign else None
            self.origin = (0,) * len(shifted_sizes)  # the exponents of the constant term

    def split(self, number: sympy.Rational, zero_counts_as: int) -> bool:
        """Whether G - number is negative at some witness sizes and positive at others (a
        zero counts as `zero_counts_as`), as witnesses.both_signs finds it."""
        return split_signs((None if value is None else rational_eval.sign(
            (value[0] * number.q - number.p * value[1], 1)) for value in self.values),
            zero_counts_as)

    def sign(self, number: sympy.Rational) -> int | None:
        """The sign G - number has at every size by its shifted coefficients, or None."""
        if self.fraction is None:
            return None
        (numerator, numerator_scale), (denominator, denominator_scale) = self.fraction
        # N/a - (p/q) D/b over the positive a*b*q: q*b*N - p*a*D
        top, bottom = number.q * denominator_scale, number.p * numerator_scale
        terms = {exponents: top * coefficient for exponents, coefficient in numerator.items()}
        for exponents, coefficient in denominator.items():
            terms[exponents] = terms.get(exponents, 0) - bottom * coefficient
        if not any(terms.values()):
            return 0
        sign = one_sign(terms.get(self.origin, 0), terms.values())
        return None if sign is None else sign * self.denominator_sign


@functools.lru_cache(maxsize=512)
def core(primitive: sympy.Expr) -> Core | None:
    """The Core of a primitive part, or None where its sizes or plan are missing."""
    sizes = sizes_of(primitive)
    plan = None if sizes is None else rational_eval.compiled(primitive, sizes)
    return None if plan is None or sizes is None else Core(primitive, sizes, plan)


def against(expr: sympy.Expr, number: sympy.Rational, zero_counts_as: int
            ) -> tuple[bool, int | None] | None:
    """expr - number as (split, sign): split where the witnesses show both signs, else the
    sign at every size where shifted coefficients prove one (None where they do not). None
    where expr is not c G with c > 0 and G an expression of sizes with a plan."""
    content, primitive = _content_primitive(expr)
    if not content.is_Rational or content <= 0 or primitive.is_number:
        return None
    found = core(primitive)
    if found is None:
        return None
    scaled = number / content
    if found.split(scaled, zero_counts_as):
        return True, None
    return False, found.sign(scaled)


@functools.lru_cache(maxsize=1024)
def _content_primitive(expr: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    # kept: a verdict compares one ratio with a tenth, with ten and with one
    return expr.as_content_primitive()
