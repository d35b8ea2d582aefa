"""What ran in this project's own H200 runs (validate/results/), for transcribe_published.py:
each result's family and implementation, and where the run's records (ncu's kernel names,
validate/README.md) show a schedule the results file's spec does not write, the spec and
sizes of what ran."""
# ruff: noqa: E501  (citations and kernel names read better whole)
import math

FAMILY = {"copy": "copy", "copy_triton": "copy", "gemm": "gemm", "gemm_small": "gemm", "gemm_tallk": "gemm",
          "gemm_ragged": "gemm", "gemm_zeros": "gemm", "gemv_decode": "gemv", "decode_attention": "decode_attention",
          "decode_attention_graph": "decode_attention", "rmsnorm_triton": "norm", "rmsnorm_triton_graph": "norm",
          "layernorm_rows": "norm", "softmax_rows": "softmax", "moe_gemm": "moe_gemm",
          "flash_attention": "attention", "flash_attention_graph": "attention", "flash_attention_causal": "attention_causal"}
IMPL = {"copy": "y.copy_(x) (cudaMemcpyAsync)", "copy_triton": "Triton copy", "rmsnorm_triton": "Triton RMSNorm",
        "layernorm_rows": "F.layer_norm", "softmax_rows": "torch.softmax", "moe_gemm": "torch.bmm over the touched experts",
        "gemv_decode": "F.linear (cuBLAS)", "decode_attention": "F.scaled_dot_product_attention (GQA packed)",
        "flash_attention": "SDPA flash backend (FlashAttention-2)", "flash_attention_causal": "SDPA flash backend (FlashAttention-2), causal"}
# Where the run's own records (ncu's kernel names and counters, validate/README.md) show a
# schedule the results file's spec does not write, the row runs the spec and sizes of what
# ran (validate/README.md, "Split-K at the tall K" and "The skinny GEMM at M = 16"):
# (file, kernel, sizes) -> (spec, sizes, what ran).
RAN = {("h200-2026-12-04b.csv", "gemm_tallk", "M=1024;N=1024;K=65536"): (
    "specs/gemm_hopper.kcost", "M=1024;N=1024;K=65536;SPLIT_K=4",
    "torch.matmul (cuBLAS): nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_splitK_NNT and "
    "cublasLt::splitKreduce_kernel (ncu), 4 splits"),
    ("h200-2026-12-04b.csv", "gemm_skinny", "N=8192;K=8192;b=16"): (
    "specs/gemm_hopper.kcost", "M=8192;N=16;K=8192;TM=64;TN=16;STAGES=16",
    "torch.matmul (cuBLAS): nvjet_sm90_tst_64x16_64x16_2x1_v_bz_NNT (ncu), in cuBLAS's "
    "column-major terms C^T = B^T A^T: 64 x 16 tiles of (N, M), 64-deep K, 16 stages, 2 x 1 clusters"),
    ("h200-2026-12-04b.csv", "gemm_small", "M=512;N=512;K=512"): (
    "specs/gemm_hopper.kcost", "M=512;N=528;K=512;TM=64;TN=48;STAGES=15",
    "torch.matmul (cuBLAS): nvjet_sm90_tst_64x48_64x15_2x4_h_bz_NNT (ncu): 64 x 48 tiles of (N, M) in "
    "cuBLAS's column-major terms, 64-deep K, 15 stages; 11 tiles of 48 run 528 columns (whole tiles, as for gemm_ragged)"),
    # Rows of 8191 and 4095 bf16 are not 16-byte aligned: cuBLAS left its Hopper kernels for
    # CUTLASS's sm75 tensor-op GEMM with 1-element (2-byte) loads (gemm_sm75.kcost).
    ("h200-2026-12-04b.csv", "gemm_ragged", "M=8192;N=8192;K=8192"): (
    "specs/gemm_sm75.kcost", "M=8192;N=8192;K=8192",
    "torch.matmul (cuBLAS) at 8191^3: cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_nn_align1 (ncu): "
    "256 x 128 x 32 tiles, 2 stages, mma.sync m16n8k8, 2-byte global loads"),
    ("h200-2026-12-04b.csv", "gemm_ragged", "M=4096;N=4096;K=4096"): (
    "specs/gemm_sm75.kcost", "M=4096;N=4096;K=4096",
    "torch.matmul (cuBLAS) at 4095^3: not profiled; the alignment of 8191^3 (4095 % 8 != 0), so the "
    "kernel ncu named there, cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_nn_align1"),
    # torch.softmax's kernel by row length (SoftMax.cu, host_softmax): past 2048 bf16 elements a
    # block of 1024 threads a row; ceil(n / 1024) < 10 holds the row in registers (one read),
    # else a row over the 48 KiB of shared memory is read three times (softmax_rows_gmem.kcost).
    # The register kernels are softmax_torch_reg4 and _reg8: each template instance its own
    # registers and instructions, as the compiled kernel gives them.
    ("h200-2026-12-04.csv", "softmax_rows", "R=4096;n=4096"): (
    "specs/softmax_torch_reg4.kcost", "R=4096;n=4096",
    "torch.softmax: cunn_SoftMaxForwardReg<4> (n > 2048, ceil(n / 1024) = 4 < 10), 1024 threads a row, "
    "the row in registers: one read, one write"),
    ("h200-2026-12-04.csv", "softmax_rows", "R=8192;n=8192"): (
    "specs/softmax_torch_reg8.kcost", "R=8192;n=8192",
    "torch.softmax: cunn_SoftMaxForwardReg<8> (n > 2048, ceil(n / 1024) = 8 < 10), 1024 threads a row, "
    "the row in registers: one read, one write"),
    ("h200-2026-12-04.csv", "softmax_rows", "R=64;n=131072"): (
    "specs/softmax_rows_gmem.kcost", "R=64;n=131072",
    "torch.softmax: cunn_SoftMaxForward (ceil(n / 1024) = 128 >= 10; 256 KiB rows over the 48 KiB of "
    "shared memory), 1024 threads a row, three reads of the row through L2")}
