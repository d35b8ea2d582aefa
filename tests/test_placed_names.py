"""Names and files a command line gives, placed where it gives them: a function of a
Python file not in it, a figure's derived file that cannot be written, and every refusal to
write saying what to do."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_runs import TRITON, run, write

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("command", ["import", "analyze"])
def test_a_function_not_in_the_file_is_placed_at_its_name_on_the_command_line(capsys, tmp_path,
                                                                              command):
    """`analyze k.py::kérnel` was placed at the file's first line, `import triton`, which
    names no function: the place is the name as given."""
    source = write(tmp_path, "k.py", TRITON)
    code, _, err = run(capsys, command, f"{source}::kérnel")
    column = len(str(source)) + 3
    assert code == 2 and err.startswith(
        f"argv:1:{column}: error[KC225]: no function `kérnel` in {source}\n"), err
    assert f"   1 | {source}::kérnel\n{' ' * (6 + column)}^^^^^^\n" in err, err
    assert err.rstrip().endswith("hint: its @triton.jit functions: k"), err


def test_a_function_is_found_by_the_name_python_reads(capsys, tmp_path):
    """Python reads identifiers in NFKC (`ｋ` is `k`): `k.py::ｋ` names the kernel `k`, and
    was `no function`."""
    source = write(tmp_path, "k.py", TRITON)
    assert run(capsys, "import", f"{source}::ｋ")[:2] == run(capsys, "import", f"{source}::k")[:2]
    assert run(capsys, "import", f"{source}::ｋ")[0] == 0


@pytest.mark.parametrize("output", ["{dir}/no/a.svg", "./{rel}/no/a.b.svg"])
def test_a_figure_of_several_machines_that_cannot_be_written_is_placed_at_its_option(
        capsys, tmp_path, monkeypatch, output):
    """`plot --machine h100,a100 -o no/a.svg` writes no/a.h100.svg and no/a.a100.svg: the
    file the error names is derived from -o's value, and it had no place."""
    monkeypatch.chdir(tmp_path.parent)
    output = output.format(dir=tmp_path, rel=tmp_path.name)
    code, _, err = run(capsys, "plot", str(ROOT / "specs" / "gemm.kcost"), "--machine", "h100,a100",
                       "--set", "N=4096", "-o", output)
    derived = Path(output).with_suffix(f".h100{Path(output).suffix}")
    assert code == 2 and err.startswith(f"-o:1:1: error[KC810]: cannot write {derived}: "), err
    assert f"   1 | {output}\n       {'^' * len(output)}\n" in err, err


def test_a_file_that_cannot_be_written_always_says_what_to_do(capsys, tmp_path):
    """Three of check_output's refusals had no hint: a parent that is a file, a NUL byte,
    a directory not writable."""
    (tmp_path / "f").write_text("")
    for output in (f"{tmp_path}/f/a.kcost", f"{tmp_path}/a\x00.kcost"):
        code, _, err = run(capsys, "import", f"{write(tmp_path, 'k.py', TRITON)}::k", "-o", output)
        assert code == 2 and "error[KC810]: cannot write" in err and "\n  hint: " in err, err
