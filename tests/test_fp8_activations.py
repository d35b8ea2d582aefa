"""What W8A8 (fp8 weights and fp8 activations) adds to a step besides its GEMMs' fp8 rate
(answers/composition.py's fp8 rows): a kernel that quantises each FP8 GEMM's input
(specs/model_quant_fp8.kcost) and the scales the GEMM's epilogue applies
(specs/model_gemm_w8a8.kcost), against figures derived by hand here for Llama-3-8B (32 layers,
hidden 4096, 32 heads and 8 KV heads of 128, intermediate 14336) at batch 8 on the H100."""

import pytest
from conftest import SPECS

from kernelcost.answers.composition import DECODE, PREFILL, kernel_uses
from kernelcost.answers.quantisation import quantisation
from kernelcost.answers.wholemodel import kernel_cost, step
from kernelcost.cli import main
from kernelcost.hardware.modelfile import load_model

LAYERS, HIDDEN, INTERMEDIATE, QKV = 32, 4096, 14336, (32 + 2 * 8) * 128
BATCH, CONTEXT, GROUP = 8, 1024, 128
QUANTS = ("qkv input quant", "output input quant", "gate+up input quant", "down input quant")
GEMMS = ("qkv projection", "output projection", "gate+up projection", "down projection")


def quant_bytes(rows: int, n: int) -> int:
    """bf16 in (2 B), fp8 out (1 B), one f32 scale a row and group of 128."""
    return rows * n * 2 + rows * n + rows * (n // GROUP) * 4


def quant_flop(rows: int, n: int) -> int:
    """A max, a divide, a max and a min an element (the clamp); a max (eps) and a divide a
    group."""
    return 4 * rows * n + 2 * rows * (n // GROUP)


def w8a8_bytes(m: int, k: int, n: int) -> int:
    """A and W in fp8, C in bf16, A's f32 scales a row and slice of K, W's a 128 x 128
    block."""
    return m * k + k * n + 2 * m * n + m * (k // GROUP) * 4 + (k // GROUP) * (n // GROUP) * 4


@pytest.fixture(scope="module")
def llama8b():
    return load_model("llama3_8b")


def named(uses):
    return {use.name: use for use in uses}


def test_the_quantisation_adds_these_bytes_and_launches_to_a_decode_step(llama8b, h100):
    fp8 = step(llama8b, h100, DECODE, BATCH, CONTEXT, quantisation=quantisation("fp8", "fp8"))
    bf16 = step(llama8b, h100, DECODE, BATCH, CONTEXT)
    kernels = {kernel.use.name: kernel for kernel in fp8.kernels}
    # before qkv, output (32 x 128 = 4096 wide), gate+up: 4096; before down: 14336
    per_layer = 3 * quant_bytes(BATCH, HIDDEN) + quant_bytes(BATCH, INTERMEDIATE)
    assert per_layer == 3 * 99_328 + 347_648 == 645_632
    assert sum(kernels[name].traffic_B for name in QUANTS) == LAYERS * per_layer == 20_660_224
    flop = 3 * quant_flop(BATCH, HIDDEN) + quant_flop(BATCH, INTERMEDIATE)
    assert sum(kernels[name].work_FLOP for name in QUANTS) == LAYERS * flop == 27_369_472
    # one launch a quantisation and layer; the scales ride in the GEMMs' own launches
    assert fp8.launches - bf16.launches == 4 * LAYERS == 128
    # the GEMMs read their scales: 59,904 B a layer beyond the fp8 operands and bf16 output
    scales = (BATCH * 32 * 4 + 32 * 48 * 4) + (BATCH * 32 * 4 + 32 * 32 * 4) \
        + (BATCH * 32 * 4 + 32 * 224 * 4) + (BATCH * 112 * 4 + 112 * 32 * 4)
    assert scales == 59_904
    shapes = ((HIDDEN, QKV), (HIDDEN, HIDDEN), (HIDDEN, 2 * INTERMEDIATE),
              (INTERMEDIATE, HIDDEN))
    for name, (k, n) in zip(GEMMS, shapes, strict=True):
        assert kernels[name].traffic_B == LAYERS * w8a8_bytes(BATCH, k, n), name
    assert sum(LAYERS * w8a8_bytes(BATCH, k, n) for k, n in shapes) == LAYERS * (
        sum(BATCH * k + k * n + 2 * BATCH * n for k, n in shapes) + scales)


def test_a_quantisation_is_bound_by_its_bytes_at_hbm_bandwidth(llama8b, h100):
    """At 8 rows the quantisation is memory-bound: t_bound = its bytes over the H100's
    3.35 TB/s."""
    use = named(kernel_uses(llama8b, DECODE, BATCH, CONTEXT,
                            quantisation=quantisation("fp8", "fp8")))["down input quant"]
    cost = kernel_cost(use, h100)
    assert h100.bandwidth("global") == 3.35e12
    assert cost.t_bound_s == pytest.approx(
        LAYERS * quant_bytes(BATCH, INTERMEDIATE) / h100.bandwidth("global"), rel=1e-9)


@pytest.mark.parametrize("words", [("bf16", "bf16"), ("int8", "bf16"), ("int4", "bf16")])
def test_steps_without_fp8_activations_hold_no_quantisation(llama8b, words):
    for phase in (DECODE, PREFILL):
        names = [use.name for use in kernel_uses(llama8b, phase, BATCH, CONTEXT,
                                                 quantisation=quantisation(*words))]
        assert names == ["norms", "qkv projection", "attention", "output projection",
                         "gate+up projection", "swiglu", "down projection", "lm head"]


def test_a_prefill_quantises_every_token_of_the_prompts(llama8b):
    found = named(kernel_uses(llama8b, PREFILL, 2, 512, quantisation=quantisation("fp8", "fp8")))
    assert dict(found["qkv input quant"].sizes) == {"T": 1024, "n": HIDDEN}
    assert dict(found["down input quant"].sizes) == {"T": 1024, "n": INTERMEDIATE}
    assert found["down input quant"].launches == LAYERS


def test_the_mixtral_experts_quantise_their_routed_rows():
    """Mixtral routes each token to 2 experts: the down projection's input is 2 rows a
    token, one quantisation a layer over them all (the fused MoE kernel's input)."""
    mixtral = load_model("mixtral_8x7b")
    found = named(kernel_uses(mixtral, DECODE, 4, 1024, quantisation=quantisation("fp8", "fp8")))
    assert dict(found["down input quant"].sizes) == {"T": 8, "n": 14336}
    assert found["down input quant"].copies == 32 and found["down input quant"].launches == 32


@pytest.mark.parametrize("stem", ["model_quant_fp8", "model_gemm_w8a8"])
def test_the_new_specs_agree_with_enumeration(stem, capsys):
    assert main(["check", str(SPECS / f"{stem}.kcost"), "--samples", "6"]) == 0
    assert "agree" in capsys.readouterr().out
