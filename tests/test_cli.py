"""The command line, end to end, through kernelcost.cli.main (as the console script runs it)."""

import json
import re

import pytest
from conftest import SPECS
from wording import plural_slips

from kernelcost import cli


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_analyze_json_schema_for_the_tiled_gemm(capsys):
    document = run_json(capsys, "analyze", SPECS / "gemm_tiled.kcost")
    assert document["kernel"] == "gemm_tiled"
    assert document["parameters"] == {"M": None, "N": None, "K": None, "T": 128.0}
    assert document["work"]["value"] is None
    assert document["work"]["by_class"]["tensor"]["expr"] == "2*K*M*N"
    assert document["traffic"]["global"]["expr"] == "2*M*N*(2*K + T)/T"
    assert set(document["traffic"]) == {"global", "shared"}
    assert document["intensity"]["global"]["limit"] == "T/2"  # example 4


def test_analyze_values_are_si_base_units(capsys):
    document = run_json(capsys, "analyze", SPECS / "gemm.kcost", "--set", "N=4096",
                        "--set", "M=N", "--set", "K=N")
    assert document["parameters"] == {"M": 4096.0, "N": 4096.0, "K": 4096.0}
    assert document["work"]["value"] == 2 * 4096**3  # FLOP
    assert document["traffic"]["global"]["value"] == 6 * 4096**2 * 1.0  # B, bf16
    assert document["intensity"]["global"]["value"] == pytest.approx(4096 / 3)


def test_analyze_with_a_machine_gives_verdicts_and_an_answer(capsys):
    document = run_json(capsys, "analyze", SPECS / "gemm.kcost", "--set", "M=N,K=N",
                        "--machine", "h100")
    (answer,) = document["answers"]
    # chapter example 2: the square GEMM crosses the H100 BF16 ridge at N* = 3 I_crit = 886.6
    (crossing,) = answer["crossings"]
    assert crossing["value"] == pytest.approx(886.6, rel=1e-3)
    assert crossing["compute_bound_side"] == "above"
    assert "memory-bound at N <= 886, compute-bound at N >= 887" in answer["sentence"]
    (row,) = document["verdicts"]
    assert row["machine"] == "h100" and row["precision"] == "bf16"
    assert row["ridge"] == pytest.approx(295.5, rel=1e-3)


def test_measured_throughput_is_reported_in_the_regime_metric(capsys):
    document = run_json(capsys, "analyze", SPECS / "gemm.kcost", "--set", "M=4096,N=4096,K=4096",
                        "--machine", "h100", "--measured", "400TFLOP/s")
    efficiency = document["answers"][0]["efficiency"]
    assert efficiency["regime"] == "compute-bound"
    assert efficiency["fraction"] == pytest.approx(400 / 990)  # chapter: 40 % of peak
    assert efficiency["text"] == "400 TFLOP/s of 990 TFLOP/s (40 %)"


def test_vector_add_on_h100_text_report(capsys):
    code, out, _ = run(capsys, "analyze", SPECS / "vector_add.kcost", "--set", "n=1e8",
                       "--machine", "h100")
    assert code == 0
    assert "358 µs" in out  # chapter example 1
    assert "memory-bound on H100 FP32" in out


def test_solve_tiled_gemm_never_crosses_at_t128(capsys):
    document = run_json(capsys, "solve", SPECS / "gemm_tiled.kcost", "--for", "N",
                        "--set", "M=N,K=N,T=128", "--machine", "h100", "--precision", "bf16",
                        "--level", "global")
    (crossing,) = document["crossings"]
    assert crossing["value"] is None  # never
    assert crossing["limit"] == 64.0  # T/2 < 295.5


