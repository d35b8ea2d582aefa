"""Transcribes published measurements of collectives into validate/published/collectives.csv:
every figure here was read by hand from the cited source; rerun after an edit
(python tools/transcribe_collectives.py)."""
# ruff: noqa: E501  (citations and transcribed tables read better whole)
import csv
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "validate" / "published" / "collectives.csv"
COLS = ["source", "citation", "part", "topology", "gpus", "collective", "implementation",
        "algorithm", "algorithm_source", "dtype", "size_B", "shape", "value", "unit",
        "conversion", "time_s", "timed", "timed_kind", "split"]
HEADER = [
    "Collectives on one node: published measurements (see README.md in this folder; the split rule: SPLIT.md, 'collectives.csv').",
    "algorithm: what the row is compared with in the model (tests/collectives_measured.py): NVLS = the NVLS candidate (NCCL_ALGO=NVLS forced);",
    "any = the fastest NCCL/RCCL candidate (ring, tree; NVLS where the switch reduces);",
    "custom = the faster of the model's custom one-shot and two-shot kernels (an engine's own all-reduce). size_B: the bytes of the buffer each GPU reduces.",
    "GB/s rows are nccl-tests' busbw: time_s = size_B * 2(p-1)/p / (value * 1e9), the factor nccl-tests' all_reduce.cu applies;",
    "busbw printed to 0.01 GB/s bounds a small size's time to +-0.005/value of itself (8 % at 0.06 GB/s).",
]


def t(x):
    return f"{x:.6e}"


def split(source, size_elements):
    """SPLIT.md's rule for this file: PR 2904's rows at 512 elements are calibration (the
    topology files' custom_allreduce_s was read from them), every other row validation."""
    return "calibration" if source == "sglang-pr2904" and size_elements == 512 else "validation"


rows = []

# ---- sglang PR 2904: TensorRT-LLM custom all-reduce (sgl-kernel) and vLLM's custom all-reduce on H100 ----
SGL = ("sgl-project/sglang pull request #2904 'optimize custom allreduce kernel' (yizhang2077, description, 2025-01-15), "
       "section 'unit test performance in H100 (without cuda graph)', table '{table}', row 'data size' {n}, column latency(ms), tp {tp}; "
       "'data size' is elements of float32: sgl-kernel/tests/test_trt_reduce.py (the test the PR names) builds its input as "
       "torch.randint(1, 16, (sz,), dtype=torch.float32) for sz in test_sizes = [512, 4096, 32768, 262144, 524288, 1048576, 2097152] "
       "and prints elapse * 1000 / test_loop (ms) with 4 decimals (the stored version at commit 01fe99eaf6da52d1e5c458ffc1115bfad4073669 "
       "and the two other stored versions read agree on the elements and the dtype)")
SGL_TABLES = {
    "vllm": ("vLLM custom all-reduce (vllm._custom_ops.all_reduce, one-stage or two-stage by size)", "custom",
             "vLLM's kernel picks its one-stage or two-stage reduction by size",
             {512: (0.0095, 0.0091, 0.0101), 4096: (0.0088, 0.0085, 0.0093), 32768: (0.0087, 0.0092, 0.0118),
              262144: (0.0129, 0.0206, 0.0241), 524288: (0.0177, 0.0269, 0.0304), 1048576: (0.0266, 0.0402, 0.0450)}),
    "custom allreduce": ("TensorRT-LLM custom all-reduce adapted in sgl-kernel (custom_ops.custom_reduce)", "custom",
                         "not stated in PR 2904, which changed the kernels; sgl-project/sglang pull request #2481 (yizhang2077, 2024-12-14), which brought them in, says 'we do not use twoshot allreduce kernel from tensorrt llm'",
                         {512: (0.0037, 0.0048, 0.0059), 4096: (0.0039, 0.0037, 0.0057), 32768: (0.0045, 0.0048, 0.0078),
                          262144: (0.0079, 0.0139, 0.0167), 524288: (0.0125, 0.0202, 0.0221), 1048576: (0.0199, 0.0311, 0.0338)}),
}
for table, (impl, algorithm, said, by_size) in SGL_TABLES.items():
    for n, latencies in by_size.items():
        for tp, ms in zip((2, 4, 8), latencies):
            rows.append(dict(
                source="sglang-pr2904", citation=SGL.format(table=table, n=n, tp=tp),
                part="NVIDIA H100 (variant not stated)", topology="hgx_h100", gpus=tp,
                collective="all-reduce", implementation=impl, algorithm=algorithm, algorithm_source=said,
                dtype="fp32", size_B=4 * n, shape=f"{n} float32 elements = {4 * n} B a GPU",
                value=repr(ms), unit="ms", conversion="time_s = value * 1e-3", time_s=t(ms * 1e-3),
                timed="host wall clock (time.time()) around 5000 back-to-back calls without a synchronize, divided by 5000, rank 0; no CUDA graph",
                timed_kind="call", split=split("sglang-pr2904", n)))

