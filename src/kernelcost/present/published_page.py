"""The printed table, the summaries and the figure of `kernelcost validate --published`."""

from __future__ import annotations

from pathlib import Path

from ..algebra.jsonout import print_json
from ..answers.published import Family, Split
from ..answers.published_report import (
    ModelsOther,
    Result,
    Summary,
    TiledFor,
    compare_corpus,
    summaries,
)
from ..base.units import si

# one colour per family (matplotlib's tab10, in Family's order)
COLOURS = dict(zip(Family, ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple",
                            "tab:brown", "tab:pink", "tab:gray", "tab:olive")))


def _time(value: float | None) -> str:
    return "-" if value is None else si(value, "s")


def _signed_percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f} %"


def row_lines(results: list[Result]) -> list[str]:
    head = (f"{'source:line':<32} {'machine':<7} {'family':<17} {'t_floor':>9} {'t_bound':>9} "
            f"{'t_model':>9} {'cold':>9} {'measured':>9} {'error':>9}  sizes")
    lines = [head, "-" * len(head)]
    for r in results:
        where = f"{r.row.source}:{r.row.line}"
        sizes = ";".join(f"{k}={v}" for k, v in r.row.sizes.items())
        lines.append(f"{where:<32} {r.row.machine.value:<7} {r.row.family.value:<17} "
                     f"{_time(r.t_floor):>9} {_time(r.t_bound):>9} {_time(r.t_model):>9} "
                     f"{_time(r.cold_start_s):>9} {_time(r.row.time_s):>9} "
                     f"{_signed_percent(r.error):>9}  {sizes}")
    return lines


def summary_lines(items: list[Summary]) -> list[str]:
    head = (f"{'split':<12} {'family':<17} {'rows':>5} {'median |error|':>15} "
            f"{'p90 |error|':>12} {'geomean measured/t_model':>25}")
    lines = [head, "-" * len(head)]
    for s in items:
        family = "all" if s.family is None else s.family.value
        lines.append(f"{s.split.value:<12} {family:<17} {s.rows:>5} "
                     f"{100 * s.median_abs_error:>13.1f} % {100 * s.p90_abs_error:>10.1f} % "
                     f"{s.geomean_measured_over_model:>24.3f}x")
    return lines


def beaten_lines(results: list[Result]) -> list[str]:
    lines = []
    for r in results:
        if r.floor_beaten:
            lines.append(f"{r.row.source}:{r.row.line} FLOOR BEATEN: measured "
                         f"{_time(r.row.time_s)} < t_floor {_time(r.t_floor)}")
        elif r.bound_beaten:
            reason = r.reason
            code = reason[0].value if reason else "UNEXPLAINED"
            note = reason_text(reason[1]) if reason else "no reason from the fixed list applies"
            lines.append(f"{r.row.source}:{r.row.line} t_bound beaten: measured "
                         f"{_time(r.row.time_s)} < t_bound {_time(r.t_bound)} [{code}] {note}")
    return lines


def reason_text(reason: TiledFor | ModelsOther | str) -> str:
    """Why a row beat t_bound, in words (a reading is written with the corpus already)."""
    if isinstance(reason, TiledFor):
        return f"{reason.spec} is tiled for {', '.join(reason.machines)}"
    if isinstance(reason, ModelsOther):
        return f"{reason.implementation}; the spec models {reason.model}"
    return reason


_NO_STAMP = {".png": {"Software": None}, ".svg": {"Date": None}, ".pdf": {"CreationDate": None}}


def figure(results: list[Result], path: str | Path) -> Path:
    """Predicted (t_model, with the cold start of a row timed cold) against measured, log-log,
    one colour per family, 1:1 and +-10 %."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    fig, axes = plt.subplots(figsize=(7, 6.5))
    points = [r for r in results if r.predicted]
    low = min(min(r.row.time_s, r.predicted or 1) for r in points) / 1.5
    high = max(max(r.row.time_s, r.predicted or 0) for r in points) * 1.5
    axes.plot([low, high], [low, high], color="black", linewidth=1, label="1:1")
    axes.fill_between([low, high], [low * 0.9, high * 0.9], [low * 1.1, high * 1.1],
                      color="gray", alpha=0.25, label="±10 %")
    for family in Family:
        for split, marker in ((Split.CALIBRATION, "o"), (Split.VALIDATION, "^")):
            chosen = [r for r in points if r.row.family is family and r.row.split is split]
            if chosen:
                axes.scatter([r.row.time_s for r in chosen],
                             [r.predicted or 0.0 for r in chosen],
                             s=18, marker=marker, color=COLOURS[family],
                             label=f"{family.value} ({split.value})")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_xlabel("measured time (s)")
    axes.set_ylabel("t_model + cold start (s)")
    axes.set_title("kernelcost t_model against published measurements")
    axes.legend(fontsize=6.5, loc="upper left", ncol=2)
    fig.tight_layout()
    # reproducible files, each format's own key: `Software` of a .svg or .pdf was a
    # ValueError of matplotlib's SVG writer (exit 3) after the whole corpus was compared
    suffix = path.suffix.lower()
    fig.savefig(path, dpi=120, format=suffix[1:], metadata=_NO_STAMP[suffix])
    plt.close(fig)
    return path


def published_json(results: list[Result]) -> dict:
    """The rows, the summaries and the beaten bounds as one JSON object (times in s)."""
    return {
        "rows": [{"source": r.row.source, "line": r.row.line, "machine": r.row.machine.value,
                  "family": r.row.family.value, "split": r.row.split.value,
                  "sizes": dict(r.row.sizes), "t_floor_s": r.t_floor, "t_bound_s": r.t_bound,
                  "t_model_s": r.t_model, "cold_start_s": r.cold_start_s,
                  "measured_s": r.row.time_s, "error": r.error,
                  "floor_beaten": r.floor_beaten, "bound_beaten": r.bound_beaten,
                  "reason": None if r.reason is None else r.reason[0].value}
                 for r in results],
        "summaries": [{"split": s.split.value,
                       "family": None if s.family is None else s.family.value,
                       "rows": s.rows, "median_abs_error": s.median_abs_error,
                       "p90_abs_error": s.p90_abs_error,
                       "geomean_measured_over_model": s.geomean_measured_over_model}
                      for s in summaries(results)],
    }


def run(args) -> int:
    """Exit 1 when a row beats its t_floor, or beats t_bound with no reason from the list."""
    split = Split(args.split) if args.split else None
    if args.figure:  # refused before the rows are compared, not by matplotlib after them
        from .plot import check_figure_path

        check_figure_path(args.figure)
    results = compare_corpus(split=split)
    bad = [r for r in results if r.floor_beaten or (r.bound_beaten and r.reason is None)]
    if args.json:
        document = published_json(results)
        if args.figure:
            document["figure"] = str(figure(results, args.figure))
        print_json(document)
        return 1 if bad else 0
    for line in row_lines(results):
        print(line)
    print()
    for line in summary_lines(summaries(results)):
        print(line)
    print("error: (t_model + cold - measured) / measured, cold: the machine's cold start where "
          "the row was timed alone after an L2 flush; geomean: of measured / (t_model + cold)")
    beaten = beaten_lines(results)
    if beaten:
        print()
        for line in beaten:
            print(line)
    if args.figure:
        print(f"figure: {figure(results, args.figure)}")
    return 1 if bad else 0
