"""The median TTFT of a request joining a closed loop (closed_loop.py), with the figures
derived by hand: Qwen3-8B (tests/data/hf/qwen3_8b/config.json: 36 layers, hidden 4096, 32
heads / 8 KV heads of 128, intermediate 12288, vocabulary 151936, untied) on the H100
(launch_overhead_s 4 us, machines/h100.toml), a 233-token prompt meeting 3 other requests
decoding at context 343, as GPUStack's `vllm bench serve --max-concurrency 4` rows."""

import pytest
from serving_measured import ROOT

from kernelcost.answers.chunk_plan import Segment
from kernelcost.answers.chunked import chunk_uses
from kernelcost.answers.closed_loop import (
    Loop,
    PromptStep,
    Scheduler,
    closed_loop_tpot,
    closed_loop_ttft,
)
from kernelcost.answers.composition import KernelKind
from kernelcost.answers.launch_cost import GRAPH_KERNEL_GAP_S
from kernelcost.answers.wholemodel import kernel_cost, whole_model
from kernelcost.base.errors import SizeError
from kernelcost.base.kinds import LaunchMode
from kernelcost.hardware.hfconfig import load_model_or_config
from kernelcost.hardware.machinefile import load_machine

LAYERS, HIDDEN, VOCAB = 36, 4096, 151936
QKV, INTER = (32 + 2 * 8) * 128, 12288
# per layer: qkv, output, gate+up, down
LAYER_WEIGHTS = HIDDEN * QKV + HIDDEN * HIDDEN + HIDDEN * 2 * INTER + INTER * HIDDEN
PROMPT, OUTPUT, CONTEXT, CONCURRENCY = 233, 221, 343, 4
# the kernels of a step, decode or prefill: 36 layers x 8 (2 norms, qkv, attention, output,
# gate+up, SwiGLU, down), the final norm and the LM head
KERNELS = 36 * 8 + 2
LAUNCH_S = 4e-6


@pytest.fixture(scope="module")
def qwen():
    return (load_model_or_config(str(ROOT / "tests/data/hf/qwen3_8b/config.json")),
            load_machine("h100"))


@pytest.fixture(scope="module")
def loops(qwen):
    model, h100 = qwen
    return {(how, launch): closed_loop_ttft(model, h100, loop(CONCURRENCY, how), launch=launch)
            for how in PromptStep for launch in LaunchMode}


def loop(concurrency: int, how: PromptStep, output: int = OUTPUT,
         scheduler: Scheduler = Scheduler.SYNC) -> Loop:
    return Loop(concurrency, PROMPT, output, CONTEXT, how, scheduler)


def test_the_prompts_step_holds_the_others_decode_tokens_or_not():
    mixed = loop(4, PromptStep.WITH_DECODES).prompt_chunk()
    assert mixed.segments == (Segment(0, 233), *(Segment(343, 1),) * 3)
    assert mixed.tokens == 236  # the GEMMs run at M = 233 + 3
    alone = loop(4, PromptStep.ALONE).prompt_chunk()
    assert alone.segments == (Segment(0, 233),) and alone.tokens == 233


def test_three_decode_tokens_add_their_gemm_work(qwen):
    """Three more rows through every weight: 2 x 3 x 36 x 192,937,984 FLOP in the layers'
    GEMMs (6,945,767,424 weights), 2 x 3 x 4096 x 151936 in the LM head (a row each)."""
    model, h100 = qwen

    def work(how: PromptStep, kinds: set[KernelKind]) -> float:
        uses = chunk_uses(model, loop(4, how).prompt_chunk())
        return sum(kernel_cost(use, h100).work_FLOP for use in uses if use.kind in kinds)

    layers = {KernelKind.PROJECTIONS}
    assert LAYER_WEIGHTS == 192_937_984
    mlp_and_projections = work(PromptStep.WITH_DECODES, layers | {KernelKind.MLP}) - work(
        PromptStep.ALONE, layers | {KernelKind.MLP})
    gemm_extra = 2 * 3 * LAYERS * LAYER_WEIGHTS
    assert gemm_extra == 41_674_604_544
    # the MLP kind holds the SwiGLU too: 3 tokens x 12288 x 36 layers of it at 4 FLOP an
    # element (tests/golden/model_silu_mul.json: 3 n vector and n sfu)
    swiglu_extra = 4 * 3 * INTER * LAYERS
    assert mlp_and_projections == pytest.approx(gemm_extra + swiglu_extra, rel=1e-12)
    head = work(PromptStep.WITH_DECODES, {KernelKind.LM_HEAD}) - work(
        PromptStep.ALONE, {KernelKind.LM_HEAD})
    assert head == pytest.approx(2 * 3 * HIDDEN * VOCAB, rel=1e-12)  # 3,734,028,288


def test_a_loop_of_one_is_the_prefill_alone(qwen):
    """No other request: no step in flight, and the prompt's step is whole_model's prefill of
    one prompt (another path: the prefill composition, not chunk_uses)."""
    model, h100 = qwen
    for how in PromptStep:
        alone = closed_loop_ttft(model, h100, loop(1, how))
        assert alone.wait_s == 0.0 and alone.in_flight_step_s == 0.0
        [latency] = whole_model(model, h100, [1], PROMPT).latencies()
        assert alone.ttft_s == pytest.approx(latency.ttft_s, rel=1e-12)
        assert alone.prompt_step_launch_s == pytest.approx(KERNELS * LAUNCH_S)  # 1.16 ms


