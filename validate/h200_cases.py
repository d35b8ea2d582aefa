"""The cases run_h200.py measures: (kernel, spec, sizes, dtype, uses tensor cores), each
kernel what its spec (specs/*.kcost) counts, at the spec's sizes; the first round's, then
the second's (`--new`). Plain data: listing them needs neither a GPU nor PyTorch."""

from __future__ import annotations


def cases() -> list[tuple[str, str, dict, str, bool]]:
    """Every case: the first round's (measured 2026-12-04), then the second's (`--new`)."""
    return first_round() + second_round()


def first_round() -> list[tuple[str, str, dict, str, bool]]:
    mixtral = dict(N=14336, K=4096)  # Mixtral-8x7B's w1: E = 8 experts, top-2
    found = []
    for n in (2**24, 2**26, 2**28, 2**30):
        found.append(("copy", "copy", dict(n=n), "fp32", False))
    for n in (2**24, 2**28):
        found.append(("copy_triton", "copy", dict(n=n), "fp32", False))
    for s in (2048, 4096, 8192):
        found.append(("gemm", "gemm_hopper", dict(M=s, N=s, K=s), "bf16", True))
    for N, K, b in ((4096, 4096, 1), (14336, 4096, 1), (4096, 14336, 8), (8192, 8192, 64)):
        found.append(("gemv_decode", "gemv_decode", dict(N=N, K=K, b=b), "bf16", True))
    for b, h, L in ((1, 32, 4096), (8, 32, 4096), (32, 64, 8192)):
        found.append(("decode_attention", "decode_attention", dict(b=b, h=h, L=L), "bf16",
                      True))
    for R, n in ((1, 4096), (64, 8192), (4096, 4096), (16384, 8192)):
        found.append(("rmsnorm_triton", "rmsnorm", dict(R=R, n=n), "bf16", False))
    for T in (1, 512, 8192):
        found.append(("rope_triton", "rope", dict(T=T, h=32, hk=8), "bf16", False))
    for T, n in ((1, 14336), (512, 14336), (8192, 14336)):
        found.append(("silu_mul_triton", "silu_mul", dict(T=T, n=n), "bf16", False))
    # Ea = E (1 - (1 - k/E)^b) and Mt = ceil(b k / Ea) for b = 1, 8, 64, 256 tokens; no
    # prefill-sized Mt: there the L2 term follows the tile, and cuBLAS picks its own
    for Ea, Mt in ((2, 1), (7, 3), (8, 16), (8, 64)):
        found.append(("moe_gemm", "moe_gemm", dict(Ea=Ea, Mt=Mt, **mixtral), "bf16", True))
    for n in (2**24, 2**26, 2**28):
        found.append(("reduce_sum", "reduce_sum", dict(n=n), "fp32", False))
    for R, n in ((4096, 4096), (8192, 8192), (64, 131072)):
        found.append(("softmax_rows", "softmax_rows", dict(R=R, n=n), "bf16", False))
        found.append(("layernorm_rows", "layernorm_rows", dict(R=R, n=n), "bf16", False))
    return found


def second_round() -> list[tuple[str, str, dict, str, bool]]:
    """The cases added after the first run (`--new` runs these alone). In this order the
    counters, first size of each kernel, come in the order of their worth."""
    found = []
    # below L2 (60 MiB): the input is read cold (the flush), the output may stay in L2
    for n in (2**22, 2**20):
        found.append(("copy_triton", "copy", dict(n=n), "fp32", False))
        found.append(("copy", "copy", dict(n=n), "fp32", False))
    found.append(("rmsnorm_triton", "rmsnorm", dict(R=4096, n=8192), "bf16", False))
    # FlashAttention-2 forward through SDPA's flash backend, [1, H, S, d]. The specs model
    # FA2's hdim-128 tiling (Br = 128, Bc = 64); for d = 64 FA2 runs Br = 128, Bc = 128
    # (flash_fwd_launch_template.h, run_mha_fwd_hdim64). Grid (S / 128) x H blocks, at most
    # 2 a multiprocessor (255 registers x 128 threads), 132 multiprocessors: H = 1 leaves
    # it mostly idle (8, 32, 128 blocks), the others fill it several times over.
    for S, H, d in ((4096, 32, 128), (1024, 1, 128), (1024, 64, 128), (4096, 1, 128),
                    (16384, 1, 128), (16384, 8, 128), (1024, 64, 64), (4096, 32, 64),
                    (16384, 8, 64)):
        sizes = dict(S=S, H=H, d=d, **({"Bc": 128} if d == 64 else {}))
        found.append(("flash_attention", "flash_attention", sizes, "bf16", True))
    for S, H, d in ((4096, 32, 128), (1024, 1, 128), (16384, 1, 128), (16384, 8, 128),
                    (4096, 32, 64), (16384, 8, 64)):
        sizes = dict(S=S, H=H, d=d, **({"Bc": 128} if d == 64 else {}))
        found.append(("flash_attention_causal", "flash_attention_causal", sizes, "bf16",
                      True))
    # torch.matmul beyond squares. M = 16, 64, 128 break gemm_hopper's `2 TM | M` (TM =
    # 128): those go against gemv_decode (the skinny-GEMM spec, b = M); M = 256 is the
    # smallest gemm_hopper takes
    for M in (16, 64, 128):
        found.append(("gemm_skinny", "gemv_decode", dict(N=8192, K=8192, b=M), "bf16", True))
    found.append(("gemm_skinny", "gemm_hopper", dict(M=256, N=8192, K=8192), "bf16", True))
    for s in (512, 1024):
        found.append(("gemm_small", "gemm_hopper", dict(M=s, N=s, K=s), "bf16", True))
    found.append(("gemm_tallk", "gemm_hopper", dict(M=1024, N=1024, K=65536), "bf16", True))
    # gemm_ragged runs M - RAGGED, N - RAGGED, K - RAGGED (8191, 4095): gemm_hopper takes
    # only whole tiles, so the spec's sizes are the padded ones (the MMAs run whole tiles)
    for s in (8192, 4096):
        found.append(("gemm_ragged", "gemm_hopper", dict(M=s, N=s, K=s), "bf16", True))
    # the same product on zeros and on random data, alternated (power and clocks)
    for kernel in ("gemm", "gemm_zeros", "gemm", "gemm_zeros"):
        found.append((kernel, "gemm_hopper", dict(M=8192, N=8192, K=8192), "bf16", True))
    # launch overhead against kernel time: the same calls replayed from a CUDA graph
    found.append(("decode_attention_graph", "decode_attention", dict(b=1, h=32, L=4096),
                  "bf16", True))
    found.append(("decode_attention_graph", "decode_attention", dict(b=8, h=32, L=4096),
                  "bf16", True))
    found.append(("flash_attention_graph", "flash_attention", dict(S=1024, H=1, d=128),
                  "bf16", True))
    found.append(("rmsnorm_triton_graph", "rmsnorm", dict(R=1, n=4096), "bf16", False))
    found.append(("rope_triton_graph", "rope", dict(T=1, h=32, hk=8), "bf16", False))
    return found
