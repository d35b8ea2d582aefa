"""Closed forms with fractions among their coefficients turned into numpy code (tune's
search.numpy_function, a sweep's vectorize.vectorized): at whole sizes each value is the
exact one rounded once, as Python's Fraction gives it, so that a whole count comes out whole.
numpy's printer wrote A*B/3 as (1/3)*A*B, 7.000000000000001 at A = 7, B = 3: tune refused the
candidate for a header count that was no whole number."""

from __future__ import annotations

from fractions import Fraction

import numpy
import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.analysis.api import loads
from kernelcost.answers.search import numpy_function
from kernelcost.answers.tune import tune
from kernelcost.base.symbols import size_symbol
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.varied import parse_vary
from kernelcost.present import vectorize

a, b = size_symbol("a"), size_symbol("b")
SPEC = """kernel thirds(n, A = 32, B = 3) {
    in  x: f32[n]
    out y: f32[n]
    for t in 0..n by A parallel(threads = A * B / 3) {
        for i in t..min(t + A, n) {
            y[i] = x[i] * 2
        }
    }
}
"""


def test_tune_ranks_a_whole_thread_count_of_thirds():
    """A = 7, B = 3 is 7 threads, B = 6 is 14: whole counts, ranked with the others."""
    spec = loads(SPEC, "thirds.kcost")
    ranking = tune(spec, load_machine("h100"), parse_vary("n=4096,A=7,32,B=3,6"), None, {},
                   top=100, rescore=0)
    assert sorted(row.values for row in ranking.top) == [
        (4096, 7, 3), (4096, 7, 6), (4096, 32, 3), (4096, 32, 6)]
    assert ranking.rejected_by == ()


COEFFICIENT = st.fractions(min_value=-50, max_value=50, max_denominator=30)


def _form(c0, c1, c2, c3, nested):
    r = [sympy.Rational(c.numerator, c.denominator) for c in (c0, c1, c2, c3)]
    inner = r[0] * a * b + r[1] * a + r[2] * b + r[3]
    return b * inner if nested else inner


def _exact(c0, c1, c2, c3, nested, x: int, y: int) -> Fraction:
    inner = c0 * x * y + c1 * x + c2 * y + c3
    return y * inner if nested else inner


@tiered(200)
@given(c0=COEFFICIENT, c1=COEFFICIENT, c2=COEFFICIENT, c3=COEFFICIENT, nested=st.booleans())
@example(c0=Fraction(1, 3), c1=Fraction(0), c2=Fraction(0), c3=Fraction(0), nested=False)
@example(c0=Fraction(0), c1=Fraction(1, 3), c2=Fraction(1, 3), c3=Fraction(0), nested=True)
def test_a_rational_polynomial_is_rounded_once(c0, c1, c2, c3, nested):
    form = _form(c0, c1, c2, c3, nested)
    xs, ys = numpy.meshgrid(numpy.arange(1, 41), numpy.arange(1, 41), indexing="ij")
    expected = [[float(_exact(c0, c1, c2, c3, nested, int(x), int(y))) for x, y in zip(*row)]
                for row in zip(xs, ys)]
    function = numpy_function((a, b), form)
    got = numpy.broadcast_to(function(xs.astype(float), ys.astype(float)), xs.shape)
    assert got.tolist() == expected, form
    at_b = form.subs(b, 7)
    sizes = numpy.arange(1, 3001, dtype=float)
    swept = vectorize.evaluate_array(vectorize.vectorized(at_b, a), sizes)
    assert swept.tolist() == [float(_exact(c0, c1, c2, c3, nested, x, 7))
                              for x in range(1, 3001)], at_b
