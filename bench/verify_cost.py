"""Section 5 of bench/bench.py: what `analyze`'s self-verification costs, per shipped spec.

The figure that counts is the whole-process ratio, `kernelcost analyze SPEC --json` over the
same with `--no-verify` (target <= 1.10x), on CPU time, the two runs alternating so that a busy
machine slows both alike. In process, the verification alone (sampling, enumeration and
comparison) is timed beside the analysis it checks, sympy's cache cleared before each."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

VERIFY_TARGET = 1.10  # analyze with verification / analyze without, whole process

Timer = Callable[[list[str]], tuple[float, float]]  # command -> (wall s, CPU s)


def in_process_ms(spec_path: Path, repeats: int) -> tuple[float, float]:
    """Median milliseconds of analyze (count included) and of self_verify, in process."""
    from sympy.core.cache import clear_cache

    import kernelcost
    from kernelcost.analysis.verify import self_verify

    analyses, verifications = [], []
    for _ in range(repeats):
        clear_cache()
        start = time.perf_counter()
        spec = kernelcost.load(spec_path)
        kernelcost.analyze(spec)
        analyses.append(time.perf_counter() - start)
        start = time.perf_counter()
        verified = self_verify(spec.checked, spec.cost("spec"))
        verifications.append(time.perf_counter() - start)
        if verified.agree is not True:
            raise SystemExit(f"{spec_path.name}: verification gave {verified}")
    return 1000 * statistics.median(analyses), 1000 * statistics.median(verifications)


def verification_cost(specs: list[Path], root: Path, command: list[str], timer: Timer,
                      table: Callable[[list[str], list[list[str]]], str],
                      repeats: int) -> tuple[str, dict]:
    rows, figures = [], {}
    for spec in specs:
        analyze = command + ["analyze", str(spec.relative_to(root)), "--json"]
        timer(analyze)  # warm-up
        verified_cpu, plain_cpu = [], []
        for _ in range(repeats):
            plain_cpu.append(timer(analyze + ["--no-verify"])[1])
            verified_cpu.append(timer(analyze)[1])
        plain, verified = statistics.median(plain_cpu), statistics.median(verified_cpu)
        ratio = verified / plain
        analysis_ms, verify_ms = in_process_ms(spec, repeats)
        figures[spec.stem] = {"cpu_s_verify": verified, "cpu_s_no_verify": plain,
                              "ratio": ratio, "in_process_analyze_ms": analysis_ms,
                              "in_process_verify_ms": verify_ms}
        rows.append([spec.stem, f"{plain:.2f}", f"{verified:.2f}", f"{ratio:.3f}x",
                     "yes" if ratio <= VERIFY_TARGET else "no", f"{analysis_ms:.0f}",
                     f"{verify_ms:.1f}", f"{verify_ms / analysis_ms:.1%}",
                     f"{verify_ms / (1000 * plain):.1%}"])
    worst = max(figures, key=lambda name: figures[name]["ratio"])
    text = table(["spec", "CPU no-verify (s)", "CPU verify (s)", "ratio",
                  f"<= {VERIFY_TARGET:.2f}x", "analyze in process (ms)", "verify (ms)",
                  "verify / analyze in process", "verify / whole process"], rows)
    note = (f"whole process: medians of {repeats} runs each of `analyze SPEC --json` with and "
            "without `--no-verify`, alternating, after one warm-up; in process: medians of "
            f"{repeats} runs, sympy's cache cleared before each analysis (the last column: "
            "in-process verification over the whole-process CPU time without it, a steadier "
            f"figure than the ratio of two noisy process times); worst ratio "
            f"{figures[worst]['ratio']:.3f}x ({worst})")
    return text + "\n\n" + note, figures
