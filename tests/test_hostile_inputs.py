"""Input a careless user gives: a kernel whose loops run nothing at the sizes, a size set
twice, a config.json with a key written twice or a NaN, options that name no machine or a
shape of no size. Each was taken as it came (exit 0: a kernel that does nothing
"compute-bound at 0 s", the last value kept without a word) or ended in a traceback (exit
3); each now ends in one error placed where the input holds it (exit 2). Triton sources:
test_hostile_triton.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_runs import run, write

ROOT = Path(__file__).resolve().parent.parent
HF = ROOT / "tests" / "data" / "hf" / "llama3_1_8b" / "config.json"

LOOP = """kernel shrink(n) {
    in  x: f32[n]
    out y: f32[n]
    for i in 0..n - 10 {
        y[i] = x[i] * 2
    }
}
"""


# --- a kernel that runs nothing at the sizes -----------------------------------------------

@pytest.mark.parametrize("arguments", [
    ["analyze", "{spec}", "--set", "n=5", "--machine", "h100"],
    ["analyze", "{spec}", "--set", "n=9", "--machine", "h100", "--json"],
    ["sweep", "{spec}", "--sweep", "n=1..100", "--points", "5", "--machine", "h100"],
])
def test_a_kernel_whose_loops_run_nothing_is_refused_at_the_loop(capsys, tmp_path, arguments):
    """`for i in 0..n - 10` at n = 5 counts W = 0 and Q = 0 (Max(0, n - 10)); the verdict
    was "compute-bound on H100 FP32; t_min = 0 s, bound by fp32 vector peak", and a sweep's
    first rows "0 s, fp32 vector": no roof bounds a kernel that runs nothing."""
    spec = write(tmp_path, "shrink.kcost", LOOP)
    code, out, err = run(capsys, *[str(a).replace("{spec}", str(spec)) for a in arguments])
    assert code == 2 and "error[KC307]" in err and "runs no iteration" in err, err
    assert err.startswith(f"{spec}:4:14:"), err  # under the range 0..n - 10
    assert "0 s" not in out


def test_the_loop_runs_at_sizes_past_its_offset(capsys, tmp_path):
    """n = 12: two iterations, a multiply each, 8 bytes each: W = 2 FLOP, Q = 16 B."""
    spec = write(tmp_path, "shrink.kcost", LOOP)
    code, out, _ = run(capsys, "analyze", spec, "--set", "n=12", "--machine", "h100", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["work"]["value"] == 2 and result["traffic"]["global"]["value"] == 16


def test_a_kernel_whose_box_outlives_its_empty_loop_is_refused_too(capsys, tmp_path):
    """matvec with `for i in 0..M - 1000000`: at M = 256 it runs nothing (W = 0), but x[j],
    which the i loop does not index, is a bounding box of N elements: Q = 4N = 64 KiB was
    timed, memory-bound."""
    text = (ROOT / "specs" / "matvec.kcost").read_text().replace("i in 0..M {",
                                                                 "i in 0..M - 1000000 {")
    spec = write(tmp_path, "matvec.kcost", text)
    code, out, err = run(capsys, "analyze", spec, "--set", "M=256,N=16384", "--machine", "h100")
    line = 1 + text[:text.index("0..M - 1000000")].count("\n")
    assert code == 2 and "the loop over `i` runs no iteration at M = 256" in err, err
    assert err.startswith(f"{spec}:{line}:14:"), err
    code, out, _ = run(capsys, "analyze", spec, "--set", "M=1000002,N=8", "--json")
    assert code == 0 and json.loads(out)["work"]["value"] == 2 * 2 * 8  # two rows run


def test_a_loop_empty_at_every_size_is_named_without_a_machine_figure(capsys, tmp_path):
    """`for i in n..0` ran no iteration at any n: the verdict said KC407, that h100 lacks a
    figure, with no place and no hint."""
    spec = write(tmp_path, "back.kcost", LOOP.replace("0..n - 10", "n..0"))
    code, _, err = run(capsys, "analyze", spec, "--machine", "h100")
    assert code == 2 and "error[KC307]" in err and "n..0 is empty" in err, err
    assert "KC407" not in err and "hint:" in err


# --- a size set twice ----------------------------------------------------------------------

@pytest.mark.parametrize("command", [
    ["analyze", ROOT / "specs" / "copy.kcost"],
    ["sweep", ROOT / "specs" / "copy.kcost", "--sweep", "BLK=256..1024"],
    ["check", ROOT / "specs" / "copy.kcost"],
])
def test_a_size_set_twice_to_two_values_is_placed_at_the_second(capsys, command):
    """`--set n=1024 --set n=2048` analysed n = 2048 without a word, as `tune --vary` refuses
    a name varied twice."""
    code, _, err = run(capsys, *command, "--set", "n=1024", "--set", " n=2048")
    assert code == 2 and "error[KC301]: `n` is set twice, to 1024 and to 2048" in err, err
    assert err.startswith("--set:1:2:"), err


def test_a_size_set_twice_to_one_value_is_that_value(capsys):
    code, out, _ = run(capsys, "analyze", ROOT / "specs" / "copy.kcost", "--set",
                       "n=1024,n=1024", "--json")
    assert code == 0 and json.loads(out)["traffic"]["global"]["value"] == 8 * 1024


# --- a config.json that JSON does not allow ------------------------------------------------

@pytest.mark.parametrize(("old", "new", "at", "message"), [
    ('"hidden_size": 4096,', '"hidden_size": 4096,\n  "hidden_size": 64,', '"hidden_size": 64',
     "`hidden_size` is written twice in one object"),
    ('"rms_norm_eps": 1e-05', '"rms_norm_eps": NaN', "NaN", "`NaN` is no JSON number"),
    ('"rope_theta": 500000.0', '"rope_theta": -Infinity', "-Infinity",
     "`-Infinity` is no JSON number"),
])
def test_a_config_json_is_read_as_json(capsys, tmp_path, old, new, at, message):
    """Python's json keeps the last of two keys (hidden_size 64: a model 64 wide, composed
    and timed) and reads NaN and Infinity, which JSON has not."""
    text = HF.read_text()
    assert old in text
    config = write(tmp_path, "config.json", text.replace(old, new))
    before = text.replace(old, new)[:text.replace(old, new).index(at)]
    line, column = before.count("\n") + 1, len(before) - before.rfind("\n")
    code, out, err = run(capsys, "model", config, "--machine", "h100", "--batch", "1")
    assert code == 2 and "error[KC509]" in err and message in err, err
    assert err.startswith(f"{config}:{line}:{column}:"), err
    assert out == ""


def test_a_phase_plane_marks_where_the_loops_run_nothing(tmp_path):
    """A plane of n x m over `for i in 0..n - 100`: at n <= 100 nothing runs (t = 0 s on
    every roof), and that part was coloured `vector`, compute-bound, beside the HBM-bound
    rest (I = 2nm / 4nm = 1/2 FLOP/B, under every ridge of an H100)."""
    from kernelcost.analysis.api import load
    from kernelcost.hardware.machinefile import load_machine
    from kernelcost.present.phase import CATEGORIES, parse_axis, phase

    spec = write(tmp_path, "sumsq.kcost", """kernel sumsq(n, m) {
    in  x: f32[n, m]
    out y: f32[n]
    for i in 0..n - 100, j in 0..m {
        y[i] += x[i, j] * x[i, j]
    }
}
""")
    found = phase(load(spec), load_machine("h100"), parse_axis("n=1..10000"),
                  parse_axis("m=1..10000", "--y"), {}, points=(40, 4))
    assert (found.codes[:, found.xs <= 100] == CATEGORIES.index("runs nothing")).all()
    assert (found.codes[:, found.xs >= 101] == CATEGORIES.index("HBM")).all()


def test_a_grid_of_one_point_says_one_point(capsys, tmp_path):
    """`model --grid` at one batch and one context printed "1 points (1 batches x 1
    contexts x 1 tp)" and "everywhere (the 0 GEMM shapes that take gemm_hopper's wave
    estimate ...)": at context 1 and batch 1 no GEMM's sizes meet its tiles."""
    code, out, _ = run(capsys, "model", "llama3_8b", "--machine", "h100", "--batch", "1",
                       "--context", "1", "--grid", tmp_path / "grid.csv")
    assert code == 0 and "1 point (1 batch x 1 context x 1 tp)" in out, out
    assert "at 1 point:" in out and "the 0 GEMM" not in out
    assert len((tmp_path / "grid.csv").read_text().splitlines()) == 2  # the header, a row


