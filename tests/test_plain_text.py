"""No sympy in the text a user reads (issue 16, item 4): words and numbers, not `True`,
`False`, `oo` or `1e+08`; a limit with the sizes known by default put in."""

import re
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import tiered

from kernelcost import cli
from kernelcost.base.kinds import Side
from kernelcost.present.report.cells import condition_text, limit_text, size_number

SPECS = Path(__file__).resolve().parent.parent / "specs"


def text_of(capsys, *argv) -> str:
    assert cli.main([str(a) for a in argv]) == cli.EXIT_OK
    return capsys.readouterr().out


@pytest.mark.parametrize("value, shown", [
    (1e8, "10^8"), (3e9, "3·10^9"), (4096, "4096"), (65536, "65536"), (1048576, "1048576"),
    (2.5, "2.5"), (float("inf"), "infinity")])
def test_sizes_as_a_user_writes_them(value, shown):
    assert size_number(value) == shown


def test_conditions_and_limits_in_words():
    import sympy

    assert condition_text(sympy.true) == "always"
    assert condition_text(sympy.false) == "never"
    assert limit_text(sympy.oo) == "infinity"
    assert limit_text(sympy.Rational(1, 2), None) == "1/2"


def test_analyze_says_infinity_and_ten_to_the_eighth(capsys):
    out = text_of(capsys, "analyze", SPECS / "vector_add.kcost", "--set", "n=1e8")
    assert "n = 10^8" in out and "1e+08" not in out
    out = text_of(capsys, "analyze", SPECS / "gemm.kcost")
    assert "→ infinity" in out and "oo" not in out.replace("too", "")


def test_solve_says_always_not_true(capsys):
    out = text_of(capsys, "solve", SPECS / "gemm.kcost", "--for", "N", "--set", "M=N,K=N",
                  "--wide")  # `valid when` is a column a narrow page leaves out
    assert "always" in out and "True" not in out


def test_solve_says_what_a_size_free_tile_does_not_false(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    out = text_of(capsys, "solve", SPECS / "gemm_tiled.kcost", "--for", "N")
    assert "False" not in out and "unsolved" not in out
    # the tile's bytes are T's, not N's: at the default T = 128, 64 KiB, it fits whatever N
    assert re.search(r"scope 0 \(A, B\) +shared +228 KiB/SM +none +always", out)


def test_a_never_limit_has_the_default_sizes_in(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    out = text_of(capsys, "solve", SPECS / "llm_decode.kcost", "--for", "b", "--set",
                  "Theta=7e10")
    assert "d**2" not in out and "never: I → 4094 FLOP/B" in out


# --- crossings as integer sizes (issue 16, item 5) -------------------------------------------


def test_the_first_integer_size_that_is_compute_bound(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    out = text_of(capsys, "solve", SPECS / "gemm.kcost", "--for", "N", "--set", "M=N,K=N")
    # the crossing, then the sizes that are compute-bound, in one row
    assert re.search(r"N = 886\.6 +N >= 887 ", out)
    out = text_of(capsys, "analyze", SPECS / "gemm.kcost", "--set", "M=N,K=N", "--machine",
                  "h100")
    assert ("memory-bound at N <= 886, compute-bound at N >= 887 (the ridge, 295.5 FLOP/B, "
            "at N = 886.6)") in " ".join(out.split())


@pytest.mark.parametrize("root, side, expected", [
    (sympy.Rational(8866, 10), Side.ABOVE,
     "global: memory-bound at N <= 886, compute-bound at N >= 887 (the ridge, 295.5 FLOP/B, "
     "at N = 886.6)"),
    (sympy.Integer(887), Side.ABOVE,  # at the root itself I equals the ridge: compute-bound
     "global: memory-bound at N <= 886, compute-bound at N >= 887 (the ridge, 295.5 FLOP/B, "
     "at N = 887)"),
    (sympy.Rational(8866, 10), Side.BELOW,
     "global: compute-bound at N <= 886, memory-bound at N >= 887 (the ridge, 295.5 FLOP/B, "
     "at N = 886.6)"),
])
def test_a_crossing_names_the_integer_sizes_on_each_side(root, side, expected):
    from kernelcost.answers.solve import Crossing
    from kernelcost.present.report.verdict_report import _level_clause

    crossing = Crossing("h100", "bf16", "global", "N", root, None, sympy.true, sympy.oo, side,
                        sympy.Rational(591, 2))
    assert _level_clause(crossing, "N")[0] == expected


def test_the_largest_tile_that_fits(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    out = text_of(capsys, "solve", SPECS / "gemm_tiled.kcost", "--for", "T", "--set",
                  "M=4096,N=4096,K=4096")
    assert re.search(r"T = 241\.6 +T <= 241 ", out)  # the crossing, then the tiles that fit


def test_integer_bounds_in_the_model():
    import sympy

    from kernelcost.analysis.api import analyze
    from kernelcost.answers.solve import solve_spec

    (solution,) = solve_spec(analyze(SPECS / "gemm_tiled.kcost", {"M": 4096, "N": 4096,
                                                                   "K": 4096}),
                             "T", ["h100"], None, None)
    (tile,) = [c for c in solution.capacity if c.level == "shared"]
    assert tile.integer_bound == ("<=", 241)
    (T,) = tile.held_B.free_symbols
    assert tile.held_B.subs(T, 241) <= tile.capacity_B < tile.held_B.subs(T, 242)
    (ridge,) = [c for c in solution.crossings if c.level == "global"]
    assert ridge.integer_bound == (">=", int(sympy.ceiling(ridge.value)))


@tiered(200)
@given(st.integers(1, 10**7), st.floats(1e-6, 1 - 1e-6))
def test_a_root_between_sizes_never_reads_as_a_whole_size(whole, part):
    # 436.97 printed "437.0" beside "compute-bound at N >= 437"
    from kernelcost.present.report.cells import size_text

    value = whole + part
    text = size_text(value)
    assert float(text) not in (float(whole), float(whole + 1))
    assert abs(float(text) - value) <= 0.05 + 1e-9 or len(text.split(".")[1]) > 1
    assert size_text(float(whole)) == str(whole)


# --- where I goes as the sizes left unset grow ---------------------------------------------


def test_the_limit_takes_the_sizes_set(capsys, monkeypatch):
    # llm_decode at b = 1 printed `→ infinity`, the limit as b grows too
    monkeypatch.setenv("COLUMNS", "200")
    out = text_of(capsys, "analyze", SPECS / "llm_decode.kcost", "--set", "b=1")
    assert re.search(r"I global +1 FLOP/B +b +→ 1 FLOP/B as Theta grows", out)
    assert "→ infinity" not in out


@given(st.integers(1, 4096), st.sampled_from(("K", "M")))
@settings(max_examples=25, deadline=None)
def test_a_gemms_intensity_at_one_size_goes_to_that_size(value, name):
    # I = K M N / (K M + K N + M N): with one size at v and the two others growing together,
    # the two others' product dominates: I -> v
    import kernelcost

    analysis = kernelcost.analyze(SPECS / "gemm.kcost", {name: value})
    intensity = analysis.intensity["global"]
    assert intensity.at_sizes == value and intensity.limit == sympy.oo
    assert set(intensity.growing_at_sizes) == {"K", "M", "N"} - {name}
