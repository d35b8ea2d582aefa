"""What a command loads: `kernelcost analyze --json` pays for sympy, not for lark (the parser
is generated: kcost_parser), the plotting, sweeping or terminal-table libraries, the printers
it does not use, nor, without a machine, for the model and the machine database; the commands
that do not verify do not load the enumeration, and `solve` loads no verdict model
(bench/bench.py times the whole process)."""

import functools
import json
import subprocess
import sys
from pathlib import Path

SPECS = Path(__file__).resolve().parent.parent / "specs"

HEAVY = ("matplotlib", "numpy", "rich", "lark")
# the printers of verdicts, sweeps, machines and solutions, and the validation command's rows
OTHER_COMMANDS = ("kernelcost.present.report.verdict_report", "kernelcost.present.report.sweeps",
                  "kernelcost.present.report.machine_tables",
                  "kernelcost.present.report.solve_report",
                  "kernelcost.present.report.documents", "kernelcost.answers.validate", "csv")
MACHINE_STAGES = ("kernelcost.answers.model", "kernelcost.gpu.execution", "kernelcost.hardware")


def loaded_after(arguments: list[str], watched: tuple[str, ...] = HEAVY) -> str:
    """The watched modules (or packages) loaded once the command has run."""
    return str(sorted(_loaded(tuple(arguments)) & set(watched)))


@functools.cache
def _loaded(arguments: tuple[str, ...]) -> frozenset[str]:
    """Every module and package a fresh process holds once the command has run there: one
    process a command, however many tests watch it for different modules."""
    code = ("import json, sys\nfrom kernelcost import cli\ncli.main(sys.argv[1:])\n"
            "loaded = set(sys.modules) | {m.split('.')[0] for m in sys.modules}\n"
            "print(json.dumps(sorted(loaded)), file=sys.stderr)")
    completed = subprocess.run([sys.executable, "-c", code, *arguments], capture_output=True,
                               text=True, check=True)
    return frozenset(json.loads(completed.stderr.strip().splitlines()[-1]))


def test_analyze_json_loads_no_plotting_sweeping_or_table_library():
    assert loaded_after(["analyze", str(SPECS / "gemm_tiled.kcost"), "--json"]) == "[]"


def test_a_size_setting_loads_no_parser_library():  # --set values have a parser of their own
    arguments = ["analyze", str(SPECS / "gemm_tiled.kcost"), "--json", "--set", "M=2*N"]
    assert loaded_after(arguments, ("lark", "pickle")) == "[]"


def test_analyze_json_with_a_machine_loads_none_either():
    arguments = ["analyze", str(SPECS / "gemm.kcost"), "--json", "--machine", "h100"]
    assert loaded_after(arguments) == "[]"


def test_analyze_json_without_a_machine_loads_no_model_or_machine_database():
    assert loaded_after(["analyze", str(SPECS / "gemm_tiled.kcost"), "--json"],
                        MACHINE_STAGES) == "[]"


def test_analyze_json_loads_only_the_printers_it_uses():
    arguments = ["analyze", str(SPECS / "gemm_tiled.kcost"), "--json"]
    watched = ("kernelcost.present.report.spec_report", *OTHER_COMMANDS)
    assert loaded_after(arguments, watched) == "['kernelcost.present.report.spec_report']"


def test_only_the_commands_that_verify_load_the_enumeration():
    watched = ("kernelcost.oracle", "kernelcost.analysis.verify")
    solve = ["solve", str(SPECS / "gemm_tiled.kcost"), "--for", "N"]
    assert loaded_after(solve, watched) == "[]"
    unverified = ["analyze", str(SPECS / "gemm_tiled.kcost"), "--json", "--no-verify"]
    assert loaded_after(unverified, watched) == "[]"
    verified = ["analyze", str(SPECS / "gemm_tiled.kcost"), "--json"]
    assert loaded_after(verified, watched) == "['kernelcost.analysis.verify', 'kernelcost.oracle']"


def test_solve_loads_the_machines_but_not_the_verdicts():  # crossings need no verdict
    arguments = ["solve", str(SPECS / "gemm_tiled.kcost"), "--for", "N", "--json"]
    watched = (*MACHINE_STAGES, "kernelcost.answers.answer", "kernelcost.algebra.decide")
    assert loaded_after(arguments, watched) == "['kernelcost.hardware']"