def test_tune_without_re_scoring_says_none_was(capsys):
    """`tune --rescore 0` (rank by t_bound alone) said "the best 2 re-scored by the analysis
    for t_model in 0 ms" and "the spec's own configuration (TM=128) is not among the fitting
    candidates" while it ranked #1 and fit."""
    code, out, _ = run(capsys, "tune", ROOT / "specs" / "gemm_hopper.kcost", "--machine",
                       "h100", "--set", "M=N,K=N,N=8192", "--vary", "TM=64,128,256",
                       "--rescore", "0")
    assert code == 0 and "re-scored by the analysis" not in out
    assert "not among the fitting" not in out
    assert "(TM=128) ranks #1 by t_bound (--rescore 0" in " ".join(out.split()), out


@pytest.mark.parametrize(("arguments", "start", "message"), [
    (["--for", "Q"], "--for:1:1:", "error[KC302]: `Q` is not a parameter of `gemm_tiled`"),
    (["--for", "N", "--set", "N=4096"], "--for:1:1:", "error[KC306]"),
    (["--for", "T", "--level", "registers"], "--level:1:1:", "moves no bytes at `registers`"),
    (["--for", "T", "--level", "mall"], "--level:1:1:", "moves no bytes at `mall`"),
])
def test_solve_places_its_options(capsys, arguments, start, message):
    """solve's --for and --level errors had no place; `--level mall` (an H100 has none, the
    spec moves nothing there) printed an empty table of crossings, exit 0."""
    code, out, err = run(capsys, "solve", ROOT / "specs" / "gemm_tiled.kcost", "--machine",
                         "h100", *arguments)
    assert code == 2 and err.startswith(start) and message in err, err
    assert out == ""


