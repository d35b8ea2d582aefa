"""Closed forms that keep an unevaluated sympy Sum, evaluated by adding up their terms.

Where a bound is not one sympy can sum (`for i in 0..n, j in 0..min(i * i, n)` counts
W = Sum(Min(_i_t**2, n), (_i_t, 0, n - 1)), language.md section 12), the count stays exact
but holds a Sum. Numbers still come from it: at sizes that are numbers, each Sum is a finite
sum whose terms are added with numpy, a block at a time (`sum_values`: one assignment of
the sizes; `vectorized`: an array of one size, as a sweep asks). Nested sums and bounds that
move with an outer index are evaluated the same way, one outer term at a time.

A Sum whose terms are integers (iteration counts, elements) comes out as an exact Integer
while it stays under 2**53; other sums as a Float. Limits are rounded inward (a figure's
continuous path asks at n = 10.5: the terms 0..9). The terms one evaluation adds are bounded
by MAX_TERMS: past them it is refused with the count (a size error, exit 2), never a hang."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import sympy

from ..base.errors import BudgetError, Code, Diagnostic

MAX_TERMS = 200_000_000  # about ten seconds of numpy for a summand of a few operations
BLOCK_TERMS = 1 << 20  # terms evaluated at a time: a few tens of MB of arrays
EXACT_BELOW = 2.0 ** 53  # integers a double holds exactly


def has_sum(expr: object) -> bool:
    return isinstance(expr, sympy.Basic) and expr.has(sympy.Sum)


def sum_values(expr: sympy.Expr) -> sympy.Expr:
    """expr with every Sum that has no free size left replaced by its value."""
    if not has_sum(expr):
        return expr
    found = {}
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Sum) and not node.free_symbols and node not in found:
            found[node] = _value(node)
    return expr.xreplace(found) if found else expr


class Summed:
    """A numpy function of an array of values of one size, for a form that keeps Sums and
    has no other free size: each Sum added up at each value. `used`: the terms the last
    call added; a call past `max_terms` raises BudgetError."""

    def __init__(self, expr: sympy.Expr, symbol: sympy.Symbol, max_terms: int = MAX_TERMS):
        self.budget = _Budget(max_terms)
        self.compiled = sympy.lambdify(symbol, expr, printer=_sum_printer(),
                                       modules=[{"_nsum": self.budget.add_up, **ROUNDING}, "numpy"])

    def __call__(self, sizes):
        self.budget.used = 0
        return self.compiled(sizes)

    @property
    def used(self) -> float:
        return self.budget.used


def vectorized(expr: sympy.Expr, symbol: sympy.Symbol) -> Summed:
    """A numpy function of an array of sizes for a form that keeps Sums (Summed)."""
    return Summed(expr, symbol)


def _value(node: sympy.Sum) -> sympy.Expr:
    import numpy

    total = float(numpy.asarray(sympy.lambdify((), node, modules=[
        {"_nsum": _Budget().add_up, **ROUNDING}, "numpy"], printer=_sum_printer())()))
    if not math.isfinite(total):
        return sympy.Float(total)
    if node.function.is_integer and abs(total) < EXACT_BELOW:
        return sympy.Integer(round(total))
    return sympy.Float(total, 15)


class _Budget:
    """The terms added so far in one evaluation, against MAX_TERMS."""

    def __init__(self, max_terms: int = MAX_TERMS) -> None:
        self.used = 0.0
        self.max_terms = max_terms

    def add_up(self, summand: Callable, low, high, *arguments):
        """sum over t = low..high of summand(t, *arguments), for each point of the arrays
        low, high and arguments (broadcast together): an array of their shape, or a number."""
        import numpy

        shaped = numpy.broadcast_arrays(numpy.asarray(low, dtype=float),
                                        numpy.asarray(high, dtype=float),
                                        *(numpy.asarray(a, dtype=float) for a in arguments))
        first = numpy.ceil(shaped[0] - 1e-9)
        last = numpy.floor(shaped[1] + 1e-9)
        counts = numpy.maximum(last - first + 1, 0)
        self.used += float(counts.sum())
        if self.used > self.max_terms:
            raise BudgetError(Code.SUM_TOO_LONG, Diagnostic(
                None, f"a closed form keeps a sum of {self.used:,.0f} terms at these sizes, "
                      f"more than the {self.max_terms:,} kernelcost adds up",
                "choose smaller sizes, or write the loop bounds so that the sum has a "
                "closed form (split a min or max bound into two loops)"))
        totals = numpy.zeros(first.shape)
        for point in numpy.ndindex(first.shape):
            values = tuple(float(array[point]) for array in shaped[2:])
            totals[point] = _one_sum(summand, float(first[point]), float(counts[point]), values)
        return totals if totals.shape else float(totals)


def _one_sum(summand: Callable, first: float, count: float, arguments: tuple) -> float:
    import numpy

    total, done = 0.0, 0
    while done < count:
        size = int(min(BLOCK_TERMS, count - done))
        terms = numpy.arange(size, dtype=float) + (first + done)
        values = numpy.asarray(summand(terms, *arguments), dtype=float)
        total += float(values.sum()) if values.shape else float(values) * size
        done += size
    return total


class ExactRatios:
    """For a numpy printer: a sum or product with fractions among its coefficients as one
    division of two polynomials with integer coefficients, exact while they stay under 2**53,
    so that a whole value comes out whole. numpy's printer writes A*B/3 as (1/3)*A*B, whose
    float at A = 7, B = 3 is 7.000000000000001: tune refused 7 threads as no whole count."""

    def _print_Add(self, expr, order=None):
        return self._ratio(expr) or super()._print_Add(expr, order)

    def _print_Mul(self, expr):
        return self._ratio(expr) or super()._print_Mul(expr)

    def _ratio(self, expr: sympy.Expr) -> str | None:
        if all(number.is_Integer for number in expr.atoms(sympy.Rational)):
            return None  # the common case, and the numerator printed below: no fraction
        parts = _integer_ratio(expr)
        if parts is None or parts[1] == 1:
            return None
        numerator, denominator = parts
        printed = self._print  # type: ignore[attr-defined]  # the printer's
        return f"(({printed(numerator)}) / ({printed(denominator)}))"


class ExactRounding(ExactRatios):
    """For a numpy printer: floor and ceiling of a ratio of polynomials with integer
    coefficients as numpy's floor division of the two, exact while they stay under 2**53.
    numpy's printer writes floor(7/3 - t/3), whose float at t = 4 is 1.0000000000000002: its
    ceiling 2, not 1, counted a block too many a row of a triangular grid."""

    def _print_floor(self, expr):
        return self._quotient(expr.args[0]) or super()._print_floor(expr)

    def _print_ceiling(self, expr):
        quotient = self._quotient(-expr.args[0])
        return f"(-{quotient})" if quotient else super()._print_ceiling(expr)

    def _quotient(self, argument: sympy.Expr) -> str | None:
        parts = _integer_ratio(argument)
        if parts is None:
            return None
        numerator, denominator = parts
        printed = self._print  # type: ignore[attr-defined]  # the printer's
        return f"_floor_ratio({printed(numerator)}, {printed(denominator)})"


def floor_ratio(numerator, denominator):
    """floor(numerator / denominator), exact for integers under 2**53 (numpy's floor division
    of the two); where that has no value (an infinite numerator), the floor of the quotient.
    Lambdify's name for it: ROUNDING."""
    import numpy

    with numpy.errstate(invalid="ignore", divide="ignore"):
        exact = numpy.floor_divide(numerator, denominator)
        return numpy.where(numpy.isnan(exact), numpy.floor(numerator / denominator), exact)


