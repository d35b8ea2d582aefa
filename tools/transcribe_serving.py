"""Transcribes published LLM serving measurements into validate/published/serving.csv: every
figure here was read by hand from the cited source; rerun after an edit
(python tools/transcribe_serving.py)."""
# ruff: noqa: E501  (citations and transcribed tables read better whole)
import csv
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "validate" / "published" / "serving.csv"
COLS = ["source", "date", "citation", "part", "machine", "model", "model_source", "tp",
        "weights", "activations", "kv_cache", "batch", "prefill_batch", "input_len", "output_len", "shape", "quantity",
        "implementation", "launch", "prompt_step", "scheduler", "host_path", "value", "unit", "conversion", "time_s", "timed", "timed_kind", "split"]
HEADER = [
    "LLM serving on one node: published measurements (see README.md in this folder; the split rule: SPLIT.md, 'serving.csv').",
    "quantity: ttft (the first token: the batch's prompts prefilled), tpot (one decode step), request_latency (a whole batch of requests:",
    "the prefill and output_len - 1 decode steps, as vLLM's benchmark_latency.py times llm.generate over one batch).",
    "model: a shipped model id (src/kernelcost/models/) or a config.json under tests/data/hf/; weights, activations, kv_cache: the precisions served.",
    "batch: the sequences a decode step holds; prefill_batch: the prompts prefilled together for the first token (the batch for benchmark_latency,",
    "1 for a server at fixed concurrency, where requests arrive one at a time); shape: how the source's lengths map onto input_len and output_len.",
    "launch: graphs where the source itself states that the engine ran its decode steps from CUDA graphs; eager otherwise (the source does not say).",
    "prompt_step: batch (the batch's prompts prefilled together, nothing else running: benchmark_latency); with_decodes or alone (a closed loop at",
    "concurrency = batch: a new prompt meets batch - 1 decoding requests, and the engine runs it with their decode tokens in one step, or in a step",
    "of its own; src/kernelcost/answers/closed_loop.py names each engine's default and its source).",
    "scheduler: in a closed loop, sync (the engine takes a new request between steps: vLLM V1 without --async-scheduling) or overlap",
    "(its scheduler runs one step ahead of the GPU: SGLang, TensorRT-LLM's PyExecutor, by default); n/a for a batch prefilled together.",
    "host_path: the engine and version whose host path (src/kernelcost/answers/host_path.py) the row pays, by what the source names as run;",
    "fitted on calibration rows, or measured apart from the GPU in a published source; none where neither measures that engine.",
    "tests/serving_measured.py compares each row with whole_model() at the row's machine, tp (the machine's default topology), batch and lengths.",
]


def t(x):
    return f"{x:.6e}"


# SPLIT.md's rule for this file, fixed before any row was compared with the model: by source,
# by the source's date; a source dated on or before 2024-01-22 (vllm-pr2542, the earliest of the
# first five) is calibration, every later one validation.
SPLIT = {"trtllm-perf-v0.5-low-latency": "calibration", "vllm-pr2542": "calibration", "vllm-pr3240": "validation",
         "gpustack-qwen3-8b-h100-latency": "validation",
         "rocm-vllm-dev-docker-2025-01-27": "validation", "rocm-vllm-dev-docker-2025-06-09": "validation"}
# The engine and version whose host path each source's rows pay (src/kernelcost/answers/host_path.py), by the engine the source
# names: vLLM master of early 2024 (the two pull requests, 2024-01-22 and 2024-03-06: its Python scheduler and sampler, Ray
# workers at tp > 1); TensorRT-LLM 0.5's C++ GptSession benchmark; GPUStack's rows by the engine each runs (SGLANG_HOST for
# its SGLang servers); none for the engines neither fitted nor measured (vLLM 0.6.6 and 0.9.0.1 on ROCm, vLLM V1 and
# TensorRT-LLM behind their HTTP servers).
HOST = {"trtllm-perf-v0.5-low-latency": "trtllm-session-0.5", "vllm-pr2542": "vllm-2024q1", "vllm-pr3240": "vllm-2024q1",
        "gpustack-qwen3-8b-h100-latency": "none", "rocm-vllm-dev-docker-2025-01-27": "none", "rocm-vllm-dev-docker-2025-06-09": "none"}
# SGLang v0.5.11's HTTP server, measured apart from the GPU; the nearest version to GPUStack's v0.5.3.post3 that is
SGLANG_HOST = "sglang-server-0.5.11"
FIXED = ("fixed lengths: every prompt is input_len random token ids, every output output_len tokens (ignore_eos), "
         "all batch prompts submitted at once")

