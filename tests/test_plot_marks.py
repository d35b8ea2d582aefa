
"""What the roofline figure marks beyond roofs and slopes, read back from its artists: a
colour and a direct label per kernel, each under its own precision's roofs, where a tile
stops fitting, a measured run and the derated model under the roof; the command line's
machines and per-spec sizes."""

import dataclasses

import numpy
import pytest
from conftest import SPECS
from test_plot import assert_labels_clear, lines_by_gid, texts_by_gid

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.base.errors import KcostError
from kernelcost.cli.plot_cmd import figure_paths, split_by_spec
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.sizerange import parse_range
from kernelcost.present.plot import draw, roofline_figure, save
from kernelcost.present.scene import scene

H100 = dataclasses.replace(load_machine("h100"), achievable=())  # the chapter's roofs
HBM, SHARED = 3.35e12, 30e12  # H100 bandwidths (roofline chapter, §1.4)
P_BF16, P_FP32 = 990e12, 67e12
SQUARE = {"M": "N", "K": "N", "N": 4096}


@pytest.fixture(scope="module")
def compare():
    # the README's comparison: naive fp32, tiled bf16, ideal bf16, each at its own precision
    return roofline_figure([SPECS / "gemm_naive.kcost", SPECS / "gemm_tiled.kcost",
                            SPECS / "gemm.kcost"], H100, settings=SQUARE,
                           size_range=parse_range("N=64..65536"))


@pytest.fixture(scope="module")
def tile_sweep():
    return roofline_figure(SPECS / "gemm_tiled.kcost", H100, ["bf16"],
                           settings={"M": 8192, "N": 8192, "K": 8192},
                           size_range=parse_range("T=16..8192"))


def test_each_kernel_has_its_colour_and_a_direct_label():
    # softmax and layernorm at n = 4096 sit almost on one spot: colour and label tell them
    figure = roofline_figure([SPECS / "softmax.kcost", SPECS / "layernorm.kcost"], H100,
                             settings={"n": 4096})
    lines, texts = lines_by_gid(figure), texts_by_gid(figure)
    assert lines["point:0:global"].get_markerfacecolor() != \
        lines["point:1:global"].get_markerfacecolor()
    assert texts["kernel:0"].get_text() == "softmax: HBM binds"
    assert texts["kernel:1"].get_text() == "layernorm: HBM binds"
    assert texts["kernel:0"].get_color() == lines["point:0:global"].get_markerfacecolor()
    assert_labels_clear(figure)


def test_the_binding_shared_point_is_labelled(tile_sweep):
    # gemm_tiled, T = 128: every inner access served by shared, I = 1/2, 15 TFLOP/s at
    # 30 TB/s, below the HBM point (I = 63.5): shared binds
    label = texts_by_gid(tile_sweep)["kernel:0"]
    assert label.get_text() == "gemm_tiled: shared binds"
    assert label.xy == pytest.approx((0.5, 0.5 * SHARED))
    assert lines_by_gid(tile_sweep)["point:0:shared"].get_marker() == "^"


def test_the_tile_sweep_marks_where_the_tiles_stop_fitting(tile_sweep):
    # A and B tiles in bf16: 2 T^2 x 2 B <= 228 KiB = 233472 B per SM  ->  T <= 241.6
    texts, lines = texts_by_gid(tile_sweep), lines_by_gid(tile_sweep)
    assert texts["capacity:0:global"].get_text() == "T ≤ 241: shared full (228 KiB per SM)"
    intensity_241 = 8192 * 241 / (2 * 8192 + 241)  # I = N T / (2N + T) at M = N = K
    assert texts["capacity:0:global"].xy[0] == pytest.approx(intensity_241, rel=0.02)
    fits_x, fits_y = map(numpy.asarray, lines["path:0:global"].get_data())
    misfit_x, misfit_y = map(numpy.asarray, lines["path-misfit:0:global"].get_data())
    assert fits_x[numpy.isfinite(fits_y)].max() <= intensity_241
    assert misfit_x[numpy.isfinite(misfit_y)].min() > intensity_241
    assert_labels_clear(tile_sweep)


