"""`tune` (the vectorised ranking of tile sizes) and `phase` (the plane of what binds), read
back structurally: rows, reasons, and the figure's artists by their gid."""

import json
import math
import re

import numpy
import pytest
from conftest import SPECS

from kernelcost.analysis.api import load
from kernelcost.answers.rejections import BrokenFact, Rejected
from kernelcost.answers.tune import Evaluator, fixed_values, tune
from kernelcost.base.errors import KcostError
from kernelcost.cli import main
from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.sizerange import parse_values
from kernelcost.present.phase import CATEGORIES, draw, parse_axis, phase
from kernelcost.present.roofs import device_word
from kernelcost.present.tune_report import rejection_text

H100 = load_machine("h100")
SQUARE_8192 = {"M": "N", "K": "N", "N": "8192"}


@pytest.fixture(scope="module")
def hopper():
    return tune(load(SPECS / "gemm_hopper.kcost"), H100, ["TM", "TN", "TK"],
                parse_values(None, True), SQUARE_8192)


def test_values():
    assert parse_values(None, True).tolist() == [16, 32, 64, 128, 256, 512]
    assert parse_values("16..64", False).tolist() == [16, 32, 48, 64]
    assert parse_values("16..64:8", True).tolist() == [16, 32, 64]
    assert parse_values("64,128,96", False).tolist() == [64, 96, 128]
    with pytest.raises(KcostError):
        parse_values("big", False)


def test_first_row_fits_and_cutlass_family_in_top_five(hopper):
    assert hopper.candidates == 216
    first = hopper.top[0]
    tm, tn, tk = first.values
    # shared: 4 stages x (TM + TN) x TK bf16 within 227 KiB per block (+1 KiB reserved)
    assert 8 * tk * (tm + tn) + 1024 <= 233472
    # registers: the f32 accumulator plus the MMA fragments, 2 (2 TM TN + TN WK + WK WM) B
    assert 2 * (2 * tm * tn + tn * 16 + 16 * 64) <= 65536 * 4
    top5 = {row.values[:2] for row in hopper.top[:5]}
    assert (128, 256) in top5 and (256, 128) in top5


def test_t_bound_by_hand(hopper):
    # 128 x 256 at N = 8192: 2048 blocks, the busiest of 132 SMs runs ceil(2048/132) = 16,
    # each 2 x 8192 x 128 x 256 FLOP on one SM's bf16 tensor rate at the maximum clock,
    # 4096 FLOP per clock x 1.98 GHz (H100 whitepaper; module clocks)
    row = next(r for r in hopper.top if r.values == (128, 256, 16))
    assert row.blocks == 2048 and row.waves == 16 and device_word(row.binding) == "tensor"
    assert row.t_bound == pytest.approx(16 * 2 * 8192 * 128 * 256 / (4096 * 1.98e9))


def test_ties_go_to_fewer_bytes_then_the_squarer_tile(hopper):
    for first in (hopper.top[0], hopper.top[3]):  # the tensor-bound ties, the L2-bound ones
        tied = [r for r in hopper.top if r.t_bound == pytest.approx(first.t_bound)]
        bytes_on_chip = [r.on_chip_B for r in tied]
        assert len(tied) > 1 and bytes_on_chip == sorted(bytes_on_chip)
    # 256 x 128 x 16 before 64 x 512 x 16: both bound by L2 at the tensor peak's maximum
    # clock (128 x 256 tiles move fewer L2 bytes and stay tensor-bound), fewer bytes first
    order = [r.values for r in hopper.top]
    assert hopper.top[0].values == (128, 256, 16)
    assert order.index((256, 128, 16)) < order.index((64, 512, 16))


def test_rejections_carry_their_reason(hopper):
    assert {r.reason for r in hopper.rejected} >= {Rejected.ASSUMPTION, Rejected.SHARED,
                                                   Rejected.REGISTERS}
    broken = [r.figures for r in hopper.rejected if isinstance(r.figures, BrokenFact)]
    assert any(str(f.divisor) == "WM" and str(f.dividend) == "TM" for f in broken)
    texts = {rejection_text(r).split(":")[0].split(" (")[0] for r in hopper.rejected}
    assert any(text.startswith("breaks `assume WM | TM`") for text in texts)
    assert "does not fit in shared memory" in texts
    assert "does not fit in registers" in texts
    counts = dict(hopper.rejected_by)
    assert sum(counts.values()) + hopper.fitting == hopper.candidates


