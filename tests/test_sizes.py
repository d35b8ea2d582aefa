"""A size is a positive integer (issue 9, defect 8): settings that provably are not one are
refused with a caret under the value, loop steps and `let` sizes that are not positive at the
sizes given are refused at their place in the spec, and what cannot be proved is a warning."""

from __future__ import annotations

import json
import math

import pytest
import sympy
from conftest import SPECS, size
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelcost import KcostError, analyze, cli, loads
from kernelcost.analysis.verify import check_against_oracle
from kernelcost.lang.sizes import proved_positive, proved_whole

BACKWARD_STEP = """kernel strided(n, m) {
    in  x: f32[n]
    out y: f32[n]
    for i in 0..n by m - n {
        y[i] = x[i]
    }
}
"""


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def refused(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == cli.EXIT_USER_ERROR, out
    assert "Traceback" not in err and out == ""
    return err


def test_a_negative_setting_is_refused_with_a_caret(capsys):
    # the reproducer: M = 0-N gave W = 2 K M N = -250 at N = K = 5
    err = refused(capsys, "analyze", SPECS / "gemm.kcost", "--set", "N=5,K=5,M=0-N")
    assert err == (
        "--set M:1:1: error[KC303]: size `M` must be a positive integer: `0-N` (= -5) is not "
        "positive\n"
        "   1 | 0-N\n"
        "       ^^^\n"
        "  hint: sizes are at least 1\n")


def test_a_setting_negative_for_every_size_is_refused_without_numbers(capsys):
    err = refused(capsys, "analyze", SPECS / "gemm.kcost", "--set", "M=0-N")
    assert "`0-N` (= -N) is not positive" in err


@pytest.mark.parametrize("value, shown", [("1/3", "`1/3` is"), ("1.5", "`1.5` (= 3/2) is"),
                                          ("N/2,N=5", "`N/2` (= 5/2) is")])
def test_a_fraction_is_not_a_size(capsys, value, shown):
    err = refused(capsys, "analyze", SPECS / "gemm.kcost", "--set", f"M={value}")
    assert f"error[KC303]: size `M` must be a positive integer: {shown} not a whole number" in err
    assert "hint: sizes count elements and iterations" in err


@pytest.mark.parametrize("value", ["0", "N-N", "N-10,N=5"])
def test_zero_and_below_are_not_sizes(capsys, value):
    err = refused(capsys, "analyze", SPECS / "gemm.kcost", "--set", f"M={value}")
    assert "is not positive" in err


def test_check_refuses_a_fraction_instead_of_rounding_it_to_zero(capsys):
    err = refused(capsys, "check", SPECS / "vector_add.kcost", "--set", "n=1/3")
    assert "`1/3` is not a whole number" in err


def test_the_api_refuses_a_float_that_is_not_whole():
    with pytest.raises(KcostError, match=r"`1\.5` .* is not a whole number"):
        analyze(SPECS / "gemm.kcost", {"N": 1.5})
    assert analyze(SPECS / "gemm.kcost", {"N": 1e3}).parameters["N"] == 1000.0


def test_a_setting_that_may_not_be_a_size_is_a_warning(capsys):
    code, out, _ = run(capsys, "analyze", SPECS / "gemm.kcost", "--set", "M=N-4,K=N/2",
                       "--json")
    assert code == cli.EXIT_OK
    assert json.loads(out)["warnings"] == ["size `M = N - 4` is not proved positive",
                                           "size `K = N/2` is not proved a whole number"]


def test_a_step_that_runs_backwards_at_the_sizes_is_refused_at_its_place(capsys, tmp_path):
    # the reproducer: Q = 8 ceiling(n / (m - n)) B was -8 B at n = 10, m = 4
    spec = tmp_path / "strided.kcost"
    spec.write_text(BACKWARD_STEP)
    err = refused(capsys, "analyze", spec, "--set", "n=10,m=4")
    assert err == (
        f"{spec}:4:22: error[KC307]: step `m - n` of loop `i` is -6 at m = 4, n = 10\n"
        "   4 |     for i in 0..n by m - n {\n"
        "                            ^^^^^\n"
        "  hint: it must be positive: change the sizes, or the spec\n")
    assert "step `m - n` of loop `i` is -6" in refused(capsys, "check", spec, "--set", "n=10,m=4")


def test_a_step_positive_at_the_sizes_counts(capsys, tmp_path):
    spec = tmp_path / "strided.kcost"
    spec.write_text(BACKWARD_STEP)
    code, out, _ = run(capsys, "analyze", spec, "--set", "n=4,m=10", "--json")
    document = json.loads(out)
    assert code == cli.EXIT_OK and document["warnings"] == []
    assert document["traffic"]["global"]["value"] == 8.0  # one iteration: x[0] and y[0]


def test_a_step_not_proved_positive_is_a_warning_unless_an_assumption_proves_it():
    spec = loads(BACKWARD_STEP, "strided.kcost")
    assert analyze(spec).warnings == (
        "step `m - n` of loop `i` (line 4) is not proved positive",)
    assumed = loads(BACKWARD_STEP.replace("{\n", "{\n    assume n < m\n", 1), "strided.kcost")
    assert analyze(assumed).warnings == ()


HALF_STEP = BACKWARD_STEP.replace("(n, m)", "(n, T)").replace("by m - n", "by T / 2")


@pytest.mark.parametrize("facts, warned", [
    ("", True), ("assume 2 | T", False), ("assume 4 | T", False), ("assume 3 | T", True),
    ("assume 2 | B, B | T", False),  # T = B r, B = 2 s: T / 2 = r s
])
def test_a_step_not_proved_whole_is_a_warning_unless_a_fact_proves_it(facts, warned):
    text = HALF_STEP.replace("{\n", f"{{\n    {facts}\n", 1).replace("(n, T)", "(n, T, B)")
    warnings = analyze(loads(text, "half.kcost")).warnings
    assert warnings == (("step `T/2` of loop `i` (line 5) is not proved whole",) if warned
                        else ()), facts


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(1, 12))
def test_a_multiple_of_a_size_is_proved_whole_exactly_where_it_is(a, b, c):
    """a T / b under `c | T` is whole for every T = c r exactly where b divides a c."""
    t = size("T")
    assert proved_whole(a * t / b, ((sympy.Integer(c), t),)) == (a * c % b == 0)


