"""Transcribes published LLM serving measurements into validate/published/serving.csv: every
figure here was read by hand from the cited source; rerun after an edit
(python tools/transcribe_serving.py)."""
# ruff: noqa: E501  (citations and transcribed tables read better whole)
import csv
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "validate" / "published" / "serving.csv"
COLS = ["source", "date", "citation", "part", "machine", "model", "model_source", "tp",
        "weights", "activations", "kv_cache", "batch", "prefill_batch", "input_len", "output_len", "shape", "quantity",
        "implementation", "value", "unit", "conversion", "time_s", "timed", "timed_kind", "split"]
HEADER = [
    "LLM serving on one node: published measurements (see README.md in this folder; the split rule: SPLIT.md, 'serving.csv').",
    "quantity: ttft (the first token: the batch's prompts prefilled), tpot (one decode step), request_latency (a whole batch of requests:",
    "the prefill and output_len - 1 decode steps, as vLLM's benchmark_latency.py times llm.generate over one batch).",
    "model: a shipped model id (src/kernelcost/models/) or a config.json under tests/data/hf/; weights, activations, kv_cache: the precisions served.",
    "batch: the sequences a decode step holds; prefill_batch: the prompts prefilled together for the first token (the batch for benchmark_latency,",
    "1 for a server at fixed concurrency, where requests arrive one at a time); shape: how the source's lengths map onto input_len and output_len.",
    "tests/serving_measured.py compares each row with whole_model() at the row's machine, tp (the machine's default topology), batch and lengths.",
]


def t(x):
    return f"{x:.6e}"


# SPLIT.md's rule for this file, fixed before any row was compared with the model: by source,
# by the source's date; the earliest source is calibration, every later one validation.
SPLIT = {"vllm-pr2542": "calibration", "vllm-pr3240": "validation",
         "gpustack-qwen3-8b-h100-latency": "validation"}
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
            quantity="request_latency", implementation=impl, value=repr(v), unit="s", conversion="time_s = value",
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
            quantity="request_latency", implementation=impl, value=v, unit="s", conversion="time_s = value",
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
            "flight (a closed loop, no request rate): a decode step holds 4 sequences, and a new request's prompt is prefilled alone")
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
            shape=SHAREGPT, quantity=quantity, implementation=impl, value=v, unit="ms", conversion="time_s = value * 1e-3",
            time_s=t(float(v) * 1e-3), timed=SERVE_TIMED, timed_kind="call", split=SPLIT["gpustack-qwen3-8b-h100-latency"]))

if __name__ == "__main__":
    with open(OUT, "w", newline="") as f:
        for line in HEADER:
            f.write(f"# {line}\n")
        writer = csv.DictWriter(f, COLS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")