LATENCY_TIMED = ("host wall clock (time.perf_counter) around one llm.generate() of the whole batch (dummy prompt token ids, "
                 "ignore_eos=True, max_tokens=output_len, temperature 1.0), averaged over --num-iters 100 runs after a warm-up run; "
                 "the offline LLM engine, no server; CUDA graphs for decode as vLLM's default then (the command passes no --enforce-eager)")

rows = []

# ---- vLLM PR 2542: Mixtral-8x7B, fused MoE, tp 8 on H100 ----
PR2542 = ("vllm-project/vllm pull request #2542 'Fused MOE for Mixtral' (pcmoritz, description, 2024-01-22, merged): "
          "'Latency with `python benchmarks/benchmark_latency.py --model=mistralai/Mixtral-8x7B-Instruct-v0.1 --input-len 1000 "
          "--output-len 50 -tp 8 --num-iters 100 --batch-size <bs>`', block '{block}', line 'bs={bs}: {v}s'; the GPU is named in the "
          "same description ('in my setup ... with 1000 input tokens and 50 output tokens on H100')")
PR2542_BLOCKS = {
    "This PR": ("vLLM at PR 2542 (fused MoE Triton kernel)", {1: 0.459, 2: 0.515, 4: 0.610, 8: 0.813, 16: 1.044, 32: 1.489, 64: 2.419}),
    "Compare to master": ("vLLM master before PR 2542 (MoE not fused)", {1: 0.590, 2: 0.631, 4: 0.709, 8: 0.838, 16: 1.086, 32: 1.615, 64: 2.727}),
}
for block, (impl, by_bs) in PR2542_BLOCKS.items():
    for bs, v in by_bs.items():
        rows.append(dict(
            source="vllm-pr2542", date="2024-01-22", citation=PR2542.format(block=block, bs=bs, v=f"{v:.3f}"),
            part="NVIDIA H100 (variant not stated)", machine="h100", model="mixtral_8x7b",
            model_source="mistralai/Mixtral-8x7B-Instruct-v0.1 (torch_dtype bfloat16; vLLM's dtype auto)", tp=8,
            weights="bf16", activations="bf16", kv_cache="bf16", batch=bs, prefill_batch=bs, input_len=1000, output_len=50, shape=FIXED,
            quantity="request_latency", implementation=impl, launch="eager", prompt_step="batch", scheduler="n/a", host_path=HOST["vllm-pr2542"], value=repr(v), unit="s", conversion="time_s = value",
            time_s=t(v), timed=LATENCY_TIMED, timed_kind="call", split=SPLIT["vllm-pr2542"]))

# ---- vLLM PR 3240: Mixtral-8x7B, tuned fused-MoE config, tp 2 on A100 ----
PR3240 = ("vllm-project/vllm pull request #3240 'adding fused moe kernel config for A100 TP2' (sahilsuneja1, description, 2024-03-06): "
          "'Latency measurements using: `python benchmarks/benchmark_latency.py --model=mistralai/Mixtral-8x7B-Instruct-v0.1 --input-len 1000 "
          "--output-len 50 -tp 2 --num-iters 100 --batch-size <bs>`', block '{block}', line 'BS: {bs}, Avg latency: {v} seconds'")
PR3240_BLOCKS = {
    "This PR": ("vLLM with the PR's tuned fused-MoE config for A100 TP2", {
        1: "0.7621450612053741", 2: "1.0328856136795366", 4: "1.4489717756788014", 8: "2.0341408042260447",
        16: "2.893355064672651", 32: "4.530912061399431", 64: "7.537396909691161"}),
    "Compared to master": ("vLLM master (fused MoE, default config)", {
        1: "0.8453641083685216", 2: "1.1280082573764958", 4: "1.6140852882619947", 8: "2.348028304380132",
        16: "3.5489811494306194", 32: "5.627054951939499", 64: "9.691197272467543"}),
}
for block, (impl, by_bs) in PR3240_BLOCKS.items():
    for bs, v in by_bs.items():
        rows.append(dict(
            source="vllm-pr3240", date="2024-03-06", citation=PR3240.format(block=block, bs=bs, v=v),
            part="NVIDIA A100 (variant not stated; Mixtral's 93 GB of bf16 weights at tp 2 need the 80 GB part)",
            machine="a100", model="mixtral_8x7b",
            model_source="mistralai/Mixtral-8x7B-Instruct-v0.1 (torch_dtype bfloat16; vLLM's dtype auto)", tp=2,
            weights="bf16", activations="bf16", kv_cache="bf16", batch=bs, prefill_batch=bs, input_len=1000, output_len=50, shape=FIXED,
            quantity="request_latency", implementation=impl, launch="eager", prompt_step="batch", scheduler="n/a", host_path=HOST["vllm-pr3240"], value=v, unit="s",
            conversion="time_s = value",
            time_s=t(float(v)), timed=LATENCY_TIMED, timed_kind="call", split=SPLIT["vllm-pr3240"]))