def test_solve_loads_its_printer_but_not_the_execution_model_printer():
    # capacities are printed per SM without the grid's printer and the transfer model
    arguments = ["solve", str(SPECS / "gemm_tiled.kcost"), "--for", "N"]
    watched = ("kernelcost.present.report.solve_report", "kernelcost.present.report.grid",
               "kernelcost.gpu.transfer")
    assert loaded_after(arguments, watched) == "['kernelcost.present.report.solve_report']"


def test_a_machine_loads_the_model():  # the watch above sees what it looks for
    arguments = ["analyze", str(SPECS / "gemm.kcost"), "--json", "--machine", "h100"]
    assert loaded_after(arguments, MACHINE_STAGES) == str(sorted(MACHINE_STAGES))


def test_only_a_machine_file_of_ones_own_loads_the_toml_reader(tmp_path):
    # the shipped files are kept parsed (tomlplaces); an edited copy is read as it stands
    shipped = Path(__file__).resolve().parent.parent / "src" / "kernelcost" / "machines"
    edited = tmp_path / "mine.toml"
    edited.write_text((shipped / "h100.toml").read_text().replace("sm_count = 132",
                                                                   "sm_count = 114"))
    arguments = ["analyze", str(SPECS / "gemm.kcost"), "--json", "--machine"]
    assert loaded_after([*arguments, "all"], ("tomllib",)) == "[]"
    assert loaded_after([*arguments, str(edited)], ("tomllib",)) == "['tomllib']"


def test_crossings_load_only_with_one_free_size():
    watched = ("kernelcost.answers.solve", "kernelcost.answers.efficiency")
    three_free = ["analyze", str(SPECS / "gemm_tiled.kcost"), "--json", "--machine", "h100"]
    assert loaded_after(three_free, watched) == "[]"
    one_free = [*three_free, "--set", "M=N,K=N"]
    assert loaded_after(one_free, watched) == "['kernelcost.answers.solve']"


def collector_after(code: str) -> str:
    """`enabled frozen` once `code` has run in a fresh interpreter."""
    code += "\nimport gc\nprint(gc.isenabled(), gc.get_freeze_count() > 0)"
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               check=True)
    return completed.stdout.strip()


def test_a_fresh_import_leaves_the_collector_as_it_was():
    assert collector_after("import kernelcost") == "True False"


def test_a_command_s_own_process_freezes_what_it_built_and_collects_again_after():
    assert collector_after("import sys\nsys.argv[0] = 'kernelcost'\nimport kernelcost") == (
        "True True")


def test_an_import_after_sympy_leaves_the_collector_as_it_was():
    # a notebook's objects are not frozen; a collector turned off stays off
    assert collector_after("import sympy, kernelcost") == "True False"
    assert collector_after("import gc\ngc.disable()\nimport kernelcost") == "False False"


def test_a_program_run_stands_in_for_sympys_tensor_module():
    """sympy's first sum imports sympy.tensor.tensor, and with it sympy.combinatorics, only to
    ask whether a term is a tensor: a command run as a program (argv from the process) stands
    in for it (no_tensors), and loads neither. -X importtime reports the child's imports."""
    code = ("import sys\nfrom kernelcost.cli import main\n"
            f"sys.argv = ['kernelcost', 'analyze', {str(SPECS / 'gemm_hopper.kcost')!r}, "
            "'--json', '--machine', 'all']\nmain()\n")
    completed = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                               capture_output=True, text=True, check=True)
    imported = {line.rsplit("|", 1)[-1].strip() for line in completed.stderr.splitlines()
                if line.startswith("import time:")}
    assert "sympy.functions" in imported  # the report is there: sympy's own imports show
    assert not {"sympy.combinatorics", "sympy.tensor.tensor"} & imported
    assert '"kernel": "gemm_hopper"' in completed.stdout


def test_parsing_loads_no_logging():
    # lark's logger in the generated parser drops its messages (tools/regen_parser.py)
    arguments = ["analyze", str(SPECS / "gemm_tiled.kcost"), "--json", "--machine", "all"]
    assert loaded_after(arguments, ("logging", "traceback")) == "[]"
