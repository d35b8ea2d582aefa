"""`kernelcost model --ep N`: a mixture of experts' experts split over the tensor-parallel
GPUs, with an all-to-all dispatch and combine a layer, checked by hand against Mixtral-8x7B's
config.json figures (32 layers, hidden 4096, 32 heads, 8 KV heads, head dim 128, intermediate
14336, vocab 32000, 8 experts, 2 routed a token) on an HGX H100 (450 GB/s each way a GPU,
80 GB of HBM) and NCCL's latencies (a send step: base 8.4 us + 3.4 us, Simple on NVLink)."""

import json
import math

import pytest

from kernelcost.answers.composition import DECODE, kernel_uses
from kernelcost.answers.tensor_parallel import CollectiveName
from kernelcost.cli import main
from kernelcost.hardware.modelfile import load_model

LAYERS, HIDDEN, HEADS, KV_HEADS, HEAD_DIM, INTER, VOCAB = 32, 4096, 32, 8, 128, 14336, 32000
EXPERTS, TOP_K = 8, 2
NVLINK_Bps = 450e9
SEND_ALPHA_s = (8.4 + 3.4) * 1e-6  # one ring Simple step stands in for a send's alpha


def _model_json(capsys, *argv: str) -> dict:
    assert main(["model", *argv, "--machine", "h100", "--topology", "hgx_h100",
                 "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _uses(step: dict) -> dict:
    return {use["name"]: use for use in step["collectives"]}


def test_mixtral_dispatch_and_combine_by_hand(capsys):
    # --tp 2 --ep 2, decode at batch 8: each GPU routes ceil(8 / 2) = 4 tokens, 2 copies
    # each, 4096 bf16 activations a copy: 4 x 2 x 4096 x 2 = 65,536 B a GPU's dispatch;
    # under uniform routing 1/2 of the copies go to the other GPU:
    # 11.8 us + (1/2) x 65536 B / 450 GB/s = 11.8 us + 72.8 ns
    document = _model_json(capsys, "mixtral_8x7b", "--tp", "2", "--ep", "2", "--batch", "8")
    parallel = document["collectives"]
    assert (parallel["tp"], parallel["ep"]) == (2, 2)
    decode = _uses(parallel["decode"][0])
    dispatch_B = math.ceil(8 / 2) * TOP_K * HIDDEN * 2
    assert dispatch_B == 65_536
    for name in ("MoE dispatch", "MoE combine"):
        use = decode[name]
        assert (use["kind"], use["algorithm"], use["copies"]) == ("all-to-all", "direct", LAYERS)
        assert use["bytes"] == dispatch_B
        assert use["seconds_each"] == pytest.approx(SEND_ALPHA_s + 0.5 * dispatch_B / NVLINK_Bps)
    # every token gathered back for the next layer's attention: 2 x 4 x 4096 x 2 B, in place
    # of the MLP's all-reduce; the attention's all-reduce stays (8 x 4096 x 2 B, one-shot)
    assert decode["MoE gather"]["kind"] == "all-gather"
    assert decode["MoE gather"]["bytes"] == 2 * 4 * HIDDEN * 2
    assert "MLP out" not in decode
    assert decode["attention out"]["bytes"] == 8 * HIDDEN * 2
    step = parallel["decode"][0]
    assert step["count"] == 4 * LAYERS + 2  # attention out, dispatch, combine, gather; 2 more
    assert step["seconds"] == pytest.approx(sum(u["seconds"] for u in step["collectives"]))


def test_a_prefill_dispatch_is_bandwidth_bound(capsys):
    # batch 1 prefill of 4096 tokens: 2048 a GPU, 2048 x 2 x 4096 x 2 = 33,554,432 B;
    # 11.8 us + 16,777,216 B / 450 GB/s = 11.8 + 37.28 us
    document = _model_json(capsys, "mixtral_8x7b", "--tp", "2", "--ep", "2", "--batch", "1")
    dispatch = _uses(document["collectives"]["prefill"][0])["MoE dispatch"]
    assert dispatch["bytes"] == 2048 * TOP_K * HIDDEN * 2 == 33_554_432
    assert dispatch["seconds_each"] == pytest.approx(SEND_ALPHA_s + 16_777_216 / NVLINK_Bps)
    assert dispatch["transfer"] > dispatch["latency"]


def test_weights_per_gpu_and_the_largest_batch(capsys):
    # 4 whole experts a GPU where --tp 2 alone holds half of each of 8: half the weights
    # either way. Parameters by hand: a layer's attention 4096 x 6144 + 4096 x 4096, its
    # experts 8 x 3 x 4096 x 14336 and router 4096 x 8, its norms 2 x 4096; then the final
    # norm, the embedding table and the untied LM head
    layer = (HIDDEN * (HEADS + 2 * KV_HEADS) * HEAD_DIM + HEADS * HEAD_DIM * HIDDEN
             + EXPERTS * 3 * HIDDEN * INTER + HIDDEN * EXPERTS + 2 * HIDDEN)
    params = LAYERS * layer + HIDDEN + 2 * VOCAB * HIDDEN
    assert params == 46_702_792_704
    memory = _model_json(capsys, "mixtral_8x7b", "--tp", "2", "--ep", "2",
                         "--batch", "8")["memory"]
    assert memory["weights_B"] == params * 2 / 2
    # KV cache: 2 x 32 layers x 8 heads x 128 x 2 B = 131,072 B a token, 4096 tokens, the
    # 8 KV heads split over 2 GPUs: 268,435,456 B a sequence a GPU; 90 % of 80 GB usable
    kv_B = 2 * LAYERS * KV_HEADS * HEAD_DIM * 2 * 4096 / 2
    assert memory["kv_per_sequence_B"] == kv_B
    assert memory["max_batch"] == math.floor((0.9 * 80e9 - params) / kv_B) == 94
    tp_only = _model_json(capsys, "mixtral_8x7b", "--tp", "2", "--batch", "8")["memory"]
    assert (tp_only["weights_B"], tp_only["max_batch"]) == (memory["weights_B"], 94)


def test_a_gpu_runs_whole_experts_on_its_share_of_the_rows():
    # decode at batch 1 on 2 GPUs: the one token's 2 copies touch E_t = 8 (1 - (6/8)^1) = 2
    # experts; a GPU holds 4 of the 8 and gets E_t / 2 = 1 of them, a whole expert on the
    # 2 x 1 / 2 = 1 row routed to it; --tp 2 instead runs half of both touched experts. The
    # router runs on ceil(1 / 2) = 1 token of the GPU's own, where --tp 2 runs half of it
    model = load_model("mixtral_8x7b")
    ep = {use.name: use for use in kernel_uses(model, DECODE, 1, 4096, 2, ep=2)}
    tp = {use.name: use for use in kernel_uses(model, DECODE, 1, 4096, 2)}
    # E_t is evaluated in floats (composition.expected_experts): equal to 1e-15
    assert float(ep["gate+up projection"].copies) == pytest.approx(LAYERS * 2 / 2)
    assert float(dict(ep["gate+up projection"].sizes)["M"]) == pytest.approx(1)  # 2 / 2
    assert float(tp["gate+up projection"].copies) == pytest.approx(LAYERS * 2 / 2)
    assert dict(ep["router"].sizes)["M"] == 1 and ep["router"].copies == LAYERS
    assert tp["router"].copies == LAYERS // 2
    assert dict(ep["swiglu"].sizes)["n"] == 1 * TOP_K * INTER // 2
    assert ep["qkv projection"].copies == tp["qkv projection"].copies == LAYERS // 2


def test_a_qwen3_moe_config_splits_its_128_experts_over_4_gpus(tmp_path, capsys):
    # a Qwen3-MoE-shaped config.json (hidden 2048, 128 experts, 8 routed a token): at batch
    # 8 each of 4 GPUs routes 2 tokens, 2 x 8 x 2048 x 2 = 65,536 B, 3/4 of it leaving
    config = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
              "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 4,
              "head_dim": 128, "num_hidden_layers": 48, "intermediate_size": 6144,
              "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
              "vocab_size": 151936, "tie_word_embeddings": False, "decoder_sparse_step": 1,
              "mlp_only_layers": [], "torch_dtype": "bfloat16"}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    document = _model_json(capsys, str(path), "--tp", "4", "--ep", "4", "--batch", "8")
    dispatch = _uses(document["collectives"]["decode"][0])["MoE dispatch"]
    assert dispatch["bytes"] == 2 * 8 * 2048 * 2
    assert dispatch["seconds_each"] == pytest.approx(SEND_ALPHA_s + 0.75 * 65_536 / NVLINK_Bps)
    assert dispatch["copies"] == 48


@pytest.mark.parametrize("argv, message, hint", [
    (["mixtral_8x7b", "--tp", "2", "--ep", "4"], "--ep 4 with --tp 2: the experts are split "
     "over the tensor-parallel GPUs", "hint: --tp 4 --ep 4, or --tp 2 --ep 2"),
    (["mixtral_8x7b", "--tp", "16", "--ep", "16"], "--ep 16 does not divide the 8 experts",
     "hint: --ep and --tp one of 2, 4, 8"),
    (["llama3_8b", "--tp", "2", "--ep", "2"], "Llama-3-8B has no experts to split",
     "drop --ep"),
])
def test_a_refused_combination_is_placed_at_the_option(argv, message, hint, capsys):
    assert main(["model", *argv, "--machine", "h100"]) == 2
    err = capsys.readouterr().err
    ep = argv[argv.index("--ep") + 1]
    assert err.startswith("--ep:1:1: error[KC311]: ")
    assert message in err and hint in err
    assert f"1 | {ep}\n" in err and "^" in err  # the value shown with a caret under it
    assert "Traceback" not in err


def test_the_names_are_enums_written_as_their_words():
    assert [str(name) for name in CollectiveName][-3:] == ["MoE dispatch", "MoE combine",
                                                          "MoE gather"]
    assert json.dumps([CollectiveName.MOE_DISPATCH, DECODE]) == '["MoE dispatch", "decode"]'
