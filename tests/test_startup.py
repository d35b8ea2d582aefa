"""What a command loads: `kernelcost analyze --json` pays for sympy and lark, not for the
plotting, sweeping or terminal-table libraries (bench/bench.py times the whole process)."""

import subprocess
import sys
from pathlib import Path

SPECS = Path(__file__).resolve().parent.parent / "specs"

HEAVY = ("matplotlib", "numpy", "rich")


def loaded_after(arguments: list[str]) -> list[str]:
    code = ("import sys\nfrom kernelcost import cli\ncli.main(sys.argv[1:])\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), "
            "file=sys.stderr)")
    completed = subprocess.run([sys.executable, "-c", code, *arguments], capture_output=True,
                               text=True, check=True)
    return completed.stderr.strip().splitlines()[-1]


def test_analyze_json_loads_no_plotting_sweeping_or_table_library():
    assert loaded_after(["analyze", str(SPECS / "gemm_tiled.kcost"), "--json"]) == "[]"


def test_analyze_json_with_a_machine_loads_none_either():
    arguments = ["analyze", str(SPECS / "gemm.kcost"), "--json", "--machine", "h100"]
    assert loaded_after(arguments) == "[]"
