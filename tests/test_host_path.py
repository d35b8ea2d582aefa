"""The engines' host paths (src/kernelcost/answers/host_path.py): each fitted figure is what
tools/fit_host_path.py fits on serving.csv's calibration rows alone, derived here again by
hand from those rows; the measured one is its source's numbers as quoted; a row pays each as
tests/serving_measured.py says."""

import pytest
from fit_host_path import calibration, residual_s, trtllm_rows, vllm_rows
from serving_measured import compare_all, read_rows

from kernelcost.answers.host_path import HOST_PATHS, HostEngine, HostPath, host_path


@pytest.fixture(scope="module")
def compared():
    return calibration()


def test_the_fit_reads_calibration_rows_only(compared):
    assert compared and all(c.row.fields["split"] == "calibration" for c in compared)


def test_trtllm_per_request_is_the_median_residual_by_hand(compared):
    """TensorRT-LLM 0.5's ten first-token rows, measured - model (ms) today: H100 Llama2-7b
    7.0 - 4.550 = 2.450 (128 in), 36.0 - 26.026 = 9.974 (2048); Llama2-70b tp 4 26.0 - 13.753
    = 12.247, 109.0 - 73.487 = 35.513; L40S 7b 14.0 - 11.805 = 2.195, 73.0 - 58.826 = 14.174;
    A100 7b 16.0 - 11.908 = 4.092, 133.0 - 108.605 = 24.395; 70b 47.0 - 36.075 = 10.925,
    377.0 - 306.008 = 70.992. Sorted, the fifth and sixth are 10.925 and 12.247: the median
    11.586 ms, host_path.py's 11.59 ms."""
    residuals = sorted(residual_s(c) for c in trtllm_rows(compared))
    assert len(residuals) == 10
    assert all(c.row.int("batch") == 1 and c.row.int("output_len") == 1
               for c in trtllm_rows(compared))  # one request, one step: all per request
    median = (residuals[4] + residuals[5]) / 2
    path = host_path(HostEngine.TRTLLM_SESSION_V05)
    assert path.per_request_s == pytest.approx(median, abs=0.005e-3)
    assert path.per_step_s == path.per_sequence_step_s == 0.0


def test_vllm_per_step_is_the_least_squares_line_by_hand(compared):
    """vllm-pr2542's 'This PR' block, (measured - model) / 50 steps (ms) at batch 1 to 64
    today: 6.359, 6.651, 7.369, 10.108, 13.379, 20.204, 34.763. The batches' mean is
    127/7 = 18.143, the residuals' 14.119; Sxx = 3156.86 and Sxy = 1422.3, so the slope is
    0.4506 ms a sequence and the intercept 14.119 - 0.4506 x 18.143 = 5.945 ms a step."""
    points = [(c.row.int("batch"), residual_s(c) / c.row.int("output_len"))
              for c in vllm_rows(compared)]
    assert [b for b, _ in points] == [1, 2, 4, 8, 16, 32, 64]
    n = len(points)
    mean_b = sum(b for b, _ in points) / n
    mean_r = sum(r for _, r in points) / n
    sxx = sum((b - mean_b) ** 2 for b, _ in points)
    sxy = sum((b - mean_b) * (r - mean_r) for b, r in points)
    assert sxx == pytest.approx(3156.857, abs=1e-3)
    slope = sxy / sxx
    path = host_path(HostEngine.VLLM_2024Q1)
    assert path.per_sequence_step_s == pytest.approx(slope, abs=0.0005e-3)
    assert path.per_step_s == pytest.approx(mean_r - slope * mean_b, abs=0.005e-3)
    assert path.per_request_s == 0.0


def test_sglang_per_request_is_its_sources_ttft_less_its_forward():
    """tenstorrent/tt-inference-server issue #3560, dmadicTT's comment of 2026-05-18, SGLang
    v0.5.11's chat server around a mock forward at TSU=380: 'Forward floor (1000/TSU) | 2.632
    ms', 'Median TTFT 9.54 ms'. A first token is one forward (the prompt's), so the request's
    host path is 9.54 - 1000/380 = 6.908 ms, host_path.py's 6.91 ms; the source's per-token
    0.31 ms is a CPU engine's serial scheduler, hidden on a GPU (0 a step)."""
    forward_ms = 1000 / 380
    assert forward_ms == pytest.approx(2.632, abs=0.0005)  # the floor as the source prints it
    path = host_path(HostEngine.SGLANG_SERVER_V0511)
    assert path.per_request_s == pytest.approx((9.54 - forward_ms) * 1e-3, abs=0.005e-3)
    assert path.per_request_s == pytest.approx(6.908e-3, abs=0.005e-3)
    assert path.per_step_s == path.per_sequence_step_s == 0.0
    for quoted in ("issue #3560", "'Median TTFT 9.54 ms'", "'Forward floor (1000/TSU) | 2.632 ms'",
                   "SGLang v0.5.11", "UNCERTAIN"):
        assert quoted in path.basis


def test_a_request_pays_its_steps():
    # host_s = per request + steps x (per step + per sequence x batch)
    path = HostPath(1e-3, 2e-3, 0.5e-3, "a test's figures")
    assert path.seconds(50, 8) == pytest.approx(1e-3 + 50 * (2e-3 + 8 * 0.5e-3))
    assert HOST_PATHS[HostEngine.NONE].seconds(2048, 128) == 0.0


def test_a_rows_host_time_by_hand():
    """vllm-pr3240 at batch 1: 50 steps of vLLM 2024q1's host path, 50 x (5.94 + 0.451) ms =
    319.55 ms beside the kernels; TensorRT-LLM's 128-token H100 row pays 11.59 ms once;
    GPUStack's SGLang rows pay 6.91 ms a TTFT and nothing a TPOT, its vLLM and TensorRT-LLM
    rows nothing."""
    rows = [r for r in read_rows() if (r.fields["source"] == "vllm-pr3240"
                                       and r.int("batch") == 1)
            or (r.fields["source"].startswith("trtllm") and r.fields["machine"] == "h100"
                and r.int("input_len") == 128 and r.int("tp") == 1)]
    hosts = {c.row.fields["source"]: c.host_s for c in compare_all(rows)}
    assert hosts["vllm-pr3240"] == pytest.approx(50 * (5.94e-3 + 0.451e-3))
    assert hosts["vllm-pr3240"] == pytest.approx(319.55e-3)
    assert hosts["trtllm-perf-v0.5-low-latency"] == pytest.approx(11.59e-3)
    gpustack = [r for r in read_rows() if r.fields["source"].startswith("gpustack")]
    for c in compare_all(gpustack):
        sglang = c.row.fields["implementation"].startswith("SGLang")
        paid = 6.91e-3 if sglang and c.row.quantity == "ttft" else 0.0
        assert c.host_s == pytest.approx(paid, abs=1e-12), c.row.line
