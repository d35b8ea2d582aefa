"""Chunked prefill (`model --chunk`) and the launch modes (`model --launch`), with the
figures derived by hand: Llama-3-8B (32 layers, hidden 4096, 32 heads / 8 KV heads of 128,
intermediate 14336, vocabulary 128256) on the H100 (HBM 3.35e12 B/s, machines/h100.toml)."""

import subprocess
import sys

import pytest

from kernelcost.answers.chunk_plan import MAX_CHUNKS, Segment, plan
from kernelcost.answers.chunked import chunked_model
from kernelcost.answers.launch_cost import GRAPH_KERNEL_GAP_S
from kernelcost.answers.wholemodel import whole_model
from kernelcost.base.errors import SizeError
from kernelcost.base.kinds import LaunchMode
from kernelcost.hardware.hfconfig import load_model_or_config
from kernelcost.hardware.machinefile import load_machine

HBM_BPS = 3.35e12  # h100.toml [[memory]] global
LAYERS, HIDDEN, KV, D, GROUP, VOCAB = 32, 4096, 8, 128, 4, 128256
QKV, INTER = (32 + 2 * 8) * 128, 14336
# weights every step reads: per layer qkv, output, gate+up, down; then the LM head
WEIGHTS = LAYERS * (HIDDEN * QKV + HIDDEN * HIDDEN + HIDDEN * 2 * INTER + INTER * HIDDEN) \
    + HIDDEN * VOCAB
WEIGHT_BYTES = 2 * WEIGHTS  # bf16


@pytest.fixture(scope="module")
def llama():
    return load_model_or_config("llama3_8b"), load_machine("h100")


@pytest.fixture(scope="module")
def prefills(llama):
    """P = 8192, one prompt: in one step, and in steps of 8192 (the whole), 2048 and 128."""
    model, h100 = llama
    whole = whole_model(model, h100, [1], 8192)
    return {None: whole, **{chunk: chunked_model(whole, chunk) for chunk in (8192, 2048, 128)}}


def test_weight_count_by_hand():
    assert WEIGHTS == 7_504_658_432  # 32 x 218,103,808 + 525,336,576
    assert WEIGHT_BYTES == 15_009_316_864


def test_plan_of_one_prompt():
    """P = 8192 at C = 2048: 4 steps, each 2048 new tokens after 0, 2048, 4096, 6144."""
    chunks = plan(1, 8192, 2048)
    assert [c.segments for c in chunks] == [(Segment(prefix, 2048),)
                                           for prefix in (0, 2048, 4096, 6144)]


def test_plan_crosses_prompts_in_order():
    """Two prompts of 3000 at C = 2048: 6000 tokens in ceil(6000 / 2048) = 3 steps; the
    second ends the first prompt (952) and starts the next (1096)."""
    chunks = plan(2, 3000, 2048)
    assert [c.segments for c in chunks] == [
        (Segment(0, 2048),), (Segment(2048, 952), Segment(0, 1096)), (Segment(1096, 1904),)]
    assert [c.tokens for c in chunks] == [2048, 2048, 1904]


def test_plan_refuses_too_many_steps():
    with pytest.raises(SizeError, match="--chunk 1: batch 8 x context 100000"):
        plan(8, 100_000, 1)
    assert len(plan(1, MAX_CHUNKS, 1)) == MAX_CHUNKS


def test_one_step_is_the_unchunked_prefill(prefills):
    whole, one = prefills[None].prefill[0], prefills[8192].prefill[0]
    assert one.work_FLOP == whole.work_FLOP
    assert one.traffic_B == whole.traffic_B
    assert one.t_bound_s == pytest.approx(whole.t_bound_s, rel=1e-12)


def _kernel(result, name):
    return next(k for k in result.prefill[0].kernels if k.use.name == name)


