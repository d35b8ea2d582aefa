"""A Hugging Face config.json read alone (hardware/hfconfig.py): the shipped configs of
tests/data/hf (their sources in its README) mapped onto the model record, their parameters
counted by hand here and, where a published total could be cited, against
`model.safetensors.index.json`'s `metadata.total_size`; bad files refused with a code and a
place, never a traceback."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tiers import tiered

from kernelcost.base.errors import KcostError
from kernelcost.cli import main
from kernelcost.hardware.hfconfig import load_model_or_config, parse_config

DATA = Path(__file__).resolve().parent / "data" / "hf"


def config(name: str):
    return load_model_or_config(DATA / name / "config.json")


def test_llama_3_1_8b_maps_field_by_field():
    model = config("llama3_1_8b")
    assert (model.layers, model.hidden, model.heads, model.kv_heads, model.head_dim,
            model.intermediate, model.vocab) == (32, 4096, 32, 8, 128, 14336, 128256)
    assert (model.experts, model.experts_per_token, model.tie_embeddings) == (1, 1, False)
    assert not (model.qkv_bias or model.output_bias or model.qk_norm)
    assert dict(model.sources)["layers"] == "num_hidden_layers in config.json"


def test_llama_3_1_8b_parameters_are_the_published_total_over_two_bytes():
    published = json.loads((DATA / "published_totals.json").read_text())["llama3_1_8b"]
    layer = (4096 * (32 + 2 * 8) * 128  # q, k, v
             + 32 * 128 * 4096  # output projection
             + 3 * 4096 * 14336  # gate, up, down
             + 2 * 4096)  # the two RMSNorms
    by_hand = 32 * layer + 4096 + 2 * 128256 * 4096  # final norm; embeddings, untied head
    assert by_hand == 8_030_261_248
    assert published["total_size_B"] == 16_060_522_496  # the index file's figure, as cited
    assert config("llama3_1_8b").params() == by_hand == (
        published["total_size_B"] // published["bytes_per_parameter"])
    assert published["total_size_B"] % published["bytes_per_parameter"] == 0


def test_mixtral_counts_eight_experts_and_their_router():
    model = config("mixtral_8x7b")
    assert (model.experts, model.experts_per_token, model.intermediate) == (8, 2, 14336)
    layer = (4096 * (32 + 2 * 8) * 128 + 32 * 128 * 4096  # attention
             + 8 * 3 * 4096 * 14336  # eight SwiGLU experts
             + 4096 * 8  # the router (block_sparse_moe.gate), no bias
             + 2 * 4096)  # norms
    assert model.params() == 32 * layer + 4096 + 2 * 32000 * 4096 == 46_702_792_704
    # no total_size of Mixtral-8x7B-v0.1's index could be cited (tests/data/hf/README.md)


def test_qwen2_counts_the_query_key_and_value_biases():
    model = config("qwen2_7b")
    assert (model.qkv_bias, model.output_bias, model.qk_norm) == (True, False, False)
    assert (model.heads, model.kv_heads, model.head_dim) == (28, 4, 128)  # 3584 / 28
    layer = (3584 * (28 + 2 * 4) * 128 + 28 * 128 * 3584  # projections
             + (28 + 2 * 4) * 128  # biases of q, k and v: 4608
             + 3 * 3584 * 18944 + 2 * 3584)  # MLP and norms
    assert model.params() == 28 * layer + 3584 + 2 * 152064 * 3584 == 7_615_616_512


def test_qwen3_counts_its_query_and_key_norms_and_its_given_head_dim():
    model = config("qwen3_8b")
    assert (model.qk_norm, model.qkv_bias, model.output_bias) == (True, False, False)
    assert (model.heads, model.kv_heads, model.head_dim, model.intermediate) == (32, 8, 128,
                                                                                12288)
    layer = (4096 * (32 + 2 * 8) * 128 + 32 * 128 * 4096  # projections
             + 3 * 4096 * 12288  # MLP
             + 2 * 4096 + 2 * 128)  # two RMSNorms, q_norm and k_norm of head_dim
    assert model.params() == 36 * layer + 4096 + 2 * 151936 * 4096 == 8_190_735_360
    # no total_size of Qwen3-8B's index could be cited (tests/data/hf/README.md)


def test_linear_weights_leave_out_router_norms_biases_and_embeddings():
    model = config("qwen2_7b")
    assert model.linear_params() == 28 * (3584 * 36 * 128 + 28 * 128 * 3584
                                          + 3 * 3584 * 18944) == 6_525_288_448
    mixtral = config("mixtral_8x7b")
    assert mixtral.linear_params() == 32 * (4096 * 48 * 128 + 4096 * 4096
                                            + 8 * 3 * 4096 * 14336)


# Qwen3-MoE: no complete published config.json could be cited (data README); these are
# configurations written here, with the keys transformers' Qwen3 classes read.
QWEN3_LIKE = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
              "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 4,
              "head_dim": 128, "num_hidden_layers": 48, "intermediate_size": 6144,
              "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
              "vocab_size": 151936, "tie_word_embeddings": False, "decoder_sparse_step": 1,
              "mlp_only_layers": [], "attention_bias": False, "torch_dtype": "bfloat16"}


def parsed(data: dict, path: str = "config.json"):
    return parse_config(json.dumps(data, indent=2), path)


def test_qwen3_moe_takes_the_expert_width_and_the_head_norms():
    model = parsed(QWEN3_LIKE)
    assert (model.experts, model.experts_per_token, model.intermediate) == (128, 8, 768)
    assert model.head_dim == 128 and model.qk_norm  # head_dim given, not 2048 / 32
    layer = (2048 * (32 + 2 * 4) * 128 + 32 * 128 * 2048  # attention: 4096-wide queries
             + 128 * 3 * 2048 * 768 + 2048 * 128  # experts and router
             + 2 * 2048 + 2 * 128)  # norms, q_norm and k_norm
    assert model.params() == 48 * layer + 2048 + 2 * 151936 * 2048


def test_dense_qwen3_and_a_tied_head_count_the_table_once():
    dense = {**QWEN3_LIKE, "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
             "tie_word_embeddings": True}
    model = parsed(dense)
    assert (model.experts, model.intermediate, model.tie_embeddings) == (1, 6144, True)
    untied = parsed({**dense, "tie_word_embeddings": False})
    assert untied.params() - model.params() == 151936 * 2048


def test_absent_keys_take_transformers_defaults_and_say_so():
    model = parsed({"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32,
                    "num_hidden_layers": 2, "intermediate_size": 14336, "vocab_size": 32768})
    assert (model.kv_heads, model.head_dim, model.tie_embeddings) == (32, 128, False)
    assert "default, 32" in dict(model.sources)["kv_heads"]


def test_llama_attention_bias_adds_four_biases():
    base = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
            "num_key_value_heads": 2, "num_hidden_layers": 1, "intermediate_size": 128,
            "vocab_size": 10}
    with_bias = parsed({**base, "attention_bias": True})
    assert with_bias.params() - parsed(base).params() == (4 + 2 * 2) * 16 + 64


def error_of(data: dict | str, tmp_path) -> KcostError:
    text = data if isinstance(data, str) else json.dumps(data, indent=2)
    path = tmp_path / "config.json"
    path.write_text(text)
    with pytest.raises(KcostError) as caught:
        load_model_or_config(path)
    return caught.value


@pytest.mark.parametrize("change, code, where", [
    ({"model_type": "gpt2"}, "KC510", "`model_type`"),
    ({"architectures": ["Qwen3ForSequenceClassification"]}, "KC510", "`architectures[0]`"),
    ({"sliding_window": 4096, "use_sliding_window": True}, "KC510", "`sliding_window`"),
    ({"mlp_only_layers": [3]}, "KC510", "`mlp_only_layers`"),
    ({"quantization_config": {"quant_method": "fp8"}}, "KC510", "`quantization_config`"),
    ({"num_hidden_layers": -48}, "KC505", "`num_hidden_layers`"),
    ({"num_hidden_layers": True}, "KC505", "`num_hidden_layers`"),
    ({"num_experts": 10**12}, "KC505", "`num_experts`"),
    ({"hidden_size": 2048.5}, "KC505", "`hidden_size`"),
    ({"torch_dtype": "int4"}, "KC505", "`torch_dtype`"),
    ({"num_key_value_heads": 5}, "KC506", "`num_key_value_heads`"),
    ({"num_experts_per_tok": 129}, "KC506", "`num_experts_per_tok`"),
    ({"vocab_size": None}, "KC504", "`vocab_size`"),
])
def test_what_is_not_covered_or_out_of_range_is_named_at_its_key(change, code, where,
                                                                  tmp_path):
    error = error_of({**QWEN3_LIKE, **change}, tmp_path)
    assert error.code == code
    diagnostic = error.diagnostics[0]
    assert where in diagnostic.message
    key = where.strip("`").split("[")[0]
    text = (tmp_path / "config.json").read_text().split("\n")
    assert diagnostic.span is not None  # placed at the key, line and column
    line = text[diagnostic.span.line - 1]
    assert line[diagnostic.span.column - 1:].startswith(f'"{key}"')


def test_a_missing_model_type_is_its_own_error(tmp_path):
    data = {key: value for key, value in QWEN3_LIKE.items() if key != "model_type"}
    assert error_of(data, tmp_path).code == "KC504"


def test_a_missing_key_is_placed_at_the_object_it_would_join(tmp_path):
    # the command-path fuzz campaign: `intermediate_size` dropped gave KC504 with no place
    data = {key: value for key, value in QWEN3_LIKE.items() if key != "num_attention_heads"}
    error = error_of(data, tmp_path)
    span = error.diagnostics[0].span
    assert error.code == "KC504" and (span.line, span.column) == (1, 1)


@pytest.mark.parametrize("text, line, column", [
    ('{\n  "model_type": "llama",\n  "hidden_size": 40,\n', 4, 1),
    ('{\n  "model_type": "llama"\n  "hidden_size": 40\n}', 3, 3),
    ("", 1, 1),
])
def test_a_malformed_file_is_placed_at_line_and_column(text, line, column, tmp_path):
    error = error_of(text, tmp_path)
    span = error.diagnostics[0].span
    assert error.code == "KC509" and (span.line, span.column) == (line, column)


@pytest.mark.parametrize("text, line, column", [
    ("[1, 2]", 1, 1),
    ("[" * 100_000, 1, 65),
    ('{\n  "hidden_act": ' + "[" * 70 + "]" * 70 + "\n}", 2, 80),  # deep but closed
    ('{\n "hidden_size": ' + "9" * 5000 + "}", 2, 17),
])
def test_no_object_deep_nesting_or_a_huge_number_is_a_placed_error(text, line, column,
                                                                  tmp_path):
    # deep nesting and a huge integer came with no place (the command-path fuzz campaign)
    error = error_of(text, tmp_path)
    span = error.diagnostics[0].span
    assert error.code == "KC509" and (span.line, span.column) == (line, column)


def test_cli_composes_a_config_and_refuses_an_uncovered_one(tmp_path, capsys):
    assert main(["model", str(DATA / "qwen2_7b" / "config.json"), "--batch", "1",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["params"] == 7_615_616_512 and result["model"] == "qwen2_7b"
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "gpt2", "n_layer": 12}, indent=2))
    assert main(["model", str(path)]) == 2
    assert "error[KC510]" in capsys.readouterr().err


KEYS = ("model_type", "architectures", "hidden_size", "num_attention_heads",
        "num_key_value_heads", "head_dim", "num_hidden_layers", "intermediate_size",
        "moe_intermediate_size", "vocab_size", "num_experts", "num_local_experts",
        "num_experts_per_tok", "tie_word_embeddings", "attention_bias", "sliding_window",
        "torch_dtype", "mlp_only_layers", "decoder_sparse_step", "_name_or_path")
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12)
    | st.floats(allow_nan=False) | st.text(max_size=20)
    | st.sampled_from(["llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=3),
    max_leaves=6)


@tiered(200)
@given(st.dictionaries(st.sampled_from(KEYS), JSON_VALUES, max_size=len(KEYS)),
       st.sampled_from(["llama3_1_8b", "mixtral_8x7b", "qwen2_7b", "qwen3_8b"]))
def test_any_values_at_the_keys_give_a_model_or_a_coded_error(changes, base):
    """Every value of every key the reader looks at, over a real config: a record, or an
    error with its code; never another exception."""
    data = {**json.loads((DATA / base / "config.json").read_text()), **changes}
    try:
        model = parse_config(json.dumps(data, indent=2), "config.json")
    except KcostError as error:
        assert error.code.startswith("KC5")
        return
    assert model.params() > 0 and model.heads % model.kv_heads == 0


def test_a_small_model_s_parameters_are_printed_whole(tmp_path, capsys):
    """Two layers of hidden 64 (4 heads of 16, MLP 128) over 1,000 words, untied: 2 x 64,000
    of embeddings and head, 2 x (4 x 64^2 + 3 x 64 x 128 + 2 x 64) in the layers, 64 in the
    final norm: 210,240 parameters, which 10^9 would print as 0.00e9."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({
        "model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
        "num_key_value_heads": 4, "head_dim": 16, "num_hidden_layers": 2,
        "intermediate_size": 128, "vocab_size": 1000, "tie_word_embeddings": False,
        "torch_dtype": "bfloat16"}, indent=2))
    assert main(["model", str(path), "--batch", "1"]) == 0
    assert "(210,240 parameters, 2 layers" in capsys.readouterr().out