@pytest.mark.parametrize(("arguments", "start"), [
    (["analyze", ROOT / "specs" / "copy.kcost", "--machine", "h100,h1000"], "--machine:1:6:"),
    (["tune", ROOT / "specs" / "gemm_hopper.kcost", "--machine", "h1000", "--vary", "TM=128",
      "--set", "M=N,K=N,N=4096"], "--machine:1:1:"),
    (["model", "llama3_8b", "--machine", "h1000"], "--machine:1:1:"),
    (["model", "llama3_8b", "--tp", "2", "--topology", "hgx_h1000"], "--topology:1:1:"),
])
def test_an_unknown_machine_or_topology_is_placed_in_its_option(capsys, arguments, start):
    """`unknown machine h1000` had no place: the loader knows the name, not the option."""
    code, _, err = run(capsys, *arguments)
    assert code == 2 and err.startswith(start) and "did you mean `" in err, err



@pytest.mark.parametrize(("arguments", "start"), [
    (["analyze", ROOT / "specs" / "copy.kcost", "--machine", "h100,nope.toml"],
     "--machine:1:6: error[KC801]: no such file: `nope.toml`"),
    (["model", "llama3_8b", "--tp", "2", "--topology", "x/y.toml"],
     "--topology:1:1: error[KC801]: no such file: `x/y.toml`"),
    (["analyze", ROOT / "specs" / "nope.kcost"], "error[KC801]: no such file: `"),
])
def test_a_missing_machine_or_topology_file_is_placed_in_its_option(capsys, arguments, start):
    """A machine or topology path that is no file had no place (the loader reads a path, not
    the option that gave it); the spec's own path is no option's, so it stays unplaced."""
    code, _, err = run(capsys, *arguments)
    assert code == 2 and err.startswith(start), err

@pytest.mark.parametrize(("arguments", "start"), [
    (["analyze", ROOT / "specs" / "copy.kcost", "--measured", "4us"], "--measured:1:1:"),
    (["model", "llama3_70b", "--gpus", "3"], "--tp:1:1:"),
    (["model", "llama3_8b", "--weights", "int4", "--group-size", "7"], "--group-size:1:1:"),
    (["plot", ROOT / "specs" / "gemm.kcost", "--machine", "h100", "--set", "M=N,K=N,N=64",
      "--set", "copy:n=4096", "-o", "{out}"], "--set:1:1: error[KC316]"),
])
def test_an_error_naming_its_option_is_placed_in_it(capsys, tmp_path, arguments, start):
    """`--measured needs a machine`, `--tp 3 does not divide ...`, `--group-size 7 does not
    divide ...` named their option but had no place; a --set of a spec not on the figure is
    placed under its own --set, not the first."""
    code, _, err = run(capsys, *[str(a).replace("{out}", str(tmp_path / "p.svg"))
                                 for a in arguments])
    assert code == 2 and err.startswith(start), err
    if "KC316" in start:  # under the --set that names the spec, not the first --set
        assert "   1 | copy:n=4096\n" in err, err


def test_a_ski_slope_of_nothing_is_refused_before_the_report(capsys, tmp_path):
    """`bound --plot` at n = 5 of `for i in 0..n - 10`: Q_lower and the spec's Q are 0 B at
    every S; matplotlib warned on stderr (no positive values to log-scale) and drew an empty
    figure, exit 0."""
    spec = write(tmp_path, "shrink.kcost", LOOP)
    figure = tmp_path / "ski.svg"
    code, out, err = run(capsys, "bound", spec, "--machine", "h100", "--set", "n=5", "--plot",
                         figure)
    assert code == 2 and "error[KC315]" in err and err.startswith("--plot:1:1:"), err
    assert out == "" and not figure.exists() and "Warning" not in err
    code, out, _ = run(capsys, "bound", spec, "--machine", "h100", "--set", "n=500", "--plot",
                       figure)
    assert code == 0 and figure.exists()