# ---- GPUStack performance lab: Qwen3-8B on one H100 SXM, vLLM bench serve, ShareGPT at concurrency 4 ----
GPUSTACK = ("gpustack/gpustack, docs/performance-lab/qwen3-8b/h100-latency.md at commit 1dbc3b8130da92d31539404545a1aff5c3992f8c "
            "(the page added by gitlawr on 2025-10-15, commit 72aee9dd195ff5c9bf3a4886add80038ce79aef8, with these figures; its 'Hardware' made "
            "'A single NVIDIA H100 SXM GPU.' by gitlawr on 2026-01-06, commit 1f37f1b8bd79c6b424a0cb55c7abd08a5c2132dc), section '{section}', "
            "block 'Benchmark result'{variant}, line '{line}'; engines vLLM v0.11.0, SGLang v0.5.3.post3, TensorRT-LLM v1.2.0rc1; benchmark "
            "'vllm bench serve --model Qwen/Qwen3-8B --backend openai-chat --endpoint /v1/chat/completions --dataset-name sharegpt "
            "--dataset-path ShareGPT_V3_unfiltered_cleaned_split.json --num-prompts 100 --max-concurrency 4'")
SHAREGPT = ("ShareGPT, 100 requests: 'Total input tokens: 23260', 'Total generated tokens: 22061' in every block, a mean of 232.6 and 220.6 "
            "a request, rounded to input_len 233 and output_len 221 (each request's lengths vary); --max-concurrency 4 keeps 4 requests in "
            "flight (a closed loop at the default request rate inf): a decode step holds 4 sequences, and a new request's prompt meets the "
            "other 3 decoding (prompt_step)")
SERVE_TIMED = ("vllm bench serve against the engine's OpenAI chat server on the same host: TTFT from sending the request to the first streamed "
               "token, TPOT = (latency - TTFT) / (output tokens - 1) per request; the median over the 100 requests")
GPUSTACK_RUNS = [
    # section, variant, implementation, weights/activations, median TTFT, median TPOT
    ("1. Choosing the Inference Engine", " (vLLM)", "vLLM v0.11.0, 'vllm serve Qwen/Qwen3-8B'", "bf16", "60.26", "7.40"),
    ("1. Choosing the Inference Engine", " (SGLang)", "SGLang v0.5.3.post3, 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B'", "bf16", "27.25", "7.14"),
    ("1. Choosing the Inference Engine", " (TensorRT-LLM)", "TensorRT-LLM v1.2.0rc1, 'trtllm-serve Qwen/Qwen3-8B'", "bf16", "45.46", "7.58"),
    ("2. Maximum batch size for cuda graph in SGLang", "", "SGLang v0.5.3.post3, --cuda-graph-max-bs 8", "bf16", "27.35", "7.15"),
    ("3. Quantization", "", "SGLang v0.5.3.post3, --model-path Qwen/Qwen3-8B-FP8", "fp8", "33.38", "5.58"),
    ("4. Attention Backend", " '# triton'", "SGLang v0.5.3.post3, Qwen/Qwen3-8B-FP8, --attention-backend triton", "fp8", "43.84", "5.63"),
    ("4. Attention Backend", " '# flashinfer'", "SGLang v0.5.3.post3, Qwen/Qwen3-8B-FP8, --attention-backend flashinfer", "fp8", "40.70", "5.63"),
]
for section, variant, impl, wa, ttft, tpot in GPUSTACK_RUNS:
    for quantity, label, v in (("ttft", "Median TTFT (ms)", ttft), ("tpot", "Median TPOT (ms)", tpot)):
        rows.append(dict(
            source="gpustack-qwen3-8b-h100-latency", date="2025-10-15",
            citation=GPUSTACK.format(section=section, variant=variant, line=f"{label}: {v}"),
            part="NVIDIA H100 SXM", machine="h100", model="tests/data/hf/qwen3_8b/config.json",
            model_source=("Qwen/Qwen3-8B (bf16); tests/data/hf/qwen3_8b/config.json" if wa == "bf16" else
                          "Qwen/Qwen3-8B-FP8 (fp8 weights and activations, block-scaled; its config is Qwen3-8B's with a quantization_config): "
                          "tests/data/hf/qwen3_8b/config.json served with fp8 weights and fp8 activations"),
            tp=1, weights=wa, activations=wa, kv_cache="bf16", batch=4, prefill_batch=1, input_len=233, output_len=221,
            shape=SHAREGPT, quantity=quantity, implementation=impl,
            # the section's own title states the CUDA graphs of SGLang's decode steps
            launch="graphs" if "cuda graph" in section else "eager",
            # the engine's default (closed_loop.py): vLLM V1 and TensorRT-LLM put the others' decode tokens in the
            # prompt's step; SGLang without --enable-mixed-chunk (no run here passes it) runs the prompt alone
            prompt_step="alone" if impl.startswith("SGLang") else "with_decodes",
            # the engine's default (closed_loop.py): SGLang's overlap scheduler and TensorRT-LLM's overlap
            # PyExecutor run one step ahead (no command disables them); vLLM v0.11.0 schedules between steps
            # (async scheduling became its default after that release, and no command passes --async-scheduling)
            scheduler="sync" if impl.startswith("vLLM") else "overlap", host_path=SGLANG_HOST if impl.startswith("SGLang") else HOST["gpustack-qwen3-8b-h100-latency"], value=v, unit="ms", conversion="time_s = value * 1e-3",
            time_s=t(float(v) * 1e-3), timed=SERVE_TIMED, timed_kind="call", split=SPLIT["gpustack-qwen3-8b-h100-latency"]))