def test_each_kernel_sits_under_the_roofs_of_its_own_precision(compare):
    lines, texts = lines_by_gid(compare), texts_by_gid(compare)
    assert set(lines["roof:fp32 vector"].get_ydata()) == {P_FP32}
    assert set(lines["roof:bf16 tensor"].get_ydata()) == {P_BF16}
    # naive fp32 GEMM, no reuse: I = 2N^3 / (8N^3 + 4N^2), against the fp32 ridge 67 / 3.35
    naive = 2 * 4096 / (8 * 4096 + 4)
    assert lines["point:0:global"].get_xdata()[0] == pytest.approx(naive)
    assert texts["never:0:global"].get_text() == "never crosses: I → 0.25 < 20 FLOP/B"
    # the ideal bf16 GEMM is compute-bound at 4096 under the bf16 tensor roof
    assert lines["point:2:global"].get_ydata()[0] == pytest.approx(P_BF16)
    assert texts["crossing:2:global"].get_text() == "N* = 886.6"
    # ridges of both precisions: fp32 20 FLOP/B, bf16 295.5 FLOP/B at HBM
    assert texts["ridge:global:fp32"].get_text() == "20 FLOP/B"
    assert texts["ridge:global:bf16"].get_text() == "295.5 FLOP/B"


def test_comparison_labels_are_off_lines_and_each_other(compare):
    # two "N=64" (tiled and ideal) used to stack at the start of their paths
    starts = [text for text in compare.axes[0].texts if text.get_text() == "N=64"]
    assert len(starts) == 3 and len({text.get_color() for text in starts}) == 3
    assert_labels_clear(compare)


def test_llm_decode_point_and_path_labels_are_apart():
    figure = roofline_figure(SPECS / "llm_decode.kcost", H100, ["bf16"],
                             settings={"Theta": "70e9", "b": 1},
                             size_range=parse_range("b=1..4096"))
    assert_labels_clear(figure)


def test_a_measured_run_is_drawn_under_its_roof():
    # vector_add, n = 1e8 (chapter, example 1): W = 1e8 FLOP, Q = 1.2e9 B; 400 us is
    # 2.5e11 FLOP/s, 3 TB/s of the 3.35 TB/s roof: 89.6 %
    figure = roofline_figure(SPECS / "vector_add.kcost", H100, settings={"n": 10**8},
                             measured=[{"seconds": 400e-6}])
    lines, texts = lines_by_gid(figure), texts_by_gid(figure)
    measured = lines["measured:0"]
    assert measured.get_xdata()[0] == pytest.approx(1 / 12)
    assert measured.get_ydata()[0] == pytest.approx(1e8 / 400e-6)
    assert measured.get_ydata()[0] < lines["point:0:global"].get_ydata()[0]
    assert texts["measured:0"].get_text() == "measured: 3 TB/s of 3.35 TB/s (90 %)"
    assert_labels_clear(figure)


def test_derates_lower_the_point_under_the_roof():
    # vector_add at n = 4096: t = 12 n / 3.35 TB/s = 14.7 ns against a 4 us launch
    # (h100.toml): factor t / (t + 4 us) = 0.00365
    figure = roofline_figure(SPECS / "vector_add.kcost", H100, settings={"n": 4096})
    seconds = 12 * 4096 / HBM
    factor = seconds / (seconds + 4e-6)
    model = lines_by_gid(figure)["model:0"]
    assert model.get_ydata()[0] == pytest.approx(HBM / 12 * factor)
    assert texts_by_gid(figure)["model:0"].get_text() == \
        "model 1.02 GFLOP/s: launch ×0.0037"
    # at n = 1e8 the launch costs 0.01 %: no point apart from the roof's
    large = roofline_figure(SPECS / "vector_add.kcost", H100, settings={"n": 10**8})
    assert "model:0" not in lines_by_gid(large)


