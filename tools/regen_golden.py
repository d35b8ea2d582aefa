"""Regenerate tests/golden/: `analyze --json` of every shipped spec (no machine, and on H100
at sizes of its own), and the terminal pages of every command rendered at 80 and 120 columns. Run
it after an intended change of output, then read `git diff tests/golden` as the review:

    .venv/bin/python tools/regen_golden.py
"""

from __future__ import annotations

import io
import json
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
# one machine verdict per spec where its sizes make a number (the spec's own defaults else)
MACHINE_SIZES = {
    "gemm": "M=4096,N=4096,K=4096", "gemm_hopper": "M=8192,N=8192,K=8192",
    "gemm_hopper_streamk": "M=8192,N=8192,K=8192",
    "gemm_tiled": "M=N,K=N,N=8192", "vector_add": "n=1e8", "llm_decode": "Theta=70e9,b=1",
    "flash_attention": "S=4096", "attention": "S=4096,d=128", "copy": "n=268435456",
    "transpose_naive": "n=8192", "transpose_tiled": "n=8192", "strided_read": "n=16777216,s=8",
}
RENDERED = ("gemm_tiled", "gemm_hopper", "attention", "transpose_tiled")
MARKDOWN = ("transpose_naive", "transpose_tiled")
WIDTHS = (80, 120)
# every command's terminal page (name -> argv): rendered at each width of WIDTHS
PAGES = {
    "analyze.gemm": ["analyze", "specs/gemm.kcost", "--set", "M=4096,N=4096,K=4096",
                     "--no-verify"],
    "analyze.gemm.all": ["analyze", "specs/gemm.kcost", "--set", "M=4096,N=4096,K=4096",
                         "--machine", "all", "--no-verify"],
    "solve.gemm_tiled.T": ["solve", "specs/gemm_tiled.kcost", "--for", "T", "--set",
                           "M=N,K=N,N=8192", "--machine", "h100"],
    "solve.gemm_tiled.N": ["solve", "specs/gemm_tiled.kcost", "--for", "N", "--set", "M=N,K=N",
                           "--machine", "h100"],
    # every machine: formulas and names too long for 80 columns become notes under a table
    "solve.gemm.all": ["solve", "specs/gemm.kcost", "--for", "N", "--machine", "all"],
    "solve.conv3x3.all": ["solve", "specs/conv3x3.kcost", "--for", "n", "--machine", "all"],
    "solve.flash_attention.all": ["solve", "specs/flash_attention.kcost", "--for", "S",
                                  "--machine", "all"],
    "model.llama3_70b": ["model", "llama3_70b", "--batch", "1,8,64,512", "--context", "4096"],
    "model.mixtral_8x7b.kernels": ["model", "mixtral_8x7b", "--batch", "1", "--gpus", "2",
                                   "--kernels"],
    "model.llama3_8b.chunk_graphs": ["model", "llama3_8b", "--batch", "1,4", "--context", "8192",
                                     "--chunk", "2048", "--launch", "graphs", "--kernels"],
    "machines": ["machines"],
    "machines.h100": ["machines", "h100"],
    "check.gemm_tiled": ["check", "specs/gemm_tiled.kcost", "--set", "M=12,N=12,K=12,T=4"],
    "sweep.gemm_tiled": ["sweep", "specs/gemm_tiled.kcost", "--sweep", "N=64..65536", "--set",
                         "M=N,K=N", "--machine", "h100", "--points", "6"],
    "sweep.llm_decode": ["sweep", "specs/llm_decode.kcost", "--sweep", "b=1..4096", "--set",
                         "Theta=68719476736", "--machine", "h100", "--points", "6"],
    "bound.gemm_hopper": ["bound", "specs/gemm_hopper.kcost", "--level", "l2", "--machine",
                          "h100"],
    "tune.gemm_hopper": ["tune", "specs/gemm_hopper.kcost", "--machine", "h100", "--vary",
                         "TM,TN,TK", "--pow2", "--set", "M=N,K=N,N=8192", "--top", "5"],
    "validate.h200": ["validate", "tests/data/validate_hand_written.csv", "--machine", "h200"],
}
# the hand-written results hold a run faster than its bound: validate exits 1 on it
EXPECTED_EXIT = {"validate.h200": 1}
# tune prints how long the ranking took: the one figure of a page that changes run to run
_ELAPSED = re.compile(r"(evaluated and ranked by t_bound in|for t_model in) [0-9.]+ [mµn]?s")


def run(argv: list[str], columns: int | None = None, exit_code: int = 0) -> str:
    """The command's stdout, at `columns` where given: COLUMNS is put back after, so that a
    page printed 1,000 wide leaves no later command (an argparse usage line) that wide."""
    import os

    from kernelcost import cli

    before = os.environ.get("COLUMNS")
    if columns is not None:
        os.environ["COLUMNS"] = str(columns)
    out = io.StringIO()
    try:
        with redirect_stdout(out):
            code = cli.main(argv)
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before
    if code != exit_code:
        raise SystemExit(f"{argv}: exit {code}")
    return _ELAPSED.sub(r"\1 (time)", out.getvalue())


def golden_cases() -> dict[str, list[str]]:
    """file name -> the argv that produces it (paths relative to the repository)."""
    cases = {}
    for spec in sorted((ROOT / "specs").glob("*.kcost")):
        path = f"specs/{spec.name}"
        # --no-verify: verification stops at a time cap, so its field depends on the load of
        # the machine; tests/test_verify.py holds it on every shipped spec
        cases[f"{spec.stem}.json"] = ["analyze", path, "--json", "--no-verify"]
        if spec.stem in MACHINE_SIZES:
            cases[f"{spec.stem}.h100.json"] = ["analyze", path, "--set", MACHINE_SIZES[spec.stem],
                                               "--machine", "h100", "--json", "--no-verify"]
    return cases


def rendered_cases() -> dict[str, tuple[list[str], int, int]]:
    """file name -> (argv, columns, exit code)."""
    cases = {f"{name}.h100.{width}.txt": (["analyze", f"specs/{name}.kcost", "--set",
                                           MACHINE_SIZES[name], "--machine", "h100",
                                           "--no-verify"], width, 0)
             for name in RENDERED for width in WIDTHS}
    cases.update({f"{name}.{width}.txt": (argv, width, EXPECTED_EXIT.get(name, 0))
                  for name, argv in PAGES.items() for width in WIDTHS})
    return cases


def markdown_cases() -> dict[str, list[str]]:
    return {f"{name}.h100.md": ["analyze", f"specs/{name}.kcost", "--set", MACHINE_SIZES[name],
                                "--machine", "h100", "--no-verify", "--markdown"]
            for name in MARKDOWN}


def main() -> None:
    import os

    os.chdir(ROOT)
    GOLDEN.mkdir(exist_ok=True)
    for name, argv in golden_cases().items():
        document = json.loads(run(argv))
        (GOLDEN / name).write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    for name, (argv, width, exit_code) in rendered_cases().items():
        (GOLDEN / name).write_text(run(argv, width, exit_code))
    for name, argv in markdown_cases().items():
        (GOLDEN / name).write_text(run(argv))
    written = len(golden_cases()) + len(rendered_cases()) + len(markdown_cases())
    print(f"wrote {written} files in {GOLDEN}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
