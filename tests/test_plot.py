"""The roofline figure, read back structurally: the coordinates of the lines and points drawn
and the texts written, not pixels."""

import itertools
import subprocess
import sys

import numpy
import pytest
import sympy
from conftest import SPECS, size
from matplotlib.text import Text

import kernelcost
from kernelcost.answers.solve import ridge_crossings
from kernelcost.base.errors import KcostError
from kernelcost.base.kinds import WorkClass
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.sizerange import parse_range
from kernelcost.present.plot import Roofline, draw, roofline_figure, save
from kernelcost.present.scene import scene, verdict_scene
from kernelcost.present.trajectory import crossing_label

H100 = load_machine("h100")
P_BF16 = 990e12  # H100 bf16 tensor peak (the roofline chapter's hardware table)
P_FP32 = 67e12
# H100 hierarchy: HBM and shared as the roofline chapter (§1.4); L2 the SXM figure (h100.toml)
BANDWIDTH = {"global": 3.35e12, "l2": 1.0e13, "shared": 30e12}


def assert_labels_clear(figure) -> None:
    """Every label, by its rendered extent, overlaps no other label and touches no drawn line
    or marker: each line is sampled every pixel in display space, independently of how the
    placement decided."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    axes = figure.axes[0]
    assert figure.crowded_labels == []
    boxes = [(text.get_text(), text_extent(text, renderer)) for text in axes.texts]
    for (first, a), (second, b) in itertools.combinations(boxes, 2):
        assert not a.overlaps(b), f"`{first}` overlaps `{second}`"
    for line in axes.get_lines():
        data = numpy.column_stack([line.get_xdata(), line.get_ydata()]).astype(float)
        data = data[numpy.isfinite(data).all(axis=1)]
        pixels = axes.transData.transform(data)
        if line.get_linestyle() not in ("None", "") and len(pixels) > 1:
            steps = [numpy.linspace(p, q, int(numpy.hypot(*(q - p))) + 2)
                     for p, q in itertools.pairwise(pixels)]
            pixels = numpy.vstack(steps)
        for text, box in boxes:
            inside = ((pixels[:, 0] > box.x0) & (pixels[:, 0] < box.x1)
                      & (pixels[:, 1] > box.y0) & (pixels[:, 1] < box.y1))
            assert not inside.any(), f"`{text}` lies on {line.get_gid()}"


def text_extent(annotation, renderer):
    """The rendered box of the text alone (an annotation's extent includes its leader)."""
    annotation.update_positions(renderer)
    return Text.get_window_extent(annotation, renderer)


def lines_by_gid(figure) -> dict:
    axes = figure.axes[0]
    return {line.get_gid(): line for line in axes.get_lines() if line.get_gid()}


def texts_by_gid(figure) -> dict:
    return {text.get_gid(): text for text in figure.axes[0].texts}


@pytest.fixture(scope="module")
def gemm_over_t():
    # gemm_tiled at N = 8192 as T grows: crosses the HBM ridge (chapter, example 4)
    return roofline_figure(SPECS / "gemm_tiled.kcost", H100, ["bf16"],
                           settings={"M": 8192, "N": 8192, "K": 8192},
                           size_range=parse_range("T=16..8192"))


@pytest.fixture(scope="module")
def gemm_over_n():
    return roofline_figure(SPECS / "gemm_tiled.kcost", H100, ["bf16", "fp32"],
                           settings={"M": "N", "K": "N", "N": 4096},
                           size_range=parse_range("N=64..65536"))


def test_roofs_slopes_and_ridges_carry_the_machine_figures(gemm_over_n):
    lines = lines_by_gid(gemm_over_n)
    assert set(lines["roof:bf16 tensor"].get_ydata()) == {P_BF16}
    assert set(lines["roof:fp32 vector"].get_ydata()) == {P_FP32}
    for level, bandwidth in BANDWIDTH.items():
        slope = lines[f"slope:{level}"]
        x, y = map(numpy.asarray, slope.get_data())
        assert y / x == pytest.approx([bandwidth, bandwidth])
        assert y[-1] == pytest.approx(P_BF16)  # the slope stops at the highest roof
        ridge = lines[f"ridge:{level}:bf16"]
        assert ridge.get_xdata()[0] == pytest.approx(P_BF16 / bandwidth)  # I_crit = P / B
        assert ridge.get_ydata()[0] == pytest.approx(P_BF16)
    # chapter's table: H100 BF16 ridge 295.5 FLOP/B, written beside its marker
    assert texts_by_gid(gemm_over_n)["ridge:global:bf16"].get_text() == "295.5 FLOP/B"


def test_kernel_point_sits_under_its_roof(gemm_over_n):
    lines = lines_by_gid(gemm_over_n)
    # gemm_tiled, M = N = K = 4096, T = 128: I_global = N T / (2N + T) = 4096/65; every inner
    # access served by shared, I_shared = 1/2: shared binds, W / t_min = I_shared B_shared,
    # and each level's point is at that rate, the shared one on its slope
    rate = 0.5 * BANDWIDTH["shared"]
    point = lines["point:0:global"]
    assert point.get_xdata()[0] == pytest.approx(4096 * 128 / (2 * 4096 + 128))
    assert point.get_ydata()[0] == pytest.approx(rate)
    shared = lines["point:0:shared"]
    assert shared.get_xdata()[0] == pytest.approx(0.5)
    assert shared.get_ydata()[0] == pytest.approx(rate)


def test_sweep_path_follows_the_closed_form(gemm_over_n):
    path = lines_by_gid(gemm_over_n)["path:0:global"]
    x, y = map(numpy.asarray, path.get_data())
    n = numpy.geomspace(64, 65536, len(x))
    assert x == pytest.approx(n * 128 / (2 * n + 128), rel=1e-12)
    assert y == pytest.approx(numpy.minimum(P_BF16, x * BANDWIDTH["global"]), rel=1e-12)


def test_never_crossing_is_annotated_with_the_limit(gemm_over_n):
    # I -> T/2 = 64 < 295.5 for every N: no crossing (chapter, example 4)
    texts = texts_by_gid(gemm_over_n)
    assert not any(gid.startswith("crossing") for gid in texts)
    assert texts["never:0:global"].get_text() == "never crosses: I → 64 < 295.5 FLOP/B"


def test_crossing_annotation_is_the_value_solve_gives(gemm_over_t):
    crossing, = ridge_crossings(kernelcost.load(SPECS / "gemm_tiled.kcost").cost(), "T", H100,
                                "bf16", "global", {"M": 8192, "N": 8192, "K": 8192})
    annotation = texts_by_gid(gemm_over_t)["crossing:0:global"]
    assert annotation.get_text() == crossing_label("T", float(crossing.value))
    assert annotation.get_text() == "T* = 613.2"  # 16384 R / (8192 - R), R = 19800/67
    assert float(annotation.get_text().split("= ")[1]) == pytest.approx(
        float(crossing.value), rel=1e-4)
    x, y = annotation.xy  # the arrow points at the ridge, where the path meets it
    assert x == pytest.approx(P_BF16 / BANDWIDTH["global"]) and y == pytest.approx(P_BF16)


def test_llm_decode_crosses_at_b_star_295_5():
    # chapter, example 5: I ~ b, compute-bound from b* ~ 296
    figure = roofline_figure(SPECS / "llm_decode.kcost", H100, settings={"Theta": 70e9},
                             size_range=parse_range("b=1..4096"))
    assert texts_by_gid(figure)["crossing:0:global"].get_text() == "b* = 295.5"
    assert "point:0:global" not in lines_by_gid(figure)  # b unset: a path, no point


def test_labels_do_not_overlap_and_the_legend_is_outside(gemm_over_t, gemm_over_n):
    for figure in (gemm_over_t, gemm_over_n):
        assert_labels_clear(figure)
        renderer = figure.canvas.get_renderer()
        legend = figure.legends[0].get_window_extent(renderer)
        assert not legend.overlaps(figure.axes[0].get_window_extent(renderer))


def test_axes_say_their_units(gemm_over_n):
    axes = gemm_over_n.axes[0]
    assert axes.get_xscale() == axes.get_yscale() == "log"
    assert "(FLOP/B)" in axes.get_xlabel() and "(FLOP/s)" in axes.get_ylabel()


def test_several_specs_on_one_figure():
    figure = roofline_figure([SPECS / "gemm_naive.kcost", SPECS / "gemm.kcost"], H100,
                             ["fp32"], settings={"M": 4096, "N": 4096, "K": 4096})
    lines = lines_by_gid(figure)
    # one colour per kernel; the level is the marker
    assert lines["point:0:global"].get_markerfacecolor() != \
        lines["point:1:global"].get_markerfacecolor()
    assert lines["point:0:global"].get_marker() == lines["point:1:global"].get_marker() == "o"
    # gemm, perfect reuse (chapter, example 2), placed at fp32: its bf16 types mapped to f32
    # (issue 34), I = 2N^3 / (3 N^2 * 4 bytes) = N / 6 = 682.7 (1365.3 at its own bf16)
    assert lines["point:1:global"].get_xdata()[0] == pytest.approx(4096 / 6, rel=1e-4)
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert any(label.startswith("gemm_naive") for label in labels)


def test_the_sfu_is_a_ceiling_of_the_kernels_that_use_it_in_their_own_flop():
    """The machine's SFU rate is no roof of every FLOP: it sat far under the attentions that
    use it. An attention's exponentials are a share of its FLOP, and its SFU ceiling, W over
    their time, is drawn beside it; on a B200 at d = 64 it binds, and the points sit on it."""
    b200 = load_machine("b200")
    placed = scene(SPECS / "flash_attention_blackwell.kcost", b200,
                   settings={"S": 4096, "H": 16, "d": 64})
    assert not any(roof.unit == "sfu" for roof in placed.roofs)
    [kernel] = placed.kernels
    [sfu] = [ceiling for ceiling in kernel.ceilings if ceiling.unit == "sfu"]
    assert {point.performance for point in kernel.points.values()} == {sfu.performance}
    assert kernel.bound_by == "sfu"
    label = texts_by_gid(draw(placed))["kernel:0"].get_text()
    assert label == "flash_attention_blackwell: sfu binds"
    rate = float(b200.ceiling(kernel.precision, WorkClass.SFU).peak_FLOPps)
    assert rate < sfu.performance < float(b200.ceiling(kernel.precision,
                                                       WorkClass.TENSOR).peak_FLOPps)
    # softmax at n = 4096 is HBM-bound, its SFU ceiling 9x above: not drawn
    softmax = scene(SPECS / "softmax.kcost", H100, settings={"n": 4096})
    assert softmax.kernels[0].ceilings == ()
    vector_add = scene(SPECS / "vector_add.kcost", H100, settings={"n": 10**8})
    assert vector_add.kernels[0].ceilings == ()  # one class does all its work


def test_a_symbolic_kernel_without_sweep_is_a_user_error():
    with pytest.raises(KcostError, match="set every size"):
        scene(SPECS / "gemm.kcost", H100)


def test_save_formats(tmp_path, gemm_over_t):
    for suffix in ("svg", "png", "pdf"):
        path = save(gemm_over_t, tmp_path / f"figure.{suffix}")
        assert path.stat().st_size > 1000
    with pytest.raises(KcostError, match=r"\.svg, \.png"):
        save(gemm_over_t, tmp_path / "figure.jpg")
    # rendered twice, the same SVG: the committed figures do not churn
    save(gemm_over_t, tmp_path / "again.svg")
    assert (tmp_path / "figure.svg").read_bytes() == (tmp_path / "again.svg").read_bytes()


def test_notebook_display():
    analysis = kernelcost.analyze(SPECS / "vector_add.kcost", {"n": 10**8})
    assert "$12 n$" in analysis._repr_markdown_()  # Q = 12 n (chapter, example 1)
    assert r"\frac{1}{12}" in analysis._repr_latex_()
    figure = analysis.roofline("h100")
    assert isinstance(figure, Roofline) and "<svg" in figure._repr_svg_()
    from kernelcost.answers.model import verdict

    result = verdict(analysis.cost, H100, None, {size("n"): sympy.Integer(10**8)})
    (point,) = verdict_scene(result).kernels[0].points.values()
    assert point.intensity == pytest.approx(1 / 12)
    assert "<svg" in result._repr_svg_()


def test_importing_kernelcost_loads_neither_matplotlib_nor_rich():
    code = ("import sys, kernelcost; kernelcost.analyze(sys.argv[1], {'n': 8}); "
            "import kernelcost.present.sweep, kernelcost.present.textplot; "
            "import kernelcost.present.plot; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('matplotlib', 'rich')))")
    completed = subprocess.run([sys.executable, "-c", code, str(SPECS / "vector_add.kcost")],
                               capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "[]"


def test_plot_cli(tmp_path):
    output = tmp_path / "roofline.png"
    completed = subprocess.run(
        [sys.executable, "-m", "kernelcost.cli", "plot", str(SPECS / "gemm_tiled.kcost"),
         str(SPECS / "gemm.kcost"), "--machine", "h100", "--precision", "bf16",
         "--set", "M=N,K=N", "--sweep", "N=64..65536", "-o", str(output)],
        capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    assert output.stat().st_size > 10000


def test_draw_is_separate_from_the_numbers():
    figure_scene = scene(SPECS / "vector_add.kcost", H100, settings={"n": 10**8})
    point = figure_scene.kernels[0].points["global"]
    assert figure_scene.kernels[0].peak_FLOPps == P_FP32
    assert point.intensity == pytest.approx(1 / 12)
    assert point.performance == pytest.approx(3.35e12 / 12)  # the scene computes the height
    assert lines_by_gid(draw(figure_scene))["point:0:global"].get_ydata()[0] == \
        point.performance


def test_plot_shows_a_progress_bar_on_a_terminal_only(tmp_path, capsys, monkeypatch):
    """Issue 16.15: a bar over the kernels of a figure on stderr, when it is a terminal."""
    from kernelcost.cli import main

    specs = [str(SPECS / "vector_add.kcost"), str(SPECS / "gemm.kcost")]
    command = ["plot", *specs, "--machine", "h100", "--set", "n=1e6,M=N,K=N,N=4096",
               "-o", str(tmp_path / "figure.svg")]
    assert main(command) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(command) == 0
    assert "drawing" in capsys.readouterr().err