def test_check_draws_only_sizes_where_every_step_is_whole():
    """`by T / 2` at an odd T runs its iterator over halves, and analyze refuses those sizes
    (KC321): the samples of check and of the self-verification are drawn where it is whole."""
    results = check_against_oracle(loads(HALF_STEP, "half.kcost"), {}, samples=12)
    assert len(results) == 12 and all(result.sizes["T"] % 2 == 0 for result in results)
    assert all(row.holds for result in results for row in result.rows)


def test_a_derived_size_below_one_is_refused():
    spec = loads("kernel k(N, M) {\n    let S = N - M\n    in x: f32[S]\n    out y: f32[S]\n"
                 "    for i in 0..S { y[i] = x[i] }\n}\n", "k.kcost")
    with pytest.raises(KcostError) as raised:
        analyze(spec, {"N": 3, "M": 5})
    assert raised.value.render().startswith(
        "k.kcost:2:5: error[KC307]: size `S` is -2 at M = 5, N = 3")
    assert analyze(spec).warnings == ("size `S` (line 2) is not proved positive",)
    assert analyze(spec, {"N": 5, "M": 3}).warnings == ()


def test_proved_positive_uses_the_sizes_and_one_assumed_relation():
    n, m = size("n"), size("m")
    assert proved_positive(2 * n - 1, ())
    assert not proved_positive(m - n, ())
    assert proved_positive(m - n, (sympy.StrictLessThan(n, m),))  # integers: m - n >= 1
    assert not proved_positive(m - n, (sympy.LessThan(n, m),))  # m = n is allowed
    assert proved_positive(m - n + 1, (sympy.LessThan(n, m),))
    assert proved_positive(m - n, (sympy.StrictGreaterThan(m, n),))


@given(st.integers(0, 10**6), st.integers(0, 60), st.sampled_from(("**", "^", " ** ", " ^")),
       st.sampled_from(("", "2*", "N + ")))
@settings(max_examples=60, deadline=None)
def test_a_whole_power_is_read_as_its_value(base, exponent, power, before):
    # every output prints large sizes as 2**24: a --set value takes them back
    from kernelcost.lang.settings import MAX_POWER_DIGITS, size_expression

    n = sympy.Symbol("N", positive=True, integer=True)
    text = f"{before}{base}{power}{exponent}"
    expected = sympy.Integer(base) ** exponent * (2 if before == "2*" else 1) + (
        n if before == "N + " else 0)
    if base > 1 and exponent * math.log10(base) > MAX_POWER_DIGITS:
        with pytest.raises(KcostError):
            size_expression(text, {"N": n}, "--set M")
    else:
        assert size_expression(text, {"N": n}, "--set M") == expected


@pytest.mark.parametrize("value", ["2**N", "2**24x", "10**500", "2***3", "1.5**2"])
def test_a_power_of_what_is_not_a_whole_number_is_refused_with_a_hint(capsys, value):
    err = refused(capsys, "analyze", SPECS / "gemm.kcost", "--set", f"N={value},M=8,K=8")
    assert "error[KC301]" in err and "a power is read between whole numbers only" in err