# ---- ROCm/vllm docs/dev-docker/README.md: Llama-3.1-70B-Instruct FP8 at tp 8 on MI300X, two releases' tables ----
ROCM_README = ("ROCm/vllm, docs/dev-docker/README.md at commit {commit} ({merged}; the table's figures first committed in {first}), "
               "section '{section}', table 'Model | Precision | TP Size | Batch Size | Input | Output | MI300X Latency ({unit})', "
               "line '{line}'; the page's latency command: 'python3 /app/vllm/benchmarks/benchmark_latency.py "
               "--distributed-executor-backend mp --quantization fp8 --kv-cache-dtype fp8 --dtype float16 --gpu-memory-utilization 0.9 "
               "--trust-remote-code --model $MODEL --batch-size $BS --input-len $IN --output-len $OUT --tensor-parallel-size $TP "
               "--num-iters-warmup 3 --num-iters 5 --output-json output.json' after 'export VLLM_USE_TRITON_FLASH_ATTN=0'")
ROCM_LEAD = "Llama 3.1 70B (amd/Llama-3.1-70B-Instruct-FP8-KV) | FP8 | 8"
ROCM_MODEL = ("amd/Llama-3.1-70B-Instruct-FP8-KV (Llama-3.1-70B-Instruct quantised by AMD Quark: fp8 weights and activations, fp8 KV cache; "
              "served --quantization fp8 --kv-cache-dtype fp8 --dtype float16, fp16 elsewhere, the size of the model's bf16): the shipped "
              "llama3_70b, whose figures are Llama-3.1-70B's (oumi-ai/oumi configs/recipes/llama3_1/README.md at commit "
              "dbb5aea5a1267d61b0933e032b60ac2f11e9c6d3, section '70B': vocab 128,256, hidden 8192, MLP intermediate 28,672, 80 layers, "
              "64 attention heads, 8 KV heads, no weight tying); Llama 3.1 changed rope_scaling and the context length, which the "
              "composition does not read")
ROCM_TIMED = ("benchmark_latency.py's host wall clock (time.perf_counter) around one llm.generate() of the whole batch (random prompt token ids, "
              "ignore_eos=True, max_tokens=output_len, temperature 1.0), averaged over --num-iters 5 runs after 3 warm-up runs; the offline "
              "LLM engine, no server; HIP graphs for decode as vLLM's default (the command passes no --enforce-eager)")
