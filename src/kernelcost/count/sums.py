"""Exact sums over loop counters, in closed form. `min`/`max` in a summand are split at the
counter value where the smaller (larger) argument changes, so clipped edge tiles count exactly
(full tiles plus the remainder); factors free of the counter stay outside the sum, so that
independent clipped dimensions give a product of one-dimensional sums; what sympy cannot close
stays an unevaluated Sum (still exact, flagged as not closed)."""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from sympy.functions.elementary.miscellaneous import MinMaxBase
from sympy.polys.polyerrors import BasePolynomialError

from ..algebra.floor_sums import rounded_sum
from ..algebra.witnesses import shows
from ..base import watchdog
from .facts import Facts
from .loops import Loop

_CALLS = (sympy.Function, MinMaxBase)  # a rounding, Min or Max: a generator of a polynomial


class Summer:
    """Closed-form sums over loop counters."""

    def __init__(self, facts: Facts):
        self.facts = facts
        self.closed = True  # False once a sum had to stay unevaluated
        self.summing: Loop | None = None  # the loop over_loops is summing, for the budget
        self.pieces = 1  # ranges its min/max splits have made of that loop's sum so far
        # sympy's summation of one summand and range: statements under the same outer loops
        # meet the same sums there once their inner loops are summed
        self._sums: dict[tuple[sympy.Expr, ...], sympy.Expr] = {}
        # each range's sum, with whether it left a Sum open and the pieces its splits made:
        # the loops around statements that share their inner loops meet the same summands
        # (flash_attention_hopper: 136 sums of 61, 20 ms on the repeats, its warpgroup loop
        # split at the same min/max each time)
        self._ranges: dict[tuple[sympy.Expr, ...], tuple[sympy.Expr, bool, int]] = {}

    def over_loops(self, summand: sympy.Expr, loops: Sequence[Loop]) -> sympy.Expr:
        """Sum summand (in the loops' iterators) over every point of the nest `loops`."""
        total = summand
        outer_stage = watchdog.current()
        for loop in reversed(loops):
            self.summing, self.pieces = loop, 1
            self._announce()
            # xreplace, not subs: an iterator is never a bound variable of a sum left open
            total = self.facts.in_counter(loop)(total)
            total = self.range_sum(total, loop.counter, sympy.Integer(0), loop.trips - 1)
        if self.summing is not None:
            self.summing = self.facts.activity = None
            watchdog.stage(*outer_stage)
        return total

    def range_sum(self, summand: sympy.Expr, counter: sympy.Symbol, first: sympy.Expr,
                  last: sympy.Expr) -> sympy.Expr:
        """sum of summand for counter = first..last (empty when last < first), once for each
        range and the facts it is summed under (a step taken as positive later may prove
        more)."""
        self.facts.check_budget()
        key = (summand, counter, first, last, len(self.facts.slack))
        found = self._ranges.get(key)
        if found is None:
            closed, pieces = self.closed, self.pieces
            self.closed = True
            total = self._range_sum(summand, counter, first, last)
            found = self._ranges[key] = (total, not self.closed, self.pieces - pieces)
            self.closed, self.pieces = closed, pieces
        total, opened, pieces = found
        self.closed = self.closed and not opened
        if pieces:
            self.pieces += pieces
            self._announce()
        return total

    def _range_sum(self, summand: sympy.Expr, counter: sympy.Symbol, first: sympy.Expr,
                   last: sympy.Expr) -> sympy.Expr:
        count = last - first + 1
        # a count not negative at some witness sizes is no negative to sympy either, which
        # searches for milliseconds before it says so
        if not shows(count, (0, 1)) and count.is_negative:
            return sympy.Integer(0)  # not sympy's convention, which sums such a range backward
        if counter not in summand.free_symbols:
            return summand * count
        constant, varying = summand.as_independent(counter, as_Add=False)
        if constant != 1:
            # a separable summand: the factors free of the counter leave the sum unexpanded,
            # so c clipped dimensions give a product of c one-dimensional sums, not 2^c terms
            return constant * self.range_sum(varying, counter, first, last)
        summand = sympy.expand(summand) if not summand.has(sympy.Min, sympy.Max) else summand
        choice = self._first_minmax(summand, counter)
        if choice is not None:
            return self._split_minmax(summand, counter, first, last, choice)
        if summand.has(sympy.Sum):
            # an inner sum sympy could not close: summing over it again cannot close it
            # either, and sympy's search for a way can take minutes (a four-deep nest)
            self.closed = False
            return sympy.Sum(summand, (counter, first, last))
        if any(counter in rounding.free_symbols
               for rounding in summand.atoms(sympy.floor, sympy.ceiling)):
            # floors and ceilings of the counter with a rational slope: closed by residue
            # classes (algebra.floor_sums), which sympy's summation does not try, and whose
            # search for another way takes seconds (telescoping a sum of roundings)
            closed = rounded_sum(summand, counter, first, last)
            if closed is not None:
                return closed
        result = self._summation(summand, counter, first, last)
        if result.has(sympy.Sum):
            self.closed = False
        return result

    def _summation(self, summand: sympy.Expr, counter: sympy.Symbol, first: sympy.Expr,
                   last: sympy.Expr) -> sympy.Expr:
        key = (summand, counter, first, last)
        if key not in self._sums:
            closed = _power_sums(summand, counter, first, last)
            try:
                self._sums[key] = (sympy.summation(summand, (counter, first, last))
                                   if closed is None else closed)
            except (BasePolynomialError, NotImplementedError, ValueError):
                # sympy gives up on some coefficient domains, or fails inside its solvers (a
                # Max compared with nan): the sum then stays exact, unevaluated
                self._sums[key] = sympy.Sum(summand, (counter, first, last))
        return self._sums[key]

    @staticmethod
    def _first_minmax(expr: sympy.Expr, counter: sympy.Symbol) -> sympy.Expr | None:
        """An innermost min/max over the counter: split it first, the outer ones then
        often resolve on each side. Never one inside an unevaluated Sum: it may hold that
        sum's bound counters, and a split point made of them would leak out of the sum."""
        if isinstance(expr, sympy.Sum):
            return None
        for arg in expr.args:
            node = Summer._first_minmax(arg, counter)
            if node is not None:
                return node
        if isinstance(expr, (sympy.Min, sympy.Max)) and counter in expr.free_symbols:
            return expr
        return None

    def _split_minmax(self, summand: sympy.Expr, counter: sympy.Symbol, first: sympy.Expr,
                      last: sympy.Expr, node: sympy.Expr) -> sympy.Expr:
        left, *rest = node.args
        right = node.func(*rest) if len(rest) > 1 else rest[0]
        # `chosen_left` holds where left is the one min (max) picks
        difference = sympy.expand(left - right)
        if not isinstance(node, sympy.Min):
            difference = -difference  # Max picks left where left - right >= 0
        line = linear_coefficients(difference, counter)
        if line is None:
            closed = rounded_sum(summand, counter, first, last)  # a rounding with a number slope
            if closed is not None:
                return closed
            self.closed = False
            return sympy.Sum(summand, (counter, first, last))
        slope, offset = line
        at_first = difference.xreplace({counter: first})
        at_last = difference.xreplace({counter: last})
        # each side's summand built only where it is summed: rebuilding the summand runs
        # sympy's evaluation of every rounding and min/max above the node
        if self.facts.nonpositive(at_first) and self.facts.nonpositive(at_last):
            return self.range_sum(summand.xreplace({node: left}), counter, first, last)
        if self.facts.nonnegative(at_first) and self.facts.nonnegative(at_last) and not (
            at_first == 0 and at_last == 0
        ):
            return self.range_sum(summand.xreplace({node: right}), counter, first, last)
        if slope == 0:
            # the arguments move together: min(a + g, b + g) = min(a, b) + g, free of the
            # counter where it chooses
            moving = sympy.expand(left - left.xreplace({counter: 0}))
            still = node.func(sympy.expand(left - moving), sympy.expand(right - moving))
            return self.range_sum(summand.xreplace({node: still + moving}), counter, first, last)
        # slope*t + offset <= 0  <=>  t <= -offset/slope (slope > 0), t >= .. (slope < 0)
        # a slope that may be zero would divide by zero: only a proven sign splits
        with_left = summand.xreplace({node: left})
        with_right = summand.xreplace({node: right})
        if self.facts.positive(slope):
            split = sympy.floor(sympy.expand(-offset / slope))
            split = self._clamp(split, first - 1, last)
            self._one_more_piece()
            return (self.range_sum(with_left, counter, first, split)
                    + self.range_sum(with_right, counter, split + 1, last))
        if self.facts.positive(-slope):
            split = sympy.ceiling(sympy.expand(-offset / slope))
            split = self._clamp(split, first, last + 1)
            self._one_more_piece()
            return (self.range_sum(with_right, counter, first, split - 1)
                    + self.range_sum(with_left, counter, split, last))
        self.closed = False
        return sympy.Sum(summand, (counter, first, last))

    def _one_more_piece(self) -> None:
        self.pieces += 1
        self._announce()

    def _announce(self) -> None:
        """Tell the budget and the command's watchdog which loop's sum is running, and into
        how many ranges its min/max splits have cut it."""
        if self.summing is None:
            return  # a sum over one range, outside over_loops
        # the symbol's name, not its text: formatting a sympy symbol runs its printer
        doing = (f"summing over loop `{self.summing.var.name}`, split at its min/max bounds "
                 f"into {self.pieces} ranges so far (a closed form over c clipped bounds that "
                 "depend on each other can have 2^c pieces)")
        self.facts.activity = (doing, self.summing.span)
        watchdog.stage(doing, self.summing.span)

    def _clamp(self, value: sympy.Expr, low: sympy.Expr, high: sympy.Expr) -> sympy.Expr:
        if not self.facts.nonnegative(value - low):
            value = sympy.Max(value, low)
        if not self.facts.nonnegative(high - value):
            value = sympy.Min(value, high)
        return value



