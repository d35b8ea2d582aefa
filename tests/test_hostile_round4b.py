"""More of the fourth round of hostile input (test_hostile_round4.py holds the first): text a
user's file carries into a table's title, and what that file's figures do there."""

from __future__ import annotations

from pathlib import Path

from hostile_runs import run, write

ROOT = Path(__file__).resolve().parent.parent
H100 = ROOT / "src" / "kernelcost" / "machines" / "h100.toml"


def test_a_machine_name_with_brackets_is_printed_as_written(capsys, tmp_path):
    """rich read a table's title as markup: a machine named `H100 [/bold] [red]x` ended
    `machines mine.toml` in a MarkupError (exit 3), and `[red]` would have been eaten."""
    text = H100.read_text().replace('name = "NVIDIA H100 SXM5 80 GB"',
                                    'name = "H100 [/bold] [red]x"', 1)
    machine = write(tmp_path, "mine.toml", text.replace('id = "h100"', 'id = "mine"', 1))
    code, out, _ = run(capsys, "machines", machine)
    assert code == 0 and out.startswith("H100 [/bold] [red]x (mine, 132 SMs)"), out
    code, out, _ = run(capsys, "sweep", ROOT / "specs" / "copy.kcost", "--sweep",
                       "n=1024..4096", "--points", "2", "--machine", machine)
    assert code == 0 and "copy: sweep over n on mine fp32" in out, out


def test_a_plot_setting_of_no_spec_is_refused(capsys, tmp_path):
    """A shared --set applies to each spec that has the name: `--set ...,Q=4` beside gemm
    alone was dropped without a word (gemm has M, N, K), and `--sweep Q=...` had no place."""
    gemm = ROOT / "specs" / "gemm.kcost"
    code, _, err = run(capsys, "plot", gemm, "--machine", "h100", "--set", "M=N,K=N,N=64,Q=4",
                       "-o", tmp_path / "p.svg")
    assert code == 2 and err.startswith("--set:1:1: error[KC302]: `Q` is a parameter of no "
                                        "spec on the figure"), err
    code, _, err = run(capsys, "plot", gemm, "--machine", "h100", "--set", "M=N,K=N",
                       "--sweep", "Q=64..4096", "-o", tmp_path / "p.svg")
    assert code == 2 and err.startswith("--sweep:1:1: error[KC302]"), err
    assert not (tmp_path / "p.svg").exists()
    code, _, _ = run(capsys, "plot", gemm, ROOT / "specs" / "gemm_tiled.kcost", "--machine",
                     "h100", "--set", "N=64,M=N,K=N", "-o", tmp_path / "p.svg")
    assert code == 0 and (tmp_path / "p.svg").exists()  # T is gemm_tiled's own default


def test_one_measurement_against_two_machines_is_refused(capsys):
    """`analyze --machine h100,a100 --measured 10us` compared the one run with each roof (839
    GB/s as 25 % of the H100's, 41 % of the A100's), where plot refuses it (KC603)."""
    code, out, err = run(capsys, "analyze", ROOT / "specs" / "copy.kcost", "--set",
                         "n=1048576", "--machine", "h100,a100", "--measured", "10us")
    assert code == 2 and out == "", err
    assert err.startswith("--measured:1:1: error[KC603]: a measurement was taken on one "
                          "machine, and --machine gives 2"), err


def test_a_sweep_of_too_few_points_is_not_told_about_csv_sizes(capsys):
    """`--points 1` was told "10^8 points already make 12 GB of CSV", the hint for too many."""
    copy = ROOT / "specs" / "copy.kcost"
    for points, hint in (("1", "both ends of n's range: --points 2"), ("10000000001", "12 GB")):
        code, _, err = run(capsys, "sweep", copy, "--sweep", "n=1024..4096", "--points", points,
                           "--machine", "h100")
        assert code == 2 and "error[KC309]" in err and hint in err, err
        assert ("12 GB" in err) == (points != "1"), err