ROCM_RUNS = [
    # source, date, commit, merged, first, section, unit, implementation, part, {(isl, bs): value}
    ("rocm-vllm-dev-docker-2025-01-27", "2025-01-27", "7a292f9b0cd14b925b2897361fec1921ffb84543",
     "'20250127 docs update (#392)', arakowsk-amd, 2025-01-29", "commit fae02581dd3510556cf76aebd98102949610f829 of 2025-01-27",
     "Latency Measurements", "ms",
     "vLLM 0.6.6 (ROCm/vllm build, image rocm/vllm-dev of 20250124: ROCm 6.3.1, PyTorch 2.6dev; Docker Manifest commit "
     "8e87b08c2a284c1a20eb3d8e0fbdc84918bf27dc)",
     "AMD Instinct MI300X (the page's 'MI300X Latency'; the system is not described)",
     {(128, 1): "19088.59", (128, 2): "19610.46", (128, 4): "19911.30", (128, 8): "21858.80", (128, 16): "23537.59",
      (128, 32): "25342.94", (128, 64): "32548.19", (128, 128): "45216.37",
      (2048, 1): "19154.43", (2048, 2): "19670.60", (2048, 4): "19976.32", (2048, 8): "22485.63", (2048, 16): "25246.27",
      (2048, 32): "28967.08", (2048, 64): "39920.41", (2048, 128): "59514.25"}),
    ("rocm-vllm-dev-docker-2025-06-09", "2025-06-09", "68af0558487474544f16002b57de8ab53d5f19db",
     "'Updated README.md for June 10 release (#574)', Mcirino1, 2025-06-11", "commit 4c4de4cdff864d88c2def3f2f259dc4889e18b68 of 2025-06-09",
     "Performance Results' / 'Latency Measurements", "sec",
     "vLLM 0.9.0.1 (ROCm/vllm build, image rocm/vllm-dev changelog '20250605_aiter': ROCm 6.4.1, hipBLASLt 0.15, PyTorch 2.7; "
     "Docker Manifest commit 71faa188073d427c57862c45bf17745f3b54b1b1); 'Benchmarks were run with benchmark scripts from v0.6.5'",
     "AMD Instinct MI300X (192GiB, 750W), 8 in a Supermicro AS-8125GS-TNMR2 with 2x AMD EPYC 9575F (the page's system line)",
     {(128, 1): "15.566", (128, 2): "16.858", (128, 4): "17.518", (128, 8): "18.898", (128, 16): "21.023",
      (128, 32): "23.896", (128, 64): "30.753", (128, 128): "43.767",
      (2048, 1): "15.496", (2048, 2): "17.380", (2048, 4): "17.983", (2048, 8): "19.771", (2048, 16): "22.702",
      (2048, 32): "27.392", (2048, 64): "36.879", (2048, 128): "57.003"}),
]
for source, date, commit, merged, first, section, unit, impl, part, by_shape in ROCM_RUNS:
    scale = 1e-3 if unit == "ms" else 1.0
    for (isl, bs), v in by_shape.items():
        lead = ROCM_LEAD if (isl, bs) == (128, 1) else "| |"  # the table's first line names the model
        line = f"| {lead} | {bs} | {isl} | 2048 | {v} |"
        rows.append(dict(
            source=source, date=date,
            citation=ROCM_README.format(commit=commit, merged=merged, first=first, section=section, unit=unit,
                                        line=line),
            part=part, machine="mi300x", model="llama3_70b", model_source=ROCM_MODEL, tp=8,
            weights="fp8", activations="fp8", kv_cache="fp8", batch=bs, prefill_batch=bs, input_len=isl, output_len=2048,
            shape=FIXED, quantity="request_latency", implementation=impl, launch="eager", prompt_step="batch", scheduler="n/a", host_path=HOST[source],
            value=v, unit="ms" if unit == "ms" else "s",
            conversion="time_s = value * 1e-3" if unit == "ms" else "time_s = value",
            time_s=t(float(v) * scale), timed=ROCM_TIMED, timed_kind="call", split=SPLIT[source]))

# ---- TensorRT-LLM docs/source/performance.md, 'Low Latency': first-token latency at batch 1, v0.5 data ----
TRTLLM = ("NVIDIA/TensorRT-LLM, docs/source/performance.md at commit 138f96d45f90b9667426f7c47297d8c06bafac73 (the page's throughput "
          "'updated for v0.6.1'), section 'Low Latency' ('** The following data is from TensorRT-LLM v0.5.'; 'reference data at batch size 1 "
          "for first token latency'), table '{table}', line '| {model} | 1 | {tp} | {isl} | {v} |' (Model | Batch Size | TP | Input Length | "
          "1st Token Latency (ms)); v0.5.0 is the first public release, announced on 2023-10-20 (NVIDIA/TensorRT-LLM issue #41, "
          "jdemouth-nvidia: 'the release/0.5.0 branch contains ... the stable code of the first release of TensorRT-LLM (version 0.5.0)')")
