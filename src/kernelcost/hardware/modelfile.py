"""Stage: TOML -> ModelConfig. The figures of a transformer for the whole-model view.

A model file is as strict as a machine file (machinefile.py): every figure has a source string
beside it (`layers` and `layers_source`), an unknown key is an error with the file, line and a
caret, so that a typo (`kv_head = 8`) never silently leaves a default in place.

    name = "Llama-3-70B"
    config_url = "https://huggingface.co/.../config.json"
    dtype = "bf16"                      # the only one the model_* and gemm specs count
    dtype_source = "..."
    layers = 80                         # num_hidden_layers
    hidden = 8192                       # hidden_size
    heads = 64                          # num_attention_heads
    kv_heads = 8                        # num_key_value_heads (grouped-query attention)
    head_dim = 128                      # optional: hidden / heads
    intermediate = 28672                # intermediate_size (per expert)
    vocab = 128256                      # vocab_size
    experts = 8                         # optional, 1: dense MLP
    experts_per_token = 2               # optional, 1: top-k routing
    tie_embeddings = false              # optional: LM head shares the embedding table
    max_context = 8192                  # optional: max_position_embeddings; none, no limit
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base.errors import (
    Code,
    Diagnostic,
    ErrorCode,
    ModelFileError,
    did_you_mean,
    option_span,
    quoted,
    too_long_a_name,
)
from ..base.inputs import normalise
from ..base.records import record
from ..base.tomlplaces import (
    missing_place,
    place_of,
    refuse_control_characters,
    shipped_ids,
    shipped_or_file,
    toml_data,
)

MAX_MODEL_BYTES = 100_000
MAX_FIGURE = 10**9  # a layer count or a width; beyond it the sums below mean nothing
DTYPES = ("bf16",)  # the specs composed (gemm, model_*) count 2-byte elements

_FIGURES = ("layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab",
            "experts", "experts_per_token", "max_context")
_OPTIONAL = ("head_dim", "experts", "experts_per_token", "max_context")
_KEYS = ("name", "config_url", "dtype", "dtype_source", "tie_embeddings",
         "tie_embeddings_source", *(k for f in _FIGURES for k in (f, f"{f}_source")))


@record
class ModelConfig:
    """One transformer's shape. Widths in elements; `experts` = 1 for a dense MLP."""

    name: str
    path: str
    config_url: str
    dtype: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    experts: int
    experts_per_token: int
    tie_embeddings: bool
    sources: tuple[tuple[str, str], ...]  # (figure, source) for every figure given
    # what a config.json may add (hfconfig.py); a model file's transformers have none
    qkv_bias: bool = False  # biases on the query, key and value projections (Qwen2)
    output_bias: bool = False  # a bias on the output projection (Llama's attention_bias)
    qk_norm: bool = False  # an RMSNorm of head_dim weights on queries and keys (Qwen3)
    max_context: int | None = None  # max_position_embeddings: the longest context its
    # positions are trained for (None: the file states none, and no context is refused)

    @property
    def element_bytes(self) -> int:
        return 2  # bf16, the one dtype accepted

    @property
    def moe(self) -> bool:
        return self.experts > 1

    @property
    def group(self) -> int:
        """Query heads per KV head (grouped-query attention)."""
        return self.heads // self.kv_heads

    @property
    def qkv_width(self) -> int:
        return (self.heads + 2 * self.kv_heads) * self.head_dim

    def attention_params(self) -> int:
        """Per layer: Q, K, V and output projections, with their biases where the model has
        them."""
        biases = (self.qkv_width if self.qkv_bias else 0) + (self.hidden if self.output_bias
                                                             else 0)
        return self.attention_matrix_params() + biases

    def attention_matrix_params(self) -> int:
        """Per layer: the weight matrices of Q, K, V and the output projection."""
        return self.hidden * self.qkv_width + self.heads * self.head_dim * self.hidden

    def mlp_params(self, experts: int | None = None) -> int:
        """Per layer: gate, up and down of `experts` experts (all by default), plus the
        router of a mixture of experts."""
        count = self.experts if experts is None else experts
        router = self.hidden * self.experts if self.moe else 0
        return count * 3 * self.hidden * self.intermediate + router

    def norm_params(self) -> int:
        """Per layer: the two RMSNorms around attention and MLP, and the query and key norms
        of a model that has them."""
        return 2 * self.hidden + (2 * self.head_dim if self.qk_norm else 0)

    def params(self) -> int:
        """Every parameter: layers (with their norms), final norm, embeddings, LM head. A
        tied LM head is the embedding table itself: counted once, as a checkpoint stores it."""
        layer = self.attention_params() + self.mlp_params() + self.norm_params()
        head = 0 if self.tie_embeddings else self.vocab * self.hidden
        return self.layers * layer + self.hidden + self.vocab * self.hidden + head

    def linear_params(self) -> int:
        """The weight matrices of the layers' projections and experts: what a weight
        quantisation stores at its precision. The router, norms, biases, embeddings and LM
        head stay 16-bit, as vLLM's fp8 and GPTQ/AWQ checkpoints keep them."""
        router = self.hidden * self.experts if self.moe else 0
        return self.layers * (self.attention_matrix_params() + self.mlp_params() - router)

    def weight_bytes(self) -> int:
        return self.params() * self.element_bytes

    def kv_bytes_per_token(self) -> int:
        """K and V of every layer for one position of one sequence."""
        return 2 * self.layers * self.kv_heads * self.head_dim * self.element_bytes


