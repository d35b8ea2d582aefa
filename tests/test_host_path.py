"""The engines' host paths (src/kernelcost/answers/host_path.py): each figure is what
tools/fit_host_path.py fits on serving.csv's calibration rows alone, derived here again by
hand from those rows, and a row pays it as tests/serving_measured.py says."""

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
    7.0 - 4.457 = 2.543 (128 in), 36.0 - 41.326 = -5.326 (2048); Llama2-70b tp 4 26.0 - 13.457
    = 12.543, 109.0 - 92.676 = 16.324; L40S 7b 14.0 - 11.629 = 2.371, 73.0 - 66.326 = 6.674;
    A100 7b 16.0 - 11.412 = 4.588, 133.0 - 159.742 = -26.742; 70b 47.0 - 34.609 = 12.391,
    377.0 - 369.763 = 7.237. Sorted, the fifth and sixth are 4.588 and 6.674: the median
    5.631 ms, host_path.py's 5.63 ms."""
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
    today: 6.358, 6.644, 7.345, 10.048, 13.251, 19.941, 34.239. The batches' mean is
    127/7 = 18.143, the residuals' 13.975; Sxx = 3156.86 and Sxy = 1395.9, so the slope is
    0.4422 ms a sequence and the intercept 13.975 - 0.4422 x 18.143 = 5.952 ms a step."""
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


def test_a_request_pays_its_steps():
    # host_s = per request + steps x (per step + per sequence x batch)
    path = HostPath(1e-3, 2e-3, 0.5e-3, "a test's figures")
    assert path.seconds(50, 8) == pytest.approx(1e-3 + 50 * (2e-3 + 8 * 0.5e-3))
    assert HOST_PATHS[HostEngine.NONE].seconds(2048, 128) == 0.0


def test_a_rows_host_time_by_hand():
    """vllm-pr3240 at batch 1: 50 steps of vLLM 2024q1's host path, 50 x (5.95 + 0.442) ms =
    319.6 ms beside the kernels; TensorRT-LLM's 128-token H100 row pays 5.63 ms once."""
    rows = [r for r in read_rows() if (r.fields["source"] == "vllm-pr3240"
                                       and r.int("batch") == 1)
            or (r.fields["source"].startswith("trtllm") and r.fields["machine"] == "h100"
                and r.int("input_len") == 128 and r.int("tp") == 1)]
    hosts = {c.row.fields["source"]: c.host_s for c in compare_all(rows)}
    assert hosts["vllm-pr3240"] == pytest.approx(50 * (5.95e-3 + 0.442e-3))
    assert hosts["vllm-pr3240"] == pytest.approx(319.6e-3)
    assert hosts["trtllm-perf-v0.5-low-latency"] == pytest.approx(5.63e-3)