def test_solve_tile_size_at_8192_and_its_shared_memory_fit(capsys):
    document = run_json(capsys, "solve", SPECS / "gemm_tiled.kcost", "--for", "T",
                        "--set", "M=N,K=N,N=8192", "--machine", "h100", "--level", "global")
    (crossing,) = document["crossings"]
    # I = N T / (2N + T) = 19800/67 at N = 8192: T* = 2 N I_crit / (N - I_crit) = 613.2
    assert crossing["value"] == pytest.approx(613.2, rel=1e-3)
    fits = [c for c in document["capacity"] if c["level"] == "shared"]
    assert fits[0]["value"] == pytest.approx((233472 / 4) ** 0.5, rel=1e-6)  # 4 T^2 B


def test_machines_lists_the_database(capsys):
    code, out, _ = run(capsys, "machines")
    assert code == 0
    for machine in ("a100", "h100", "h200", "b200", "mi300x"):
        assert machine in out
    document = run_json(capsys, "machines", "h100")
    assert all(peak["source"] for peak in document["compute"])


def test_check_agrees_on_every_shipped_spec_at_one_size(capsys):
    code, out, _ = run(capsys, "check", SPECS / "gemm_tiled.kcost", "--set", "M=4,N=6,K=8,T=2")
    assert code == 0
    # at a glance: a row a sample, its sizes, the quantities compared, whether they agree
    assert re.search(r"\n4 +6 +8 +2 +19 +0 +agree", out)
    assert "(--rows adds each sample's comparisons" in out and "work[tensor]" not in out
    code, out, _ = run(capsys, "check", SPECS / "gemm_tiled.kcost", "--set", "M=4,N=6,K=8,T=2",
                       "--rows")
    assert code == 0 and "work[tensor]" in out and "closed forms agree" in out


def test_check_counts_one_of_a_thing_in_the_singular(capsys):
    # gemm_tiled at M = N = 1, K = 2, T = 1: C holds 1 element, A and B 2, their T x T
    # tiles 1 each
    code, out, _ = run(capsys, "check", SPECS / "gemm_tiled.kcost", "--set", "M=1,N=1,K=2,T=1",
                       "--rows")
    assert code == 0 and "closed forms agree" in out
    assert re.search(r"footprint\[C\]\.read +1 element +1 element +ok", out)
    assert re.search(r"footprint\[A\]\.read +2 elements +2 elements +ok", out)
    assert re.search(r"scope 0 read\[A\] \(2 points\) +1 element +1 element +ok", out)
    assert not plural_slips(out)


def test_check_pins_the_sizes_set_and_draws_the_others(capsys):
    # the README's `check SPEC --set N=12,T=4` on gemm_tiled, which has M and K besides
    code, out, _ = run(capsys, "check", SPECS / "gemm_tiled.kcost", "--set", "N=12,T=4",
                       "--samples", "3", "--rows")
    assert code == 0 and "closed forms agree" in out
    heads = re.findall(r"gemm_tiled at M = (\d+), N = (\d+), K = (\d+), T = (\d+)", out)
    assert len(heads) == 3 and len(set(heads)) == 3
    for m, n, k, t in heads:
        assert (n, t) == ("12", "4") and int(m) % 4 == 0 and int(k) % 4 == 0


def test_check_refuses_a_size_set_to_one_without_a_value(capsys):
    code, _, err = run(capsys, "check", SPECS / "gemm_tiled.kcost", "--set", "M=N")
    assert code == cli.EXIT_USER_ERROR
    assert "--set M:1:1: error[KC305]: `M` is set to N, and N has no value here" in err
    assert "^" in err


def test_check_names_the_sizes_set_when_they_break_an_assumption(capsys):
    code, _, err = run(capsys, "check", SPECS / "gemm_tiled.kcost", "--set", "N=12,T=5")
    assert code == cli.EXIT_USER_ERROR
    assert "error[KC221]" in err and "with N = 12, T = 5 as set" in err


