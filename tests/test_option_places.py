"""The command path hardened, on the command line itself: a bad option or --set value, or a
number past what floats and integers hold, ends in exit 2 placed on the option's text, with
a caret under its bad part."""

import pytest
from hardened_runs import COPY, CSV_HEADER, GEMM, HOPPER, run

# --- numbers past what floats and integers hold: placed on the value ---------------------------

def test_a_size_past_doubles_in_a_sweep_is_placed_on_the_value(capsys):
    code, _, err = run(capsys, "sweep", GEMM, "--sweep", "N=64..1024", "--set", "M=1e309,K=N")
    assert code == 2
    assert err.startswith("--set M:1:1: error[KC318]: size `M` = 1.00e+309 is more than 2^53")
    assert "   1 | 1e309\n       ^^^^^" in err


def test_a_size_past_the_grid_model_in_a_validate_row_is_placed_on_the_value(capsys, tmp_path):
    results = tmp_path / "results.csv"
    results.write_text(CSV_HEADER + f"copy,{COPY},n=1e400,fp32,3.68e-05,,,\n")
    code, _, err = run(capsys, "validate", results, "--machine", "h200")
    column = len(f"copy,{COPY},n=") + 1
    assert code == 2
    assert err.startswith(f"{results}:2:{column}: error[KC613]: copy: size `n` = 1.00e+400 is "
                          "more than 2^53")


def test_a_phase_range_past_doubles_is_placed_on_its_bound(capsys, tmp_path):
    code, _, err = run(capsys, "phase", GEMM, "--x", "N=1..1e300", "--y", "M=1..1000",
                       "--set", "K=N", "--machine", "h100", "-o", tmp_path / "phase.svg")
    assert code == 2
    assert err.startswith("--x:1:6: error[KC308]: size range `N=1..1e300`: sizes stop at 2^53")
    assert "   1 | N=1..1e300\n            ^^^^^" in err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("arguments, start", [
    (["sweep", GEMM, "--sweep", "N=64..x", "--set", "M=N,K=N"], "--sweep:1:7: error[KC308]"),
    (["sweep", GEMM, "--sweep", "N64", "--set", "M=N,K=N"], "--sweep:1:1: error[KC308]"),
    (["sweep", GEMM, "--sweep", "N=10..1", "--set", "M=N,K=N"], "--sweep:1:7: error[KC308]"),
    (["sweep", GEMM, "--sweep", "N=1..10", "--set", "M=N,K=N", "--points", "1"],
     "--points:1:1: error[KC309]"),
    (["sweep", GEMM, "--sweep", "N=1..1e9", "--set", "M=N,K=N", "--points", "200000",
      "--all"], "--points:1:1: error[KC309]"),
    (["tune", HOPPER, "--machine", "h100", "--vary", "TM,TX", "--set", "M=8192,N=8192,K=8192"],
     "--vary:1:4: error[KC302]"),
    (["tune", HOPPER, "--machine", "h100", "--vary", "TM", "--values", "1..99999999",
      "--set", "M=8192,N=8192,K=8192"], "--values:1:1: error[KC308]"),
    (["tune", HOPPER, "--machine", "h100", "--vary", "TM", "--top", "0",
      "--set", "M=8192,N=8192,K=8192"], "--top:1:1: error[KC311]"),
    (["phase", GEMM, "--x", "nope=1..10", "--y", "M=1..100", "--machine", "h100", "-o",
      "never.svg"], "--x:1:1: error[KC302]"),
    (["analyze", GEMM, "--set", "M=4,N=4,K=4", "--machine", "h100", "--measured", "fast"],
     "--measured:1:1: error[KC601]"),
    (["check", GEMM, "--samples", "-1"], "--samples:1:1: error[KC311]"),  # ran to the budget
    (["plot", GEMM, "--set", "M=N,K=N,N=256", "--machine", "a100", "--measured", "5e-324s",
      "-o", "never.svg"], "--measured:1:1: error[KC602]"),  # an infinite rate on the axes
    (["phase", COPY, "--x", "n=64..65536", "--y", "BLK=64..4096", "--machine", "h100", "-o",
      "never.svg"], "error[KC315]"),  # W = 0: max() of no work class
    (["solve", GEMM, "--for", "N", "--level", "nope", "--machine", "h100"],
     "--level:1:1: error[KC409]"),
    (["analyze", GEMM, "--precision", "bf16,fp3"], "--precision:1:6: error[KC409]"),
    (["analyze", GEMM, "--machine", "h100", "--set", "M=N,K=N,N=64", "--warm-l2", "Z"],
     "--warm-l2:1:1: error[KC312]"),
    (["bound", GEMM, "--machine", "h100", "--set", "M=1e400,N=4,K=4", "--plot", "never.svg"],
     "--set M:1:1: error[KC318]"),  # an OverflowError in the ski slope's doubles
    (["analyze", GEMM, "--machine", "b200", "--exp-on-fma", "1/0"],  # ZeroDivisionError
     "--exp-on-fma:1:1: error[KC311]"),
    (["analyze", GEMM, "--machine", "b200", "--exp-on-fma", "0.5:99999"],
     "--exp-on-fma:1:1: error[KC311]"),
    (["phase", GEMM, "--x", "N=64..4096", "--y", "M=64..4096", "--machine", "h100", "-o",
      "never.svg", "--set", "N=4;M=4,K=N"], "--set N:1:1: error[KC301]"),
    (["analyze", GEMM, "--set", "M=4,N=4,K=4", "--machine", "h100", "--measured", "0us"],
     "--measured:1:1: error[KC602]"),
    (["analyze", GEMM, "--set", "M=4,N=4,K=4", "--machine", "h100", "--warm-l2", ""],
     "--warm-l2:1:1: error[KC311]"),  # the campaign, seed 35, input 1805
    (["analyze", GEMM, "--set", "M=4,N=4,K=4", "--machine", "h100", "--warm-l2", " , "],
     "--warm-l2:1:1: error[KC311]"),
])
def test_options_are_placed(capsys, arguments, start):
    code, _, err = run(capsys, *arguments)
    assert code == 2 and err.startswith(start), err


