"""What a roofline figure costs, stage by stage, for the README's figures: the scene (the
numbers: verdicts, sweeps, crossings, capacity limits), drawing it, placing its labels
(`placement.place`: the layout render it needs, then the candidates), and writing the SVG,
with the share of the total that placing takes. Medians of a few runs in one
process; the ratios are the figures to compare between machines.

    .venv/bin/python bench/figure_cost.py [--repeats 3]"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from kernelcost.lang.sizerange import parse_range
from kernelcost.present import plot
from kernelcost.present.scene import scene

SPECS = Path(__file__).resolve().parent.parent / "specs"
SQUARE = {"M": "N", "K": "N", "N": 4096}
FIGURES = {  # as docs/figures/make_figures.sh draws them
    "gemm_tiled over N": (["gemm_tiled"], ["bf16"], SQUARE, "N=64..65536"),
    "gemm_tiled over T": (["gemm_tiled"], ["bf16"], {"M": 8192, "N": 8192, "K": 8192},
                          "T=16..8192"),
    "llm_decode over b": (["llm_decode"], ["bf16"], {"Theta": "70e9", "b": 1}, "b=1..4096"),
    "vector_add": (["vector_add"], ["fp32"], {"n": "1e8"}, None),
    "gemm compare": (["gemm_naive", "gemm_tiled", "gemm"], [], SQUARE, "N=64..65536"),
}


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def one_run(names, precisions, settings, sweep) -> tuple[float, float, float, float, int]:
    size_range = parse_range(sweep) if sweep else None
    scene_s, figure_scene = timed(lambda: scene([SPECS / f"{n}.kcost" for n in names], "h100",
                                                precisions, settings=settings,
                                                size_range=size_range))
    placing = []
    real_place = plot.place

    def place_timed(figure, axes, labels):
        seconds, crowded = timed(lambda: real_place(figure, axes, labels))
        placing.append((seconds, len(labels)))
        return crowded

    plot.place = place_timed
    try:
        draw_s, figure = timed(lambda: plot.draw(figure_scene))
    finally:
        plot.place = real_place
    svg_s, _ = timed(lambda: plot.svg_text(figure))
    place_s, labels = placing[0]
    return scene_s, draw_s - place_s, place_s, svg_s, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    print("| figure | labels | scene (s) | draw (s) | place labels (s) | write SVG (s) "
          "| place / total |")
    print("|---|---|---|---|---|---|---|")
    for name, (specs, precisions, settings, sweep) in FIGURES.items():
        runs = [one_run(specs, precisions, settings, sweep) for _ in range(repeats)]
        scene_s, draw_s, place_s, svg_s = (statistics.median(run[i] for run in runs)
                                           for i in range(4))
        total = scene_s + draw_s + place_s + svg_s
        print(f"| {name} | {runs[0][4]} | {scene_s:.3f} | {draw_s:.3f} | {place_s:.3f} | "
              f"{svg_s:.3f} | {place_s / total:.2f} |")


if __name__ == "__main__":
    main()
