"""Transcribes the numbers read from each source into validate/published/*.csv: every figure here was read by hand from the cited source; rerun after an edit (python tools/transcribe_published.py)."""
# ruff: noqa: E501  (citations and transcribed tables read better whole)
import csv
import os
from pathlib import Path

from project_runs import FAMILY, IMPL, IMPL_RUN, RAN, SPEC_RUN, split_run

ROOT = Path(__file__).resolve().parent.parent
# tests/test_published.py writes to a folder of its own and compares with the committed files
OUT = Path(os.environ.get("KERNELCOST_TRANSCRIBE_OUT", ROOT / "validate" / "published"))
COLS = ["source", "citation", "part", "machine", "clocks_power", "family", "implementation",
        "dtype", "spec", "sizes", "shape", "value", "unit", "conversion", "time_s", "timed", "timed_kind",
        "inputs", "l2_flush"]

def write(name, rows, header_comment):
    with open(OUT / name, "w", newline="") as f:
        for line in header_comment:
            f.write("# " + line + "\n")
        w = csv.DictWriter(f, COLS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            text = r["timed"].lower()
            r["timed_kind"] = ("graph" if "graph" in text else "unstated" if "not stated" in text
                               else "kernel" if "kernel" in text and "call" not in text else "call")
            w.writerow(r)
    print(name, len(rows))

def t(x):
    return f"{x:.6e}"

# ---------------- FlashAttention ----------------
FA_IMG = ("FlashAttention-3 paper (Shah et al. 2024, arXiv:2407.08608), forward-speed figure, panel {p}; "
          "the same figure is Dao-AILab/flash-attention assets/flash3_fp16_fwd.png at commit "
          "7ef24848cf2f855077cef88fe122775b727dcd74 (README, FlashAttention-3 section); bar label {impl}, seqlen {s}")
SEQ = [512, 1024, 2048, 4096, 8192, 16384]
fa = {  # (d, causal) -> (panel, FA2 list, FA3 list)
    (64, False): ("(a)", [282, 306, 318, 321, 322, 324], [333, 392, 460, 476, 496, 497]),
    (64, True): ("(b)", [180, 229, 262, 284, 295, 299], [197, 265, 371, 420, 460, 473]),
    (128, False): ("(c)", [309, 350, 362, 368, 370, 370], [467, 565, 625, 638, 646, 648]),
    (128, True): ("(d)", [191, 260, 298, 319, 333, 335], [292, 423, 521, 579, 602, 616]),
    (256, False): ("(e)", [275, 313, 321, 323, 324, 326], [482, None, 707, 736, 746, 756]),
    (256, True): ("(f)", [208, 251, 278, 293, 297, 298], [286, 427, 537, 612, 628, 642]),
}
# FA3's tiles as the hopper specs' sizes (hopper/flash_fwd_launch_template.h lines 83-105 at commit 7f67966c)
FA3_TILES = {(64, False): ";Br=192;Bc=128;CM=1;RT=128", (128, False): "", (256, False): ";Bc=80",
             (64, True): ";Br=192;Bc=128;RT=128", (128, True): "", (256, True): ";Bc=80"}
rows = []
for (d, causal), (panel, fa2, fa3) in fa.items():
    for impl, vals in (("FlashAttention-2", fa2), ("FlashAttention-3", fa3)):
        for s, v in zip(SEQ, vals):
            if v is None:
                continue  # label hidden behind the legend: not read, not entered
            b = 16384 // s
            nh = 2048 // d
            flop = 4 * b * s * s * nh * d // (2 if causal else 1)
            if impl == "FlashAttention-2":
                sizes = f"S={s};H={b * nh};d={d}" + (";Bc=128" if d == 64 else ";Br=64;WM=16" if d == 256 else "")
                spec = "specs/flash_attention_causal.kcost" if causal else "specs/flash_attention.kcost"
            else:  # FA3's sm90 tiles (the hopper specs' headers)
                sizes = f"S={s};H={b * nh};d={d}" + FA3_TILES[d, causal]
                spec = "specs/flash_attention_causal_hopper.kcost" if causal else "specs/flash_attention_hopper.kcost"
            rows.append(dict(
                source="fa3-paper-fwd-figure",
                citation=FA_IMG.format(p=panel, impl=impl, s=s),
                part="NVIDIA H100 80GB SXM5", machine="h100", clocks_power="not stated",
                family="attention_causal" if causal else "attention", implementation=impl,
                dtype="fp16", spec=spec,
                sizes=sizes, shape=f"batch={b} seqlen={s} nheads={nh} headdim={d} causal={causal} (batch*seqlen=16k, nheads*headdim=2048)",
                value=str(v), unit="TFLOP/s",
                conversion=f"time_s = F / (value * 1e12), F = 4*batch*seqlen^2*nheads*headdim{' / 2' if causal else ''} = {flop} FLOP (flops() in benchmarks/benchmark_flash_attention.py of the same repository)",
                time_s=t(flop / (v * 1e12)), timed="forward call (kernel), mean of repeats",
                inputs="randn (benchmark_flash_attention.py)", l2_flush="not stated"))
# flash-attention issue 1438: FA3 on H100 and H200, (1, 8, 32768, 64), bf16, full attention
for part, machine, ms in (("NVIDIA H100 (variant not stated)", "h100", 4.27728),
                          ("NVIDIA H200 (variant not stated)", "h200", 4.51709)):
    rows.append(dict(
        source="fa-issue-1438",
        citation="Dao-AILab/flash-attention issue #1438 'FA3 forward performance regression on H200', comment by complexfilter 2025-01-11 (commit 3cea2fb6ee54fb7e1aad9db6ac6c9331184b8647)",
        part=part, machine=machine, clocks_power="not stated", family="attention",
        implementation="FlashAttention-3", dtype="bf16", spec="specs/flash_attention_hopper.kcost",
        sizes="S=32768;H=8;d=64" + FA3_TILES[64, False], shape="(batch, num_heads, seq_len, dim) = (1, 8, 32768, 64), full attention (not causal)",
        value=str(ms), unit="ms", conversion="time_s = value * 1e-3", time_s=t(ms * 1e-3),
        timed="forward pass (how timed not stated)", inputs="not stated", l2_flush="not stated"))
# pytorch PR 122857: benchmarks/transformer/sdpa.py on an MI300X, forward_time in microseconds
PT122857 = ("pytorch/pytorch pull request #122857 'Fix performance regression and memory storage handling of Flash "
            "Attention on ROCM', comment by xinyazhang 2024-04-02, 'Performance numbers of python "
            "benchmarks/transformer/sdpa.py on MI300X' (torch-2.4.0a0+gite6ee832), row batch_size=1 num_heads=16 "
            "q_seq_len=kv_seq_len={s} embed_dim=2048 is_causal={c} bfloat16, column forward_time (microseconds: "
            "benchmark_torch_function_in_microseconds, the median of torch.utils.benchmark.Timer.adaptive_autorange "
            "after 5 warm-up calls, times 1e6; benchmarks/transformer/sdpa.py at commit "
            "57cabe78c84f23aa744c2ba220239c359c62ee6e, whose table has the comment's columns)")
for s_len, causal, us in ((128, True, 42.364222696051), (128, False, 40.49976068781689),
                          (256, True, 245.51834247540683), (256, False, 61.26629200298339),
                          (512, True, 282.36950887367124), (512, False, 97.22594299819319)):
    rows.append(dict(
        source="pytorch-pr122857", citation=PT122857.format(s=s_len, c=causal), part="AMD Instinct MI300X",
        machine="mi300x", clocks_power="not stated", family="attention_causal" if causal else "attention",
        implementation="F.scaled_dot_product_attention on ROCm, torch main of 2024-04 ('main branch at that point')", dtype="bf16",
        spec="specs/flash_attention_causal.kcost" if causal else "specs/flash_attention.kcost",
        sizes=f"S={s_len};H=16;d=128", shape=f"batch 1, 16 heads, seq {s_len}, head_dim = 2048/16 = 128, causal={causal}",
        value=repr(us), unit="us", conversion="time_s = value * 1e-6", time_s=t(us * 1e-6),
        timed="the call (sdpa.py's Timer median, wall clock)", inputs="randn (sdpa.py get_input)", l2_flush="not stated"))
write("flashattention.csv", rows, [
    "FlashAttention-2 and -3 forward passes: published measurements (see README.md in this folder).",
    "FlashAttention-2 rows (specs/flash_attention.kcost, specs/flash_attention_causal.kcost): d = 64 rows set Bc = 128 (FA2's hdim-64 tile, as validate/results/h200-2026-12-04b.csv does); d = 128 keeps the spec's tile;",
    "d = 256 rows set Br = 64, WM = 16: FA2's hdim-256 tile on H100, Flash_fwd_kernel_traits<256, 64, 64, 4> (csrc/flash_attn/src/flash_fwd_launch_template.h,",
    "run_mha_fwd_hdim256, at commit 0251105a2fb19d2957484b7f023cd8c115286ced: '64 x 64 (96KB smem) since then we can get 2 CTAs per SM').",
    "FlashAttention-3 rows (specs/flash_attention_hopper.kcost, specs/flash_attention_causal_hopper.kcost): FA3's sm90 tiles, Dao-AILab/flash-attention hopper/flash_fwd_launch_template.h lines 83-105 at commit 7f67966c (2024-07-11, the initial FA3 release; the same at 3cea2fb6 for the fa-issue-1438 rows):",
    "non-causal d = 64 rows set Br = 192, Bc = 128, CM = 1, RT = 128 (192 x 128, 16 warps, no cluster); d = 128 keeps the spec's 128 x 176 (12 warps, cluster 2); d = 256 rows set Bc = 80 (128 x 80, cluster 2);",
    "causal rows run FA3's causal tiles (2 stages, no cluster; the spec's header gives the source): d = 64 rows set Br = 192, Bc = 128, RT = 128 (192 x 128, 16 warps); d = 128 keeps the spec's 128 x 128 (12 warps); d = 256 rows set Bc = 80 (128 x 80, 12 warps)."])

# ---------------- GEMM ----------------
rows = []
# cuBLAS's bf16 GEMM on each NVIDIA architecture runs that architecture's MMA path: WGMMA on
# sm90 (gemm_hopper), tcgen05 on sm100 (gemm_blackwell); A100 and MI300X rows keep the ideal
GEMM_SPECS = {"h100": "specs/gemm_hopper.kcost", "b200": "specs/gemm_blackwell.kcost"}
MAMF = ("stas00/ml-engineering compute/accelerator/README.md at commit 744d01e18b79512572f64a6bbd8b5f4a725203a7, "
        "'Maximum Achievable Matmul FLOPS comparison table', BF16, row '{row}' (mamf-finder: mean of 100 iterations after 50 warm-up per shape; "
        "the best of a shape search)")
for row, part, machine, tf, (m, n, k), note in (
        ("NVIDIA A100 SXM", "NVIDIA A100 SXM (memory size not stated)", "a100", 271.2, (1024, 10240, 5120), "torch 2.6.0+cu126"),
        ("NVIDIA H100 SXM", "NVIDIA H100 SXM", "h100", 794.5, (2048, 2048, 13312), "torch 2.7.0+cu126"),
        ("NVIDIA B200 SXM", "NVIDIA B200 SXM", "b200", 1745.0, (1792, 16128, 3072), "torch 2.7.1+cu128"),
        ("AMD MI300X", "AMD Instinct MI300X", "mi300x", 668.4, (10240, 15360, 8192), "torch 2.5.1+6.3.42131, PYTORCH_TUNABLEOP_ENABLED=1")):
    flop = 2 * m * n * k
    rows.append(dict(
        source="mamf-table", citation=MAMF.format(row=row) + "; " + note, part=part, machine=machine,
        clocks_power="not stated", family="gemm", implementation="torch.matmul (cuBLAS / hipBLASLt)",
        dtype="bf16", spec=GEMM_SPECS.get(machine, "specs/gemm.kcost"),
        sizes=f"M={m};N={n};K={k}", shape=f"MxNxK = {m}x{n}x{k}", value=str(tf), unit="TFLOP/s",
        conversion=f"time_s = 2*M*N*K / (value * 1e12) = {flop} FLOP / (value * 1e12)",
        time_s=t(flop / (tf * 1e12)), timed="torch.matmul call, mean of 100", inputs="not stated", l2_flush="not stated"))
ZZC = ("zzc0721/torch-performance-test-data issue #79 (NVIDIA H100 80GB HBM3, by HaxxorCialtion, 2025-10-18), "
       "BF16 {n}x{n}; test.py at commit 6e2382cee378ec5ab9367fe2fb1f9cbc438ffcec (its last change before the issue; unchanged through 9d82827637262c4351e3f9483f96b8cff57a601f), "
       "benchmark_precision: 10 warm-up, 30 back-to-back torch.mm timed by CUDA events, TFLOPS = 2 n^3 * 30 / elapsed")
for n, tf in ((1024, 176.62), (2048, 676.59), (4096, 788.72), (8192, 797.51), (10240, 719.72)):
    flop = 2 * n ** 3
    rows.append(dict(
        source="zzc-issue-79", citation=ZZC.format(n=n), part="NVIDIA H100 80GB HBM3 (the SXM5 part's device name)",
        machine="h100", clocks_power="not stated", family="gemm", implementation="torch.mm (cuBLAS), torch 2.7.0+cu128",
        dtype="bf16", spec="specs/gemm_hopper.kcost", sizes=f"M={n};N={n};K={n}", shape=f"{n}^3 square",
        value=str(tf), unit="TFLOP/s", conversion=f"time_s = 2*n^3 / (value * 1e12) = {flop} FLOP / (value * 1e12)",
        time_s=t(flop / (tf * 1e12)), timed="mean of 30 back-to-back calls (CUDA events)", inputs="randn", l2_flush="no (same inputs reused)"))
AO2427 = ("pytorch/ao pull request #2427 'add-to-benchmarks' (drisspg, 2025-06-23), output of "
          "benchmarks/float8/bench_matmul.py --recipe nvfp4 ('gpu_name: NVIDIA B200'), line 'torch.bfloat16 time_sec' "
          "after 'M, K, N: {n} {n} {n}'; timed at commit faf788a1752dd8fbe3c529e6fe3612e68324651f (the PR merged) by "
          "do_benchmarks with use_gpu_kernel_time=True (run()'s default; the PR's command does not change it): "
          "benchmarks/float8/utils.py get_gpu_kernel_gemm_time_s")
# get_gpu_kernel_gemm_time_s: one warm-up, five runs under torch.profiler, the GPU time the
# profiler (CUPTI) attributes to aten::mm's kernels divided by five: the kernels alone
AO2427_TIMED = "GPU kernel time of aten::mm under torch.profiler (CUPTI), mean of five after one warm-up"
for n, sec in ((1024, 5.08e-06), (1536, 7.87e-06), (2048, 1.52e-05), (3072, 3.84e-05), (4096, 9.74e-05),
               (6144, 3.19e-04), (8192, 7.74e-04)):
    rows.append(dict(
        source="ao-pr2427", citation=AO2427.format(n=n), part="NVIDIA B200 (variant not stated)", machine="b200",
        clocks_power="not stated", family="gemm",
        implementation="nn.Linear(K, N, bias=False) in bf16: aten::mm (cuBLAS)", dtype="bf16",
        spec=GEMM_SPECS["b200"], sizes=f"M={n};N={n};K={n}", shape=f"M, K, N = {n}, {n}, {n}",
        value=f"{sec:.2e}", unit="s", conversion="time_s = value", time_s=t(sec),
        timed=AO2427_TIMED, inputs="randn activations; nn.Linear's default (uniform) weights",
        l2_flush="no (the same inputs, one warm-up then five runs back to back)"))
write("gemm.csv", rows, ["GEMMs: published measurements (see README.md in this folder).",
    "Hopper rows map to gemm_hopper (the cuBLAS sm90 tiling: WGMMA), B200 rows to gemm_blackwell (the sm100 tiling: tcgen05);",
    "other machines to gemm (every element once: the ideal)."])

# ---------------- norms ----------------
rows = []
LIG = ("linkedin/Liger-Kernel benchmark/data/all_benchmark_data.csv at commit ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c, "
       "row kernel_name={k}, kernel_provider=liger, kernel_operation_mode=forward, metric speed (ms), {x}={v}, gpu_name='{g}', timestamp {ts}; "
       "timed by triton.testing.do_bench (benchmark/scripts/utils.py), y_value_50 = median")
for v, ms in ((1024, 0.01360000018030405), (2048, 0.019999999552965164), (4096, 0.031072000041604042),
              (8192, 0.0517439991235733), (16384, 0.0952640026807785), (32768, 0.18223999440670013)):
    rows.append(dict(
        source="liger-a100-2024-09-03", citation=LIG.format(k="rms_norm", x="H", v=v, g="NVIDIA A100-SXM4-80GB", ts="2024-09-03 15:39:30"),
        part="NVIDIA A100-SXM4-80GB", machine="a100", clocks_power="not stated", family="norm",
        implementation="Liger RMSNorm (Triton, fused)", dtype="bf16", spec="specs/rmsnorm.kcost", sizes=f"R=2048;n={v}",
        shape=f"M=2048 rows x H={v}, eps 1e-6", value=repr(ms), unit="ms", conversion="time_s = value * 1e-3",
        time_s=t(ms * 1e-3), timed="forward kernel (do_bench median)", inputs="randn (benchmark_rms_norm.py)", l2_flush="do_bench default (not recorded in the row)"))
for src, g, ts, machine, vals in (
        ("liger-a100-2024-09-03", "NVIDIA A100-SXM4-80GB", "2024-09-03 15:39:14", "a100",
         ((1024, 0.030271999537944794), (2048, 0.04992000013589859), (4096, 0.08816000074148178), (8192, 0.16521599888801575), (16384, 0.32230401039123535))),
        ("liger-h100-2025-07-17", "NVIDIA H100 80GB HBM3", "2025-07-17 18:18:11", "h100",
         ((1024, 0.018848000094294548), (2048, 0.029152000322937965), (4096, 0.05104000121355057), (8192, 0.0947519987821579), (16384, 0.18476800620555878)))):
    for v, ms in vals:
        rows.append(dict(
            source=src, citation=LIG.format(k="layer_norm", x="N", v=v, g=g, ts=ts), part=g + (" (SXM5)" if machine == "h100" else ""),
            machine=machine, clocks_power="not stated", family="norm", implementation="Liger LayerNorm (Triton, fused)",
            dtype="fp32", spec="specs/layernorm_rows.kcost", sizes=f"R=4096;n={2 * v}",
            shape=f"M=4096 rows x N={v} fp32, eps 1e-6; the spec counts bf16, so n = 2N gives the same bytes (x, y: 8*M*N; gamma, beta: 8N)",
            value=repr(ms), unit="ms", conversion="time_s = value * 1e-3", time_s=t(ms * 1e-3),
            timed="forward kernel (do_bench median)", inputs="randn (benchmark_layer_norm.py)", l2_flush="do_bench default (not recorded in the row)"))
write("norms.csv", rows, ["RMSNorm and LayerNorm (fused kernels): published measurements (see README.md in this folder)."])

# ---------------- decode GEMV ----------------
rows = []
VLLM = ("vllm-project/vllm pull request #49363 '[Benchmark] Add FP8 block-scaled GEMM to fp8_gemm benchmark' (HDCharles, "
        "2026-07-21), 'H100 benchmarks for google/gemma-4-31B-it', table 'N=12288 K=5376, BF16 vs FP8 GEMMs TFLOP/s', "
        "row batch_size={b}, column torch-bf16; TFLOP/s = 2*M*N*K*1e-12 / (ms*1e-3) with M = batch_size and "
        "triton.testing.do_bench_cudagraph median of torch.nn.functional.linear(a, b) (the PR's command runs "
        "benchmarks/kernels/benchmark_fp8_gemm.py; at commit 1e9fe6b101326ee814f4158f96a7ac4c8b5c62fc, which has the PR's "
        "fp8-block providers, torch-bf16 is timed and converted so)")
for b, tf in ((1, 2.870333), (16, 46.541434), (64, 182.588263), (128, 352.560566)):
    flop = 2 * b * 12288 * 5376
    rows.append(dict(
        source="vllm-pr49363", citation=VLLM.format(b=b), part="NVIDIA H100 (variant not stated)", machine="h100",
        clocks_power="not stated", family="gemv", implementation="F.linear bf16 (cuBLAS)", dtype="bf16",
        spec="specs/gemv_decode.kcost", sizes=f"N=12288;K=5376;b={b};TK=256",
        shape=f"M={b} tokens, W [N=12288, K=5376]; TK = 256 so that TK | K (5376 = 21 x 256)",
        value=str(tf), unit="TFLOP/s", conversion=f"time_s = F / (value * 1e12), F = 2*M*N*K = {flop} FLOP",
        time_s=t(flop / (tf * 1e12)), timed="CUDA graph replay (do_bench_cudagraph median)", inputs="randn",
        l2_flush="not stated"))
write("gemv.csv", rows, ["Decode GEMV (skinny bf16 GEMM): published measurements (see README.md in this folder)."])

# ---------------- grouped MoE GEMM ----------------
rows = []
AO2490 = ("pytorch/ao pull request #2490 '[moe training] add benchmarking script for grouped mm' (danielvegamyhre, "
          "2025-07-03), 'Llama4_17bx16e' output ('gpu_name: NVIDIA H100'), block 'M, K, N, E: {m} {k} {n} {e}', line "
          "'torch.bfloat16 time_sec'; the PR's command 'python bench_grouped_mm.py' times by do_benchmarks with "
          "use_gpu_kernel_time=True (run()'s default) at commit c044ddb2500adf44419be76c0fffe8c6b45855a6 (the PR merged): "
          "benchmarks/float8/utils.py get_gpu_kernel_gemm_time_s")
for (m, k, n, e), sec, offs in (
        ((8192, 5120, 8192, 16), 1.31e-03, "272 832 1744 2288 2768 3056 4160 4352 4544 4800 5056 5360 6432 7760 7872 8192"),
        ((8192, 8192, 5120, 16), 1.26e-03, "464 1008 1664 2608 2912 3296 3584 3968 4960 5024 5232 5952 7440 7760 7984 8192")):
    rows.append(dict(
        source="ao-pr2490", citation=AO2490.format(m=m, k=k, n=n, e=e), part="NVIDIA H100 (variant not stated)",
        machine="h100", clocks_power="not stated", family="moe_gemm", implementation="torch._grouped_mm bf16",
        dtype="bf16", spec="specs/moe_gemm_hopper.kcost", sizes=f"Ea={e};Mt={m // e};N={n};K={k};E={e}",
        shape=f"(M, K) @ (E, K, N), M={m} tokens over E={e} experts, group ends (offs) {offs}: unbalanced; the spec's Mt = M/E = {m // e} (balanced, the same FLOP and weight bytes)",
        value=f"{sec:.2e}", unit="s", conversion="time_s = value", time_s=t(sec),
        timed="GPU kernel time of aten::_grouped_mm under torch.profiler (CUPTI), mean of five after one warm-up",
        inputs="randn; routing offsets as printed", l2_flush="no (the same inputs, one warm-up then five runs back to back)"))
rows.append(dict(
    source="pytorch-pr156203",
    citation=("pytorch/pytorch pull request #156203 '[CUTLASS] [CUDA] SM100 GroupMM' (AaronWang04, 2025-06-17), "
              "'On H200' output, 'batch: 16 M: 128000 N: 7168 K: 7168', 'Time per Iteration: 298.6668 ms' "
              "(5 warm-up calls, then the mean of 50 back-to-back calls between CUDA events)"),
    part="NVIDIA H200 (variant not stated)", machine="h200", clocks_power="not stated", family="moe_gemm",
    implementation="torch._grouped_mm bf16 (CUTLASS sm90)", dtype="bf16", spec="specs/moe_gemm_hopper.kcost",
    sizes="Ea=16;Mt=128000;N=7168;K=7168;E=16", shape="a [16, 128000, 7168] and b [16, 7168, 7168]: 16 groups of 128000 rows",
    value="298.6668", unit="ms", conversion="time_s = value * 1e-3", time_s=t(298.6668e-3),
    timed="mean of 50 back-to-back calls (CUDA events)", inputs="randn", l2_flush="no"))
write("moe_gemm.csv", rows, ["Grouped MoE GEMMs (one grouped GEMM, not a whole MoE layer): published measurements (see README.md in this folder)."])

# ---------------- decode attention ----------------
rows = []
ORT = ("microsoft/onnxruntime pull request #21414 '[CUDA] Page Attention', comment by cloudhan 2024-08-29, section "
       "'FA2 - paged batch decode', 'H100 SMX', table 'llama3 70B (GQA8) page_size=256' (nvbench), row num_seqs=64 seq_len={L}, column GPU Time")
for L, us in ((32, 21.135), (64, 22.958), (128, 28.780), (256, 43.563)):
    rows.append(dict(
        source="ort-pr21414", citation=ORT.format(L=L), part="NVIDIA H100 SXM ('H100 SMX' in the source)", machine="h100",
        clocks_power="not stated", family="decode_attention", implementation="FlashAttention-2 paged KV decode (onnxruntime)",
        dtype="fp16 (not printed; the PR's kernels are fp16/bf16)", spec="specs/decode_attention_split.kcost",
        sizes=f"b=64;h=64;L={L};g=8;d=128",
        shape=(f"num_seqs=64 seq_len={L} num_heads=64 num_kv_heads=8 head_size=128 page_size=256; flash-attention v2.6.3 "
               "keeps one split (flash_api.cpp:260: 64 x 8 = 512 blocks >= 0.8 x 2 x 132 SMs)"),
        value=str(us), unit="us", conversion="time_s = value * 1e-6", time_s=t(us * 1e-6),
        timed="kernel (nvbench GPU Time)", inputs="not stated",
        l2_flush="yes (nvbench's cold measurement, whose GPU Time the comparison reports: \"Each sample runs the benchmark once with a clean device L2 cache\", NVIDIA/nvbench README, Cold Measurements)"))
FA1572 = ("Dao-AILab/flash-attention issue #1572 'flash-attention-3 batch decode with page kv cache is significantly slower than flashinfer on MHA', "
          "comment by TheRainstorm 2025-04-11 ('I tested this script on an H100'), line 'Seqlen = {L}, FA3 time w CUDA Graph'")
for L, us in ((128, 27.6), (2000, 292.0), (4000, 567.2)):
    rows.append(dict(
        source="fa-issue-1572", citation=FA1572.format(L=L), part="NVIDIA H100 (variant not stated)", machine="h100",
        clocks_power="not stated", family="decode_attention",
        implementation="FlashAttention-3 paged KV decode, num_splits=0 (heuristic): pages of 8 tokens take the cp.async path "
                       "(no TMA), 128 x 128 tiles of which g = 1 row is real, one split (found on the device), a persistent grid",
        dtype="not stated", spec="specs/decode_attention_paged_hopper.kcost", sizes=f"b=16;h=32;L={L};g=1",
        shape=f"batch_size=16 seqlen={L} seqlen_q=1 nheads_q=32 nheads_kv=32 headdim=128 page_size=8",
        value=str(us), unit="us", conversion="time_s = value * 1e-6", time_s=t(us * 1e-6),
        timed="CUDA graph replay (use_bench_cudagraph=True)", inputs="not stated", l2_flush="not stated"))
write("decode_attention.csv", rows, ["Decode attention over a paged KV cache: published measurements (see README.md in this folder)."])

# ---------------- copy / STREAM ----------------
rows = []
CCCL = ("NVIDIA/cccl pull request #2086 'Add cub::DeviceTransform', table 'CUB babelstream fallbackfor vs. ublkcp on H200', "
        "section 'mul', device '[0] NVIDIA H200', row I8 / {off} / {n}, column Cmp Time (the ublkcp kernel)")
for off, n, us in (("I32", "2^24", 14.292), ("I32", "2^28", 134.831), ("I64", "2^24", 14.358)):
    elems = 2 ** int(n[2:])
    rows.append(dict(
        source="cccl-pr2086", citation=CCCL.format(off=off, n=n), part="NVIDIA H200 (variant not stated)", machine="h200",
        clocks_power="not stated", family="copy", implementation="cub::DeviceTransform babelstream 'mul' (one read, one write)",
        dtype="int8", spec="specs/copy.kcost", sizes=f"n={elems // 4}",
        shape=f"{elems} int8 elements read and written ({elems} B each way); the spec copies f32, so n = {elems // 4} moves the same bytes",
        value=str(us), unit="us", conversion="time_s = value * 1e-6", time_s=t(us * 1e-6),
        timed="kernel (nvbench GPU Time)", inputs="not stated",
        l2_flush="yes (nvbench's cold measurement, whose GPU Time the comparison reports: \"Each sample runs the benchmark once with a clean device L2 cache\", NVIDIA/nvbench README, Cold Measurements)"))
write("copy.csv", rows, ["Device copy and STREAM-like kernels: published measurements (see README.md in this folder)."])

# ---------------- softmax ----------------
# QuACK blog post (Dao-AILab/quack media/2025-07-10-membound-sol.md), section 'Memory throughput': the
# two figures its text prints, FP32 softmax at reduction dimension 262k on one H100 80GB HBM3. The figure's
# plotted points are not read (a chart); only the (M, N) label of its x-axis, "(8K, 262K)", the one point with
# N = 262K. GB/s here is the blog's model memory throughput: x read once and y written once, 2*M*N*4 bytes
# (the blog's torch.compile paragraph leaves the kernel's second load out of it; mem_bw in
# benchmarks/benchmark_softmax.py of the same repository is 2 * x.numel() * dtype.width // 8 / time).
rows = []
QUACK = ("Dao-AILab/quack media/2025-07-10-membound-sol.md at commit 6852f6ae158b713d21add9043a1003848decb1cb "
         "(blog post 'Getting Memory-bound Kernels to Speed-of-Light', W. Guo, T. Zadouri, T. Dao, 2025-07-10; same text "
         "at 211af6fc83de15fe170b8061d439dfaf7a342b2f), section 'Memory throughput': 'achieves nearly 50% more throughput "
         "(e.g., 3.01 TB/s vs 1.89 TB/s for FP32 softmax) compared to torch.compile when reduction dimension is 262k', "
         "the {which} figure; (M, N) = (8K, 262K) is the x-axis label of that reduction dimension in "
         "media/combined_kernel_benchmarks_final.png at the same commit (an earlier commit of the same day, ecf1da9, "
         "printed 1.46 TB/s for torch.compile; 6852f6a corrected it)")
M, N = 8192, 262144
B = 2 * M * N * 4
ONE_PASS = ("specs/softmax_rows.kcost", f"R={M};n={2 * N}",
            f"M={M} rows x N={N} fp32 (batch size x reduction dim, softmax over the last dim); the spec counts bf16, "
            f"so n = 2N gives the same bytes (x, y: 8*M*N), and its W = 7n per row doubles the FLOP")
TWO_PASS = ("specs/softmax_online.kcost", f"R={M};n={N}",
            f"M={M} rows x N={N} fp32 (batch size x reduction dim, softmax over the last dim); the spec is Inductor's "
            f"two-pass online softmax in fp32: x read twice, y written once (12*M*N bytes)")
for which, impl, tbps, (spec, sizes, shape) in (
        ("first (QuACK)", "QuACK softmax (CuTe DSL; cluster reduction)", 3.01, ONE_PASS),
        ("second (torch.compile)", "torch.compile of F.softmax(x, dim=-1) (PyTorch 2.7.1, default mode: Inductor's Triton kernel)", 1.89, TWO_PASS)):
    rows.append(dict(
        source="quack-blog-2025-07-10", citation=QUACK.format(which=which),
        part="NVIDIA H100 80GB HBM3 (SXM5: the HBM3 part; 'NVIDIA H100 80GB with HBM3' in the source)", machine="h100",
        clocks_power="not stated", family="softmax", implementation=impl, dtype="fp32",
        spec=spec, sizes=sizes, shape=shape, value=str(tbps), unit="TB/s",
        conversion=(f"time_s = B / (value * 1e12), B = 2*M*N*4 = {B} B (x read once, y written once: the blog's model "
                    f"memory throughput; mem_bw in benchmarks/benchmark_softmax.py of the same repository)"),
        time_s=t(B / (tbps * 1e12)),
        timed="the forward call, triton.testing.do_bench mean as benchmarks/benchmark_softmax.py times it (the blog does not name its harness)",
        inputs="0.1 * randn (benchmarks/benchmark_softmax.py)",
        l2_flush="do_bench default (clears its cache buffer before each repeat); not stated in the blog"))
write("softmax.csv", rows, ["Row-wise softmax (forward, over the last dimension): published measurements (see README.md in this folder).",
    "Bandwidth figures are converted with the source's own byte count (named in `conversion`); FP32 rows map onto the",
    "bf16 spec with n = 2N (same bytes)."])

# ---------------- this project's H200 runs (what ran: project_runs.py) ----------------

rows = []
for fname, src in (("h200-2026-12-04.csv", "project-h200-2026-12-04"), ("h200-2026-12-04b.csv", "project-h200-2026-12-04b")):
    lines = Path(ROOT, "validate", "results", fname).read_text().splitlines()
    header = None
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = next(csv.reader([line]))
        if header is None:
            header = fields
            continue
        r = dict(zip(header, fields))
        kernel = r["kernel"]
        family = FAMILY.get(kernel)
        if kernel == "gemm_skinny":
            family = "gemv" if "gemv" in r["spec"] else "gemm"
        if family is None:
            continue  # rope, silu_mul, reduce_sum: outside the corpus's families
        base = kernel.removesuffix("_graph").removesuffix("_zeros")
        impl = IMPL_RUN.get(base, IMPL.get(base, "torch.matmul (cuBLAS)"))
        spec, sizes = SPEC_RUN.get(base, r["spec"]), r["sizes"]
        spec, sizes, impl = RAN.get((fname, kernel, r["sizes"]), (spec, sizes, impl))
        if split_run(kernel, sizes):
            (spec, sizes), impl = split_run(kernel, sizes), impl + ": the split-KV kernel and its combine (PyTorch's heuristic)"
        graph = kernel.endswith("_graph")
        rows.append(dict(
            source=src, citation=f"this repository, validate/results/{fname} line {number} (validate/run_h200.py; validate/README.md)",
            part="NVIDIA H200 SXM 141 GB (power limit 700 W)", machine="h200",
            clocks_power="clocks left as found (max SM 1980 MHz, memory 3201 MHz), power limit 700 W", family=family,
            implementation=impl, dtype=r["dtype"], spec=spec, sizes=sizes, shape=kernel,
            value=r["time_s"], unit="s", conversion="time_s = value", time_s=r["time_s"],
            timed="CUDA graph replay of the call" if graph else "the call between CUDA events (median)",
            inputs="zeros" if kernel == "gemm_zeros" else "randn",
            l2_flush="yes (256 MB buffer written before each repeat)"))
write("project_h200.csv", rows, ["This project's own H200 runs (validate/run_h200.py), one source per run.",
    "rope, silu_mul and reduce_sum rows of the runs are outside the corpus's kernel families and left out."])