def test_vectorised_matches_the_execution_model():
    # one candidate through the sympy model (execution.grid_verdict) and through numpy
    from kernelcost.analysis.api import analyze
    from kernelcost.gpu.execution import grid_verdict

    sizes = {"M": 4096, "N": 4096, "K": 4096, "TM": 128, "TN": 128, "TK": 64}
    result = analyze(SPECS / "gemm_hopper.kcost", sizes)
    verdict = grid_verdict(result.cost, H100, "bf16", result.values,
                           {c: q.expr for c, q in result.work_by_class.items()})
    spec = load(SPECS / "gemm_hopper.kcost")
    fixed = fixed_values(spec, ["TM", "TN"], {"M": "4096", "N": "4096", "K": "4096",
                                              "TK": "64"})
    evaluation = Evaluator(spec, H100, ["TM", "TN"], fixed)([numpy.array([128.0]),
                                                              numpy.array([128.0])])
    assert evaluation.t_bound[0] == pytest.approx(float(verdict.t_bound))


def test_cli(capsys):
    assert main(["tune", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100", "--vary",
                 "TM,TN,TK", "--pow2", "--set", "M=N,K=N,N=8192"]) == 0
    out = capsys.readouterr().out
    assert "rank" in out and "ties:" in out and "the spec's own configuration" in out
    assert main(["tune", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100", "--vary",
                 "TM,TX"]) == 2


@pytest.fixture(scope="module")
def tiled_phase():
    return phase(load(SPECS / "gemm_tiled.kcost"), H100, parse_axis("N=64..65536"),
                 parse_axis("T=16..1024"), {"T": "128", "N": "4096"}, points=(40, 30))


def test_phase_ridge_curve_is_the_solved_crossing(tiled_phase):
    figure = draw(tiled_phase)
    lines = {line.get_gid(): line for line in figure.axes[0].get_lines()}
    ridge = lines["ridge:global"]
    x, y = map(numpy.asarray, ridge.get_data())
    ok = ~numpy.isnan(x)
    # I = N T / (2N + T) = P/B  =>  N = r T / (T - 2 r), r = 990/3.35 (M = K = N)
    r = 990e12 / 3.35e12
    assert x[ok] == pytest.approx(r * y[ok] / (y[ok] - 2 * r))
    assert y[ok].min() > 2 * r  # only a tile of T > 2 r = 591 reaches the HBM ridge
    # and `solve --for N` gives the same crossing at T = 1024 (the top of the plane)
    from kernelcost.analysis.api import analyze
    from kernelcost.answers.solve import solve_spec
    result = analyze(SPECS / "gemm_tiled.kcost", {"M": "N", "K": "N", "T": 1024})
    (solution,) = solve_spec(result, "N", ["h100"], None, ["global"])
    (crossing,) = solution.crossings
    top = numpy.flatnonzero(ok)[-1]
    assert y[top] == pytest.approx(1024)
    assert x[top] == pytest.approx(float(crossing.value))  # 698.95 = r T / (T - 2 r)
    fit = lines["fit:shared"]
    assert numpy.asarray(fit.get_ydata()) == pytest.approx(math.sqrt(233472 / 4))  # 4 T^2
    point = lines["point:spec"]
    assert (point.get_xdata()[0], point.get_ydata()[0]) == (4096, 128)


def test_a_point_off_the_plane_is_refused_at_its_setting_and_a_default_one_left_out():
    # the command-path campaign: `--set S=1e308` with --y S=1..4096 drew the point at
    # 1e308 on a log axis (numpy's overflow warning on stderr)
    from kernelcost.base.errors import SizeError

    with pytest.raises(SizeError) as caught:
        phase(load(SPECS / "gemm_tiled.kcost"), H100, parse_axis("N=64..65536"),
              parse_axis("T=16..1024", "--y"), {"T": "1e308", "N": "4096"}, points=(8, 8))
    diagnostic = caught.value.diagnostics[0]
    assert caught.value.code == "KC308" and diagnostic.span.file == "--set T"
    assert "off the plane" in diagnostic.message and "T=16..1024" in diagnostic.message
    # T's default, 128, off a plane of T = 256..1024: no point, no error
    found = phase(load(SPECS / "gemm_tiled.kcost"), H100, parse_axis("N=64..65536"),
                  parse_axis("T=256..1024", "--y"), {"N": "4096"}, points=(8, 8))
    assert found.point is None


def test_a_ridge_that_depends_on_the_y_size_alone_is_a_horizontal_line():
    # llm_decode's I_global = b: it meets the H100's ridge at b = 990/3.35 = 295.5 whatever
    # Theta is; the phase said "nowhere in the plane" while colouring both sides of it
    found = phase(load(SPECS / "llm_decode.kcost"), H100, parse_axis("Theta=1e9..1e11"),
                  parse_axis("b=1..1024"), {}, points=(20, 20))
    assert not [line for line in found.never if line.startswith("global")]
    (ridge,) = [curve for curve in found.curves if curve.gid == "ridge:global"]
    assert ridge.y == pytest.approx(990e12 / 3.35e12)
    assert ridge.x[0] == pytest.approx(1e9) and ridge.x[-1] == pytest.approx(1e11)
    # and the map changes colour there: HBM under the line, the compute roof above it
    hbm = CATEGORIES.index("HBM")
    assert (found.codes[found.ys < 290] == hbm).all()
    assert (found.codes[found.ys > 300] != hbm).all()