# F.linear on sm90 under CUDA 13: cuBLAS runs nvjet WGMMA kernels with TMA pipelines, never a
# SIMT GEMV, at every shape and M (1 to 128) profiled on a GH200 with torch 2.13 + cu130
# (SamMausberg/verified-progress, evidence/backbone/tables.md at commit b0912d6a). These rows
# were not profiled: each runs the tile of the profiled shape nearest its (N, K) at its M, and
# the largest split whose blocks fit one wave of 132 (each profiled split kernel does: 80 and
# 120 blocks); validate/README.md, "F.linear's kernels on sm90".
NVJET = "{} (cuBLAS), not profiled: the tile of nvjet_sm90_tst_{}, the kernel cuBLAS 13 runs for F.linear at M = {} at the nearest profiled shape ({} of SamMausberg/verified-progress evidence/backbone/tables.md, GH200); {}"
for (file, kernel, given), (sizes, tile, m, near, how) in {
        ("h200-2026-12-04.csv", "gemv_decode", "N=4096;K=4096;b=1"): (
            "M=4096;N=8;K=4096;TM=64;TN=8;STAGES=16;SPLIT_K=2", "64x8_64x16_4x1_v_bz_splitK_TNT", 1, "gdn_out_proj 2560 x 4096",
            "64 x 8 tiles of (N, M), the one token in whole tiles of 8, 16 stages, 2 splits (128 blocks)"),
        ("h200-2026-12-04.csv", "gemv_decode", "N=14336;K=4096;b=1"): (
            "M=14336;N=8;K=4096;TM=64;TN=8;STAGES=16", "64x8_64x16_4x1_v_bz_TNT", 1, "gdn_in_proj_qkvz 12288 x 2560",
            "64 x 8 tiles of (N, M), the one token in whole tiles of 8, 16 stages, no split"),
        ("h200-2026-12-04.csv", "gemv_decode", "N=4096;K=14336;b=8"): (
            "M=4096;N=8;K=14336;TM=64;TN=8;STAGES=16;SPLIT_K=2", "64x8_64x16_4x1_v_bz_splitK_TNT", 8, "mlp_down 2560 x 9216",
            "64 x 8 tiles of (N, M), 16 stages, split K: 2 ways (128 blocks; its 3 on 40 tiles)"),
        ("h200-2026-12-04.csv", "gemv_decode", "N=8192;K=8192;b=64"): (
            "M=8192;N=64;K=8192;TM=64;TN=64;STAGES=13", "64x64_64x13_4x1_v_bz_splitK_TNT", 64, "mlp_down 2560 x 9216",
            "64 x 64 tiles of (N, M), 13 stages, no split (128 blocks; its 3 on 40 tiles)"),
        ("h200-2026-12-04b.csv", "gemm_skinny", "N=8192;K=8192;b=64"): (
            "M=8192;N=64;K=8192;TM=64;TN=64;STAGES=13", "64x64_64x13_4x1_v_bz_splitK_TNT", 64, "mlp_down 2560 x 9216",
            "64 x 64 tiles of (N, M), 13 stages, no split (128 blocks; its 3 on 40 tiles)"),
        ("h200-2026-12-04b.csv", "gemm_skinny", "N=8192;K=8192;b=128"): (
            "M=8192;N=128;K=8192;TM=128;TN=64;STAGES=8", "128x64_64x8_4x2_h_bz_splitK_TNT", 128, "mlp_down 2560 x 9216",
            "128 x 64 tiles of (N, M), 8 stages, no split (128 blocks; its 3 on 40 tiles)")}.items():
    call = IMPL["gemv_decode"].split(" (")[0] if kernel == "gemv_decode" else "torch.matmul"
    RAN[file, kernel, given] = ("specs/gemm_hopper.kcost", sizes, NVJET.format(call, tile, m, near, how))