def linear_coefficients(expr: sympy.Expr,
                        var: sympy.Symbol) -> tuple[sympy.Expr, sympy.Expr] | None:
    """(slope, offset) of expr as a polynomial of degree at most 1 in var, as
    `sympy.Poly(expr, var).all_coeffs()` gives them (slope 0 and offset expr at degree 0), or
    None where expr is no such polynomial. Read off the terms where each is a product of
    plain factors (_plain_factor), var at most once: there the coefficients are the sums of
    the terms, as the polynomial's coefficients written back are (building the Poly and its
    coefficient domain cost a tenth of a millisecond a split). Anything else goes to sympy's
    Poly; a property test holds the two equal."""
    slope: list[sympy.Expr] = []
    offset: list[sympy.Expr] = []
    for term in sympy.Add.make_args(expr):
        if var not in term.free_symbols:
            if not all(_plain_factor(factor, var) for factor in sympy.Mul.make_args(term)):
                return _poly_coefficients(expr, var)
            offset.append(term)
        elif term == var:
            slope.append(sympy.S.One)
        elif term.is_Mul and term.args.count(var) == 1:
            rest = [factor for factor in term.args if factor != var]
            if not all(_plain_factor(factor, var) for factor in rest):
                return _poly_coefficients(expr, var)
            slope.append(sympy.Mul(*rest))
        else:
            return _poly_coefficients(expr, var)
    if not slope:
        return _poly_coefficients(expr, var)
    return sympy.Add(*slope), sympy.Add(*offset)


