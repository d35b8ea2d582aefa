"""Domain rates (issue 16, item 6): `per token = b` turns t_min into tokens per second, in
analyze's terminal, JSON and Markdown and in sweep's CSV, checked against hand-computed
numbers and against each other."""

import json

import pytest
from conftest import SPECS

from kernelcost import analyze, loads
from kernelcost.answers.answer import answers
from kernelcost.answers.rates import plural
from kernelcost.cli import main
from kernelcost.hardware.machinefile import load_machine

H100_HBM_Bps = 3.35e12  # machines/h100.toml: HBM3 bandwidth of the H100 SXM5
H100_LAUNCH_S = 4e-6  # machines/h100.toml: the launch overhead
THETA = 1024 * 8192**2  # llm_decode: 1024 layers of 8192 x 8192 bf16 weights


def test_the_machine_figures_the_hand_numbers_use():
    h100 = load_machine("h100")
    assert float(h100.bandwidth("global")) == H100_HBM_Bps
    assert float(h100.launch_overhead_s) == H100_LAUNCH_S


def json_of(argv, capsys) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("batch", [1, 64])
def test_llm_decode_tokens_per_second_by_hand(batch, capsys):
    # memory-bound: every weight crosses HBM once a step, 2 bytes each, for b tokens
    t_min = 2 * THETA / H100_HBM_Bps  # 41.03 ms
    document = json_of(["analyze", str(SPECS / "llm_decode.kcost"), "--set",
                        f"Theta={THETA},b={batch}", "--machine", "h100", "--json",
                        "--no-verify"], capsys)
    (answer,) = document["answers"]
    assert answer["t_min"] == pytest.approx(t_min, rel=1e-12)
    assert answer["rate"] == {
        "item": "token", "unit": "tokens/s", "count": batch,
        "per_s": pytest.approx(batch / t_min, rel=1e-12),  # 24.37 and 1,560 tokens/s
        "per_s_with_launch": pytest.approx(batch / (t_min + H100_LAUNCH_S), rel=1e-12),
        "count_expr": None, "per_s_expr": None, "per_s_with_launch_expr": None}


def test_the_rate_line_in_the_terminal_and_in_markdown(capsys):
    spec = str(SPECS / "llm_decode.kcost")
    sizes = ["--set", f"Theta={THETA},b=64", "--machine", "h100", "--no-verify"]
    line = "tokens/s: 1.56 k at t_min, 1.56 k with the 4 µs launch overhead (64 tokens a run)."
    assert main(["analyze", spec, *sizes]) == 0
    assert line in " ".join(capsys.readouterr().out.split())
    assert main(["analyze", spec, *sizes, "--markdown"]) == 0
    assert f"- {line}" in capsys.readouterr().out


def test_a_short_kernel_pays_for_its_launch():
    """A 1-token copy of 4,096 bf16 values on H100: t_min = 2 x 8 KiB / 3.35 TB/s = 4.89 ns,
    so 204.5 M tokens/s at the bound, but one launch of 4 us a token: 249.7 k tokens/s."""
    spec = loads("kernel step(n, b) { per token = b\n in x: bf16[b, n]  out y: bf16[b, n]\n"
                 "for s in 0..b, i in 0..n { y[s, i] = x[s, i] } }")
    (answer,) = answers(analyze(spec, {"n": 4096, "b": 1}), ["h100"], None)
    t_min = 2 * 2 * 4096 / H100_HBM_Bps
    assert float(answer.rate.per_s) == pytest.approx(1 / t_min, rel=1e-12)
    assert float(answer.rate.per_s_with_launch) == pytest.approx(
        1 / (t_min + H100_LAUNCH_S), rel=1e-12)
    assert float(answer.rate.per_s_with_launch) == pytest.approx(249_695, rel=1e-5)


def test_a_grid_spec_divides_by_its_quantised_bound(capsys):
    """gemv_decode is a parallel spec: its t_min is the block-quantised bound; the rate is b
    over that same t_min."""
    document = json_of(["analyze", str(SPECS / "gemv_decode.kcost"), "--set",
                        "N=4096,K=4096,b=8", "--machine", "h100", "--json", "--no-verify"],
                       capsys)
    (answer,) = document["answers"]
    assert answer["rate"]["per_s"] == pytest.approx(8 / answer["t_min"], rel=1e-12)
    assert answer["rate"]["per_s_with_launch"] == pytest.approx(
        8 / answer["t_min_with_launch"], rel=1e-12)