def test_phase_map_colours(tiled_phase):
    figure = draw(tiled_phase)
    mesh = next(c for c in figure.axes[0].collections if c.get_gid() == "phase:map")
    codes = numpy.asarray(mesh.get_array()).reshape(tiled_phase.codes.shape)
    ys = tiled_phase.ys
    unfit = CATEGORIES.index("does not fit")
    assert (codes[ys > 242] == unfit).all() and (codes[ys < 241] != unfit).all()
    # T >= 16: 4 MNK B at 30 TB/s outweighs 4MNK/T B at 3.35 TB/s: shared binds
    assert (codes[ys < 241] == CATEGORIES.index("shared")).all()


def test_phase_regions_are_named_and_the_axes_read_as_sizes(tiled_phase):
    # the map's colours were named only in the legend, and the log axes' minor ticks read
    # "2 x 10^2"
    figure = draw(tiled_phase)
    axes = figure.axes[0]
    figure.canvas.draw()
    regions = {text.get_gid(): text.get_text() for text in axes.texts
               if (text.get_gid() or "").startswith("region:")}
    present = sorted(set(numpy.unique(tiled_phase.codes).tolist()))
    assert sorted(regions.values()) == sorted(CATEGORIES[code] for code in present)
    for code in present:  # each name sits inside its own region
        text = next(t for t in axes.texts if t.get_gid() == f"region:{code}")
        x, y = text.get_position()
        column = numpy.abs(numpy.log(tiled_phase.xs) - numpy.log(x)).argmin()
        row = numpy.abs(numpy.log(tiled_phase.ys) - numpy.log(y)).argmin()
        assert tiled_phase.codes[row, column] == code
    labels = [t.get_text() for t in axes.get_xticklabels(minor=True) if t.get_text()]
    assert labels == []
    majors = [t.get_text() for t in axes.get_xticklabels() if t.get_text()]
    assert majors and all(re.fullmatch(r"[0-9]+|(?:[0-9]+·)?10\^[0-9]+", m) for m in majors)


def test_phase_cli(tmp_path):
    out = tmp_path / "phase.svg"
    assert main(["phase", str(SPECS / "gemm_tiled.kcost"), "--x", "N=64..65536", "--y",
                 "T=16..512", "--machine", "h100", "-o", str(out)]) == 0
    assert out.read_text().startswith("<?xml")


@pytest.mark.parametrize("command", ["tune", "analyze"])
def test_a_number_beyond_doubles_in_a_grid_spec_is_refused_at_it(tmp_path, capsys, command):
    # the command fuzz campaign (seed 20261207, input 18697): tune lambdified a grid whose
    # index held 1e19 and had no term left to stack (exit 3); analyze refused it already
    spec = tmp_path / "big.kcost"
    spec.write_text("kernel k(n) {\n    in x: f32[n]\n    out y: f32[n]\n"
                    "    for i in 0..n parallel(threads = 128) {\n"
                    "        y[i] = x[i] * 1e19\n    }\n}\n")
    argv = ([command, str(spec), "--machine", "h100", "--vary", "n", "--values", "16..64:16"]
            if command == "tune" else [command, str(spec), "--machine", "h100", "--set", "n=64"])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{spec}:5:23: error[KC318]: the number 1e19 is more than 2^53" in err