TRTLLM_SHAPE = ("fixed lengths: the page's section 'Reproducing First Token Latency': 'benchmark with a single output token in order to find the "
                "time to first token latency' (gptSessionBenchmark --input_output_len <isl>,1), batch size 1 as the table states (the page's "
                "command loops set --batch_size 64, and the 70B loop lists '64:128,1' twice: the table's batch and lengths are taken)")
TRTLLM_TIMED = ("gptSessionBenchmark (TensorRT-LLM's C++ GptSession, no server, no tokeniser): host wall clock around generate() of the batch "
                "with one output token (the context phase and the first token's sampling), --warm_up 1 --num_runs 5 --duration 0, the mean "
                "of the runs; at tp 4 one process per GPU under mpirun")
TRTLLM_MODELS = {
    "LLaMA 7B": ("validate/published/models/trtllm_llama2_7b/config.json", 1,
                 "Llama2-7b as the page's build command writes its engine ('examples/llama/build.py ... --n_layer 32 --n_head 32 --n_embd 4096 "
                 "--inter_size 11008 --vocab_size 32000 --n_positions 4096 --hidden_act silu --dtype float16'): "
                 "validate/published/models/trtllm_llama2_7b/config.json"),
    "LLaMA 70B": ("validate/published/models/trtllm_llama2_70b/config.json", 4,
                  "Llama2-70b as the page's build command writes its engine ('--world_size 4 --tp_size 4 ... --n_layer 80 --n_head 64 "
                  "--n_kv_head 8 --n_embd 8192 --inter_size 28672 --vocab_size 32000 --n_positions 4096 --hidden_act silu --dtype float16'): "
                  "validate/published/models/trtllm_llama2_70b/config.json"),
}
TRTLLM_RUNS = [
    # table, machine, part, precision, {(model, isl): ms}
    ("H100 GPUs (FP8)", "h100", "NVIDIA H100 (the page's methodology: 'an H100-HBM3-80GB system', the SXM part)", "fp8",
     {("LLaMA 7B", 128): 7, ("LLaMA 7B", 2048): 36, ("LLaMA 70B", 128): 26, ("LLaMA 70B", 2048): 109}),
    ("L40S GPUs (FP8)", "l40s", "NVIDIA L40S", "fp8", {("LLaMA 7B", 128): 14, ("LLaMA 7B", 2048): 73}),
    ("A100 GPUs (FP16)", "a100", "NVIDIA A100 (variant not stated)", "fp16",
     {("LLaMA 7B", 128): 16, ("LLaMA 7B", 2048): 133, ("LLaMA 70B", 128): 47, ("LLaMA 70B", 2048): 377}),
]
for table, machine, part, precision, by_shape in TRTLLM_RUNS:
    for (name, isl), v in by_shape.items():
        config, tp, model_source = TRTLLM_MODELS[name]
        # --enable_fp8 --fp8_kv_cache: fp8 GEMMs and an fp8 KV cache; on A100 the page removes both ('Running on A100'): fp16,
        # which the composition times as bf16 (the same bytes and tensor rate)
        wa = "fp8" if precision == "fp8" else "bf16"
        rows.append(dict(
            source="trtllm-perf-v0.5-low-latency", date="2023-10-20",
            citation=TRTLLM.format(table=table, model=name, tp=tp, isl=isl, v=v),
            part=part, machine=machine, model=config, model_source=model_source, tp=tp,
            weights=wa, activations=wa, kv_cache=wa, batch=1, prefill_batch=1, input_len=isl, output_len=1, shape=TRTLLM_SHAPE,
            quantity="ttft", implementation=("TensorRT-LLM v0.5 (gptSessionBenchmark; engine built with --enable_context_fmha "
                                             "--use_gpt_attention_plugin float16 --remove_input_padding"
                                             + (" --enable_fp8 --fp8_kv_cache --strongly_typed)" if wa == "fp8" else ")")),
            launch="eager", prompt_step="batch", scheduler="n/a", host_path=HOST["trtllm-perf-v0.5-low-latency"], value=str(v), unit="ms", conversion="time_s = value * 1e-3",
            time_s=t(v * 1e-3), timed=TRTLLM_TIMED, timed_kind="call", split=SPLIT["trtllm-perf-v0.5-low-latency"]))

if __name__ == "__main__":
    with open(OUT, "w", newline="") as f:
        for line in HEADER:
            f.write(f"# {line}\n")
        writer = csv.DictWriter(f, COLS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")