def test_svg_text_stays_text(tmp_path):
    figure = roofline_figure(SPECS / "vector_add.kcost", H100, settings={"n": 10**8})
    svg = save(figure, tmp_path / "figure.svg").read_text()
    assert "vector_add: HBM binds" in svg and "<text" in svg


def test_figure_paths_per_machine():
    assert [str(p) for p in figure_paths(["fig.svg", "out/fig.png"], "h100", False)] == [
        "fig.svg", "out/fig.png"]
    assert [str(p) for p in figure_paths(["fig.svg"], "b200", True)] == ["fig.b200.svg"]


def test_settings_of_one_spec():
    shared, own = split_by_spec(["M=N,K=N", "gemm_tiled:T=64,N=2048"], ["gemm_tiled", "gemm"],
                                "--set")
    assert shared == ["M=N", "K=N"]
    assert own == {"gemm_tiled": ["T=64", "N=2048"], "gemm": []}
    # each item of a list scoped on its own, a name's scope running to the next name
    shared, own = split_by_spec(["gemm_tiled:T=64,gemm_tiled:N=2048", "K=N,gemm:M=8,N=16"],
                                ["gemm_tiled", "gemm"], "--set")
    assert shared == ["K=N"]
    assert own == {"gemm_tiled": ["T=64", "N=2048"], "gemm": ["M=8", "N=16"]}
    assert split_by_spec(["gemm:412us"], ["gemm"], "--measured") == ([], {"gemm": ["412us"]})
    with pytest.raises(KcostError, match="no spec named `gemm_tild`"):
        split_by_spec(["gemm_tild:T=64"], ["gemm_tiled"], "--set")


def run_plot(capsys, *arguments) -> tuple[int, str]:
    """`kernelcost plot` through the program's entry point in this process (no start-up of
    its own): the exit code and stderr. test_plot.py's test_plot_cli runs the program."""
    from kernelcost.cli import main

    code = main(["plot", *map(str, arguments)])
    return code, capsys.readouterr().err


def test_plot_cli_several_machines_and_own_sizes(tmp_path, capsys):
    code, err = run_plot(capsys, SPECS / "gemm_tiled.kcost", SPECS / "gemm.kcost", "--machine",
                         "h100,b200", "--set", "M=N,K=N,N=4096", "--set", "gemm_tiled:T=64",
                         "-o", tmp_path / "fig.svg")
    assert code == 0, err
    for machine in ("h100", "b200"):
        svg = (tmp_path / f"fig.{machine}.svg").read_text()
        assert "gemm_tiled (T=64): shared binds" in svg
        assert "gemm_tiled (M=N, K=N, N=4096, T=64), bf16" in svg  # the legend's sizes


@pytest.mark.parametrize("arguments, message", [
    (["--set", "n=1e8", "--set", "vadd:n=8"], "no spec named `vadd`"),
    (["--set", "n=1e8", "--machine", "b200", "--measured", "1ms"], "one --machine"),
    (["--measured", "1ms"], "set every parameter"),
])
def test_plot_cli_refuses_with_a_hint(tmp_path, arguments, message, capsys):
    code, err = run_plot(capsys, SPECS / "vector_add.kcost", "--machine", "h100", *arguments,
                         "--sweep", "n=64..4096", "-o", tmp_path / "fig.svg")
    assert code == 2 and message in err, err
    assert "Traceback" not in err


def _line_at(line, x: float) -> float | None:
    """The line's y at x (log-log interpolation), or None where it does not reach x."""
    xs, ys = numpy.asarray(line.get_xdata(), float), numpy.asarray(line.get_ydata(), float)
    if len(xs) < 2 or not xs.min() * (1 - 1e-9) <= x <= xs.max() * (1 + 1e-9):
        return None
    order = numpy.argsort(xs)
    return float(numpy.exp(numpy.interp(numpy.log(x), numpy.log(xs[order]),
                                        numpy.log(ys[order]))))