def test_a_candidate_outside_an_assumed_bound_is_rejected_and_counted(capsys):
    """softmax_torch_reg4 states `assume n <= 4096` (its instructions are those of the kernel
    torch runs for n up to 4096): n = 8192 and 10^15 are not candidates of that spec. They
    were ranked (third, at 5858 ms) with no word; now they are rejected as breaking an
    assumption, counted in the JSON, and the text names the fact and its two sides."""
    spec = str(SPECS / "softmax_torch_reg4.kcost")
    argv = ["tune", spec, "--machine", "h100", "--vary", "n=1024,4096,8192,1000000000000000",
            "--set", "R=4096"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [row["values"]["n"] for row in out["top"]] == [1024, 4096]
    assert (out["candidates"], out["fitting"]) == (4, 2)
    assert out["rejected"] == {"assumption": 2}
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "n=8192: breaks `assume n <= 4096` (8192 > 4096)" in text
    ranking = tune(load(SPECS / "softmax_torch_reg4.kcost"), H100,
                   ["n"], numpy.array([4096, 4097]), {"R": "64"}, show_rejected=1)
    assert [row.values for row in ranking.top] == [(4096,)]
    figures = ranking.rejected[0].figures
    assert ranking.rejected[0].reason == Rejected.ASSUMPTION
    assert (figures.left_value, figures.right_value) == (4097, 4096)


def test_a_candidate_whose_grid_holds_no_block_is_rejected_and_counted(capsys, tmp_path):
    """`for i0 in T..M by T` at M = T = 4 holds no block: the search ranked it first at 0 s
    (numpy warned of 0 / 0 on stderr) and the re-scoring then stopped the whole command
    (KC307). Now it is rejected, counted and named, and M = 8 is ranked."""
    spec = tmp_path / "empty.kcost"
    spec.write_text("kernel e(N, M, T = 4) {\n    in  x: f32[N]\n    out y: f32[N]\n"
                    "    for i0 in T..M by T parallel(threads = 256) {\n"
                    "        for i in i0..i0 + T { y[i] = 2 * x[i] }\n    }\n}\n")
    argv = ["tune", str(spec), "--machine", "h100", "--vary", "M=4,8,12", "--set", "N=10"]
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert captured.err == ""
    assert [row["values"]["M"] for row in out["top"]] == [8, 12]
    assert (out["candidates"], out["fitting"], out["rejected"]) == (3, 2, {"no block": 1})
    assert main(argv) == 0
    assert "M=4: the grid holds 0 blocks: a launch needs at least one" in capsys.readouterr().out


def test_phase_marks_the_sizes_outside_an_assumed_bound():
    """softmax_torch_reg4's `assume n <= 4096`: the plane over n = 64..65536 was coloured
    HBM or SFU past 4096 as within it, with no word; the spec's instructions are torch's for n up
    to 4096 only. Those sizes are now their own region, and the rest as before."""
    found = phase(load(SPECS / "softmax_torch_reg4.kcost"), H100, parse_axis("n=64..65536"),
                  parse_axis("R=1..4096"), {}, points=(40, 10))
    outside = CATEGORIES.index("outside an assume")
    assert (found.codes[:, found.xs > 4096] == outside).all()
    within = found.codes[:, found.xs <= 4096]
    assert (within != outside).all() and (within[-1] == CATEGORIES.index("HBM")).all()
    figure = draw(found)
    texts = {text.get_gid(): text.get_text() for text in figure.axes[0].texts}
    assert texts[f"region:{outside}"] == "outside an assume"


def test_a_candidate_whose_header_count_is_no_positive_whole_number_is_rejected(capsys, tmp_path):
    """`threads = T / 3`: at T = 128 a block of 128/3 threads, at T = 96 one of 32. The
    re-scoring refused the whole command at T = 128 (KC321), with T = 96 a fitting candidate
    beside it; `threads = T - 100` at T = 96 (-4 threads) likewise (KC307). Such a candidate
    is not one: rejected and counted, as one that does not fit."""
    spec = tmp_path / "th.kcost"
    spec.write_text("kernel th(n, T = 128) {\n    in  x: f32[n]\n    out y: f32[n]\n"
                    "    for b in 0..n by T parallel(threads = T / 3) {\n"
                    "        for i in b..min(b + T, n) {\n            y[i] = x[i] * 2\n"
                    "        }\n    }\n}\n")
    argv = ["tune", str(spec), "--machine", "h100", "--vary", "T=96,128", "--set", "n=4096"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [row["values"]["T"] for row in out["top"]] == [96]
    assert (out["fitting"], out["rejected"]) == (1, {"header count": 1})
    assert main(argv) == 0
    assert "T=128: the thread count `threads` is 42.6667, not a positive whole number" in \
        " ".join(capsys.readouterr().out.split())
    spec.write_text(spec.read_text().replace("T / 3", "T - 100"))
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [row["values"]["T"] for row in out["top"]] == [128]
    assert out["rejected"] == {"header count": 1}


def test_one_candidate_and_one_pareto_point_read_in_the_singular(capsys):
    """A space of one tile said `1 candidates, 1 fit` and `(1 candidates, fewest bytes
    first)`: no count of one in tune's text takes a plural noun."""
    main(["tune", str(SPECS / "gemm_hopper.kcost"), "--machine", "h100", "--vary",
          "TM=128,TN=256", "--set", "M=8192,N=8192,K=8192", "--pareto"])
    text = capsys.readouterr().out
    assert "1 candidate, 1 fit" in text and "(1 candidate, fewest bytes first)" in text
    assert not re.search(r"(?<![\d.,])1 (?!ms\b|s\b)[a-z]+s\b", text), text