def builtin_model_ids() -> list[str]:
    return shipped_ids("kernelcost.models")


def load_model(name_or_path: str | Path) -> ModelConfig:
    """A shipped model by id (`llama3_70b`), or a model file by path."""
    found = shipped_or_file(name_or_path, "kernelcost.models", MAX_MODEL_BYTES, "model file")
    if found is None:
        name = str(name_or_path)
        raise ModelFileError(Code.UNKNOWN_MODEL, Diagnostic(
            None, f"unknown model `{name}`",
            did_you_mean(name.lower(), builtin_model_ids())
            or f"shipped models: {', '.join(builtin_model_ids())}; or give a .toml path"))
    return parse_model(*found)


def parse_model(text: str, path: str) -> ModelConfig:
    text = normalise(text)
    data = toml_data(text, path, "model file", Code.MODEL_NOT_TOML)
    refuse_control_characters(data, text, path, "model file", Code.MODEL_BAD_VALUE)
    return _Reader(path, text).model(data)


class _Reader:
    def __init__(self, path: str, text: str):
        self.path, self.text = path, text

    def error(self, code: ErrorCode, key: str, message: str,
              hint: str | None = None) -> ModelFileError:
        span = (missing_place(self.text, self.path, key) if code == Code.MODEL_MISSING_KEY
                else place_of(self.text, self.path, key))
        prefix = "" if span else f"{self.path}: "
        return ModelFileError(code, Diagnostic(span, f"{prefix}`{key}`: {message}", hint),
                              self.text)

    def model(self, data: dict) -> ModelConfig:
        for key in data:
            if key not in _KEYS:
                raise self.error(Code.MODEL_UNKNOWN_KEY, key, "unknown key",
                                 did_you_mean(key, _KEYS) or f"known keys: {', '.join(_KEYS)}")
        sources = []
        for key in (*_FIGURES, "dtype", "tie_embeddings"):
            given, source_key = key in data, f"{key}_source"
            if given:
                sources.append((key, self.string(data, source_key)))
            elif source_key in data:
                raise self.error(Code.MODEL_MISSING_KEY, source_key, f"a source without `{key}`")
        figures: dict[str, Any] = {key: self.count(data, key) for key in _FIGURES if key in data}
        for key in _FIGURES:
            if key not in figures and key not in _OPTIONAL:
                raise self.error(Code.MODEL_MISSING_KEY, key, "missing figure",
                                 f"add `{key} = ...` and `{key}_source = \"...\"`")
        if figures["hidden"] % figures["heads"] and "head_dim" not in figures:
            raise self.error(Code.MODEL_INCONSISTENT, "heads",
                             "does not divide `hidden`: give `head_dim`")
        figures.setdefault("head_dim", figures["hidden"] // figures["heads"])
        figures.setdefault("experts", 1)
        figures.setdefault("experts_per_token", 1)
        if figures["heads"] % figures["kv_heads"]:
            raise self.error(Code.MODEL_INCONSISTENT, "kv_heads",
                             f"must divide heads ({figures['heads']})")
        if figures["experts_per_token"] > figures["experts"]:
            raise self.error(Code.MODEL_INCONSISTENT, "experts_per_token",
                             f"more than experts ({figures['experts']})")
        dtype = data.get("dtype", "bf16")
        if dtype not in DTYPES:
            raise self.error(Code.MODEL_BAD_VALUE, "dtype",
                             f"expected one of {', '.join(DTYPES)}, got {dtype!r}",
                             "the composed specs count 2-byte bf16 weights and activations")
        tie = data.get("tie_embeddings", False)
        if not isinstance(tie, bool):
            raise self.error(Code.MODEL_BAD_VALUE, "tie_embeddings",
                             f"expected true or false, got {tie!r}")
        return ModelConfig(name=self.name(data), path=self.path,
                           config_url=self.string(data, "config_url"), dtype=dtype,
                           tie_embeddings=tie, sources=tuple(sources), **figures)

    def count(self, data: dict, key: str) -> int:
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_FIGURE:
            raise self.error(Code.MODEL_BAD_VALUE, key, f"expected a positive integer up to "
                                                        f"{MAX_FIGURE:,}, got {quoted(value, 40)}")
        return value

    def name(self, data: dict) -> str:
        """The file's `name`, shown in every table and sentence about the model."""
        value = self.string(data, "name")
        if (refusal := too_long_a_name(value)) is not None:
            raise self.error(Code.MODEL_BAD_VALUE, "name", *refusal)
        return value

    def string(self, data: dict, key: str) -> str:
        value = data.get(key)
        if value is None:
            raise self.error(Code.MODEL_MISSING_KEY, key, "missing")
        if not isinstance(value, str) or not value.strip():
            raise self.error(Code.MODEL_BAD_VALUE, key,
                             f"expected a non-empty string, got {quoted(value, 40)}")
        return value


def refuse_past_positions(model: ModelConfig, contexts, text: str) -> None:
    """A context longer than the positions the model's config.json says it was trained for
    (vLLM refuses a max_model_len past max_position_embeddings the same way)."""
    if model.max_context is None or max(contexts) <= model.max_context:
        return
    raise ModelFileError(Code.PAST_POSITIONS, Diagnostic(
        option_span("--context", text),
        f"context {max(contexts):,} is longer than the {model.max_context:,} positions of "
        f"{model.name} (max_position_embeddings)",
        f"--context {model.max_context} or less"), text)
