"""Stage: WholeModel per machine -> the throughput/latency curve (`kernelcost model --curve`).

A serving engine trades latency for throughput with the batch: each point is one batch, at
its time per output token (x: a decode step, t_model with the launches and the collectives
where timed) and the tokens the step gives out per second (y: batch / that time). One line
a machine; a batch whose weights and KV cache do not fit the memory is drawn hollow."""

from __future__ import annotations

from pathlib import Path

from ..answers.wholemodel import Latency, WholeModel


def points(result: WholeModel) -> list[tuple[Latency, float, float, bool]]:
    """(latency, ms per output token, tokens/s, fits) of each batch."""
    found = []
    for latency in result.latencies():
        fits = result.memory.fits(latency.batch)
        found.append((latency, 1e3 * latency.tpot_s, latency.batch / latency.tpot_s,
                      fits is not False))
    return found


def curve_figure(results: list[WholeModel]):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    for result in results:
        found = points(result)
        line, = axes.plot([ms for _, ms, _, _ in found], [rate for _, _, rate, _ in found],
                          "-", label=result.machine.name)
        colour = line.get_color()
        for latency, ms, rate, fits in found:
            axes.plot([ms], [rate], "o", color=colour,
                      markerfacecolor=colour if fits else "none")
            axes.annotate(f"b={latency.batch}", (ms, rate), textcoords="offset points",
                          xytext=(4, -10), fontsize="x-small")
    first = results[0]
    gpus = f", {first.memory.gpus} GPUs" if first.memory.gpus > 1 else ""
    axes.set_title(f"{first.model.name}, context {first.context}{gpus}: throughput against "
                   "time per output token", fontsize="medium")
    axes.set_xlabel("time per output token, ms (t_model with launches and collectives)")
    axes.set_ylabel("output tokens/s")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.legend(fontsize="small", title="hollow: does not fit", title_fontsize="x-small")
    return figure


def save_curve(results: list[WholeModel], path: str | Path) -> Path:
    from .plot import save

    return save(curve_figure(results), path)
