"""The command line run as a user runs it, for the hardened command path's tests: whatever
the input, no traceback, internal error or library warning reaches the user."""

from pathlib import Path

from kernelcost.cli import main

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "specs"
HOPPER = str(SPECS / "gemm_hopper.kcost")
GEMM = str(SPECS / "gemm.kcost")
COPY = str(SPECS / "copy.kcost")
CSV_HEADER = "kernel,spec,sizes,dtype,time_s,dram_bytes,l2_bytes,flop\n"


def run(capsys, *arguments) -> tuple[int, str, str]:
    code = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    assert "Warning" not in captured.err  # no numpy or matplotlib warning reaches the user
    return code, captured.out, captured.err