# --- --set with a caret under the bad part ----------------------------------------------------

@pytest.mark.parametrize("setting, start, excerpt", [
    ("K:K*T", "--set:1:2: error[KC301]: cannot read the setting `K:K*T`: `=` must follow",
     "   1 | K:K*T\n        ^"),
    ("=4", "--set:1:1: error[KC301]: cannot read the setting `=4`: a name must come before",
     "   1 | =4\n       ^"),
    ("M=4,Q=3", "--set:1:5: error[KC302]: `Q` is not a parameter of this kernel",
     "   1 | M=4,Q=3\n           ^"),
    ("N=4,M= ,K=1", "--set:1:7: error[KC301]: cannot read the setting `M=`: a value must",
     "   1 | N=4,M= ,K=1\n             ^"),
    ("M=4,Kx=3", "--set:1:5: error[KC302]: `Kx` is not a parameter", "           ^^"),
    ("N=two", "--set N:1:1: error[KC302]: unknown size `two`", "   1 | two\n       ^^^"),
])
def test_a_bad_setting_has_a_caret_under_its_bad_part(capsys, setting, start, excerpt):
    code, _, err = run(capsys, "analyze", GEMM, "--set", setting)
    assert code == 2
    assert err.startswith(start), err
    assert excerpt in err


def test_a_sweep_keeps_the_places_of_its_settings(capsys):
    code, _, err = run(capsys, "sweep", GEMM, "--sweep", "N=1..100", "--set", "M=N,Kx=3")
    assert code == 2 and err.startswith("--set:1:5: error[KC302]: `Kx` is not a parameter")
