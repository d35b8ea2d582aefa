"""Sweeps: vectorised closed forms against exact sympy evaluation at a few sizes."""

import itertools
import math
import subprocess
import sys

import numpy
import pytest
import sympy
from conftest import SPECS, size

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.base.errors import KcostError
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.settings import resolve_settings
from kernelcost.lang.sizerange import SizeRange, parse_range
from kernelcost.present.roofs import roof_name
from kernelcost.present.sweep import Sweeper, sweep

H100 = load_machine("h100")


@pytest.mark.parametrize("spec_name, parameter, settings, sizes", [
    ("gemm_tiled", "N", {"M": "N", "K": "N"}, [128, 1000, 4096, 65536]),
    ("gemm_tiled", "T", {"M": 8192, "N": 8192, "K": 8192}, [16, 128, 613, 8192]),
    ("llm_decode", "b", {"Theta": 70 * 10**9}, [1, 17, 296, 4096]),
    ("vector_add", "n", {}, [1, 1000, 10**8]),
    ("gemm_tiled_clipped", "N", {"M": 1000, "K": 512}, [100, 129, 1000, 5000]),
    ("softmax", "n", {}, [3, 1024]),
    ("attention", "S", {"d": 128}, [64, 4096]),
])
def test_sweep_matches_exact_evaluation(spec_name, parameter, settings, sizes):
    """The reference substitutes one size at a time through the model (exact sympy)."""
    spec = kernelcost.load(SPECS / f"{spec_name}.kcost")
    cost = spec.cost()
    result = sweep(spec, numpy.array(sizes, dtype=float), parameter, settings=settings,
                   machine=H100)
    resolved = resolve_settings(settings, spec.parameters)
    for position, value in enumerate(sizes):
        values = {**resolved, size(parameter): sympy.Integer(value)}
        exact = verdict(cost, H100, None, values)
        assert result.work[position] == pytest.approx(float(exact.work_FLOP), rel=1e-12)
        for level in exact.levels:
            name = level.level
            assert result.traffic[name][position] == pytest.approx(float(level.traffic_B),
                                                                   rel=1e-12)
            assert result.intensity[name][position] == pytest.approx(float(level.intensity),
                                                                     rel=1e-12)
        assert result.t_min[position] == pytest.approx(float(exact.t_min), rel=1e-12)
        assert result.binding[position] == roof_name(exact.bound)
        peak = float(H100.peak(cost.precision, cost.main_class))
        assert result.peak_fraction[position] == pytest.approx(
            float(exact.performance) / peak, rel=1e-12)


def test_vector_add_sweep_reproduces_example_1():
    # chapter, example 1: I = 1/12 at every size; t_min = 358 us at n = 1e8 on H100
    result = sweep(SPECS / "vector_add.kcost", numpy.array([1e8]), "n", machine=H100)
    assert result.intensity["global"][0] == pytest.approx(1 / 12)
    assert result.t_min[0] == pytest.approx(358e-6, rel=0.01)
    assert result.binding == ["global bandwidth"]


def test_llm_decode_binding_roof_changes_at_the_ridge():
    # chapter, example 5: I ~ b, compute-bound from b* ~ 296 on H100 bf16
    result = sweep(SPECS / "llm_decode.kcost", numpy.array([295.0, 296.0]), "b",
                   settings={"Theta": 70e9}, machine=H100)
    assert result.binding == ["global bandwidth", "bf16 tensor peak"]


def test_a_million_sizes_in_one_call():
    sizes = numpy.geomspace(64, 65536, 10**6)
    result = sweep(SPECS / "gemm_tiled.kcost", sizes, "N", settings={"M": "N", "K": "N"},
                   machine=H100)
    assert result.intensity["global"].shape == (10**6,)
    # I_global = N T / (2N + T) rises towards T/2 = 64 (chapter, example 4)
    assert numpy.all(numpy.diff(result.intensity["global"]) > 0)
    assert result.intensity["global"][-1] < 64


def test_the_swept_value_is_replaced_but_expressions_on_it_are_kept():
    # N=4096 is the figure's point; M=N must still follow the sweep
    result = sweep(SPECS / "gemm_tiled.kcost", numpy.array([256.0]), "N",
                   settings={"M": "N", "K": "N", "N": 4096})
    assert result.work[0] == 2 * 256**3


def test_unset_parameters_are_named():
    with pytest.raises(KcostError, match="unset: K, M"):
        sweep(SPECS / "gemm_tiled.kcost", numpy.array([64.0]), "N")


def test_unknown_parameter_is_an_error_with_a_hint():
    with pytest.raises(KcostError, match="not a parameter"):
        sweep(SPECS / "vector_add.kcost", numpy.array([64.0]), "m")


def test_size_ranges():
    assert list(SizeRange("N", 64, 1024, 5, log=True).values()) == [64, 128, 256, 512, 1024]
    linear = parse_range("n=10..100", points=10, log=False)
    assert list(linear.values()) == list(range(10, 101, 10))
    assert parse_range("n=10..100").log  # geometric by default: sizes span decades
    assert parse_range("n=1e3..1e9", log=True).high == 1e9
    dense = parse_range("N=64..65536").dense(50).values()
    assert len(dense) == 50 and dense[0] == pytest.approx(64) and not dense[1].is_integer()
    for bad in ("N=64", "N=100..10", "N=a..b", "64..128"):
        with pytest.raises(KcostError):
            parse_range(bad)


def run_cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernelcost.cli", *argv],
                          capture_output=True, text=True, check=False)