# ---- Azure AI-benchmarking-guide: NCCL/RCCL all-reduce busbw, in place, 1 KiB to 8 GiB ----
AZ_SIZES = ["1K", "2K", "4K", "8K", "16K", "32K", "65K", "132K", "256K", "524K", "1M", "2M", "4M", "8M",
            "16M", "33M", "67M", "134M", "268M", "536M", "1G", "2G", "4G", "8G"]
AZ = ("{repo} Azure_Results/{file} at commit {commit}, section '{section}', row Message Size {label}, column '{column}' "
      "(in-place busbw of nccl-tests all_reduce_perf -b 8 -e 8G -f 2 -g 8 -n 40, {code}); "
      "the labels are the sweep's powers of two from 1 KiB by position ('65K' = 65536, '132K' = 131072 B)")
AZ_RUNS = {
    "azure-nd-h100-v5": dict(
        repo="samuel-bohman/AI-benchmarking-guide (a fork of Azure/AI-benchmarking-guide)", file="ND_H100_v5_results.md",
        commit="26d18e9458bb07bd43e3eda7aec8653aa592f2ec", section="NCCL Bandwidth", column="ND H100 V5 (GB/s)",
        part="NVIDIA H100 80GB HBM3 (Azure ND H100 v5: HGX H100 8-GPU)", topology="hgx_h100", impl="NCCL 2.18.5 (nccl-tests)",
        algorithm="NVLS", said="'NCCL AllReduce (NVLS algorithm)' in the results text; Benchmarks/NVIDIA/NCCLBandwidth.py sets NCCL_ALGO=NVLS on 8 GPUs (Azure/AI-benchmarking-guide commit 545c5c6a7e3ed1bab92161cd61fbec5353cc1fa7)",
        code="Benchmarks/NVIDIA/NCCLBandwidth.py",
        busbw=[0.07, 0.14, 0.27, 0.53, 0.95, 1.71, 2.72, 5.40, 10.86, 21.35, 43.70, 81.93, 128.73, 172.13, 234.45,
               295.53, 361.78, 400.61, 423.38, 438.46, 466.35, 472.36, 475.54, 478.87]),
    "azure-nd-h200-v5": dict(
        repo="Azure/AI-benchmarking-guide", file="ND_H200_v5_results.md",
        commit="7f20e5fa3b2f9a46d8404af1f6fb14b049d6d5cc", section="NCCL Bandwidth", column="ND H200 V5 (GB/s)",
        part="NVIDIA H200 141GB (Azure ND H200 v5: HGX H200 8-GPU)", topology="hgx_h200", impl="NCCL 2.20.5 (nccl-tests)",
        algorithm="NVLS", said="'NCCL AllReduce (NVLS algorithm)' in the results text; Benchmarks/NVIDIA/NCCLBandwidth.py sets NCCL_ALGO=NVLS on 8 GPUs (commit 545c5c6a7e3ed1bab92161cd61fbec5353cc1fa7)",
        code="Benchmarks/NVIDIA/NCCLBandwidth.py",
        busbw=[0.06, 0.12, 0.23, 0.47, 0.93, 1.84, 3.72, 7.39, 14.75, 29.38, 52.96, 88.78, 138.44, 181.94, 240.41,
               300.91, 368.11, 412.45, 432.24, 442.72, 467.58, 472.57, 477.41, 479.98]),
    "azure-nd-mi300x-v5": dict(
        repo="samuel-bohman/AI-benchmarking-guide (a fork of Azure/AI-benchmarking-guide)", file="ND_MI300X_v5_results.md",
        commit="3de0c294fd1059a91a2c158712c4a078619d73e8", section="RCCL Bandwidth", column="ND MI300X v5 (GB/s)",
        part="AMD Instinct MI300X (Azure ND MI300X v5: 8-GPU platform)", topology="mi300x_platform", impl="RCCL 2.22.3-develop (rccl-tests)",
        algorithm="any", said="'RCCL AllReduce (NVLS algorithm)' in the results text; Benchmarks/AMD/RCCLBandwidth.py (commit 26d18e9458bb07bd43e3eda7aec8653aa592f2ec) passes NCCL_ALGO=NVLS to RCCL, which has no NVLS: RCCL's own choice",
        code="Benchmarks/AMD/RCCLBandwidth.py",
        busbw=[0.04, 0.07, 0.15, 0.29, 0.59, 1.13, 2.22, 4.18, 7.50, 13.01, 22.41, 43.41, 82.53, 131.57, 171.46,
               230.35, 266.34, 290.81, 302.80, 308.89, 313.92, 315.06, 314.85, 316.82]),
}
for source, run in AZ_RUNS.items():
    for k, (label, busbw) in enumerate(zip(AZ_SIZES, run["busbw"])):
        size = 1024 << k
        moved = size * 2 * 7 / 8
        rows.append(dict(
            source=source, citation=AZ.format(label=label, **run), part=run["part"], topology=run["topology"], gpus=8,
            collective="all-reduce", implementation=run["impl"], algorithm=run["algorithm"], algorithm_source=run["said"],
            dtype="fp32", size_B=size, shape=f"{size // 4} float elements ({label} in the table)",
            value=f"{busbw:.2f}", unit="GB/s",
            conversion=f"time_s = size_B * 2(p-1)/p / (value * 1e9) = {moved:.0f} B / (value * 1e9) (nccl-tests busbw, p = 8)",
            time_s=t(moved / (busbw * 1e9)), timed="nccl-tests in-place time: the mean of 40 iterations after warm-up (busbw printed)",
            timed_kind="call", split=split(source, None)))

