"""A precision a machine does not have is refused (issue 16, item 3), not computed on the
fp32 vector peak under the precision's label; an unknown name is refused with no machine.
`--precision P` maps the spec's element types to P (issue 34, item 3; precisions.py), so the
bytes and I change with it, and `--machine all` names the machines it leaves out."""

from pathlib import Path

import pytest

from kernelcost import cli
from kernelcost.answers.answer import answers
from kernelcost.base.errors import KcostError
from kernelcost.hardware.machinefile import load_machine

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
    assert f"has no `{precision}` peak" in err
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
    assert "a100" in err and "no `fp8` peak" in err


def test_an_unknown_name_is_refused_even_without_a_machine(capsys):
    code, _, err = run(capsys, "analyze", GEMM, "--precision", "bf61")
    assert code == cli.EXIT_USER_ERROR
    assert "unknown precision `bf61`" in err and "bf16" in err


def test_a_precision_the_machine_has_is_answered(capsys):
    code, out, _ = run(capsys, "analyze", GEMM, "--set", "N=4096", "--machine", "h100",
                       "--precision", "fp8")
    assert code == cli.EXIT_OK and "FP8" in out


def test_the_model_refuses_it_too():
    with pytest.raises(KcostError, match="no `fp8` peak"):
        load_machine("a100").require_precision("fp8")
    load_machine("a100").require_precision("bf16")  # no error


def test_all_keeps_the_machines_that_have_it(capsys):
    code, out, _ = run(capsys, "analyze", GEMM, "--set", "M=4096,N=4096,K=4096", "--machine",
                       "all", "--precision", "fp8", "--json")
    assert code == cli.EXIT_OK
    import json

    machines = {row["machine"] for row in json.loads(out)["verdicts"]}
    assert "h100" in machines and "a100" not in machines and "mi250x" not in machines
    # ... and says so (issue 34, item 3): the machines left out, with what they lack
    dropped = {d["machine"]: d["missing"] for d in json.loads(out)["dropped_machines"]}
    assert dropped == {"a100": ["fp8"], "mi250x": ["fp8"]}
    code, out, _ = run(capsys, "analyze", GEMM, "--set", "M=4096,N=4096,K=4096", "--machine",
                       "all", "--precision", "fp8", "--no-verify")
    assert "not compared:" in out and "(a100: no fp8 peak)" in out and "(mi250x: no fp8" in out
    code, out, _ = run(capsys, "solve", GEMM, "--for", "N", "--set", "M=N,K=N", "--machine",
                       "all", "--precision", "fp8")
    assert code == cli.EXIT_OK and "(a100: no fp8 peak)" in out


# --- the element types follow the precision (issue 34, item 3) ----------------------------

def test_fp8_gemm_reads_fp8_operands_and_writes_bf16(capsys):
    """A and B in fp8 (1 B, per-tensor scales), C in bf16 (2 B): at M = N = K = 4096,
    W = 2 * 4096^3 and Q = 4096^2 * (1 + 1 + 2), so I = 2 * 4096 / 4 = 2048."""
    import json

    code, out, _ = run(capsys, "analyze", GEMM, "--precision", "fp8", "--machine", "h100",
                       "--set", "M=4096,N=4096,K=4096", "--json")
    assert code == cli.EXIT_OK
    document = json.loads(out)
    assert document["precision"] == "fp8"
    assert document["intensity"]["global"]["value"] == 2048
    (row,) = document["verdicts"]
    assert row["precision"] == "fp8" and row["ridge"] == pytest.approx(1979e12 / 3.35e12)
    types = {c["name"]: (c["from"], c["to"], c["bytes_to"])
             for c in document["element_types"]["changes"]}
    assert types == {"A": ("bf16", "fp8", 1), "B": ("bf16", "fp8", 1)}  # C stays bf16
    code, out, _ = run(capsys, "analyze", GEMM, "--precision", "fp8", "--machine", "h100",
                       "--set", "M=4096,N=4096,K=4096")
    assert "2048" in out and "A, B bf16 -> fp8 (1 B)" in out


def test_fp4_gemm_adds_the_nvfp4_scale_bytes():
    """NVFP4: E2M1 values (1/2 B) in blocks of 16 sharing an E4M3 scale (1 B): 9/16 B an
    element. Q = 4096^2 * (9/16 + 9/16 + 2) = 4096^2 * 25/8, I = 2 * 4096 * 8/25 = 2621.44,
    where fp4 without its scales would give 2730.7 and the bf16 types 1365.3."""
    import sympy

    import kernelcost

    sizes = {"M": 4096, "N": 4096, "K": 4096}
    result = kernelcost.analyze(GEMM, sizes, precision="fp4", verify=True)
    assert result.verified.agree  # the oracle enumerates the mapped types too
    assert result.cost.footprints["A"].element_bytes == sympy.Rational(9, 16)
    assert result.cost.footprints["C"].element_bytes == 2
    assert result.intensity["global"].value == pytest.approx(65536 / 25)
    (answer,) = answers(result, ["b200"], ["fp4"])
    assert answer.verdict.levels[0].intensity == sympy.Rational(65536, 25)
    assert answer.mapping.format.block == 16
    assert kernelcost.analyze(GEMM, sizes).intensity["global"].value == pytest.approx(
        4096 / 3)


def test_the_table_of_formats():
    import sympy

    from kernelcost.lang.precisions import FORMATS

    assert FORMATS["fp8"].operand_bytes == 1 and FORMATS["fp8"].output == "bf16"
    assert FORMATS["fp6"].operand_bytes == sympy.Rational(3, 4) + sympy.Rational(1, 32)  # MX
    assert FORMATS["fp4"].operand_bytes == sympy.Rational(1, 2) + sympy.Rational(1, 16)  # NV
    assert FORMATS["bf16"].accumulator == "f32" and FORMATS["fp64"].accumulator == "f64"
    for form in FORMATS.values():
        assert form.block is None or "https://" in form.source  # every scale has its source


def test_accumulators_and_partials_follow_the_table():
    import kernelcost

    rmsnorm = kernelcost.load(SPECS / "rmsnorm.kcost").at_precision("fp64")
    changes = {c.name: (c.role, c.after) for c in rmsnorm.mapping.changes}
    assert changes == {"x": ("in", "f64"), "w": ("in", "f64"), "y": ("out", "f64"),
                       "squares": ("register", "f64"), "inv_rms": ("register", "f64")}
    decode = kernelcost.load(SPECS / "decode_attention.kcost").at_precision("fp8")
    after = {name: tensor.dtype for name, tensor in decode.checked.tensors.items()}
    assert after["Kc"] == "fp8" and after["O"] == "bf16" and after["Op"] == "f32"
    assert after["acc"] == "f32"  # fp32 accumulators in registers
    spec = kernelcost.load(GEMM)
    assert spec.at_precision("bf16") is spec and spec.mapping is None  # its own: unchanged
    assert spec.at_precision("fp8").at_precision("fp4") is spec.at_precision("fp4")


def test_sweep_counts_the_mapped_bytes():
    import numpy

    from kernelcost.hardware.machinefile import load_machine
    from kernelcost.present.sweep import sweep

    swept = sweep(GEMM, numpy.array([1024.0]), "N", settings={"M": "N", "K": "N"},
                  machine=load_machine("h100"), precision="fp8")
    assert swept.intensity["global"][0] == pytest.approx(512)  # 2 * 1024 / 4