def test_attention_work_is_the_same_triangle(prefills):
    """Key rows a query head reads: sum over chunks of C L + C (C + 1) / 2 = P (P + 1) / 2,
    however P is cut. Per key row 4d FMA FLOP + exp + the running sum; per query d
    divisions: g ((4d + 2) P (P + 1) / 2 + d P) a KV head and layer."""
    rows = 8192 * 8193 // 2
    by_hand = LAYERS * KV * GROUP * ((4 * D + 2) * rows + D * 8192)
    assert by_hand == 17_664_135_135_232
    for chunk in (None, 2048, 128):
        assert _kernel(prefills[chunk], "attention").work_FLOP == by_hand


def test_chunk_traffic_by_hand(prefills):
    """C = 2048, 4 steps against one: the weights read 3 more times (the GEMMs' and the 65
    RMSNorms' 4096 scales), the LM head's row in and logits out 3 more times, and the
    attention reads the cache of the steps before it: 4 d (L_0 + ... + L_3) =
    4 x 128 x 2048 (0 + 1 + 2 + 3) a KV head and layer."""
    extra = (3 * WEIGHT_BYTES + 3 * (2 * LAYERS + 1) * HIDDEN * 2 + 3 * 2 * (HIDDEN + VOCAB)
             + LAYERS * KV * 4 * D * 2048 * 6)
    assert extra == 46_640_954_880
    delta = prefills[2048].prefill[0].traffic_B - prefills[None].prefill[0].traffic_B
    assert delta == pytest.approx(extra, rel=1e-12)


def test_small_chunks_pay_the_weights_again(prefills):
    """C = 128: 64 steps, each projection at M = 128 under HBM (I about 120 FLOP/B, the
    ridge 295): the qkv projection's t_bound is 64 steps x 32 layers x
    2 (128 x 4096 + 4096 x 6144 + 128 x 6144) B / 3.35e12 B/s = 32.37 ms, where in one step
    it is compute-bound, under its W at the 990 TFLOP/s base-clock peak: 13.3 ms."""
    qkv_bytes = 64 * LAYERS * 2 * (128 * HIDDEN + HIDDEN * QKV + 128 * QKV)
    assert qkv_bytes == 108_447_924_224
    small = _kernel(prefills[128], "qkv projection")
    assert small.t_bound_s == pytest.approx(qkv_bytes / HBM_BPS, rel=1e-12)
    assert small.t_bound_s == pytest.approx(32.37e-3, abs=0.01e-3)
    whole = _kernel(prefills[None], "qkv projection")
    assert whole.t_bound_s <= 2 * 8192 * HIDDEN * QKV * LAYERS / 990e12  # 13.33 ms


def test_ttft_rises_as_the_chunk_falls(prefills):
    """The trend: every step rereads 15.0 GB of weights, 4.48 ms at 3.35e12 B/s; at C = 128
    the 64 reads take 286.7 ms, on top of the attention's time (the same triangle, 17.59e12
    FLOP of MMAs: 16.4 ms under the bf16 tensor peak at the maximum clock, 990e12 x 1.98 /
    1.831 FLOP/s, and 0.08 ms more where the first chunks are bound by their reads), where the
    whole prompt in one step takes 191.5 ms."""
    ttft = [prefills[c].latencies()[0].ttft_s for c in (8192, 2048, 128)]
    assert ttft[0] < ttft[1] < ttft[2]
    floor = 64 * WEIGHT_BYTES / HBM_BPS + _kernel(prefills[128], "attention").t_bound_s
    assert floor == pytest.approx(0.28675 + 17_594_333_528_064 / (990e12 * 1.081344), abs=1e-4)
    assert prefills[128].prefill[0].t_bound_s >= floor > prefills[8192].prefill[0].t_bound_s
    launches = [prefills[c].prefill[0].launches for c in (8192, 2048, 128)]
    assert launches == [258, 4 * 258, 64 * 258]


