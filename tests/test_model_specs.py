"""The roofline model on Costs counted from the shipped specs, against the roofline chapter's
figures, and the sentences and advice it gives about them."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy
from count_checks import counted
from test_occupancy_limits import CLUSTERED

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.answers.regimes import Lever, Regime, Zone, compute_advice
from kernelcost.base.symbols import size_symbol
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.advice_text import compute_advice_text
from kernelcost.present.roofs import roof_name

SPECS = Path(__file__).resolve().parent.parent / "specs"
n, M, N, K, T = (size_symbol(name) for name in ("n", "M", "N", "K", "T"))
Theta, b, d = (size_symbol(name) for name in ("Theta", "b", "d"))


# ------------------------------------------------------------------ Costs counted from specs

def test_spec_vector_add_on_h100():
    result = verdict(counted("vector_add"), load_machine("h100"), values={"n": 10**8})
    assert result.precision == "fp32"  # the spec's own precision
    assert result.level("global").ratio == sympy.Rational(1, 240)  # chapter example 1
    assert float(result.t_min) == pytest.approx(358e-6, rel=0.01)  # chapter example 1


def test_spec_gemm_at_4096_on_h100():
    result = verdict(counted("gemm"), load_machine("h100"),
                     values={"M": 4096, "N": 4096, "K": 4096})
    assert float(result.level("global").intensity) == pytest.approx(1365.3, rel=0.001)
    assert float(result.t_min) == pytest.approx(139e-6, rel=0.01)  # chapter example 2
    assert result.regime == Regime.COMPUTE_BOUND


def test_spec_llm_decode_batch_1_on_h100():
    result = verdict(counted("llm_decode"), load_machine("h100"),
                     values={"Theta": 70 * 10**9, "b": 1})
    assert float(result.t_min) == pytest.approx(41.8e-3, rel=0.01)  # chapter example 5
    assert 1 / float(result.t_min) == pytest.approx(23.9, rel=0.01)


def test_spec_conv3x3_on_h100_fp32():
    result = verdict(counted("conv3x3"), load_machine("h100"), values={"n": 1024})
    level = result.level("global")
    assert float(level.intensity) == pytest.approx(2.25, rel=0.01)  # chapter example 6
    assert float(1 / level.ratio) == pytest.approx(8.9, rel=0.01)  # memory-bound by ~9x
    assert result.regime == Regime.MEMORY_BOUND


def test_spec_conv3x3_is_memory_bound_at_every_n():
    # I(n) = 9n^2 / (2(2n^2 + 4n + 13)) rises towards 9/4 FLOP/B and never reaches it, so it
    # stays under every fp32 ridge: bound and regime are decided with n symbolic
    cost = counted("conv3x3")
    h100 = verdict(cost, load_machine("h100"))
    level = h100.level("global")
    assert level.ridge == 20  # 67 TFLOP/s fp32 vector over 3.35 TB/s
    assert level.ratio == 9 * n**2 / (80 * n**2 + 160 * n + 520)
    assert level.regime == Regime.MEMORY_BOUND and h100.regime == Regime.MEMORY_BOUND
    assert roof_name(h100.bound) == "global bandwidth"
    # Q / B, 4(2n^2 + 4n + 13) B at 3.35 TB/s
    assert sympy.expand(h100.t_min - 4 * (2 * n**2 + 4 * n + 13) / (335 * 10**10)) == 0
    assert level.peak_fraction == level.ratio  # min(1, ratio), the ratio being below 1
    # the ratio is 9/760 at n = 1 and 9/80 as n grows: it crosses 1/10 between 18 and 19
    assert level.ratio.subs(n, 18) < sympy.Rational(1, 10) < level.ratio.subs(n, 19)
    assert level.zone is None
    # on an L40S (ridge 91.6 TFLOP/s / 864 GB/s = 5725/54) it stays under 9/4 / 106 = 0.021
    l40s = verdict(cost, load_machine("l40s")).level("global")
    assert l40s.ridge == sympy.Rational(5725, 54)
    assert l40s.zone == Zone.CLEARLY_MEMORY_BOUND and l40s.regime == Regime.MEMORY_BOUND


def test_the_sentence_never_speaks_of_the_register_file_as_a_roof():
    # gemm_hopper on H200 is compute-bound; its register traffic (acc read and written per
    # multiply-add) has the smallest ratio, but the register file is no roof
    from kernelcost.answers.answer import answers
    from kernelcost.present.report import answer_sentence

    analysis = kernelcost.analyze(kernelcost.load(SPECS / "gemm_hopper.kcost"),
                                  {"M": 8192, "N": 8192, "K": 8192})
    (answer,) = answers(analysis, ["h200"], None)
    sentence = answer_sentence(answer)
    assert "registers" not in sentence
    assert "I_l2 = 126 FLOP/B" in sentence  # the roof level nearest its ridge (99 FLOP/B)


def test_a_cluster_the_machine_cannot_form_does_not_fit():
    # A100 (cc 8.0) has no thread-block clusters: its limit is 1 block (CUDA Programming
    # Guide, Table 26); H100 forms 2-block clusters (portable up to 8)
    cost = kernelcost.loads(CLUSTERED).cost()
    values = {"M": 4096, "N": 4096}
    a100 = verdict(cost, load_machine("a100"), values=values)
    assert [(m.level, m.needed, m.capacity) for m in a100.misfits] == [("cluster", 2, 1)]
    assert a100.t_bound is None
    assert not verdict(cost, load_machine("h100"), values=values).misfits


def test_compute_advice_speaks_of_tensor_units_only_where_the_machine_has_them():
    """Issue 16 item 1: words follow the machine. A user's machine file without tensor units
    must not be told to use them; work already on them is told to narrow the precision."""
    import dataclasses

    def advice_of(machine, *args, **options):
        return compute_advice_text(compute_advice(machine, *args, **options))

    h100 = load_machine("h100")
    on_tensor = compute_advice(h100, h100.ceiling("bf16", "tensor").roof)
    assert on_tensor.lever == Lever.NARROWER_ON_TENSOR
    assert "narrower precision on the tensor units" in compute_advice_text(on_tensor)
    vector_only = dataclasses.replace(
        h100, compute=tuple(p for p in h100.compute if p.unit != "tensor"))
    advice = advice_of(vector_only, vector_only.ceiling("bf16", "tensor").roof)
    assert "tensor units" not in advice.replace("no tensor units", "")
    assert "no tensor units on this machine" in advice
    fp32 = compute_advice(h100, h100.ceiling("fp32", "tensor").roof)  # H100 fp32: vector only
    assert fp32.tensor_precisions == ("bf16", "fp16", "fp64", "fp8", "i8", "tf32")
    assert ("move the work to the tensor units (bf16, fp16, fp64, fp8, i8, tf32)"
            in compute_advice_text(fp32))
    # element-wise work (no contraction) is not told to move to units that cannot run it
    elementwise = advice_of(h100, h100.ceiling("bf16", "fma").roof, contractions=False)
    assert "tensor units cannot run it" in elementwise and "move the work" not in elementwise
