"""Stage: ModelConfig -> the kernels of a step. The composition table (`kernel_uses`) of a
transformer's decode step and prefill says, for each kernel of a layer, which shipped spec
counts it and how the spec's sizes come from the model; T is the tokens of the step (decode:
the batch b, one new token per sequence; prefill: b x context):

    kernel             spec             sizes                                copies per step
    norms              model_rmsnorm    T = T, n = hidden                    2 layers + 1
    qkv projection     gemm             M = T, K = hidden, N = (h + 2 kv) hd  layers
    attention          model_attention  Sq = g, L = context, d = hd          layers kv b
      (prefill)        model_attention_causal  S = context, g, d = hd      layers kv b
    output projection  gemm             M = T, K = h hd, N = hidden          layers
    router (MoE)       gemm             M = T, K = hidden, N = E             layers
    gate+up            gemm             M = T k / E_t, K = hidden, N = 2 I   layers E_t
    swiglu             model_silu_mul   n = T k I                            layers
    down projection    gemm             M = T k / E_t, K = I, N = hidden     layers E_t
    lm head            gemm             M = b, K = hidden, N = vocab         1

h heads, kv KV heads, g = h / kv, hd head dim, I intermediate size, E experts, k routed per
token, E_t = E (1 - (1 - k/E)^T) the experts a step's T tokens touch in expectation (E_t = 1,
k = 1 for a dense MLP). Every GEMM is gemm.kcost (perfect reuse: weights cross HBM once a
step), or for the projections and experts the spec the quantisation implies (quantisation.py:
model_gemm_w8a8 at fp8, model_gemm_w8a16, model_gemm_w4a16), and attention's model_attention
is mapped to the KV cache's precision in decode; a kernel's copies run back to back, so its W, Q and
time are the spec's times the copies. With --tp N every copy count is divided by N: tensor
parallelism gives each GPU 1/N of every kernel, and the collectives between them are timed
on the GPUs' topology (tensor_parallel.py).

With fp8 activations (W8A8) each FP8 GEMM's bf16 input is quantised by a kernel of its own
first, as vLLM's W8A8BlockFp8LinearOp and SGLang's *_w8a8_block_fp8_linear run it (neither
fuses it into the kernel before: docs/serving.md, "FP8 activations"); the scales are read
in model_gemm_w8a8's epilogue, in the GEMM's launch:

    qkv input quant      model_quant_fp8  T = T, n = hidden                layers
    output input quant   model_quant_fp8  T = T, n = h hd                  layers
    gate+up input quant  model_quant_fp8  T = T, n = hidden                layers
    down input quant     model_quant_fp8  T = T k, n = I                   layers

With --ep N (= --tp N, a mixture of experts) the MoE block is split by experts, not by
columns: each GPU holds E/N whole experts and runs them on the rows routed to them, and
routes its own r = ceil(T / N) tokens (tensor_parallel.py's sequence-parallel block).
Under uniform routing, which this assumes (no hot expert), a GPU's experts get T k / N rows
on average, as many in each touched expert as without expert parallelism:

    router (MoE)       gemm             M = r, K = hidden, N = E             layers
    gate+up            gemm             M = T k / E_t, K = hidden, N = 2 I   layers E_t / N
    swiglu             model_silu_mul   n = T k I / N                        layers
    down projection    gemm             M = T k / E_t, K = I, N = hidden     layers E_t / N

Per GPU these are the W and Q of --tp N's 1/N of each kernel (a column-split GEMM and 1/N
of the whole experts move the same bytes at the roofline) but for the router, on r tokens
where --tp N runs 1/N of it on all T; what expert parallelism changes is the collectives."""

from __future__ import annotations

import math
from enum import StrEnum
from functools import cache
from importlib import resources

import sympy

from ..analysis.api import Spec, load
from ..base.records import record
from ..hardware.modelfile import ModelConfig
from .quantisation import BF16_ONLY, FP8, Quantisation


class Phase(StrEnum):
    """Which step of serving: a decode step (one token a sequence) or a prefill."""

    DECODE = "decode"
    PREFILL = "prefill"


DECODE, PREFILL = Phase.DECODE, Phase.PREFILL


class KernelKind(StrEnum):
    """What a kernel of the model does: how the stacked plot groups it, in this order."""

    ATTENTION = "attention"
    PROJECTIONS = "projections"
    MLP = "mlp"
    NORMS = "norms"
    LM_HEAD = "lm head"


KINDS = tuple(KernelKind)  # plot order
# GEMM specs whose t_model the tiled gemm_hopper gives where the sizes meet its assumptions:
# model_gemm_w8a8's scales ride in the epilogue of the same tiles
TILED_BY_GEMM_HOPPER = ("gemm", "model_gemm_w8a8")


@record
class KernelUse:
    """One row of the composition table: a kernel of the step, counted by a spec."""

    name: str
    kind: KernelKind  # how the stacked plot groups it
    spec: str  # the spec file's stem, in the shipped specs
    sizes: tuple[tuple[str, sympy.Expr], ...]  # spec parameter -> value
    copies: sympy.Expr  # instances of the spec at these sizes, run back to back, per step
    launches: int  # kernel launches per step (a grouped MoE GEMM is one)
    # a tiled spec of the same kernel whose t_model (waves, tile quantisation) stands for the
    # estimate where the sizes meet its assumptions; None: t_model is the bound
    model_spec: str | None = None
    precision: str | None = None  # the specs' types mapped to it (Spec.at_precision)