def test_launch_modes_by_hand(llama):
    """A decode step runs 258 kernels (2 x 32 + 1 norms, 6 a layer, the LM head): eager,
    258 x 4 us = 1.032 ms; from a graph, one 4 us launch and 258 x 490/401 us = 319.3 us.
    The kernels' time and the prefill's launches do not change."""
    model, h100 = llama
    eager, graphs = (whole_model(model, h100, [1], 1024, launch=mode).latencies()[0]
                     for mode in (LaunchMode.EAGER, LaunchMode.GRAPH))
    assert eager.tpot_launch_s == pytest.approx(258 * 4e-6, rel=1e-12)
    assert graphs.tpot_launch_s == pytest.approx(4e-6 + 258 * 490e-6 / 401, rel=1e-12)
    assert pytest.approx(1.222e-6, abs=1e-9) == GRAPH_KERNEL_GAP_S
    assert eager.tpot_s - eager.tpot_launch_s == pytest.approx(
        graphs.tpot_s - graphs.tpot_launch_s, rel=1e-12)
    assert eager.ttft_s == graphs.ttft_s and eager.ttft_launch_s == 258 * 4e-6


def _model_cli(*args):
    return subprocess.run([sys.executable, "-m", "kernelcost.cli", "model", "llama3_8b", *args],
                          capture_output=True, text=True)


@pytest.mark.parametrize("args, message, hint", [
    (["--chunk", "0"], "argument --chunk: tokens a prefill step must be between 1 and",
     "(vLLM's max_num_batched_tokens: 2048 and 8192 are usual)"),
    (["--chunk", "abc"], "argument --chunk: tokens a prefill step", "a whole number such as 2048"),
    (["--launch", "foo"], "argument --launch: expected eager or graphs, not 'foo'",
     "(graphs: each decode step replayed from a CUDA graph"),
    # 64 x 8192 / 4 = 131,072 steps, refused before any work; 64 x 8192 / 100,000 -> 6
    (["--batch", "64", "--context", "8192", "--chunk", "4"],
     "error[KC311]: --chunk 4: batch 64 x context 8192 is 131,072 steps; at most 100,000",
     "hint: a --chunk of 6 tokens or more"),
])
def test_bad_options_exit_2_at_the_option(args, message, hint, capsys):
    # through the program's entry point in this process (a refusal costs no start-up; an
    # option argparse refuses ends it as SystemExit(2), the program's exit); the program
    # itself runs in test_report_keeps_launches_apart
    from kernelcost.cli import main

    try:
        code = main(["model", "llama3_8b", *args])
    except SystemExit as stopped:
        code = stopped.code
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert message in err and hint in err


def test_report_keeps_launches_apart():
    run = _model_cli("--batch", "1", "--context", "1024", "--launch", "graphs", "--chunk",
                     "512", "--json")
    assert run.returncode == 0, run.stderr
    import json

    document = json.loads(run.stdout)
    assert document["launch"]["mode"] == "graphs"
    assert document["latency"][0]["tpot_launch"] == pytest.approx(4e-6 + 258 * 490e-6 / 401)
    assert document["chunk"]["batches"][0]["steps"] == 2
    assert [s["segments"] for s in document["chunk"]["batches"][0]["shapes"]] == [
        [{"prefix": 0, "tokens": 512}], [{"prefix": 512, "tokens": 512}]]


def test_chunked_collectives_one_set_a_step(llama):
    """At tp 2 on the HGX H100 each step ends its layers in all-reduces of its own tokens:
    one step of the whole prompt is the unchunked prefill's collectives; four steps of 2048
    are four sets of a quarter's bytes (each 66 collectives: 2 a layer, the embedding's, the
    logits' gather), so at least the unchunked time, with three more sets of latencies."""
    from kernelcost.answers.tensor_parallel import Layout
    from kernelcost.hardware.topology import default_topology

    model, h100 = llama
    whole = whole_model(model, h100, [1], 8192, 2, Layout(default_topology("h100"), 2, 1))
    one, four = chunked_model(whole, 8192), chunked_model(whole, 2048)
    assert one.parallel.prefill[0].seconds == pytest.approx(
        whole.parallel.prefill[0].seconds, rel=1e-12)
    assert one.parallel.prefill[0].count == 2 * LAYERS + 2
    assert four.parallel.prefill[0].count == 4 * (2 * LAYERS + 2)
    assert four.parallel.prefill[0].seconds > whole.parallel.prefill[0].seconds
    assert four.latencies()[0].ttft_s > whole.latencies()[0].ttft_s