@pytest.mark.parametrize(("shape", "start", "message"), [
    ("K=0", "--shape K:1:1:", "error[KC303]"),
    ("K=1e400", "--shape K:1:1:", "error[KC318]"),
    ("Q=5", "--shape:1:1:", "`Q` is not a parameter"),
    ("K=4096,K=8192", "--shape:1:8:", "`K` is set twice"),
])
def test_a_bad_tune_shape_is_placed_in_its_shape(capsys, shape, start, message):
    """tune's --shape values were placed as `--set K` (a user found no K in --set)."""
    code, _, err = run(capsys, "tune", ROOT / "specs" / "gemm_hopper.kcost", "--machine",
                       "h100", "--vary", "TM=128", "--set", "M=4096,N=4096", "--shape", shape)
    assert code == 2 and err.startswith(start) and message in err, err


def test_a_model_of_huge_figures_prints_readable_numbers(capsys, tmp_path):
    """A model file of 10^9 layers 10^9 wide (its figures' limit) printed
    "2500043010000256512.00e9 parameters", "weights 5000086020000513024.0 GB" and a decode
    rate of "0.0" tokens/s for one of 6.7e-16."""
    text = (ROOT / "src" / "kernelcost" / "models" / "llama3_8b.toml").read_text()
    for key, value in (("layers", "1000000000"), ("hidden", "1000000000"),
                       ("head_dim", "31250000")):
        text = "\n".join(f"{key} = {value}" if line.startswith(f"{key} = ") else line
                         for line in text.splitlines())
    model = write(tmp_path, "huge.toml", text)
    code, out, _ = run(capsys, "model", model, "--machine", "h100", "--batch", "1", "--wide")
    # a layer: q, k, v of (32 + 2 x 8) x 31.25e6 = 1.5e9 columns and the output projection,
    # 10^9 x 1.5e9 + 10^9 x 10^9 = 2.5e18, beside 3 x 10^9 x 14336 = 4.3e13 of MLP; 10^9
    # layers: 2.50e27 parameters, 5.00e27 B of bf16 = 5.00e18 GB
    assert code == 0 and "2.50e27 parameters" in out, out
    assert "weights 5.00e18 GB" in " ".join(out.split())
    assert " 0.0 " not in out.split("\n")[5]


def test_a_sweep_keeps_its_sizes_in_the_range_asked(capsys):
    """copy's `assume BLK | n` (BLK = 1024) rounds each size to a multiple of 1024: the
    nearest one was taken even past the range, so n=1..1000 swept n = 1024 alone and
    n=1..3000 ended at 3072, without a word."""
    copy = ROOT / "specs" / "copy.kcost"
    code, _, err = run(capsys, "sweep", copy, "--sweep", "n=1..1000", "--all")
    assert code == 2 and "no multiple of 1,024 lies in 1..1000" in err, err
    assert err.startswith("--sweep:1:1:")
    code, out, _ = run(capsys, "sweep", copy, "--sweep", "n=1..3000", "--points", "10", "--csv")
    assert code == 0
    assert [int(line.split(",")[0]) for line in out.splitlines()[1:]] == [1024, 2048]


def test_an_unknown_machine_given_as_machines_argument_is_not_said_to_be_an_option(capsys):
    code, _, err = run(capsys, "machines", "h1000")
    assert code == 2 and err.startswith("error[KC401]: unknown machine `h1000`"), err


def test_a_tensor_warm_twice_is_refused_and_counted_once(capsys):
    """`--warm-l2 x,x` on rmsnorm at R = n = 4096 took x's reads from L2 twice: t_floor
    5.24 µs instead of 10.0 µs, t_model 23.2 µs instead of 11.6 µs."""
    import sympy

    from kernelcost.analysis.api import load
    from kernelcost.base.kinds import Reuse
    from kernelcost.gpu.warm import warm_l2
    from kernelcost.hardware.machinefile import load_machine

    code, _, err = run(capsys, "analyze", ROOT / "specs" / "rmsnorm.kcost", "--set",
                       "R=4096,n=4096", "--machine", "h100", "--warm-l2", "x, w,x")
    assert code == 2 and err.startswith("--warm-l2:1:6: error[KC311]"), err
    spec = load(ROOT / "specs" / "rmsnorm.kcost")
    values = {spec.parameters[name]: sympy.Integer(4096) for name in ("R", "n")}
    once, twice = (warm_l2(spec.cost(Reuse.SPEC), load_machine("h100"), values, names)
                   for names in (("x",), ("x", "x")))
    assert twice == once