@pytest.mark.parametrize(("name", "positions"), [
    ("llama3_1_8b", 131072), ("mixtral_8x7b", 32768), ("qwen2_7b", 131072),
    ("qwen3_8b", 40960)])
def test_the_positions_are_read_from_max_position_embeddings(name, positions):
    assert config(name).max_context == positions


def test_a_context_past_the_positions_is_refused_at_the_option(capsys):
    """Qwen3-8B's config.json gives 40,960 positions: a context of 40,960 is served, one
    more is refused at --context, as vLLM refuses such a max_model_len; so is a --grid
    whose contexts reach past it."""
    path = str(DATA / "qwen3_8b" / "config.json")
    assert main(["model", path, "--batch", "1", "--context", "40960", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["context"] == 40960
    assert main(["model", path, "--batch", "1", "--context", "40961"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("--context:1:1: error[KC511]: context 40,961 is longer than the "
                          "40,960 positions of")
    assert main(["model", path, "--batch", "1", "--context", "1024..65536", "--grid",
                 "-"]) == 2
    assert "error[KC511]: context 65,536" in capsys.readouterr().err


def test_a_model_file_or_a_config_without_positions_takes_any_context():
    data = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
            "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 1000}
    assert parsed(data).max_context is None
    with pytest.raises(KcostError) as raised:
        parsed({**data, "max_position_embeddings": 0})
    assert "max_position_embeddings" in str(raised.value.diagnostics[0].message)


def test_a_name_past_the_limit_gives_way_to_the_folder(tmp_path):
    """`_name_or_path` is printed in every table about the model: one of 129 characters
    or more (200 were taken) is left for the folder's name, as a missing one is."""
    from kernelcost.base.tree import MAX_NAME_LENGTH

    folder = tmp_path / "qwen3-moe"
    folder.mkdir()
    for length, name in ((MAX_NAME_LENGTH, "q" * MAX_NAME_LENGTH), (MAX_NAME_LENGTH + 1, None),
                         (200, None)):
        (folder / "config.json").write_text(json.dumps({**QWEN3_LIKE,
                                                        "_name_or_path": "q" * length}))
        assert load_model_or_config(folder / "config.json").name == (name or "qwen3-moe")
