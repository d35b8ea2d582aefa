"""Quantisation options of `kernelcost model` (answers/quantisation.py) and the largest batch
that fits HBM (answers/hbm_fit.py), against figures derived by hand here: Llama-3-70B (80
layers, hidden 8192, 64 heads, 8 KV heads of 128, intermediate 28672, vocab 128256, untied),
the H200's 141 GB and the H100's bf16 and fp8 tensor peaks from the shipped machine files."""

import json

import pytest
import sympy

from kernelcost.answers.composition import DECODE, PREFILL, kernel_uses
from kernelcost.answers.hbm_fit import memory
from kernelcost.answers.quantisation import Quantisation, quantisation
from kernelcost.answers.wholemodel import kernel_cost
from kernelcost.base.errors import KcostError
from kernelcost.base.kinds import Precision
from kernelcost.cli import main
from kernelcost.hardware.clocks import max_clock_view
from kernelcost.hardware.machinefile import load_machine
from kernelcost.hardware.modelfile import load_model

# Llama-3-70B by hand
LINEAR_PER_LAYER = (8192 * (64 + 2 * 8) * 128 + 64 * 128 * 8192  # q, k, v, o: 150,994,944
                    + 3 * 8192 * 28672)  # gate, up, down: 704,643,072
LINEAR = 80 * LINEAR_PER_LAYER  # 68,451,041,280: what a weight quantisation stores narrow
OTHER = 80 * 2 * 8192 + 8192 + 2 * 128256 * 8192  # norms, final norm, embeddings, LM head
KV_TOKEN_BF16 = 2 * 80 * 8 * 128 * 2  # K and V, 80 layers, 8 KV heads of 128: 320 KiB


@pytest.fixture(scope="module")
def llama70b():
    return load_model("llama3_70b")


def test_the_hand_figures_are_the_models():
    model = load_model("llama3_70b")
    assert LINEAR + OTHER == model.params() == 70_553_706_496
    assert model.linear_params() == LINEAR == 68_451_041_280
    assert KV_TOKEN_BF16 == 320 * 1024


def test_largest_batch_of_llama_3_70b_fp8_on_one_h200_at_8192(llama70b):
    """The issue's figure. Weights in fp8: the 68,451,041,280 projection and MLP weights at
    one byte, the other 2,102,665,216 parameters (norms, embeddings, LM head) at two:
    68,451,041,280 + 4,205,330,432 = 72,656,371,712 B. The H200 holds 141e9 B, 90 % usable
    (vLLM's gpu_memory_utilization): 126,900,000,000 B, so 54,243,628,288 B are left for the
    KV cache. A sequence of 8192 tokens holds 8192 x 320 KiB = 2,684,354,560 B in bf16:
    54,243,628,288 / 2,684,354,560 = 20.2, so 20 sequences; in fp8, 160 KiB a token,
    1,342,177,280 B a sequence: 40.4, so 40."""
    h200 = load_machine("h200")
    bf16_kv = memory(llama70b, h200, 8192, 1, quantisation=quantisation("fp8", "fp8", "bf16"))
    assert bf16_kv.weights_B == LINEAR * 1 + OTHER * 2 == 72_656_371_712
    assert bf16_kv.usable_B == pytest.approx(126.9e9)
    assert bf16_kv.kv_per_sequence_B == 8192 * 320 * 1024 == 2_684_354_560
    assert bf16_kv.max_batch == 20
    fp8_kv = memory(llama70b, h200, 8192, 1, quantisation=quantisation("fp8", "fp8", "fp8"))
    assert fp8_kv.kv_per_sequence_B == 8192 * 160 * 1024 == 1_342_177_280
    assert fp8_kv.max_batch == 40
    assert fp8_kv.fits(40) and not fp8_kv.fits(41)
    # the fraction is the option's: all of HBM leaves (141e9 - 72,656,371,712) / 2,684,354,560
    everything = memory(llama70b, h200, 8192, 1, quantisation=quantisation("fp8", "fp8"),
                        fraction=1.0)
    assert everything.max_batch == 25


