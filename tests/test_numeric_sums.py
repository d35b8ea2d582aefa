"""Issue 34 item 6: closed forms that keep an unevaluated Sum give numbers, in every command
that asks for them (numeric_sums; sweep, plot --sweep, solve, analyze --machine), and never
an internal error (exit 3). Expected values are the sums added up here in plain Python."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy
import pytest
import sympy
from hypothesis import example, given
from hypothesis import strategies as st
from tiers import tiered

import kernelcost
from kernelcost import cli
from kernelcost.algebra.numeric_sums import Summed, sum_values, vectorized
from kernelcost.base.errors import BudgetError
from kernelcost.base.symbols import counter_symbol, size_symbol
from kernelcost.present import vectorize

n = size_symbol("n")
i, j = counter_symbol("i"), counter_symbol("j")

# language.md section 12: `j in 0..min(i * i, n)` has no closed-form sum
SECTION_12 = """kernel tri_sq(n) {
    in  x: f32[n, n]
    out y: f32[n]
    for i in 0..n, j in 0..min(i * i, n) {
        y[i] += x[i, j]
    }
}
"""
# the same bound with a product: W = 2 Sum(Min(t^2, n)), Q = 12 n, so I grows like n / 6
TRI_DOT = """kernel tri_dot(n) {
    in  x: f32[n]
    in  y: f32[n]
    out s: f32[n]
    for i in 0..n, j in 0..min(i * i, n) {
        s[i] += x[i] * y[j]
    }
}
"""


def by_hand(size: int) -> int:
    return sum(min(t * t, size) for t in range(size))


def test_a_sum_at_numeric_sizes_is_its_exact_integer():
    form = sympy.Sum(sympy.Min(i ** 2, n), (i, 0, n - 1))
    for size in (1, 2, 5, 100, 12345):
        value = sum_values(4 * size + 4 * form.xreplace({n: size}))
        assert value == 4 * size + 4 * by_hand(size) and value.is_Integer


def test_a_sum_with_sizes_still_free_is_left_as_it_is():
    form = sympy.Sum(sympy.Min(i ** 2, n), (i, 0, n - 1))
    assert sum_values(form) == form


def test_nested_sums_and_bounds_that_move_with_the_outer_index():
    inner = sympy.Sum(sympy.Min(i * j, n), (j, 0, i))
    nested = sympy.Sum(inner, (i, 0, n - 1))
    double = sympy.Sum(sympy.Min(i * j, n), (j, 0, i), (i, 0, n - 1))
    expected = {size: sum(min(a * b, size) for a in range(size) for b in range(a + 1))
                for size in (10, 20)}
    assert sum_values(nested.xreplace({n: 10})) == expected[10]
    for form in (nested, double):
        values = vectorized(form, n)(numpy.array([10.0, 20.0]))
        assert list(values) == [expected[10], expected[20]]


def test_an_array_of_sizes_is_summed_point_by_point_and_limits_round_inward():
    form = sympy.Sum(sympy.Min(i ** 2, n), (i, 0, n - 1))
    values = vectorized(form, n)(numpy.array([1.0, 2.0, 5.0, 100.0]))
    assert list(values) == [by_hand(s) for s in (1, 2, 5, 100)]
    # a figure's continuous path asks between integers: at n = 10.5 the terms t = 0..9
    assert vectorized(form, n)(numpy.array([10.5]))[0] == sum(min(t * t, 10.5)
                                                                for t in range(10))


def test_too_many_terms_is_refused_with_the_count_never_a_hang():
    form = sympy.Sum(sympy.Min(i ** 2, n), (i, 0, n - 1))
    function = Summed(form, n, max_terms=1000)
    assert function(numpy.array([1000.0]))[0] == by_hand(1000)
    with pytest.raises(BudgetError) as error:
        function(numpy.array([1001.0]))
    assert "1,001 terms" in error.value.diagnostics[0].message
    assert error.value.code == "KC707"


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def section_12(tmp_path):
    path = tmp_path / "tri_sq.kcost"
    path.write_text(SECTION_12)
    return path


def test_sweep_of_the_section_12_example_prints_a_table(capsys, section_12):
    # today's failure: internal error (exit 3), lambdify's range() of a numpy array
    code, out, err = run(capsys, "sweep", section_12, "--sweep", "n=10..1000", "--points",
                         "3", "--machine", "h100")
    assert code == cli.EXIT_OK, err
    rows = {line.split()[0]: line.split() for line in out.splitlines()
            if line.strip()[:1].isdigit()}
    assert set(rows) == {"10", "100", "1000"}
    assert rows["10"][1] == str(by_hand(10))  # W = 74 FLOP: one add a point
    code, out, err = run(capsys, "sweep", section_12, "--sweep", "n=10..1000", "--points",
                         "3", "--csv")
    assert code == cli.EXIT_OK, err
    lines = out.splitlines()
    work = lines[0].split(",").index("W_FLOP")
    assert [float(line.split(",")[work]) for line in lines[1:]] == [
        by_hand(10), by_hand(100), by_hand(1000)]


def test_plot_sweep_of_the_section_12_example_draws(capsys, section_12, tmp_path):
    figure = tmp_path / "tri_sq.svg"
    code, _, err = run(capsys, "plot", section_12, "--machine", "h100", "--sweep",
                       "n=10..10000", "-o", figure)
    assert code == cli.EXIT_OK, err
    assert figure.stat().st_size > 0


def test_analyze_with_a_machine_at_set_sizes_gives_the_time(capsys, section_12):
    # today's failure: the model compared unevaluated sums until the budget ran out
    code, out, err = run(capsys, "analyze", section_12, "--set", "n=100", "--machine", "h100",
                         "--json")
    assert code == cli.EXIT_OK, err
    document = json.loads(out)
    (verdict,) = document["verdicts"]
    traffic = 4 * 100 + 4 * by_hand(100)  # y written once, x read at each of its points
    assert verdict["t_min"] == pytest.approx(traffic / 3.35e12)


def test_solve_finds_a_crossing_numerically():
    """I = 2 Sum(Min(t^2, n)) / 12 n against the fp32 ridge of H100 (67e12 / 3.35e12 =
    20 FLOP/B): compute-bound from the first n where the sum reaches 120 n."""
    from kernelcost.answers.solve import ridge_crossings

    cost = kernelcost.loads(TRI_DOT).cost()
    machine = kernelcost.hardware.machinefile.load_machine("h100")
    (crossing,) = ridge_crossings(cost, "n", machine)
    first = next(size for size in range(1, 1000) if by_hand(size) >= 120 * size)
    assert crossing.integer_bound == (">=", first)
    assert crossing.compute_bound_side == "above"
    assert crossing.searched_to >= 100_000  # a million terms a size: n up to 10^6


def test_solve_says_how_far_it_searched_where_no_crossing_is_found(capsys, section_12):
    code, out, err = run(capsys, "solve", section_12, "--for", "n", "--machine", "h100",
                         "--json")
    assert code == cli.EXIT_OK, err
    (crossing,) = json.loads(out)["crossings"]
    assert crossing["value"] is None and crossing["searched_to"] >= 100_000
    assert crossing["limit"] == pytest.approx(0.25, abs=1e-3)  # I where the search stopped
    code, out, err = run(capsys, "analyze", section_12, "--machine", "h100")
    assert code == cli.EXIT_OK, err
    assert "memory-bound up to n = " in " ".join(out.split())


def test_analyze_at_a_large_size_adds_the_terms_up(capsys, section_12):
    # sympy's evalf of the Sum at n = 10^6 took longer than the 60 s budget
    code, out, err = run(capsys, "analyze", section_12, "--set", "n=1000000", "--json",
                         "--no-verify")
    assert code == cli.EXIT_OK, err
    assert json.loads(out)["work"]["value"] == by_hand(1_000_000)


FRACTIONS = st.fractions(min_value=-20, max_value=20, max_denominator=12)


@tiered(400)
@given(slope=FRACTIONS, offset=FRACTIONS, low=st.integers(0, 30),
       count=st.integers(0, 60), ceiling=st.booleans(), clamped=st.booleans())
@example(slope=Fraction(-1, 3), offset=Fraction(7, 3), low=0, count=6, ceiling=True,
         clamped=True)  # a triangular grid's blocks: rows of ceil((7 - i) / 3) tiles
def test_a_rounded_rational_summand_is_added_up_exactly(slope, offset, low, count, ceiling,
                                                        clamped):
    """floor and ceiling of a rational affine summand at each index, as exact Fractions
    round them: a float of 7/3 - 4/3 is 1.0000000000000002, whose ceiling is 2."""
    rounding = sympy.ceiling if ceiling else sympy.floor
    exact_rounding = math.ceil if ceiling else math.floor
    term = rounding(sympy.Rational(slope.numerator, slope.denominator) * i
                    + sympy.Rational(offset.numerator, offset.denominator))
    form = sympy.Sum(sympy.Max(0, term) if clamped else term, (i, low, low + count - 1))
    expected = sum(max(0, value) if clamped else value
                   for value in (exact_rounding(slope * t + offset)
                                 for t in range(low, low + count)))
    value = sum_values(form)
    assert value == expected and value.is_Integer, form


@tiered(200)
@given(slope=FRACTIONS, offset=FRACTIONS, ceiling=st.booleans())
@example(slope=Fraction(1, 3), offset=Fraction(1, 3), ceiling=False)  # 5/3 + 1/3 = 1.99...
@example(slope=Fraction(-1, 3), offset=Fraction(7, 3), ceiling=True)
def test_a_sweep_rounds_a_rational_closed_form_exactly(slope, offset, ceiling):
    """A sweep's numpy function of a closed form with a rounding, at sizes 1..3000, as exact
    Fractions round it (numpy's floor(n/3 + 1/3) at n = 5 was 1)."""
    rounding = sympy.ceiling if ceiling else sympy.floor
    exact_rounding = math.ceil if ceiling else math.floor
    form = rounding(sympy.Rational(slope.numerator, slope.denominator) * n
                    + sympy.Rational(offset.numerator, offset.denominator))
    sizes = numpy.arange(1, 3001, dtype=float)
    expected = [exact_rounding(slope * size + offset) for size in range(1, 3001)]
    assert vectorize.evaluate_array(vectorize.vectorized(form, n), sizes).tolist() == expected
