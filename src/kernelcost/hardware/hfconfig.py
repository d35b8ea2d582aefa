"""Stage: config.json -> ModelConfig. A Hugging Face model's `config.json`, read alone (no
weights, no network), mapped onto the record a model file gives (modelfile.py).

The families covered, by `model_type` (and the `architectures` class each must name):

    model_type  class                 what the mapping adds to the shape
    llama       LlamaForCausalLM      attention_bias: biases on q, k, v and o
    mistral     MistralForCausalLM    -
    mixtral     MixtralForCausalLM    num_local_experts, num_experts_per_tok
    qwen2       Qwen2ForCausalLM      biases on q, k and v (always, as transformers builds it)
    qwen3       Qwen3ForCausalLM      q_norm and k_norm of head_dim; attention_bias
    qwen3_moe   Qwen3MoeForCausalLM   as qwen3; num_experts, num_experts_per_tok and
                                      moe_intermediate_size for every layer

A key the mapping leaves at transformers' default is read as that default
(`num_key_value_heads` absent: as many as the attention heads; `head_dim` absent: hidden /
heads; `tie_word_embeddings` absent: false). What the composition cannot count is refused
with the key that asks for it: a sliding attention window, dense layers among a Qwen3-MoE's
sparse ones, a quantised checkpoint, an MLP with biases. Every error names its key's JSON path
and places it at the key in the file; a file that is not JSON is placed at the line and column
the parser stopped at."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..base.errors import Code, Diagnostic, ErrorCode, ModelFileError, quoted
from ..base.inputs import normalise, read_text
from ..base.records import record
from ..base.tomlplaces import MAX_TOML_DEPTH, too_deep
from ..base.tree import MAX_NAME_LENGTH, Span
from .modelfile import MAX_FIGURE, ModelConfig, load_model

MAX_CONFIG_BYTES = 1_000_000  # a config.json is a few kB; label tables make some 100 kB


@record
class Family:
    """What one `model_type` means for the shape."""

    model_type: str
    architecture: str  # the class `architectures` names
    qkv_bias: bool = False  # always there (Qwen2), whatever the config says
    bias_key: str | None = None  # the boolean key that adds attention biases
    qk_norm: bool = False
    experts_key: str | None = None  # the key that gives the experts of a mixture
    expert_width_key: str = "intermediate_size"  # an expert's intermediate size


FAMILIES = {family.model_type: family for family in (
    Family("llama", "LlamaForCausalLM", bias_key="attention_bias"),
    Family("mistral", "MistralForCausalLM"),
    Family("mixtral", "MixtralForCausalLM", experts_key="num_local_experts"),
    Family("qwen2", "Qwen2ForCausalLM", qkv_bias=True),
    Family("qwen3", "Qwen3ForCausalLM", bias_key="attention_bias", qk_norm=True),
    Family("qwen3_moe", "Qwen3MoeForCausalLM", bias_key="attention_bias", qk_norm=True,
           experts_key="num_experts", expert_width_key="moe_intermediate_size"),
)}
TORCH_DTYPES = ("bfloat16", "float16", "float32")  # each composed at bf16 (see docs)


def load_model_or_config(name_or_path: str | Path) -> ModelConfig:
    """A `config.json` (any file named `*.json`) through this reader; a shipped id or a
    model file through modelfile.load_model."""
    if str(name_or_path).lower().endswith(".json"):
        path = str(name_or_path)
        return parse_config(read_text(path, MAX_CONFIG_BYTES, "config.json"), path)
    return load_model(name_or_path)


def parse_config(text: str, path: str) -> ModelConfig:
    text = normalise(text)
    return _Reader(path, text).model(_json_object(text, path))


def _json_object(text: str, path: str) -> dict:
    deep = too_deep(text)  # json's decoder recurses: past its stack there is no place
    if deep is not None:
        line, column = deep
        raise ModelFileError(Code.MODEL_NOT_JSON, Diagnostic(
            Span(path, line, column, line, column + 1),
            f"not a config.json: arrays or objects nested more than {MAX_TOML_DEPTH} deep",
            "a config.json is an object of numbers, strings and short lists"), text)
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys(text, path),
                          parse_constant=_no_constant(text, path))
    except json.JSONDecodeError as error:
        span = Span(path, error.lineno, error.colno, error.lineno, error.colno + 1)
        raise ModelFileError(Code.MODEL_NOT_JSON, Diagnostic(
            span, f"not JSON: {error.msg}", "a config.json as the Hugging Face hub serves it"),
            text) from None
    except (RecursionError, ValueError) as error:  # nesting past the parser's stack, or an
        # integer of more digits than Python converts
        reason = "nests too deeply" if isinstance(error, RecursionError) else str(error)[:80]
        digits = re.search(r"\d{1000,}", text)
        span = None
        if digits is not None:
            line = text.count("\n", 0, digits.start()) + 1
            column = digits.start() - (text.rfind("\n", 0, digits.start()) + 1) + 1
            span = Span(path, line, column, line, column + 1)
        raise ModelFileError(Code.MODEL_NOT_JSON, Diagnostic(
            span, f"{'' if span else path + ': '}not a config.json: {reason}"), text) from None
    if not isinstance(data, dict):
        raise ModelFileError(Code.MODEL_NOT_JSON, Diagnostic(
            Span(path, 1, 1, 1, 2), f"expected a JSON object, got {type(data).__name__}"),
            text)
    return data


def _unique_keys(text: str, path: str):
    """json's object hook that refuses a key written twice in one object: json keeps the
    last without a word (`"hidden_size": 4096, "hidden_size": 64` composed a model of 64)."""
    def unique(pairs: list[tuple[str, object]]) -> dict:
        found: dict = {}
        for key, value in pairs:
            if key in found:
                places = list(re.finditer(rf'"{re.escape(key)}"\s*:', text))
                match = places[-1] if len(places) > 1 else None
                raise ModelFileError(Code.MODEL_NOT_JSON, Diagnostic(
                    _span_at(text, path, match.start(), len(key) + 2) if match else None,
                    f"`{key}` is written twice in one object{'' if match else ' in ' + path}",
                    "give each key once: JSON readers differ on which one counts"), text)
            found[key] = value
        return found
    return unique


def _no_constant(text: str, path: str):
    """json's hook for NaN, Infinity and -Infinity, which Python reads and JSON has not."""
    def refuse(name: str) -> object:
        match = re.search(rf"(?<![\w.\"]){re.escape(name)}(?![\w\"])", text)
        raise ModelFileError(Code.MODEL_NOT_JSON, Diagnostic(
            _span_at(text, path, match.start(), len(name)) if match else None,
            f"not JSON: `{name}` is no JSON number{'' if match else ' in ' + path}",
            "a config.json as the Hugging Face hub serves it: finite numbers only"), text)
    return refuse