def expected_experts(model: ModelConfig, tokens) -> sympy.Expr:
    """E (1 - (1 - k/E)^T): the experts T tokens touch when each routes to k of E uniformly
    and independently. Numeric T is evaluated in floats: the exact power at a prefill's
    millions of tokens is a rational of millions of digits."""
    if not model.moe:
        return sympy.Integer(1)
    e, k = model.experts, model.experts_per_token
    if isinstance(tokens, sympy.Expr) and tokens.free_symbols:
        return e * (1 - (1 - sympy.Rational(k, e)) ** tokens)
    return sympy.Float(e * -math.expm1(int(tokens) * math.log1p(-k / e)), 30)


def kernel_uses(model: ModelConfig, phase: Phase, batch, context: int, gpus: int = 1, *,
                quantisation: Quantisation = BF16_ONLY, ep: int = 1) -> tuple[KernelUse, ...]:
    """The composition table above, at a batch (a number, or BATCH for the crossing); with
    ep > 1 the MoE block of one of ep GPUs of expert parallelism (the table below it)."""
    b = sympy.sympify(batch)
    prefill = phase == PREFILL
    tokens = b * context if prefill else b
    layers, hidden, hd = model.layers, model.hidden, model.head_dim
    share = sympy.Rational(1, gpus)  # tensor parallelism: 1/N of every kernel per GPU
    touched = expected_experts(model, tokens)
    routed = tokens * model.experts_per_token / touched  # tokens per touched expert
    # expert parallelism: a GPU runs its whole experts on 1/ep of the routed rows, and the
    # router on its own ceil(T / ep) tokens, instead of 1/N of every kernel
    local = sympy.Rational(1, ep)
    mlp_share = sympy.Integer(1) if ep > 1 else share
    router_tokens = sympy.ceiling(tokens / ep) if ep > 1 else tokens

    quantised, quantised_at = quantisation.gemm()
    attention_at = quantisation.attention_precision(decode=not prefill)

    def use(name, kind, spec, copies, launches, precision=None, *, share=share,
            **sizes) -> KernelUse:
        # every GEMM has the cuBLAS-class Hopper tiling beside it for t_model
        tiled = "gemm_hopper" if spec in TILED_BY_GEMM_HOPPER else None
        return KernelUse(name, kind, spec, tuple((k, _exact(v)) for k, v in sizes.items()),
                         sympy.sympify(copies) * share, launches, tiled,
                         None if precision is None else str(precision))

    uses = [
        use("norms", KernelKind.NORMS, "model_rmsnorm", 2 * layers + 1, 2 * layers + 1,
            T=tokens, n=hidden),
        use("qkv projection", KernelKind.PROJECTIONS, quantised, layers, layers, quantised_at,
            M=tokens, K=hidden, N=model.qkv_width),
        # a prefill's attention is causal: each token against the keys up to its own
        use("attention", KernelKind.ATTENTION, "model_attention_causal",
            layers * model.kv_heads * b, layers, attention_at, S=context, g=model.group, d=hd)
        if prefill else
        use("attention", KernelKind.ATTENTION, "model_attention", layers * model.kv_heads * b,
            layers, attention_at, Sq=model.group, L=context, d=hd),
        use("output projection", KernelKind.PROJECTIONS, quantised, layers, layers,
            quantised_at, M=tokens, K=model.heads * hd, N=hidden),
    ]
    if model.moe:
        uses.append(use("router", KernelKind.MLP, "gemm", layers, layers, share=mlp_share,
                        M=router_tokens, K=hidden, N=model.experts))
    uses += [
        use("gate+up projection", KernelKind.MLP, quantised, layers * touched * local, layers,
            quantised_at, share=mlp_share, M=routed, K=hidden, N=2 * model.intermediate),
        use("swiglu", KernelKind.MLP, "model_silu_mul", layers, layers, share=mlp_share,
            n=tokens * model.experts_per_token * model.intermediate * local),
        use("down projection", KernelKind.MLP, quantised, layers * touched * local, layers,
            quantised_at, share=mlp_share, M=routed, K=model.intermediate, N=hidden),
        # only the last position of each sequence needs logits, in prefill as in decode
        use("lm head", KernelKind.LM_HEAD, "gemm", 1, 1, M=b, K=hidden, N=model.vocab),
    ]
    if quantisation.activations == FP8:
        uses += _fp8_quant_uses(model, use, tokens, local, mlp_share)
    return tuple(uses)


def _fp8_quant_uses(model: ModelConfig, use, tokens, local, mlp_share) -> list[KernelUse]:
    """W8A8's quantisation of each FP8 GEMM's input: a kernel of its own before every FP8
    linear layer (the table's fp8 rows); the scales are read by the GEMM's own epilogue."""
    layers, hidden = model.layers, model.hidden
    mlp = {"share": mlp_share}
    return [
        use("qkv input quant", KernelKind.PROJECTIONS, "model_quant_fp8", layers, layers,
            T=tokens, n=hidden),
        use("output input quant", KernelKind.PROJECTIONS, "model_quant_fp8", layers, layers,
            T=tokens, n=model.heads * model.head_dim),
        use("gate+up input quant", KernelKind.MLP, "model_quant_fp8", layers, layers, **mlp,
            T=tokens, n=hidden),
        # the rows routed to experts, k a token: the down projection's input
        use("down input quant", KernelKind.MLP, "model_quant_fp8", layers * local, layers,
            **mlp, T=tokens * model.experts_per_token, n=model.intermediate),
    ]


def _exact(size) -> sympy.Expr:
    """A size as an exact number: the expected rows per expert is a Float, and the times of
    one kernel computed from it in different orders (t_floor, t_bound) would differ in their
    last digits where they are equal; as the rational the Float is, they are equal."""
    value = sympy.sympify(size)
    return sympy.Rational(value) if value.is_Float else value


@cache
def shipped_spec(stem: str) -> Spec:
    with resources.as_file(resources.files("kernelcost.specs") / f"{stem}.kcost") as path:
        return load(path)
