"""The text roofline: where each character lands, read back from the string."""

import pytest
import sympy
from conftest import SPECS, size

import kernelcost
from kernelcost.answers.model import verdict
from kernelcost.hardware.machinefile import load_machine
from kernelcost.present.textplot import HEIGHT, LEVEL_MARKS, render

H100 = load_machine("h100")


@pytest.fixture(scope="module")
def gemm_text():
    analysis = kernelcost.analyze(SPECS / "gemm_tiled.kcost", {"M": "N", "K": "N", "N": 4096})
    return render(analysis, H100, "bf16", width=72)


def plot_rows(text: str) -> list[str]:
    """The rows of the plotting area, top first, without the y labels and axis."""
    lines = text.splitlines()
    return [line.split("│", 1)[1] if "│" in line else "" for line in lines[1:1 + HEIGHT]]


def test_every_line_fits_the_width(gemm_text):
    assert max(len(line) for line in gemm_text.splitlines()) <= 72


def test_one_mark_per_level_and_the_roof(gemm_text):
    rows = plot_rows(gemm_text)
    area = "\n".join(rows)
    assert area.count(LEVEL_MARKS["global"]) == 1 and area.count(LEVEL_MARKS["shared"]) == 1
    roof_row = next(i for i, row in enumerate(rows) if "──" in row)
    assert "990 TFLOP/s bf16 tensor peak" in rows[roof_row - 1]
    assert rows[roof_row].count("┬") == 2  # the HBM and shared ridges


def test_points_are_ordered_as_their_intensities(gemm_text):
    # shared: I = 1/2 at 15 TFLOP/s; HBM: I = 63 at 211 TFLOP/s: right of and above shared
    rows = plot_rows(gemm_text)
    row_of = {mark: next(i for i, row in enumerate(rows) if mark in row) for mark in "HS"}
    column_of = {mark: rows[row_of[mark]].index(mark) for mark in "HS"}
    assert column_of["H"] > column_of["S"]
    assert row_of["H"] < row_of["S"]  # rows counted from the top


def test_legend_gives_the_numbers(gemm_text):
    assert "I = 63.02 < ridge 295.5 FLOP/B: memory-bound, 211 TFLOP/s" in gemm_text
    assert "bound by shared bandwidth" in gemm_text


def test_verdicts_are_accepted_and_a_compute_bound_point_sits_on_the_roof():
    cost = kernelcost.load(SPECS / "llm_decode.kcost").cost()
    result = verdict(cost, H100, "bf16", {size("Theta"): sympy.Integer(70 * 10**9),
                                          size("b"): sympy.Integer(1024)})
    text = render([result], H100)
    rows = plot_rows(text)
    roof_row = next(i for i, row in enumerate(rows) if "──" in row)
    assert "H" in rows[roof_row]  # I = b = 1024 > 295.5: at P
    assert "compute-bound, 990 TFLOP/s" in text


def test_symbolic_sizes_cannot_be_drawn():
    analysis = kernelcost.analyze(SPECS / "gemm.kcost")
    with pytest.raises(ValueError, match="symbolic"):
        render(analysis, H100)
