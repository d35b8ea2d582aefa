"""Closed forms in one size turned into numpy functions of an array of sizes: `sympy.lambdify`
with a printer that multiplies small powers out and nests Min and Max (sweeps evaluate 10^6
sizes in milliseconds this way)."""

from __future__ import annotations

import math

import numpy
import sympy
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.precedence import PRECEDENCE

from ..algebra.numeric_sums import ROUNDING, ExactRounding, NestedMinMax, has_sum
from ..algebra.numeric_sums import vectorized as summed


def vectorized(expr: sympy.Expr, symbol: sympy.Symbol):
    """A numpy function of an array of sizes for a closed form in `symbol` alone."""
    if has_sum(expr):  # a bound sympy cannot sum: its terms are added up at each size
        return summed(expr, symbol)
    # a number past what a double holds (a bound of n * 1e400) becomes inf, not an
    # OverflowError in numpy's conversion of a Python int
    expr = sympy.sympify(expr).replace(
        lambda e: e.is_Rational and max(abs(e.p), e.q) > 2**1000,
        lambda e: sympy.Float(e, 17) if abs(e) < sympy.Float("1e300") else sympy.oo)
    if not expr.has(symbol):
        constant = _float(expr)
        return lambda sizes: numpy.full(numpy.shape(sizes), constant)
    # the size symbol is a positive integer; numpy sees it as a plain float array
    return sympy.lambdify(symbol, expr, modules=[ROUNDING, "numpy"], printer=_MultiplyingPrinter)


def _float(expr: sympy.Expr) -> float:
    try:
        return float(expr)
    except OverflowError:
        return math.inf if expr > 0 else -math.inf


class _MultiplyingPrinter(ExactRounding, NestedMinMax, NumPyPrinter):
    """Writes N**3 as N*N*N: numpy raises floats to a power other than 2 through `pow`,
    several times slower than the multiplications, and the closed forms are polynomials."""

    def _print_Pow(self, expr, rational=False):
        exponent = expr.exp
        if exponent.is_Integer and 2 <= exponent <= 8:
            base = self.parenthesize(expr.base, PRECEDENCE["Mul"])
            return "*".join([base] * int(exponent))
        return super()._print_Pow(expr, rational=rational)


def evaluate_array(function, sizes: numpy.ndarray) -> numpy.ndarray:
    with numpy.errstate(all="ignore"):  # overflow to inf is reported as inf, not a warning
        values = numpy.asarray(function(sizes), dtype=float)
    if values.shape != sizes.shape:  # a closed form that does not depend on the size
        values = numpy.broadcast_to(values, sizes.shape).copy()
    return values