def test_the_median_wait_is_half_the_step_in_flight(loops):
    for loop in loops.values():
        assert loop.wait_s == pytest.approx(loop.in_flight_step_s / 2, rel=1e-15)
        assert loop.ttft_s == pytest.approx(loop.wait_s + loop.prompt_step_s, rel=1e-15)
    # the in-flight step is a decode step of the 3 others: its 290 kernels eager at 4 us each,
    # or one graph launch and a gap a kernel; the median wait takes half of the difference
    eager = loops[PromptStep.ALONE, LaunchMode.EAGER]
    graphs = loops[PromptStep.ALONE, LaunchMode.GRAPH]
    assert eager.prompt_step_s == graphs.prompt_step_s  # a prefill is eager in both modes
    eager_launch, graph_launch = KERNELS * LAUNCH_S, LAUNCH_S + KERNELS * GRAPH_KERNEL_GAP_S
    assert eager.ttft_s - graphs.ttft_s == pytest.approx((eager_launch - graph_launch) / 2,
                                                         rel=1e-9)
    assert (eager_launch - graph_launch) / 2 == pytest.approx(0.4008e-3, abs=0.0001e-3)


def test_an_overlap_scheduler_adds_the_step_it_launched_ahead(qwen, loops):
    """SGLang's and TensorRT-LLM's schedulers take a new request when step n has finished and
    n + 1, a decode step of the 3 others, is already on the GPU: the prompt waits half a step
    (the median), that whole step, then its own. The step launched ahead is whole_model's
    decode step of 3 sequences at the context (another path: the decode composition)."""
    model, h100 = qwen
    for launch in LaunchMode:
        [three] = whole_model(model, h100, [3], CONTEXT, launch=launch).latencies()
        for how in PromptStep:
            sync = loops[how, launch]
            overlap = loop(CONCURRENCY, how, scheduler=Scheduler.OVERLAP)
            ahead = closed_loop_ttft(model, h100, overlap, launch=launch)
            assert sync.queued_s == 0.0
            assert ahead.queued_s == pytest.approx(three.tpot_s, rel=1e-12)
            assert ahead.in_flight_step_s == pytest.approx(three.tpot_s, rel=1e-12)
            assert ahead.ttft_s - sync.ttft_s == pytest.approx(three.tpot_s, rel=1e-12)
            assert ahead.ttft_s == pytest.approx(1.5 * three.tpot_s + sync.prompt_step_s,
                                                 rel=1e-12)
    # the eager step of 3: 290 launches at 4 us (1.16 ms) on top of its kernels
    [three] = whole_model(model, h100, [3], CONTEXT).latencies()
    assert three.tpot_launch_s == pytest.approx(KERNELS * LAUNCH_S, rel=1e-12)
    # alone in the loop, nothing is in flight and nothing launched ahead
    for how in PromptStep:
        alone = closed_loop_ttft(model, h100, loop(1, how, scheduler=Scheduler.OVERLAP))
        assert alone.queued_s == 0.0 and alone.wait_s == 0.0


def test_mixing_the_decodes_in_costs_more_than_the_prompt_alone(loops):
    for launch in LaunchMode:
        mixed = loops[PromptStep.WITH_DECODES, launch]
        alone = loops[PromptStep.ALONE, launch]
        assert mixed.wait_s == alone.wait_s
        assert mixed.prompt_step_s > alone.prompt_step_s
        # 3 more rows of 16.4 GB of weights read once: the step stays weight-bound, so the
        # difference is far below a decode step (3 decode attentions and 3 GEMM rows)
        assert mixed.prompt_step_s - alone.prompt_step_s < 0.05 * alone.prompt_step_s


def test_a_loop_without_requests_is_refused():
    with pytest.raises(SizeError, match="at least 1"):
        loop(0, PromptStep.ALONE)


def test_a_requests_tpot_holds_the_others_prompt_steps(qwen, loops):
    """Its decode steps of all 4 sequences, and 3 steps that admit the others' prompts spread
    over its 220 tokens: a prompt alone (SGLang) is a whole step the decodes wait out; with
    the decodes (vLLM V1, TensorRT-LLM) it replaces a decode step of the 3 it holds."""
    model, h100 = qwen
    for launch in LaunchMode:
        [latency] = whole_model(model, h100, [4], CONTEXT, launch=launch).latencies()
        for how in PromptStep:
            tpot = closed_loop_tpot(model, h100, loop(CONCURRENCY, how), launch=launch)
            assert tpot.decode_step_s == pytest.approx(latency.tpot_s, rel=1e-12)
            ttft = loops[how, launch]
            extra = ttft.prompt_step_s - (
                ttft.in_flight_step_s if how == PromptStep.WITH_DECODES else 0.0)
            assert tpot.prompt_step_extra_s == pytest.approx(extra, rel=1e-12)
            assert tpot.tpot_s == pytest.approx(latency.tpot_s + 3 * extra / 220, rel=1e-12)
    # a loop of one: nothing interrupts the decode
    alone = closed_loop_tpot(model, h100, loop(1, PromptStep.ALONE))
    [latency] = whole_model(model, h100, [1], CONTEXT).latencies()
    assert alone.tpot_s == pytest.approx(latency.tpot_s, rel=1e-12)


def test_a_tpot_of_one_token_is_refused(qwen):
    model, h100 = qwen
    with pytest.raises(SizeError, match="at least 2 output tokens"):
        closed_loop_tpot(model, h100, loop(CONCURRENCY, PromptStep.ALONE, output=1))
