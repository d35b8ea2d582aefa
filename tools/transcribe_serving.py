"""Transcribes published LLM serving measurements into validate/published/serving.csv: every
figure here was read by hand from the cited source; rerun after an edit
(python tools/transcribe_serving.py)."""
# ruff: noqa: E501  (citations and transcribed tables read better whole)
import csv
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "validate" / "published" / "serving.csv"
COLS = ["source", "date", "citation", "part", "machine", "model", "model_source", "tp",
        "weights", "activations", "kv_cache", "batch", "input_len", "output_len", "quantity",
        "implementation", "value", "unit", "conversion", "time_s", "timed", "timed_kind", "split"]
HEADER = [
    "LLM serving on one node: published measurements (see README.md in this folder; the split rule: SPLIT.md, 'serving.csv').",
    "quantity: ttft (the first token: the batch's prompts prefilled), tpot (one decode step), request_latency (a whole batch of requests:",
    "the prefill and output_len - 1 decode steps, as vLLM's benchmark_latency.py times llm.generate over one batch).",
    "model: a shipped model id (src/kernelcost/models/) or a config.json under tests/data/hf/; weights, activations, kv_cache: the precisions served.",
    "tests/serving_measured.py compares each row with whole_model() at the row's machine, tp (the machine's default topology), batch and lengths.",
]


def t(x):
    return f"{x:.6e}"


# SPLIT.md's rule for this file, fixed before any row was compared with the model: by source,
# by the source's date; the earliest source is calibration, every later one validation.
SPLIT = {"vllm-pr2542": "calibration", "vllm-pr3240": "validation"}

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
            weights="bf16", activations="bf16", kv_cache="bf16", batch=bs, input_len=1000, output_len=50,
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
            weights="bf16", activations="bf16", kv_cache="bf16", batch=bs, input_len=1000, output_len=50,
            quantity="request_latency", implementation=impl, value=v, unit="s", conversion="time_s = value",
            time_s=t(float(v)), timed=LATENCY_TIMED, timed_kind="call", split=SPLIT["vllm-pr3240"]))

if __name__ == "__main__":
    with open(OUT, "w", newline="") as f:
        for line in HEADER:
            f.write(f"# {line}\n")
        writer = csv.DictWriter(f, COLS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")