def test_int4_weights_are_half_a_byte_with_a_bf16_scale_per_group(llama70b):
    chosen = quantisation("int4", "bf16", group=128)
    # LINEAR / 2 + (LINEAR / 128) x 2 B of scales + OTHER x 2
    by_hand = LINEAR // 2 + LINEAR // 128 * 2 + OTHER * 2
    assert chosen.weight_bytes(llama70b) == by_hand == 39_500_398_592
    assert quantisation("int8", "bf16", group=64).weight_bytes(llama70b) == (
        LINEAR + LINEAR // 64 * 2 + OTHER * 2)


def test_kv_cache_bytes_a_token_by_precision(llama70b):
    assert quantisation().kv_bytes_per_token(llama70b) == KV_TOKEN_BF16
    assert quantisation(kv_cache="fp8").kv_bytes_per_token(llama70b) == KV_TOKEN_BF16 // 2
    assert quantisation(kv_cache="int8").kv_bytes_per_token(llama70b) == KV_TOKEN_BF16 // 2


def uses(model, phase, chosen, batch=1, context=4096):
    return {use.name: use for use in kernel_uses(model, phase, batch, context,
                                                 quantisation=chosen)}


def test_each_pair_runs_its_spec_and_the_router_and_lm_head_stay_bf16(llama70b):
    for words, spec, precision in ((("bf16", "bf16"), "gemm", None),
                                   (("fp8", "fp8"), "model_gemm_w8a8", "fp8"),
                                   (("int8", "bf16"), "model_gemm_w8a16", None),
                                   (("int4", "bf16"), "model_gemm_w4a16", None)):
        found = uses(llama70b, DECODE, quantisation(*words))
        for name in ("qkv projection", "output projection", "gate+up projection",
                     "down projection"):
            assert (found[name].spec, found[name].precision) == (spec, precision)
        assert (found["lm head"].spec, found["lm head"].precision) == ("gemm", None)
    mixtral = uses(load_model("mixtral_8x7b"), DECODE, quantisation("int4", "bf16"))
    assert (mixtral["router"].spec, mixtral["router"].precision) == ("gemm", None)


def test_an_fp8_gemm_runs_at_the_fp8_tensor_peak(llama70b):
    """A prefill's QKV projection is compute-bound (M = 4096 tokens): its bound is W over the
    tensor peak at the maximum clock (t_bound's), 1070.5e12 FLOP/s in bf16 and 2141.1e12 in
    fp8 on the shipped H100 (4096 and 8192 dense FLOP a clock per SM, 132 SMs, 1.98 GHz), so
    fp8 takes half of bf16's time, and the binding roof names fp8. The fp8 GEMM adds its
    scales' epilogue, 3 FLOP an output and 128-wide slice of K on the FMA units, which runs
    beside the tensor cores and never binds here."""
    h100 = load_machine("h100")
    bf16 = kernel_cost(uses(llama70b, PREFILL, quantisation())["qkv projection"], h100)
    fp8 = kernel_cost(uses(llama70b, PREFILL, quantisation("fp8", "fp8"))["qkv projection"],
                      h100)
    work = 2 * 4096 * 8192 * (64 + 2 * 8) * 128 * 80  # 2MNK, 80 layers
    epilogue = 3 * 4096 * (64 + 2 * 8) * 128 * (8192 // 128) * 80  # M N K/128, 3 FLOP each
    assert bf16.work_FLOP == work and fp8.work_FLOP == work + epilogue
    assert fp8.bound.precision == Precision.FP8 and bf16.bound.precision == Precision.BF16
    fast = max_clock_view(h100)
    assert fast.peak("fp8") == 2 * fast.peak("bf16") == pytest.approx(2141.06e12, rel=1e-5)
    assert bf16.t_bound_s == pytest.approx(work / fast.peak("bf16"), rel=1e-9)
    assert fp8.t_bound_s == pytest.approx(work / fast.peak("fp8"), rel=1e-9)


def test_a_w4a16_decode_gemm_reads_a_quarter_of_the_weights_and_their_scales(llama70b):
    h100 = load_machine("h100")
    use = uses(llama70b, DECODE, quantisation("int4", "bf16"))["qkv projection"]
    m, k, n = 1, 8192, (64 + 2 * 8) * 128  # batch 1
    one = 2 * m * k + k * n // 2 + (k // 128) * n * 2 + 2 * m * n  # A, W at 4 bits, S, C
    assert kernel_cost(use, h100).traffic_B == 80 * one
    bf16 = kernel_cost(uses(llama70b, DECODE, quantisation())["qkv projection"], h100)
    assert bf16.traffic_B == 80 * (2 * m * k + 2 * k * n + 2 * m * n)


def test_an_fp8_kv_cache_halves_what_decode_attention_reads(llama70b):
    h100 = load_machine("h100")
    context = 4096
    bf16 = kernel_cost(uses(llama70b, DECODE, quantisation(), context=context)["attention"],
                       h100)
    fp8 = kernel_cost(uses(llama70b, DECODE, quantisation(kv_cache="fp8"),
                           context=context)["attention"], h100)
    copies = 80 * 8  # layers x KV heads at batch 1
    rows, d = 8, 128  # the 8 query heads of a group, one token
    assert bf16.traffic_B == copies * (2 * rows * d + 2 * 2 * context * d + 2 * rows * d)
    # q and the cached K and V at one byte; o written in bf16
    assert fp8.traffic_B == copies * (rows * d + 2 * context * d + 2 * rows * d)


def test_pairs_no_spec_composes_and_bad_groups_are_option_errors(llama70b):
    with pytest.raises(KcostError) as caught:
        quantisation("fp8", "bf16")
    assert caught.value.code == "KC311" and "--weights fp8" in str(caught.value)
    with pytest.raises(KcostError) as caught:
        quantisation("int4", "fp8")
    assert caught.value.code == "KC311"
    with pytest.raises(KcostError):
        quantisation(kv_cache="int4")
    assert Quantisation().words() == {"weights": "bf16", "activations": "bf16",
                                      "kv_cache": "bf16"}


def test_cli_reports_the_quantisation_and_the_largest_batch(capsys):
    assert main(["model", "llama3_70b", "--machine", "h200", "--weights", "fp8",
                 "--activations", "fp8", "--kv-cache", "fp8", "--context", "8192",
                 "--batch", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["quantisation"] == {"weights": "fp8", "activations": "fp8",
                                      "kv_cache": "fp8", "group_size": 128}
    assert result["memory"]["max_batch"] == 40 and result["memory"]["fraction"] == 0.9
    assert main(["model", "llama3_70b", "--machine", "h200", "--weights", "fp8",
                 "--activations", "fp8", "--context", "8192", "--batch", "1"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "90 % usable: 126.9 GB" in text and "fits: 20 sequences" in text


@pytest.mark.parametrize("argv, code", [
    (["--machine", "a100", "--weights", "fp8", "--activations", "fp8"], "KC408"),
    (["--machine", "a100", "--kv-cache", "fp8"], "KC408"),
    (["--weights", "int4", "--group-size", "100"], "KC311"),
    (["--weights", "fp8"], "KC311"),
])
def test_a_machine_without_the_precision_or_a_bad_option_exits_2(argv, code, capsys):
    assert main(["model", "llama3_8b", "--batch", "1", *argv]) == 2
    assert f"error[{code}]" in capsys.readouterr().err


def test_a_bad_fraction_exits_2(capsys):
    for value in ("0", "1.5", "nan", "x"):
        with pytest.raises(SystemExit) as caught:
            main(["model", "llama3_8b", "--memory-fraction", value])
        assert caught.value.code == 2
    capsys.readouterr()


def test_the_default_keeps_the_bf16_figures(llama70b):
    assert quantisation().weight_bytes(llama70b) == 2 * llama70b.params()
    assert sympy.Integer(KV_TOKEN_BF16) == llama70b.kv_bytes_per_token()


def test_the_largest_batch_per_gpu_under_tensor_and_pipeline_parallelism(llama70b):
    """fp8 weights over --tp 2 --pp 2: 72,656,371,712 / 4 = 18,164,092,928 B a GPU; the KV
    cache of a sequence at 8192 (2,684,354,560 B in bf16) split over the 2 GPUs of a stage
    (8 KV heads, 4 a GPU) and the 2 stages (40 layers each): 671,088,640 B a GPU;
    (126.9e9 - 18,164,092,928) / 671,088,640 = 162.03, so 162 sequences."""
    split = memory(llama70b, load_machine("h200"), 8192, 2, 2,
                   quantisation=quantisation("fp8", "fp8"))
    assert split.weights_B == 72_656_371_712 / 4 and split.gpus == 4
    assert split.kv_per_sequence_B == 2_684_354_560 / 4
    assert split.max_batch == 162
