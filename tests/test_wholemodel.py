"""`kernelcost model`: the whole-model view against hand computations from the published
configs (Llama-3-70B: 80 layers, hidden 8192, 64 heads, 8 KV heads, head dim 128,
intermediate 28672, vocab 128256) and the H100 figures (3.35 TB/s HBM, 990 TFLOP/s bf16,
80 GB, 4 us per launch)."""

import dataclasses
import json
import math
from importlib import resources

import pytest
from conftest import SPECS, size

import kernelcost
from kernelcost.answers.answer import answers
from kernelcost.answers.composition import DECODE, PREFILL, expected_experts
from kernelcost.answers.wholemodel import decode_crossing, memory, step, whole_model
from kernelcost.base.errors import KcostError
from kernelcost.base.kinds import TermKind
from kernelcost.cli import main
from kernelcost.hardware.machine import Roof, Unit
from kernelcost.hardware.machinefile import load_machine
from kernelcost.hardware.modelfile import builtin_model_ids, load_model, parse_model

H100_BANDWIDTH = 3.35e12
H100_BF16 = 990e12
RIDGE = H100_BF16 / H100_BANDWIDTH  # 295.5

# Llama-3-70B by hand, from its config.json figures
LAYERS, HIDDEN, HEADS, KV_HEADS, HEAD_DIM, INTER, VOCAB = 80, 8192, 64, 8, 128, 28672, 128256
LAYER_MATMUL = (HIDDEN * (HEADS + 2 * KV_HEADS) * HEAD_DIM  # q, k, v
                + HEADS * HEAD_DIM * HIDDEN  # output projection
                + 3 * HIDDEN * INTER)  # gate, up, down
PARAMS = LAYERS * (LAYER_MATMUL + 2 * HIDDEN) + HIDDEN + 2 * VOCAB * HIDDEN  # untied head
STREAMED = LAYERS * LAYER_MATMUL + VOCAB * HIDDEN  # weights a decode step reads (no embedding)


def kv_bytes(context: int) -> int:
    return 2 * LAYERS * KV_HEADS * HEAD_DIM * context * 2  # K and V, bf16


@pytest.fixture(scope="module")
def llama70b():
    return load_model("llama3_70b")


def test_shipped_models_load_with_their_published_figures():
    assert builtin_model_ids() == ["llama3_70b", "llama3_8b", "mixtral_8x7b"]
    small, large, mixtral = (load_model(i) for i in ("llama3_8b", "llama3_70b", "mixtral_8x7b"))
    assert (large.layers, large.hidden, large.heads, large.kv_heads, large.head_dim,
            large.intermediate, large.vocab) == (LAYERS, HIDDEN, HEADS, KV_HEADS, HEAD_DIM,
                                                 INTER, VOCAB)
    assert large.params() == PARAMS
    assert math.isclose(large.params(), 70.55e9, rel_tol=1e-3)
    assert math.isclose(small.params(), 8.03e9, rel_tol=1e-3)
    assert math.isclose(mixtral.params(), 46.70e9, rel_tol=1e-3)
    assert (mixtral.experts, mixtral.experts_per_token, mixtral.vocab) == (8, 2, 32000)
    for model in (small, large, mixtral):  # every figure names the config it comes from
        assert all("config.json" in source for _, source in model.sources)


def test_unknown_key_is_an_error_with_line_and_caret(tmp_path):
    good = (resources.files("kernelcost.models") / "llama3_8b.toml").read_text("utf-8")
    bad = good.replace("kv_heads = 8", "kv_head = 8")
    with pytest.raises(KcostError) as error:
        parse_model(bad, "typo.toml")
    line = bad.split("\n").index("kv_head = 8") + 1
    rendered = error.value.render()
    assert rendered.startswith(f"typo.toml:{line}:") and "unknown key" in rendered
    assert "^" in rendered and "did you mean `kv_heads`" in rendered