ROUNDING = {"_floor_ratio": floor_ratio}  # the names ExactRounding's code calls


def _integer_ratio(expr: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr] | None:
    """expr as (numerator, denominator), polynomials with integer coefficients, or None."""
    numerator, denominator = sympy.fraction(sympy.together(expr))
    if _integer_polynomial(numerator) and _integer_polynomial(denominator):
        return numerator, denominator
    return None


def _integer_polynomial(expr: sympy.Expr) -> bool:
    """Whether expr is a polynomial in its symbols with integer coefficients: its value at
    integers is an integer, computed exactly in floats under 2**53."""
    return expr.is_polynomial() and all(
        coefficient.is_Integer for coefficient in sympy.Poly(expr, *expr.free_symbols).coeffs()) \
        if expr.free_symbols else expr.is_Integer


class NestedMinMax:
    """For a numpy printer: Max and Min as nested two-argument calls. numpy's printer writes
    them through functools.reduce, a name lambdify leaves undefined with a custom printer."""

    def _print_Max(self, expr):
        return self._nested("numpy.maximum", expr.args)

    def _print_Min(self, expr):
        return self._nested("numpy.minimum", expr.args)

    def _nested(self, function: str, args) -> str:
        text = self._print(args[-1])  # type: ignore[attr-defined]  # the printer's
        for arg in reversed(args[:-1]):
            text = f"{function}({self._print(arg)}, {text})"  # type: ignore[attr-defined]
        return text


@functools.cache
def _sum_printer() -> type:
    """numpy code in which a Sum is a call `_nsum(lambda t, sizes...: summand, low, high,
    sizes...)`: the sizes are passed, not closed over, so that an array of them is summed
    point by point. Min and Max are nested two-argument calls (numpy's printer writes a
    functools.reduce that lambdify leaves undefined with a custom printer). Built on first
    use: the numpy printer is loaded only by a form that keeps a Sum."""
    from sympy.printing.numpy import NumPyPrinter

    class SumPrinter(ExactRounding, NestedMinMax, NumPyPrinter):
        def _print_Sum(self, expr):
            function = expr.function
            for index, low, high in expr.limits:  # the first limit is the innermost
                sizes = sorted((function.free_symbols | low.free_symbols
                                | high.free_symbols) - {index}, key=lambda s: s.name)
                names = ", ".join(self._print(s) for s in (index, *sizes))
                passed = "".join(f", {self._print(s)}" for s in sizes)
                function = _Printed(f"_nsum(lambda {names}: ({self._print(function)}), "
                                    f"{self._print(low)}, {self._print(high)}{passed})",
                                    frozenset(sizes))
            return self._print(function)

        def _print__Printed(self, expr):
            return expr.text

    return SumPrinter


class _Printed(sympy.Expr):
    """Code already printed for an inner limit of a Sum, standing for it in the outer one."""

    def __new__(cls, text: str, sizes: frozenset):
        node = super().__new__(cls)
        node.text, node.sizes = text, sizes
        return node

    @property
    def free_symbols(self):
        return set(self.sizes)
