"""A precision a machine does not have is refused (issue 16, item 3), not computed on the
fp32 vector peak under the precision's label; an unknown name is refused with no machine."""

from pathlib import Path

import pytest

from kernelcost import cli
from kernelcost.errors import KcostError
from kernelcost.hardware import load_machine

SPECS = Path(__file__).resolve().parent.parent / "specs"
GEMM = str(SPECS / "gemm.kcost")


def run(capsys, *argv):
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("machine, precision", [("a100", "fp8"), ("h100", "fp4")])
def test_analyze_refuses_a_precision_the_machine_lacks(capsys, machine, precision):
    code, out, err = run(capsys, "analyze", GEMM, "--set", "N=4096", "--machine", machine,
                         "--precision", precision)
    assert code == cli.EXIT_USER_ERROR
    assert f"has no {precision} peak" in err
    assert ", ".join(load_machine(machine).precisions) in err  # the hint lists what it has
    assert "FP8" not in out and "FP4" not in out


@pytest.mark.parametrize("argv", [
    ["solve", GEMM, "--for", "N", "--machine", "a100", "--precision", "fp8"],
    ["sweep", GEMM, "--sweep", "N=64..128", "--machine", "a100", "--precision", "fp8"],
    ["plot", GEMM, "--machine", "a100", "--precision", "fp8", "-o", "unused.svg"],
])
def test_every_command_refuses_it(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == cli.EXIT_USER_ERROR
    assert "a100" in err and "no fp8 peak" in err


def test_an_unknown_name_is_refused_even_without_a_machine(capsys):
    code, _, err = run(capsys, "analyze", GEMM, "--precision", "bf61")
    assert code == cli.EXIT_USER_ERROR
    assert "unknown precision `bf61`" in err and "bf16" in err


def test_a_precision_the_machine_has_is_answered(capsys):
    code, out, _ = run(capsys, "analyze", GEMM, "--set", "N=4096", "--machine", "h100",
                       "--precision", "fp8")
    assert code == cli.EXIT_OK and "FP8" in out


def test_the_model_refuses_it_too():
    with pytest.raises(KcostError, match="no fp8 peak"):
        load_machine("a100").require_precision("fp8")
    load_machine("a100").require_precision("bf16")  # no error


def test_all_keeps_the_machines_that_have_it(capsys):
    code, out, _ = run(capsys, "analyze", GEMM, "--set", "M=4096,N=4096,K=4096", "--machine",
                       "all", "--precision", "fp8", "--json")
    assert code == cli.EXIT_OK
    import json

    machines = {row["machine"] for row in json.loads(out)["verdicts"]}
    assert "h100" in machines and "a100" not in machines and "mi250x" not in machines
