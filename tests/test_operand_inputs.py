"""What the operands hold (random values or zeros) and the tensor roof t_model takes: the
A100's figure with zero inputs (Horace He's cuBLAS 8192^3, 295 TFLOPS of zeros against 257 of
randn), the random inputs' figure where a part has none, and the corpus rows timed on zeros."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.answers.published import read_corpus
from kernelcost.answers.published_report import compare_rows
from kernelcost.base.kinds import Inputs, WorkClass
from kernelcost.cli import main
from kernelcost.gpu.derates import derated
from kernelcost.gpu.effects.achievable import ACHIEVABLE
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.derate_text import derate_text

ROOT = Path(__file__).resolve().parent.parent
N = 8192
WORK = 2 * N**3  # FLOP of the square GEMM


def _gemm_verdict(machine_id: str, inputs: Inputs):
    cost = kernelcost.load(ROOT / "specs" / "gemm.kcost").cost()
    machine = dataclasses.replace(load_machine(machine_id), inputs=inputs)
    values = {symbol: sympy.Integer(N) for symbol in cost.parameters
              if symbol.name in ("M", "N", "K")}
    return verdict(cost, machine, values=values)


def _tensor_derate(result):
    [found] = [d for d in result.derates if d.cause == ACHIEVABLE and d.key == "tensor"]
    return found


def _tensor_seconds(result) -> Fraction:
    """The tensor term at the achievable rate alone (the nest's: no grid)."""
    [term] = [term for term in result.terms if term.key == WorkClass.TENSOR]
    return Fraction(str(derated(term, [_tensor_derate(result)]).seconds))


def test_zero_inputs_take_the_a100s_figure_for_them():
    # 295 TFLOPS of zeros against the A100's 312 TFLOPS dense bf16 peak: 0.9455 (rounded as
    # the machine file states it); random inputs keep MAMF's 271.2 / 312 = 0.8692
    zeros, random = (_gemm_verdict("a100", inputs) for inputs in (Inputs.ZEROS, Inputs.RANDOM))
    assert _tensor_derate(zeros).factor == sympy.Rational("0.9455")
    assert _tensor_derate(random).factor == sympy.Rational("0.8692")
    assert zeros.t_bound == random.t_bound == sympy.Rational(WORK, 312 * 10**12)
    # the gemm nest is tensor-bound at 8192^3: its tensor term W / (312 TFLOP/s x the
    # fraction), which the overlap with its loads then lengthens alike
    assert _tensor_seconds(zeros) == Fraction(WORK) / (Fraction(312 * 10**12)
                                                       * Fraction("0.9455"))
    assert _tensor_seconds(random) == Fraction(WORK) / (Fraction(312 * 10**12)
                                                        * Fraction("0.8692"))
    assert _tensor_seconds(zeros) <= zeros.t_model < random.t_model
    assert "94.5% of the tensor figure with zero inputs" in derate_text(_tensor_derate(zeros))
    assert "with" not in derate_text(_tensor_derate(random)).split(", as")[0]


def test_a_part_without_a_zeros_figure_keeps_the_random_one_and_says_so():
    zeros, random = (_gemm_verdict("h100", inputs) for inputs in (Inputs.ZEROS, Inputs.RANDOM))
    assert zeros.t_model == random.t_model and zeros.t_bound == random.t_bound
    finding = _tensor_derate(zeros).finding
    assert (finding.inputs, finding.inputs_unfigured) == (Inputs.RANDOM, Inputs.ZEROS)
    assert "with random inputs (no figure with zero inputs)" in derate_text(
        _tensor_derate(zeros))
    assert _tensor_derate(random).finding.inputs_unfigured is None


def test_the_corpus_rows_timed_on_zeros_are_taken_with_zero_inputs():
    # this project's H200 runs timed torch.matmul at 8192^3 on zeros (gemm_zeros) and randn:
    # the H200 file has no zeros figure, so both take the same t_model, and the zeros rows'
    # ledger names the missing figure
    rows = [row for row in read_corpus() if row.source == "project-h200-2026-12-04b"
            and row.sizes == {"M": "8192", "N": "8192", "K": "8192"}
            and row.spec == "specs/gemm_hopper.kcost"]
    assert sorted(row.operands for row in rows) == sorted(
        [Inputs.RANDOM, Inputs.RANDOM, Inputs.ZEROS, Inputs.ZEROS])
    results = compare_rows(rows)
    assert len({result.comparison.t_model for result in results}) == 1


def test_inputs_need_a_machine(capsys):
    assert main(["analyze", str(ROOT / "specs" / "gemm.kcost"), "--inputs", "zeros"]) == 2
    assert "--inputs needs a machine" in capsys.readouterr().err


def test_the_cli_takes_the_inputs(capsys):
    assert main(["analyze", str(ROOT / "specs" / "gemm.kcost"), "--set", "M=N,K=N,N=8192",
                 "--machine", "a100", "--inputs", "zeros", "--json"]) == 0
    [found] = json.loads(capsys.readouterr().out)["verdicts"]
    tensor = next(d for d in found["derates"] if d["key"] == "tensor")
    assert tensor["factor"] == 0.9455 and "with zero inputs" in tensor["detail"]
    # the API's verdict with zero inputs, whose tensor term is W / (312 TFLOP/s x 0.9455)
    assert found["t_model"] == pytest.approx(
        float(_gemm_verdict("a100", Inputs.ZEROS).t_model), rel=1e-12)