# The decode rows call F.scaled_dot_product_attention with no backend named. torch 2.11 on an
# sm90 part puts cuDNN first (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp,
# check_prefer_cudnn_attention: cuDNN newer than 9.15.0 on major 9 or 10; the cu130 wheel's
# bundled cuDNN crosses it at 2.11, huggingface/transformers pull request #48163, comment of
# 2026-08-31), and can_use_cudnn_attention accepts 8 query rows of d = 128. cuDNN's fused
# forward launches one CTA per (query tile, head, batch) and does not split the cache, so
# b x h/g blocks each stream all L keys: decode_attention_split.kcost is the family's spec of
# that grid (FlashAttention-2's tiles; cuDNN's own are not published). FlashAttention-2's path
# would have split the cache (flash_api.cpp, set_params_splitkv: 32 splits at b = 1).
# F.layer_norm of bf16 rows with n % 4 == 0 and aligned buffers takes PyTorch's
# vectorized_layer_norm_kernel: 128 threads a row (layer_norm_kernel.cu,
# LayerNormKernelImplInternal and launch_vectorized_layer_norm_kernel; layernorm_torch.kcost).
SPEC_RUN = {"decode_attention": "specs/decode_attention_split.kcost",
            "layernorm_rows": "specs/layernorm_torch.kcost"}
IMPL_RUN = {"decode_attention": "F.scaled_dot_product_attention (GQA packed): cuDNN's fused "
            "attention (torch 2.11 + cu130 prefers it on sm90), one CTA per (batch, KV head), no split of the cache",
            "layernorm_rows": "F.layer_norm: PyTorch's vectorized_layer_norm_kernel (bf16, n % 4 == 0, aligned "
            "buffers), a block of 128 threads a row, two reads of the row"}


def num_splits(S, H, d, sms=132):
    """The keys' splits PyTorch's flash backend picks (aten/src/ATen/native/transformers/cuda/
    flash_attn/flash_api.cpp: mha_fwd -> set_params_splitkv -> num_splits_heuristic, twice the
    SMs, 64-row query tiles, 128-key tiles at d = 128); tests/test_flash_attention_split.py."""
    blocks, slots, n_blocks = H * -(-S // 64), 2 * sms, -(-S // (256 if d <= 64 else 128 if d <= 128 else 64))
    if blocks >= 0.8 * slots:
        return 1
    top = min(128, slots, n_blocks)
    eff = [(blocks * s / slots) / math.ceil(blocks * s / slots)
           if s == 1 or -(-n_blocks // s) != -(-n_blocks // (s - 1)) else 0.0 for s in range(1, top + 1)]
    return next(s for s in range(1, top + 1) if eff[s - 1] and eff[s - 1] >= 0.85 * max(eff))


def split_run(kernel, sizes):
    """A flash row whose query tiles PyTorch splits the keys of: the split kernel's spec and
    sizes, else None. Not causal: flash_attention_split.kcost with the heuristic's P. Causal:
    flash_attention_causal_split.kcost, whose splits are one 128-key tile each, so only where
    the heuristic picks P = S / 128 (the one causal split run, S = 1024, H = 1: P = 8)."""
    base = kernel.removesuffix("_graph")
    if base not in ("flash_attention", "flash_attention_causal"):
        return None
    given = dict(part.split("=") for part in sizes.split(";"))
    S, d = int(given["S"]), int(given.get("d", 128))
    P = num_splits(S, int(given["H"]), d)
    if P == 1:
        return None
    if base == "flash_attention":
        return "specs/flash_attention_split.kcost", f"{sizes};P={P}"
    if d != 128 or P * 128 != S:
        raise ValueError(f"a causal split run that is not one key tile a split: {sizes}, P = {P}")
    return "specs/flash_attention_causal_split.kcost", sizes
