"""The throughput/latency curve of `model --curve`: one line a machine, each batch a point at
its time per output token and its tokens per second, hollow where it does not fit."""

import pytest

from kernelcost.answers.wholemodel import whole_model
from kernelcost.cli import main
from kernelcost.hardware.machinefile import load_machine
from kernelcost.hardware.modelfile import load_model
from kernelcost.present.serving_curve import curve_figure, points

BATCHES = [1, 16, 256]


def test_each_point_is_a_batch_at_its_time_per_token_and_its_rate():
    model = load_model("llama3_8b")
    results = [whole_model(model, load_machine(name), BATCHES, 4096) for name in ("h100", "h200")]
    figure = curve_figure(results)
    axes = figure.axes[0]
    lines = [line for line in axes.get_lines() if line.get_linestyle() == "-"]
    assert [line.get_label() for line in lines] == [r.machine.name for r in results]
    for line, result in zip(lines, results):
        latencies = result.latencies()
        assert list(line.get_xdata()) == pytest.approx([1e3 * x.tpot_s for x in latencies])
        assert list(line.get_ydata()) == pytest.approx([x.batch / x.tpot_s for x in latencies])
    # batch 256 at context 4096: 256 x 0.54 GB of KV cache beside 16 GB of weights is past
    # 0.9 of an H100's 80 GB and of an H200's 141 GB: hollow on both; batch 1 fits
    fits = {(r.machine.id, x.batch): fit for r in results for x, _, _, fit in points(r)}
    assert fits[("h100", 256)] is False and fits[("h200", 256)] is False
    assert fits[("h100", 1)] is True
    markers = [line for line in axes.get_lines() if line.get_marker() == "o"]
    hollow = [m for m in markers if m.get_markerfacecolor() == "none"]
    assert len(markers) == 6 and len(hollow) == 2


def test_cli_draws_the_curve_for_two_machines(tmp_path, capsys):
    path = tmp_path / "curve.svg"
    assert main(["model", "llama3_8b", "--machine", "h100", "--compare", "h200", "--batch",
                 "1,16", "--curve", str(path)]) == 0
    text = path.read_text()
    assert "NVIDIA H100" in text and "NVIDIA H200" in text
    assert main(["model", "llama3_8b", "--curve", str(tmp_path / "curve.txt")]) == 2
    assert main(["model", "llama3_8b", "--compare", "h1000", "--curve", str(path)]) == 2
