"""Stage: a serving engine's host path, kept apart from the kernels' time. What an engine does
on the host around the GPU's work (its scheduler, input preparation, sampling, the copy of
sampled tokens back, detokenisation, its workers' messages under tensor parallelism) is no
kernel spec; a request pays it once and every engine step again, and a step's share grows
with the sequences it holds (the scheduler and sampler walk each one).

host_s = per_request_s + steps x (per_step_s + per_sequence_step_s x batch)

Each figure is either fitted per engine and version on the calibration rows of
validate/published/serving.csv alone (tools/fit_host_path.py, which reads no validation row):
the rows' measured time less the composition's kernels, launches and collectives; or measured
in a published source that times the engine's host apart from any GPU (its forward replaced by
a wait of known length), taken as the source states it, with the version it ran. Where neither
measures an engine, it has no host path here (HostEngine.NONE, zero): vLLM V1's and
TensorRT-LLM's HTTP servers, and vLLM of 2025, are not modelled, and no figure of one engine is
lent to another. What a fitted residual holds besides the host is named with each fit: it is
read as the host's because the composition holds every kernel the source names, not because
the host was timed apart."""

from __future__ import annotations

from enum import StrEnum

from ..base.records import record


class HostEngine(StrEnum):
    """An engine and version whose host path has a figure (serving.csv's `host_path`)."""

    TRTLLM_SESSION_V05 = "trtllm-session-0.5"  # TensorRT-LLM 0.5's C++ GptSession benchmark
    VLLM_2024Q1 = "vllm-2024q1"  # vLLM master of January to March 2024 (benchmark_latency.py)
    SGLANG_SERVER_V0511 = "sglang-server-0.5.11"  # SGLang v0.5.11's HTTP server, timed on a mock
    NONE = "none"  # neither fitted nor measured: not modelled


@record
class HostPath:
    """An engine's host time: once a request, and each step plus each sequence of a step."""

    per_request_s: float
    per_step_s: float
    per_sequence_step_s: float
    basis: str  # fitted on calibration rows (tools/fit_host_path.py), or measured in a source

    def seconds(self, steps: int, batch: int) -> float:
        """A request's host time over `steps` engine steps of `batch` sequences."""
        return self.per_request_s + steps * (self.per_step_s + self.per_sequence_step_s * batch)


# tools/fit_host_path.py's figures, rounded to 0.01 ms (0.001 ms a sequence); the measured one
# (its source's TTFT less its forward) rounded alike
HOST_PATHS = {
    HostEngine.TRTLLM_SESSION_V05: HostPath(
        11.59e-3, 0.0, 0.0,
        "the median of measured - model over serving.csv's 10 calibration TTFT rows of "
        "trtllm-perf-v0.5-low-latency (TensorRT-LLM 0.5's gptSessionBenchmark, batch 1, one "
        "output token, Llama2-7b and Llama2-70b, H100, L40S, A100): one request, one step, so "
        "the whole residual is per request; no calibration row times its decode steps (0 a "
        "step). The residual also holds the prefill kernels' own error, which the median "
        "damps (2048-token rows +10 to +72 ms, 128-token rows +2.4 to +12.6 ms)"),
    HostEngine.VLLM_2024Q1: HostPath(
        0.0, 5.94e-3, 0.451e-3,
        "least squares of (measured - model) / output_len over batch, serving.csv's 7 "
        "calibration rows of vllm-pr2542's block 'This PR' (benchmark_latency.py, Mixtral-8x7B "
        "at tp 8 on H100, batch 1 to 64, 1000 tokens in, 50 out): output_len engine steps a "
        "batch, the prefill's included. The block 'Compare to master' is left out of the fit: "
        "its MoE is not the fused kernel the composition times, so its residual holds kernel "
        "time. One output length: a per-request part cannot be told from the per-step one "
        "and is folded into it (0 a request)"),
    HostEngine.SGLANG_SERVER_V0511: HostPath(
        6.91e-3, 0.0, 0.0,
        "measured in tenstorrent/tt-inference-server issue #3560 (dmadicTT, comment, "
        "2026-05-18, 'Measured against the tt-sglang-plugin CPU mock at TSU=380, single-user "
        "greedy decoding'): 'Forward floor (1000/TSU) | 2.632 ms', 'Median TTFT 9.54 ms', by "
        "'vllm bench serve --backend openai-chat --endpoint /v1/chat/completions "
        "--random-input-len 128 --random-output-len 2048 --num-prompts 4 --max-concurrency 1 "
        "--temperature 0'. SGLang v0.5.11 (the plugin's install.sh, SGLANG_TAG v0.5.11), built "
        "for the CPU; the plugin's HOW_WE_MEASURE_OVERHEAD.md: 'Everything else in SGLang runs "
        "unchanged: scheduler subprocess, tokenizer manager, detokenizer subprocess, ZMQ IPC, "
        "sampler, KV pool bookkeeping, HTTP streaming' around a forward that waits 1000/TSU "
        "ms, so a request's TTFT less the one forward of its prompt is its host path: "
        "9.54 - 2.632 = 6.908 ms. No "
        "per-step part: the source's 'Per-token SGLang overhead ~0.31 ms' is of a CPU engine "
        "that runs its scheduler serially, and the plugin's own caveat is that 'On GPU most of "
        "this work overlaps with kernel execution'. UNCERTAIN for SGLang v0.5.3.post3 on a "
        "GPU host (the nearest version measured; another CPU, 4 requests)"),
    HostEngine.NONE: HostPath(0.0, 0.0, 0.0, "not measured: not modelled"),
}


def host_path(engine: HostEngine) -> HostPath:
    return HOST_PATHS[engine]