# ---- hisohara/ai-scripts: rccl-tests on one MI300X node (AAC8), out-of-place time ----
HIS = ("hisohara/ai-scripts training/01_rccl-smoketest/README.md at commit 0780bb3c957ba1dd4254b3147c2027a44304db34, "
       "section 'RCCL Tests with MPI (AAC8 Kubernetes)', mpirun -np 8 all_reduce_perf -b 8 -e 8G -f 2 -g 1 "
       "(rccl-tests develop:a7809b3, eight MI300X of one host), row size {size}, out-of-place column time (us)")
HIS_US = [19.28, 16.32, 17.10, 18.59, 23.05, 23.36, 23.21, 13.67, 13.67, 13.72, 13.76, 15.47, 13.94, 14.25, 14.60,
          17.46, 27.30, 28.39, 36.68, 52.96, 84.78, 149.9, 246.3, 432.5, 800.3, 1540.4, 3027.1, 5990.7, 11940, 23841, 47617]
for k, us in enumerate(HIS_US):
    size = 8 << k
    rows.append(dict(
        source="hisohara-aac8-mi300x", citation=HIS.format(size=size), part="AMD Instinct MI300X",
        topology="mi300x_platform", gpus=8, collective="all-reduce", implementation="RCCL (rccl-tests develop:a7809b3)",
        algorithm="any", algorithm_source="not forced (RCCL's own choice)", dtype="fp32", size_B=size,
        shape=f"{size // 4} float elements", value=f"{us:g}", unit="us", conversion="time_s = value * 1e-6",
        time_s=t(us * 1e-6), timed="nccl-tests out-of-place time: the mean of 20 iterations after 5 warm-up",
        timed_kind="call", split=split("hisohara-aac8-mi300x", None)))

with open(OUT, "w", newline="") as f:
    for line in HEADER:
        f.write("# " + line + "\n")
    writer = csv.DictWriter(f, COLS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
print(OUT.name, len(rows))