def test_decode_at_batch_one_is_the_weights_and_the_kv_cache_over_bandwidth(llama70b, h100):
    decode = step(llama70b, h100, DECODE, 1, 4096)
    by_hand = (2 * PARAMS + kv_bytes(4096)) / H100_BANDWIDTH  # 42.5 ms
    assert abs(decode.t_bound_s - by_hand) / by_hand < 0.10
    # closer still: the step reads the streamed weights (no embedding table) and the cache
    streamed = (2 * STREAMED + kv_bytes(4096)) / H100_BANDWIDTH
    assert abs(decode.t_bound_s - streamed) / streamed < 0.005
    attention = next(k for k in decode.kernels if k.use.name == "attention")
    assert math.isclose(attention.traffic_B, kv_bytes(4096), rel_tol=0.01)
    # launch overhead apart: 8 kernels a layer, the final norm and the LM head, 4 us each
    assert decode.launches == 8 * LAYERS + 2
    assert math.isclose(decode.launch_s, decode.launches * 4e-6)
    assert decode.t_bound_s == pytest.approx(sum(k.t_bound_s for k in decode.kernels))
    assert decode.tokens_per_s == pytest.approx(1 / decode.t_bound_s)


def test_weights_do_not_fit_one_h100_and_fit_two(llama70b, h100):
    one = memory(llama70b, h100, 4096, 1)
    assert one.weights_B == 2 * PARAMS and one.fits() is False and one.max_batch == 0
    two = memory(llama70b, h100, 4096, 2)
    assert two.weights_B == pytest.approx(70.55e9, rel=1e-3) and two.weights_B < 0.9 * 80e9
    assert two.fits() is True and two.usable_B == 0.9 * 80e9  # vLLM's default fraction
    # the KV cache splits too: (72 - 70.55) GB / (1.34 GB / 2) per sequence = 2.2
    assert two.max_batch == int((0.9 * 80e9 - PARAMS) // (kv_bytes(4096) / 2)) == 2
    whole = memory(llama70b, h100, 4096, 2, fraction=1.0)  # all of HBM: (80 - 70.55) / 0.67
    assert whole.max_batch == int((80e9 - PARAMS) // (kv_bytes(4096) / 2)) == 14


def test_decode_never_turns_compute_bound_at_4096_and_the_limit_matches(llama70b, h100):
    crossing = decode_crossing(llama70b, h100, 4096)
    assert crossing.batch is None and crossing.ridge == pytest.approx(RIDGE)
    # per extra sequence: W = 2 x matmul weights + attention's 4 L d per query head;
    # Q = its KV cache + its activations between kernels (bf16 in and out of each GEMM,
    # q and o of attention, RMSNorm x and y, SwiGLU gate, up, out)
    context = 4096
    work = 2 * STREAMED + LAYERS * HEADS * 4 * context * HEAD_DIM
    activations = (LAYERS * (2 * (HIDDEN + (HEADS + 2 * KV_HEADS) * HEAD_DIM)
                             + 2 * (HEADS * HEAD_DIM + HIDDEN)
                             + 2 * (HIDDEN + 2 * INTER) + 2 * (INTER + HIDDEN)
                             + 4 * HEADS * HEAD_DIM + 2 * 4 * HIDDEN + 6 * INTER)
                   + 4 * HIDDEN + 2 * (HIDDEN + VOCAB))
    limit = work / (kv_bytes(context) + activations)
    assert crossing.limit == pytest.approx(limit, rel=0.01)  # ~107 FLOP/B < 295.5
    assert crossing.limit < RIDGE


def test_weights_alone_cross_the_ridge_where_the_hand_formula_says(llama70b, h100):
    # W(b) = 2 Theta b, Q(b) = 2 Theta + a b (a: the activation bytes per token above
    # without the KV cache): W = ridge Q at b* = ridge 2 Theta / (2 Theta - ridge a);
    # with a = 0 (activations in L2, as llm_decode keeps them) b* is the chapter's 295.5
    crossing = decode_crossing(llama70b, h100, 0)
    activations = (LAYERS * (2 * (HIDDEN + (HEADS + 2 * KV_HEADS) * HEAD_DIM)
                             + 2 * (HEADS * HEAD_DIM + HIDDEN)
                             + 2 * (HIDDEN + 2 * INTER) + 2 * (INTER + HIDDEN)
                             + 4 * HEADS * HEAD_DIM + 2 * 4 * HIDDEN + 6 * INTER)
                   + 4 * HIDDEN + 2 * (HIDDEN + VOCAB))
    theta2 = 2 * STREAMED
    by_hand = RIDGE * theta2 / (theta2 - RIDGE * activations)
    assert crossing.root == pytest.approx(by_hand, rel=0.01)  # ~338
    assert crossing.batch == math.ceil(crossing.root)
    assert RIDGE * theta2 / theta2 == pytest.approx(295.5, abs=0.05)


def test_the_chapter_llm_decode_figures_stay_reproduced():
    # example 5 of the chapter: 70e9 weights on H100 BF16, 41.8 ms/token, b* = 295.5
    result = kernelcost.analyze(SPECS / "llm_decode.kcost", {"Theta": "70e9", "b": 1})
    (found,) = answers(result, ["h100"], None)
    seconds = float(found.verdict.t_min)
    assert seconds == pytest.approx(41.8e-3, rel=0.01)
    assert 1 / seconds == pytest.approx(23.9, rel=0.01)
    symbolic = kernelcost.analyze(SPECS / "llm_decode.kcost", {"Theta": "70e9"})
    (answer,) = answers(symbolic, ["h100"], None)
    (crossing,) = [c for c in answer.crossings if c.level == "global"]
    assert float(crossing.value) == pytest.approx(295.5, rel=0.01)


def test_moe_touches_the_expected_experts():
    mixtral = load_model("mixtral_8x7b")
    assert float(expected_experts(mixtral, 1)) == pytest.approx(2)  # top-2 of 8
    assert float(expected_experts(mixtral, 8)) == pytest.approx(8 * (1 - 0.75 ** 8))
    assert float(expected_experts(mixtral, 512)) == pytest.approx(8)
    # batch 1 reads 2 of 8 experts' MLP weights, plus attention and the LM head
    decode = step(mixtral, load_machine("h100"), DECODE, 1, 4096)
    mlp = sum(k.traffic_B for k in decode.kernels if k.use.name in ("gate+up projection",
                                                                     "down projection"))
    expert = 3 * 4096 * 14336 * 2
    assert mlp == pytest.approx(32 * 2 * expert, rel=0.01)


def test_cli_text_json_and_figure(tmp_path, capsys):
    figure = tmp_path / "stack.svg"
    assert main(["model", "llama3_70b", "--machine", "h100", "--batch", "1,8",
                 "--context", "4096", "-o", str(figure)]) == 0
    text = capsys.readouterr().out
    assert "WARNING: the weights alone" in text and "--tp 2" in text
    assert "never compute-bound" in text and "launch overhead apart" in text
    assert "(--kernels adds each step's kernels" in text and "qkv projection" not in text
    assert main(["model", "llama3_70b", "--batch", "1", "--kernels"]) == 0
    text = capsys.readouterr().out
    assert "qkv projection" in text and "launch overhead" in text
    assert figure.read_text().startswith("<?xml")
    assert main(["model", "llama3_70b", "--batch", "1", "--gpus", "2", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["memory"]["weights_fit"] is True and document["gpus"] == 2
    # no batch reaches the ridge: null with a flag, never the word "never" in place of a number
    assert document["crossing"]["batch"] is None and document["crossing"]["batch_never"] is True
    # per GPU: half of every kernel
    single = whole_model(load_model("llama3_70b"), load_machine("h100"), [1], 4096)
    assert document["decode"][0]["t_bound"] == pytest.approx(single.decode[0].t_bound_s / 2)


def test_cli_refuses_an_unknown_model(capsys):
    assert main(["model", "llama3_7b"]) == 2
    assert "did you mean `llama3_70b`" in capsys.readouterr().err


def test_t_model_takes_the_tiled_gemm_where_its_tiles_fit(llama70b, h100):
    from kernelcost.answers.composition import PREFILL

    sheet = dataclasses.replace(h100, achievable=())  # the data sheet's rates
    plain = step(llama70b, sheet, DECODE, 1, 4096)  # 1 row: no 256-row cluster, the bound
    decode = step(llama70b, h100, DECODE, 1, 4096)  # the achievable fractions lift t_model
    for on_sheet, achieved in zip(plain.kernels, decode.kernels, strict=True):
        assert on_sheet.model_from == achieved.model_from == on_sheet.use.spec
        assert on_sheet.t_bound_s <= on_sheet.t_model_s <= achieved.t_model_s
    prefill = step(llama70b, h100, PREFILL, 1, 4096)  # 4096 rows: gemm_hopper's waves
    tiled = [k for k in prefill.kernels if k.model_from == "gemm_hopper"]
    assert {k.use.name for k in tiled} == {"qkv projection", "output projection",
                                           "gate+up projection", "down projection"}
    assert all(k.t_model_s >= k.t_bound_s for k in prefill.kernels)
    assert prefill.t_model_s > prefill.t_bound_s


def test_moe_rows_per_expert_are_exact_where_they_are_whole(capsys):
    """Mixtral at batch 64 touches all 8 experts: the expected rows per expert is a Float
    equal to a whole number, and t_floor and t_bound of its GEMMs, equal there, came out in
    different last digits (exit 3, KC903) until sizes were made exact rationals."""
    assert main(["model", "mixtral_8x7b", "--machine", "mi300x", "--batch", "1,8,64"]) == 0
    assert "internal error" not in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("model_id", builtin_model_ids())
def test_every_model_on_every_machine_keeps_its_times_in_order(model_id, capsys):
    from kernelcost.hardware.machinefile import builtin_machine_ids

    for machine_id in builtin_machine_ids():
        code = main(["model", model_id, "--machine", machine_id, "--batch", "1,8,64,512"])
        err = capsys.readouterr().err
        assert code == 0, (model_id, machine_id, err)


def test_prefill_attention_is_causal_and_counted_once(llama70b, h100):
    """Each of the S = 4096 tokens' 8 query heads of a KV group meets the keys up to its own:
    S (S + 1) / 2 rows a query head, each 2d FLOP for q.K and 2d for p.V (4d = 512), so
    4 d g S (S + 1) / 2 = 2 d g S (S + 1) multiply-add FLOP a KV head and layer: half, plus
    one row in S, of the non-causal 4 d g S^2."""
    prefill = step(llama70b, h100, PREFILL, 1, 4096)
    attention = next(k for k in prefill.kernels if k.use.name == "attention")
    assert attention.use.spec == "model_attention_causal"
    s, g, d, copies = 4096, 8, 128, 80 * 8  # layers x KV heads at batch 1
    fma = 2 * s * d * g * (s + 1)
    vector, sfu = s * g * (s + 2 * d + 1) / 2, s * g * (s + 1) / 2  # sums, divisions; exps
    assert attention.work_FLOP == copies * (fma + vector + sfu)
    non_causal = 4 * s * d * (g * s)  # model_attention's 4 L Sq d at Sq = g S, L = S
    assert fma / non_causal == pytest.approx((s + 1) / (2 * s))
    # FlashAttention's MMAs: on the tensor units (18.5 TFLOP a step over H100's 989 TFLOP/s
    # bf16 is ~19 ms; on the FMA units at 67 TFLOP/s it would be ~280 ms)
    assert attention.bound == Roof(TermKind.WORK, unit=Unit.TENSOR, precision="bf16")


@pytest.mark.parametrize("name, sizes, multiply_adds", [
    ("model_attention_causal", {"S": 300}, lambda S, g, d: 2 * S * d * g * (S + 1)),
    ("model_attention_chunk", {"C": 96, "L": 200},
     lambda C, L, g, d: 2 * C * d * g * (C + 2 * L + 1)),
])
def test_prefill_attention_runs_its_products_on_the_tensor_units(name, sizes, multiply_adds):
    """The scores q.K and the output p.V of a prefill's attention (g = 8 query heads a KV
    head, d = 128) are all class `tensor`, at a size where the one-token tile (g x keys x d)
    would leave its rule's minimum only through the head count."""
    cost = kernelcost.load(SPECS / f"{name}.kcost").cost("spec")
    at = {size(n): v for n, v in {**sizes, "g": 8, "d": 128}.items()}
    work = {str(c): value.xreplace(at) for c, value in cost.work.items()}
    assert work["tensor"] == multiply_adds(*at.values()) and "fma" not in work


def test_time_to_first_token_and_per_output_token_are_the_steps_with_launches(llama70b, h100):
    result = whole_model(llama70b, h100, [1, 8], 4096, 2)
    for latency, decode, prefill in zip(result.latencies(), result.decode, result.prefill):
        assert latency.batch == decode.batch == prefill.batch
        assert latency.ttft_s == prefill.t_model_s + prefill.launches * 4e-6  # 4 us a launch
        assert latency.tpot_s == decode.t_model_s + decode.launches * 4e-6
        assert latency.ttft_bound_s == prefill.t_bound_s <= latency.ttft_s
        assert latency.tpot_bound_s == decode.t_bound_s <= latency.tpot_s
