"""Stage: how a model is served -> the spec each GEMM and attention kernel runs, the bytes the
weights and the KV cache hold, and the precisions the machine must give peaks for
(`kernelcost model --weights --activations --kv-cache --group-size`).

    weights  activations  projection and expert GEMMs          as served by
    bf16     bf16         gemm (bf16 tensor peak)               any 16-bit deployment
    fp8      fp8          model_gemm_w8a8 at fp8 (FP8 peak)     vLLM/SGLang FP8 (W8A8)
    int8     bf16         model_gemm_w8a16 (bf16 tensor peak)   8-bit weight-only (Marlin)
    int4     bf16         model_gemm_w4a16 (bf16 tensor peak)   GPTQ/AWQ W4A16 (Marlin)

Other pairs are refused: no shipped spec composes them. What a weight quantisation stores at
its precision is the layers' projection and expert matrices (ModelConfig.linear_params); the
router, norms, biases, embedding table and LM head stay 16-bit, and the router and LM head
GEMMs stay bf16 `gemm`, as vLLM's fp8, GPTQ and AWQ checkpoints keep them. int8 and int4
weights carry one bf16 scale per group of `group` weights along K. fp8 is a block-scaled
checkpoint's W8A8: an f32 scale a 128 x 128 block of weights (in the GEMM's reads, not in the
weights' bytes here: 4 B a 16,384 weights) and a 128-wide group of a token's activations,
which composition.py's `model_quant_fp8` writes before each FP8 GEMM.

The KV cache at fp8 or int8 holds one byte an element (its scales, per tensor or per head,
are not counted); a decode step's attention then runs `model_attention` mapped to that
precision by lang/precisions.py (the cached K and V read at one byte). Its products are
timed at that precision's rates, as FlashAttention-3's fp8 path runs them; an int8 cache is
dequantised to 16 bits by the kernels that serve it, which this does not time, but a decode
step's attention is bound by the bytes it reads. A prefill's attention reads the new keys
and values before they are cached: it runs at the activations' precision."""

from __future__ import annotations

from fractions import Fraction

from ..base.errors import Code, Diagnostic, SizeError, quoted
from ..base.kinds import Precision
from ..base.records import record
from ..hardware.modelfile import ModelConfig

BF16, FP8, I8, I4 = Precision.BF16, Precision.FP8, Precision.I8, Precision.I4
# the words of the options, and the precision each names
WEIGHT_WORDS = {"bf16": BF16, "fp8": FP8, "int8": I8, "int4": I4}
ACTIVATION_WORDS = {"bf16": BF16, "fp8": FP8}
KV_WORDS = {"bf16": BF16, "fp8": FP8, "int8": I8}
WORD_OF = {precision: word for word, precision in WEIGHT_WORDS.items()}
STORED_BYTES = {BF16: Fraction(2), FP8: Fraction(1), I8: Fraction(1), I4: Fraction(1, 2)}
SCALE_BYTES = 2  # a bf16 scale a group (GPTQ, AWQ)
GEMMS = {(BF16, BF16): ("gemm", None), (FP8, FP8): ("model_gemm_w8a8", FP8),
         (I8, BF16): ("model_gemm_w8a16", None), (I4, BF16): ("model_gemm_w4a16", None)}
MAX_GROUP = 1 << 20


@record
class Quantisation:
    """The precisions a model is served at: its weights, its activations, its KV cache."""

    weights: Precision = BF16
    activations: Precision = BF16
    kv_cache: Precision = BF16
    group: int = 128  # weights sharing one scale along K (int8 and int4 weights)

    @property
    def grouped(self) -> bool:
        return self.weights in (I8, I4)

    def words(self) -> dict[str, str]:
        """The options as a user writes them: {"weights": "int4", ...}."""
        return {"weights": WORD_OF[self.weights], "activations": WORD_OF[self.activations],
                "kv_cache": WORD_OF[self.kv_cache]}

    def gemm(self) -> tuple[str, Precision | None]:
        """The spec the projection and expert GEMMs run, and the precision it is mapped to
        (None: as written)."""
        return GEMMS[(self.weights, self.activations)]

    def attention_precision(self, decode: bool) -> Precision | None:
        """What model_attention is mapped to: the KV cache's precision in decode (it reads the
        cache), the activations' in a prefill; None where that is bf16, its own."""
        precision = self.kv_cache if decode and self.kv_cache != BF16 else self.activations
        return None if precision == BF16 else precision

    def compute_precisions(self) -> tuple[Precision, ...]:
        """The precisions whose peaks the composed kernels run at: the machine must have
        each."""
        found = [self.activations, *(p for p in (self.attention_precision(True),
                                                 self.attention_precision(False)) if p)]
        return tuple(dict.fromkeys(found))

    def weight_bytes(self, model: ModelConfig) -> Fraction:
        """Bytes the weights hold: the layers' matrices at the weights' precision with their
        group scales, every other parameter at 16 bits."""
        linear = model.linear_params()
        scales = Fraction(linear, self.group) * SCALE_BYTES if self.grouped else Fraction(0)
        return (linear * STORED_BYTES[self.weights] + scales
                + (model.params() - linear) * STORED_BYTES[BF16])

    def kv_bytes_per_token(self, model: ModelConfig) -> Fraction:
        """K and V of every layer for one position of one sequence."""
        return (2 * model.layers * model.kv_heads * model.head_dim
                * STORED_BYTES[self.kv_cache])


def quantisation(weights: str = "bf16", activations: str = "bf16", kv_cache: str = "bf16",
                 group: int = 128) -> Quantisation:
    """The options' words checked and read into a Quantisation; a pair no spec composes, or a
    group size out of range, is an option error naming the option."""
    for option, word, words in (("--weights", weights, WEIGHT_WORDS),
                                ("--activations", activations, ACTIVATION_WORDS),
                                ("--kv-cache", kv_cache, KV_WORDS)):
        if word not in words:
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                None, f"{option} {quoted(word)}: expected one of {', '.join(words)}"))
    chosen = Quantisation(WEIGHT_WORDS[weights], ACTIVATION_WORDS[activations],
                          KV_WORDS[kv_cache], group)
    if (chosen.weights, chosen.activations) not in GEMMS:
        pairs = ", ".join(f"{WORD_OF[w]} weights with {WORD_OF[a]} activations"
                          for w, a in GEMMS)
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            None, f"--weights {weights} with --activations {activations}: no shipped spec "
                  "composes this pair", f"composed: {pairs}"))
    if not 0 < group <= MAX_GROUP:
        raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
            None, f"--group-size {group}: expected 1 to {MAX_GROUP:,} weights a scale"))
    return chosen


def check_groups(model: ModelConfig, chosen: Quantisation) -> None:
    """Grouped weights need the group to divide K of every quantised GEMM: the hidden size
    (qkv, gate and up), the attention width (output) and the intermediate size (down)."""
    if not chosen.grouped:
        return
    for what, k in (("hidden size", model.hidden),
                    ("attention width (heads x head_dim)", model.heads * model.head_dim),
                    ("intermediate size", model.intermediate)):
        if k % chosen.group:
            raise SizeError(Code.BAD_OPTION_VALUE, Diagnostic(
                None, f"--group-size {chosen.group} does not divide the {what} of "
                      f"{model.name} ({k})", "give a group that divides it, as the "
                                             "checkpoint's quantisation did"))


BF16_ONLY = Quantisation()