def run_in_process(capsys, *argv: str) -> subprocess.CompletedProcess:
    """The command through the program's entry point (kernelcost.cli.main) in this process:
    its exit code and what it wrote, without a second of start-up. The program itself runs in
    test_sweep_cli_csv_carries_units_and_values and test_sweep_cli_reports_user_errors (the
    exit codes a shell sees, 0 and 2)."""
    from kernelcost.cli import main

    try:
        code = main(list(argv))
    except SystemExit as stopped:  # argparse's refusal of the command line
        code = stopped.code
    written = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, written.out, written.err)


def test_sweep_cli_csv_carries_units_and_values():
    completed = run_cli("sweep", str(SPECS / "gemm_tiled.kcost"), "--sweep", "N=128..1024",
                        "--points", "4", "--log", "--set", "M=N,K=N", "--machine", "h100",
                        "--csv")
    assert completed.returncode == 0, completed.stderr
    header, *rows = completed.stdout.strip().splitlines()
    assert header.split(",") == ["N", "W_FLOP", "Q_global_B", "Q_shared_B",
                                 "I_global_FLOPperB", "I_shared_FLOPperB", "t_min_s", "bound",
                                 "of_peak", "t_min_with_launch_s"]
    first = rows[0].split(",")
    assert float(first[0]) == 128 and float(first[1]) == 2 * 128**3
    assert math.isclose(float(first[4]), 128 * 128 / (2 * 128 + 128))  # N T / (2N + T)
    assert len(rows) == 4


def test_sweep_cli_table(capsys):
    completed = run_in_process(capsys, "sweep", str(SPECS / "vector_add.kcost"), "--sweep",
                               "n=1e3..1e6", "--points", "4", "--log")
    assert completed.returncode == 0, completed.stderr
    assert "0.08333" in completed.stdout and "1000000" in completed.stdout


def test_sweep_cli_reports_user_errors():
    completed = run_cli("sweep", str(SPECS / "gemm_tiled.kcost"), "--sweep", "N=64..128")
    assert completed.returncode == 2
    assert "unset" in completed.stderr


# --- issue 16, item 15: log spacing, sizes the assumptions allow, integers as integers -------


def test_sizes_respect_the_specs_divisibility(capsys):
    # gemm_tiled assumes T | N (T = 128): linear 64..65536 gave 3510, 6956, ...
    completed = run_in_process(capsys, "sweep", str(SPECS / "gemm_tiled.kcost"), "--sweep",
                               "N=64..65536", "--set", "M=N,K=N", "--csv")
    assert completed.returncode == 0, completed.stderr
    sizes = [row.split(",")[0] for row in completed.stdout.strip().splitlines()[1:]]
    assert all(size.isdigit() for size in sizes)  # printed as integers
    values = [int(size) for size in sizes]
    assert all(value % 128 == 0 for value in values) and values[-1] == 65536
    ratios = [b / a for a, b in itertools.pairwise(values)]
    assert max(ratios) < 2.5 and values[1] / values[0] > 1.5  # geometric, not 3447 apart


def test_a_set_tile_sets_the_step():
    from kernelcost.present.sweep import Sweeper

    sweeper = Sweeper(SPECS / "gemm_tiled.kcost", "N", settings={"M": "N", "K": "N", "T": 64})
    assert sweeper.step == 64
    assert Sweeper(SPECS / "gemm.kcost", "N", settings={"M": "N", "K": "N"}).step == 1


def test_the_library_sweep_rounds_a_range_too():
    result = sweep(SPECS / "gemm_tiled.kcost", SizeRange("N", 100, 1000, 6), settings={
        "M": "N", "K": "N"})
    assert all(size % 128 == 0 for size in result.sizes)


def test_linear_spacing_on_request_and_big_sizes_as_integers(capsys):
    completed = run_in_process(capsys, "sweep", str(SPECS / "vector_add.kcost"), "--sweep",
                               "n=1e9..3e9", "--points", "3", "--linear")
    assert completed.returncode == 0, completed.stderr
    assert "1000000000" in completed.stdout and "2000000000" in completed.stdout
    assert "e+" not in completed.stdout and "1e9" not in completed.stdout


def test_registers_are_no_roof_of_the_sweep_as_of_the_model():
    """The register file is reported, never a roof of t_min (model.UNBOUNDING_LEVELS): the
    sweep said 7.64 us "registers bandwidth" where analyze says 3.82 us "fp32 vector peak".
    n = 10^6 rows of m = 256 adds, x and y in registers: W = n m = 2.56e8 FLOP at the H100
    FP32 vector peak of 67 TFLOP/s is 3.82 us; HBM 8 MB / 3.35 TB/s is 2.39 us."""
    from kernelcost import loads
    from kernelcost.analysis import api as analysis
    from kernelcost.answers.answer import answers

    text = ("kernel poly(n, m) { in x: f32[n]  out y: f32[n]\n for i in 0..n {\n"
            " keep x, y in registers { for j in 0..m { y[i] += x[i] } } } }")
    spec = loads(text)
    (answer,) = answers(analysis.analyze(spec, {"n": 10**6, "m": 256}), ["h100"], None)
    result = Sweeper(spec, "n", settings={"m": 256}, machine=load_machine("h100"))(
        numpy.array([1e6]))
    assert result.t_min[0] == pytest.approx(float(answer.verdict.t_min), rel=1e-14)
    assert result.t_min[0] == pytest.approx(1e6 * 256 / 67e12, rel=1e-12)
    assert result.binding == [roof_name(answer.verdict.bound)] == ["fp32 vector peak"]