def test_a_memory_bound_grid_sweeps_as_analyze_reports_it(capsys):
    """gemv_decode at b = 8 is HBM-bound: its sweep figures are analyze's, with no note (a
    grid's sweep takes its quantised bound, as analyze does)."""
    answer = json_of(["analyze", str(SPECS / "gemv_decode.kcost"), "--set",
                      "N=4096,K=4096,b=8", "--machine", "h100", "--json", "--no-verify"],
                     capsys)["answers"][0]
    assert main(["sweep", str(SPECS / "gemv_decode.kcost"), "--set", "N=4096,K=4096",
                 "--sweep", "b=8..9", "--points", "2", "--machine", "h100", "--csv"]) == 0
    captured = capsys.readouterr()
    header, first, _ = captured.out.splitlines()
    values = dict(zip(header.split(","), first.split(",")))
    assert float(values["t_min_with_launch_s"]) == pytest.approx(answer["t_min_with_launch"],
                                                                 rel=1e-14)
    assert float(values["tokens_per_s"]) == pytest.approx(answer["rate"]["per_s"], rel=1e-14)
    assert captured.err == ""


def test_without_a_per_line_there_is_no_rate(capsys):
    document = json_of(["analyze", str(SPECS / "gemm.kcost"), "--set", "M=N,K=N,N=1024",
                        "--machine", "h100", "--json", "--no-verify"], capsys)
    assert document["answers"][0]["rate"] is None
    assert main(["analyze", str(SPECS / "gemm.kcost"), "--set", "M=N,K=N,N=1024",
                 "--machine", "h100", "--no-verify"]) == 0
    assert "/s:" not in capsys.readouterr().out


def test_a_kernel_that_does_not_fit_has_no_rate():
    spec = loads("kernel k(n, b) { per row = b\n in x: f32[b, n]  out y: f32[b, n]\n"
                 "for s in 0..b { keep x in shared { for i in 0..n { y[s, i] = x[s, i] } } } }")
    (answer,) = answers(analyze(spec, {"n": 10**7, "b": 2}), ["h100"], None)
    assert answer.verdict.misfits and answer.rate.count == 2
    assert answer.rate.per_s is None and answer.rate.per_s_with_launch is None


def test_sweep_columns_are_analyze_figures(capsys):
    """sweep's t_min_with_launch and tokens/s at each size are analyze's at that size."""
    assert main(["sweep", str(SPECS / "llm_decode.kcost"), "--sweep", "b=1..4096",
                 "--points", "5", "--set", f"Theta={THETA}", "--machine", "h100",
                 "--csv"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    names = header.split(",")
    assert names[-4:] == ["of_peak", "t_min_with_launch_s", "tokens_per_s",
                          "tokens_per_s_with_launch"]
    for row in rows:
        values = dict(zip(names, row.split(",")))
        answer = json_of(["analyze", str(SPECS / "llm_decode.kcost"), "--set",
                          f"Theta={THETA},b={values['b']}", "--machine", "h100", "--json",
                          "--no-verify"], capsys)["answers"][0]
        assert float(values["t_min_with_launch_s"]) == pytest.approx(
            answer["t_min_with_launch"], rel=1e-14)
        assert float(values["tokens_per_s"]) == pytest.approx(answer["rate"]["per_s"],
                                                              rel=1e-14)
        assert float(values["tokens_per_s_with_launch"]) == pytest.approx(
            answer["rate"]["per_s_with_launch"], rel=1e-14)
    first = dict(zip(names, rows[0].split(",")))
    assert float(first["tokens_per_s"]) == pytest.approx(H100_HBM_Bps / (2 * THETA))


def test_the_shipped_decode_specs_count_tokens():
    from kernelcost import load

    for name in ("llm_decode", "int4_decode", "gemv_decode", "decode_attention"):
        items = load(SPECS / f"{name}.kcost").checked.items
        assert items.item == "token" and str(items.count) == "b"


@pytest.mark.parametrize("word, plural_form", [
    ("token", "tokens"), ("batch", "batches"), ("query", "queries"), ("day", "days"),
    ("pass", "passes"), ("image", "images")])
def test_plural(word, plural_form):
    assert plural(word) == plural_form