def _plain_factor(factor: sympy.Expr, var: sympy.Symbol) -> bool:
    """A factor that leaves the polynomial's coefficients in a ring over the integers or
    rationals, each written back as the sum of its terms: a rational, a symbol, a call
    (a generator) or a positive integer power of one; not var itself, a float (RR writes
    floats back) or a denominator (a fraction field writes one quotient back)."""
    if factor.is_Pow:
        factor, exponent = factor.base, factor.exp
        if not (exponent.is_Integer and exponent > 0):
            return False
    if factor.is_Rational or factor.is_Symbol:
        return factor != var
    return isinstance(factor, _CALLS) and var not in factor.free_symbols


def _poly_coefficients(expr: sympy.Expr,
                       var: sympy.Symbol) -> tuple[sympy.Expr, sympy.Expr] | None:
    poly = sympy.Poly(expr, var) if expr.is_polynomial(var) else None
    if poly is None or poly.degree() > 1:
        return None
    return tuple(poly.all_coeffs()) if poly.degree() == 1 else (sympy.Integer(0), poly.as_expr())


def _power_sums(summand: sympy.Expr, counter: sympy.Symbol, first: sympy.Expr,
                last: sympy.Expr) -> sympy.Expr | None:
    """The sum of an expanded polynomial in the counter by Faulhaber's formula, term by term,
    written as sympy's summation writes it (the terms free of the counter times the count),
    without the telescoping search sympy tries first: a solve and a simplify that load
    sympy.physics, 0.1 s for one triangular nest. None for any other summand."""
    # power -> its coefficient: summation's Poly in the counter adds the terms of one power
    # first ((-T - 1) t, not -T t - t)
    powers: dict[int, sympy.Expr] = {}
    free = sympy.Integer(0)
    for term in sympy.Add.make_args(summand):
        coefficient, power = term.as_coeff_exponent(counter)
        if counter in coefficient.free_symbols or not (power.is_Integer and power >= 0):
            return None
        if power == 0:
            free += coefficient
        else:
            powers[int(power)] = powers.get(int(power), sympy.Integer(0)) + coefficient
    if first == last:
        # one point (a split's last tile): (B(p + 1, x + 1) - B(p + 1, x))/(p + 1) is x**p, and
        # expanded it is what the difference of the Bernoulli polynomials expands to; they
        # take a millisecond or so to build (a property test holds the two forms equal)
        return free + sympy.Add(*(coefficient * sympy.expand(first**power)
                                  for power, coefficient in powers.items()))
    return free * (last - first + 1) + sympy.Add(*(
        coefficient * sympy.expand((sympy.bernoulli(power + 1, last + 1)
                                    - sympy.bernoulli(power + 1, first)) / (power + 1))
        for power, coefficient in powers.items()))
