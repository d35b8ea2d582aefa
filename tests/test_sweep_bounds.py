"""A sweep past an assumed bound says so: the closed forms take `assume n <= 4096` to hold,
so the counts at larger sizes are not those of the loops as written. Each warning names
the bound, how many swept sizes break it and the least and largest of them, counted by hand
here; a sweep inside every bound says nothing."""

import pytest

from kernelcost.cli import main
from kernelcost.lang.sizerange import CHUNK_POINTS

SPEC = """kernel k(n, m = 64) {
    assume n <= 4096, m < n
    in x: f32[n]
    out y: f32[n]
    for i in 0..n { y[i] = 2 * x[i] }
}
"""


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "bounded.kcost"
    path.write_text(SPEC)
    return str(path)


def test_the_table_names_the_sizes_past_the_bound(spec, capsys):
    # log spacing from 1024 to 16384 in 5 points: 1024, 2048, 4096, 8192, 16384
    assert main(["sweep", spec, "--sweep", "n=1024..16384", "--points", "5"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("warning: `assume n <= 4096` does not hold at 2 of the sizes, n = 8192 to 16384"
            in out)
    assert "m < n" not in out  # m = 64 is below every swept n


def test_both_ends_of_a_sweep_can_break_bounds(spec, capsys):
    # linear 16..8192 in 512 steps of 16 (16, 32, ..., 8192): m < n fails at 16..64, that
    # is 4 sizes; n <= 4096 at 4112..8192, 512 - 256 = 256 sizes
    assert main(["sweep", spec, "--sweep", "n=16..8192", "--points", "512", "--linear",
                 "--all"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "`assume n <= 4096` does not hold at 256 of the sizes, n = 4112 to 8192" in out
    assert "`assume m < n` does not hold at 4 of the sizes, n = 16 to 64" in out


def test_the_csv_counts_every_chunk_and_warns_on_stderr(spec, capsys):
    points = 3 * CHUNK_POINTS + 5  # four chunks
    assert main(["sweep", spec, "--sweep", f"n=1..{points}", "--points", str(points),
                 "--linear", "--csv"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == points + 1  # the header and every size
    assert "warning" not in captured.out
    past = points - 4096  # 4097..points
    assert (f"`assume n <= 4096` does not hold at {past:,} of the sizes, n = 4097 to "
            f"{points}" in captured.err)
    assert "`assume m < n` does not hold at 64 of the sizes, n = 1 to 64" in captured.err


def test_a_sweep_inside_every_bound_says_nothing(spec, capsys):
    assert main(["sweep", spec, "--sweep", "n=128..4096", "--points", "6"]) == 0
    captured = capsys.readouterr()
    assert "warning" not in captured.out + captured.err