def test_check_fails_when_the_count_is_broken(capsys, monkeypatch):
    import kernelcost.count.spec_count as count_module

    real_work = count_module._Counter.work

    def off_by_one(self):
        return {cls: expr + 1 for cls, expr in real_work(self).items()}

    monkeypatch.setattr(count_module._Counter, "work", off_by_one)
    code, out, _ = run(capsys, "check", SPECS / "vector_add.kcost", "--set", "n=5")
    assert code == cli.EXIT_MISMATCH
    assert "mismatch" in out


@pytest.mark.parametrize("argv, message", [
    (["analyze", "specs/nope.kcost"], "no such file"),
    (["analyze", "specs"], "is a directory"),
    (["analyze", "specs/gemm.kcost", "--set", "Q=3"], "not a parameter"),
    (["analyze", "specs/gemm.kcost", "--set", "N=two"], "unknown size `two`"),
    (["analyze", "specs/gemm.kcost", "--machine", "h1000"], "h1000"),
    (["analyze", "specs/gemm.kcost", "--measured", "fast"], "cannot read the measurement"),
    (["solve", "specs/gemm.kcost", "--for", "X"], "not a parameter"),
])
def test_user_errors_exit_2_without_traceback(capsys, monkeypatch, argv, message):
    monkeypatch.chdir(SPECS.parent)
    code, out, err = run(capsys, *argv)
    assert code == cli.EXIT_USER_ERROR
    assert message in err
    assert "Traceback" not in err + out


def test_sizes_that_break_an_assumption_are_flagged(capsys):
    document = run_json(capsys, "analyze", SPECS / "gemm_tiled.kcost",
                        "--set", "M=100,N=128,K=128,T=32")
    assert document["warnings"] == ["`assume T | M` does not hold at T = 32, M = 100"]
    clean = run_json(capsys, "analyze", SPECS / "gemm_tiled.kcost",
                     "--set", "M=128,N=128,K=128,T=32")
    assert clean["warnings"] == []


@pytest.mark.parametrize("sizes, broken", [
    ("Ea=9,Mt=64,N=128,K=128", True),  # moe_gemm assumes Ea <= E, with E = 8
    ("Ea=8,Mt=64,N=128,K=128", False),
    ("Mt=64,N=128,K=128", False),  # Ea left free: it may hold
    ("Ea=3,E=2,Mt=64,N=128,K=128", True),
])
def test_sizes_that_break_a_bound_are_flagged(capsys, sizes, broken):
    document = run_json(capsys, "analyze", SPECS / "moe_gemm.kcost", "--set", sizes)
    flagged = "`assume Ea <= E` does not hold at these sizes" in document["warnings"]
    assert flagged == broken


def test_a_value_is_found_where_the_sizes_left_cancel_and_none_where_they_move():
    # analysis._evaluate: a form that still moves with a size left free has no value, told
    # from its plan at two sizes; one where the free size cancels out is a number
    import sympy

    from kernelcost.analysis.api import _evaluate
    from kernelcost.base.symbols import size_symbol

    N, T, M = (size_symbol(name) for name in ("N", "T", "M"))
    at = {T: sympy.Integer(128), M: sympy.Integer(5)}
    assert _evaluate((T - 128) * N + M, at) == 5.0
    assert _evaluate(sympy.Min(T, N) * M, at) is None
    assert _evaluate(T * N / (N + 1), at) is None
    assert _evaluate(T * M, at) == 640.0


def _subcommands(parser) -> list[list[str]]:
    """Every command path of the parser, nested subcommands included (argparse keeps them in
    its subparsers actions' choices)."""
    import argparse

    paths: list[list[str]] = [[]]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                paths += [[name, *rest] for rest in _subcommands(sub)]
    return paths


@pytest.mark.parametrize("path", _subcommands(cli.build_parser()), ids=" ".join)
def test_every_commands_help_prints_and_exits_0(path, capsys):
    # argparse formats help strings with %: a bare % in one (`% M`) raised ValueError, a
    # traceback on `kernelcost import --help`
    with pytest.raises(SystemExit) as exit_:
        cli.main([*path, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kernelcost")
    assert ("options:" in out) or ("positional arguments:" in out)