@pytest.mark.parametrize("spec, machine, sizes", [
    ("flash_attention_blackwell.kcost", "b200", {"S": 4096, "H": 16, "d": 64}),
    ("flash_attention_hopper.kcost", "h100", {"S": 4096, "H": 16}),
    ("flash_attention.kcost", "h100", {"S": 4096, "H": 16, "d": 64}),
    ("softmax_rows.kcost", "h100", {"R": 8192, "n": 4096}),
    ("gemm_hopper.kcost", "mi300x", {"M": 8192, "N": 8192, "K": 8192}),
    ("rmsnorm.kcost", "h100", {"R": 4096, "n": 8192}),
    ("decode_attention.kcost", "h100", {"b": 64, "h": 64, "L": 4096}),
])
def test_every_point_is_under_its_lines_and_the_binding_one_touches(spec, machine, sizes):
    """Read from the artists: each level's point lies on or under its level's slope and
    every roof and ceiling drawn at its intensity, and some point on one of them (the roof
    that binds). On a B200 an attention at d = 64 is bound by its exponentials: its points
    sat on the tensor roof, above what the SFU lets it run at. Every label is clear of the
    others and of the lines (the model's, listing every derate, ran off the figure; a roof's
    crowded by a ceiling next to it)."""
    placed = scene(SPECS / spec, load_machine(machine), settings=sizes)
    figure = draw(placed)
    assert_labels_clear(figure)
    lines = lines_by_gid(figure)
    peak = placed.kernels[0].peak_FLOPps  # the roof of the units it runs on, and its ceilings
    flat = [line for gid, line in lines.items() if gid.startswith("ceiling:")
            or (gid.startswith("roof:") and line.get_ydata()[0] == pytest.approx(peak))]
    points = [line for gid, line in lines.items() if gid.startswith("point:")]
    assert points
    closest = []
    for point in points:
        x, y = point.get_xdata()[0], point.get_ydata()[0]
        own = lines["slope:" + point.get_gid().split(":")[2]]
        heights = [h for h in (_line_at(line, x) for line in [own, *flat]) if h is not None]
        assert all(y <= h * (1 + 1e-9) for h in heights), (point.get_gid(), y, heights)
        closest.append(min(heights) / y)
    # the binding line touches a point, or sits above it by the busiest SM's share where a
    # per-SM roof binds: ceil(B / SMs) blocks where the slope drawn takes B / SMs
    cost = kernelcost.load(SPECS / spec).cost()
    values = {p: sizes.get(p.name, cost.defaults.get(p)) for p in cost.parameters}
    grid = verdict(cost, placed.machine, values=values).grid
    blocks, sms = (1, 1) if grid is None else (int(grid.occupancy.blocks),
                                               placed.machine.sm_count)
    quantised = -(-blocks // sms) / (blocks / sms)  # 1 for a spec without a grid
    assert 1 - 1e-9 <= min(closest) <= quantised * (1 + 1e-9), (min(closest), quantised)


@pytest.mark.slow
def test_every_shipped_spec_places_every_label_on_three_machines():
    """Every shipped spec at its documented sizes, on H100, B200 and MI300X (108 figures, the
    ones a machine does not run included): every label placed and clear (the pixel test).
    Ten were left crowded with the candidate rings ending at 96 points: a long kernel label
    ('... not run on this machine') or a model label by the top right corner found no
    place in them."""
    from conftest import sample_spent
    from test_three_times import _free, documented_sizes

    drawn = 0
    for path in sorted(SPECS.glob("*.kcost")):
        sizes = documented_sizes(path.stem, _free(kernelcost.load(path).cost()))[0]
        for machine in ("h100", "b200", "mi300x"):
            if sample_spent():
                return
            try:
                figure = roofline_figure(path, load_machine(machine), settings=sizes)
            except KcostError:
                continue  # a size the spec refuses on this machine: no figure to place
            drawn += 1
            assert_labels_clear(figure)  # every label placed, clear of the others and lines
    assert drawn >= 100