def _span_at(text: str, path: str, index: int, length: int) -> Span:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return Span(path, line, column, line, column + length)


def key_span(text: str, path: str, key: str) -> Span | None:
    """Where `"key":` first stands in the text (1-based line and column of the key)."""
    match = re.search(rf'"{re.escape(key)}"\s*:', text)
    if match is None:
        return None
    line = text.count("\n", 0, match.start()) + 1
    column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
    return Span(path, line, column, line, column + len(key) + 2)


def _object_start(text: str, path: str) -> Span | None:
    """The top-level object's opening brace."""
    index = text.find("{")
    if index < 0:
        return None
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return Span(path, line, column, line, column + 1)


class _Reader:
    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.sources: list[tuple[str, str]] = []

    def error(self, code: ErrorCode, where: str, message: str,
              hint: str | None = None) -> ModelFileError:
        """An error at the key `where` (a JSON path: `architectures[0]`), placed at the key
        when the file holds it."""
        span = key_span(self.text, self.path, where.split("[", 1)[0].split(".", 1)[0])
        if span is None and code == Code.MODEL_MISSING_KEY:
            span = _object_start(self.text, self.path)  # where the key would be added
        prefix = "" if span else f"{self.path}: "
        return ModelFileError(code, Diagnostic(span, f"{prefix}`{where}`: {message}", hint),
                              self.text)

    def model(self, data: dict) -> ModelConfig:
        family = self.family(data)
        self.refuse_uncovered(data, family)
        hidden = self.count(data, "hidden_size", "hidden")
        heads = self.count(data, "num_attention_heads", "heads")
        kv_heads = self.count(data, "num_key_value_heads", "kv_heads", default=heads)
        if "head_dim" in data and data["head_dim"] is not None:
            head_dim = self.count(data, "head_dim", "head_dim")
        elif hidden % heads:
            raise self.error(Code.MODEL_INCONSISTENT, "num_attention_heads",
                             f"does not divide hidden_size ({hidden}), and no head_dim")
        else:
            head_dim = hidden // heads
        if heads % kv_heads:
            raise self.error(Code.MODEL_INCONSISTENT, "num_key_value_heads",
                             f"must divide num_attention_heads ({heads})")
        experts, per_token = 1, 1
        if family.experts_key is not None:
            experts = self.count(data, family.experts_key, "experts")
            per_token = self.count(data, "num_experts_per_tok", "experts_per_token")
            if per_token > experts:
                raise self.error(Code.MODEL_INCONSISTENT, "num_experts_per_tok",
                                 f"more than {family.experts_key} ({experts})")
        bias = self.bias(data, family)
        return ModelConfig(
            name=self.name(data), path=self.path, config_url=self.path,
            dtype=self.dtype(data), layers=self.count(data, "num_hidden_layers", "layers"),
            hidden=hidden, heads=heads, kv_heads=kv_heads, head_dim=head_dim,
            intermediate=self.count(data, family.expert_width_key, "intermediate"),
            vocab=self.count(data, "vocab_size", "vocab"), experts=experts,
            experts_per_token=per_token,
            tie_embeddings=self.flag(data, "tie_word_embeddings", "tie_embeddings"),
            sources=tuple(self.sources),
            qkv_bias=family.qkv_bias or bias, output_bias=bias, qk_norm=family.qk_norm,
            max_context=(None if data.get("max_position_embeddings") is None else
                         self.count(data, "max_position_embeddings", "max_context")))

    def family(self, data: dict) -> Family:
        model_type = data.get("model_type")
        if model_type is None:
            raise self.error(Code.MODEL_MISSING_KEY, "model_type", "missing",
                             "every config.json the hub serves names its model_type")
        if not isinstance(model_type, str) or model_type not in FAMILIES:
            raise self.error(Code.MODEL_NOT_COVERED, "model_type",
                             f"{quoted(model_type, 40)} is not composed",
                             f"covered: {', '.join(FAMILIES)}")
        family = FAMILIES[model_type]
        names = data.get("architectures", [family.architecture])
        if not isinstance(names, list) or not names:
            raise self.error(Code.MODEL_BAD_VALUE, "architectures",
                             "expected a list of class names")
        for index, name in enumerate(names):
            if name != family.architecture:
                raise self.error(Code.MODEL_NOT_COVERED, f"architectures[{index}]",
                                 f"{quoted(name, 60)} is not composed",
                                 f"a {model_type} config composes as {family.architecture}")
        return family

    def refuse_uncovered(self, data: dict, family: Family) -> None:
        """Keys whose value asks for what the composed kernels do not count."""
        window = data.get("sliding_window")
        if window is not None and data.get("use_sliding_window", True) is not False:
            raise self.error(Code.MODEL_NOT_COVERED, "sliding_window",
                             f"attention over a window of {quoted(window)} tokens is not "
                             "composed", "the composition reads the whole KV cache")
        if data.get("quantization_config") is not None:
            raise self.error(Code.MODEL_NOT_COVERED, "quantization_config",
                             "a quantised checkpoint is not read from its config",
                             "give the 16-bit model's config.json")
        if data.get("mlp_bias", False) is not False:
            raise self.error(Code.MODEL_NOT_COVERED, "mlp_bias", "MLP biases are not counted")
        if family.model_type == "qwen3_moe":
            if data.get("mlp_only_layers", []) != []:
                raise self.error(Code.MODEL_NOT_COVERED, "mlp_only_layers",
                                 "dense layers among the sparse ones are not composed")
            if data.get("decoder_sparse_step", 1) != 1:
                raise self.error(Code.MODEL_NOT_COVERED, "decoder_sparse_step",
                                 "only every layer sparse (1) is composed")

    def count(self, data: dict, key: str, figure: str, default: int | None = None) -> int:
        value = data.get(key)
        if value is None and default is not None:
            self.sources.append((figure, f"{key} absent from config.json: transformers' "
                                         f"default, {default}"))
            return default
        if value is None:
            raise self.error(Code.MODEL_MISSING_KEY, key, "missing",
                             f"the {figure} figure of the model")
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_FIGURE:
            raise self.error(Code.MODEL_BAD_VALUE, key, f"expected a positive integer up to "
                                                        f"{MAX_FIGURE:,}, got {quoted(value, 40)}")
        self.sources.append((figure, f"{key} in config.json"))
        return value

    def flag(self, data: dict, key: str, figure: str) -> bool:
        value = data.get(key, False)
        if not isinstance(value, bool):
            raise self.error(Code.MODEL_BAD_VALUE, key, f"expected true or false, got "
                                                        f"{quoted(value, 40)}")
        self.sources.append((figure, f"{key} in config.json" if key in data
                             else f"{key} absent from config.json: transformers' default, "
                                  "false"))
        return value

    def bias(self, data: dict, family: Family) -> bool:
        return family.bias_key is not None and self.flag(data, family.bias_key, "bias")

    def dtype(self, data: dict) -> str:
        key = "torch_dtype" if "torch_dtype" in data else "dtype"
        value = data.get(key, "bfloat16")
        if value not in TORCH_DTYPES:
            raise self.error(Code.MODEL_BAD_VALUE, key,
                             f"expected one of {', '.join(TORCH_DTYPES)}, got {quoted(value, 40)}")
        self.sources.append(("dtype", f"{key} = {value} in config.json; composed at bf16, "
                                      "the 16-bit precision the composed specs count"))
        return "bf16"

    def name(self, data: dict) -> str:
        """`_name_or_path` where the file keeps it (and it is a name's length at most: it is
        printed in every table about the model), else the folder the file is in."""
        given = data.get("_name_or_path")
        if isinstance(given, str) and given.strip() and len(given) <= MAX_NAME_LENGTH:
            return given
        folder = Path(self.path).resolve().parent.name
        return folder or Path(self.path).stem
