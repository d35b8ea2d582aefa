"""Long sweeps are streamed (issue 15.9): the sizes come a chunk at a time, the CSV is the
same as in one piece, and memory stays bounded whatever the point count."""

import subprocess
import sys
from pathlib import Path

import numpy
import pytest

from kernelcost.hardware.machinefile import load_machine
from kernelcost.lang.sizerange import SizeRange
from kernelcost.present import sweep as sweep_module
from kernelcost.present.report import sweep_csv
from kernelcost.present.sweep import Sweeper

GEMM = str(Path(__file__).resolve().parent.parent / "specs" / "gemm.kcost")


@pytest.mark.parametrize("size_range", [
    SizeRange("N", 8, 100_000, 5_001), SizeRange("N", 8, 1e9, 5_001, log=True),
    SizeRange("N", 8, 300, 5_001), SizeRange("N", 1, 2, 5_001, integer=False),
    SizeRange("N", 3, 7e5, 4_000, log=True, integer=False),
])
def test_chunks_give_the_sizes_of_values(size_range):
    whole = size_range.values()
    pieces = list(size_range.chunks(700))
    assert all(len(piece) <= 700 for piece in pieces)
    joined = numpy.concatenate(pieces)
    assert len(joined) == len(whole)
    assert numpy.allclose(joined, whole, rtol=1e-12, atol=0)
    assert (numpy.diff(joined) > 0).all()


def test_streamed_csv_equals_the_csv_in_one_piece():
    sweeper = Sweeper(GEMM, "N", settings={"M": "N", "K": "N"}, machine=load_machine("h100"))
    size_range = SizeRange("N", 8, 4096, 3_000)
    whole = sweep_csv(sweeper(size_range.values()))
    streamed = "".join(sweep_csv(sweeper(sizes), header=position == 0)
                       for position, sizes in enumerate(size_range.chunks(400)))
    assert streamed == whole


def test_hundred_million_points_stay_in_bounded_memory():
    """10^8 points over a short integer range: denser than the integers, they round to every
    integer of the range, which are made directly (issue 35: before, every chunk of 10^8
    was made and deduplicated); the whole array alone would be 800 MB."""
    code = ("import resource, sys\nfrom kernelcost.cli import main\n"
            "code = main(sys.argv[1:])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
            "sys.exit(code)")
    completed = subprocess.run(
        [sys.executable, "-c", code, "sweep", GEMM, "--sweep", "N=8..2000", "--points",
         "100000000", "--set", "M=N,K=N", "--machine", "h100", "--csv"],
        capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert "note: sweeping" not in completed.stderr  # 1,993 sizes: no long sweep to announce
    peak_kib = int(completed.stderr.strip().splitlines()[-1])
    assert peak_kib < 600 * 1024
    rows = completed.stdout.splitlines()
    assert len(rows) == 1 + 1993 and rows[1].startswith("8,") and rows[-1].startswith("2000,")


def first_cells(table: str) -> list[str]:
    """The sizes of a sweep table: the first cell of each row that starts with a number."""
    return [line.split()[0] for line in table.splitlines()
            if line.split() and line.split()[0].isdigit()]


def test_a_table_longer_than_a_screen_shows_its_ends(capsys):
    """Issue 17: 1,993 distinct sizes (8..2000 from 10^6 points) do not fit a screen: the
    first and last 15 rows (30 where the console has no height), and how to get them all."""
    from kernelcost.cli import main

    assert main(["sweep", GEMM, "--sweep", "N=8..2000", "--points", "1000000",
                 "--set", "M=N,K=N", "--linear"]) == 0
    out = capsys.readouterr().out
    sizes = first_cells(out)
    assert sizes == [str(n) for n in range(8, 23)] + [str(n) for n in range(1986, 2001)]
    assert "⋮" in out
    assert "1,993 sizes: the first 15 and the last 15 shown, 1,963 left out; all of them: " \
           "--csv, or --all for the whole table" in " ".join(out.split())


def test_a_table_that_fits_is_whole_and_all_asks_for_every_row(capsys):
    from kernelcost.cli import main

    assert main(["sweep", GEMM, "--sweep", "N=8..40", "--points", "33", "--set", "M=N,K=N",
                 "--linear", "--all"]) == 0
    out = capsys.readouterr().out
    assert "left out" not in out and first_cells(out) == [str(n) for n in range(8, 41)]
    assert main(["sweep", GEMM, "--sweep", "N=8..1e9", "--points", "1000000",
                 "--set", "M=N,K=N", "--all"]) == 2
    assert "use --csv, or at most 100,000 points with --all" in capsys.readouterr().err


def test_points_denser_than_the_integers_are_every_integer_made_directly():
    """The rounded, deduplicated points are the multiples of the step from the first to the
    last wherever the points lie closer than a step: made directly, whatever the count."""
    import numpy

    for low, high, points, log, step in [(1, 1000, 50_000, True, 1), (1, 1000, 50_000, False, 1),
                                         (64, 65536, 200_000, True, 64), (3, 700, 5000, False, 7)]:
        size_range = SizeRange("N", low, high, points, log, True, step)
        spaced = (numpy.geomspace if log else numpy.linspace)(low, high, points)
        rounded = numpy.unique(numpy.maximum(numpy.rint(spaced / step), 1.0) * step)
        assert size_range.made == len(rounded) < points
        assert numpy.array_equal(size_range.values(), rounded)
        assert numpy.array_equal(numpy.concatenate(list(size_range.chunks(100))), rounded)
    assert SizeRange("N", 1, 10**10, 10**10, True).made == 10**10  # sparse at the top


def test_ends_stream_the_chunks():
    size_range = SizeRange("N", 8, 100_000, 5_001)
    first, last, total = size_range.ends(7)
    whole = size_range.values()
    assert total == len(whole) and list(first) == list(whole[:7]) and list(last) == list(
        whole[-7:])


def test_a_progress_bar_only_on_a_terminal(capsys, monkeypatch):
    """Issue 16.15: rich's bar on stderr while a long CSV is written, when stderr is a
    terminal; a pipe gets the CSV alone."""
    from kernelcost.cli import main

    command = ["sweep", GEMM, "--sweep", "N=1..300000", "--linear", "--points", "300000",
               "--set", "M=N,K=N", "--csv"]
    assert main(command) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and len(captured.out.splitlines()) == 300_001
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(command) == 0
    captured = capsys.readouterr()
    assert "sweeping" in captured.err and len(captured.out.splitlines()) == 300_001


def test_chunk_size_is_bounded():
    assert sweep_module.CHUNK_POINTS <= 1_000_000


def test_csv_rows_are_the_result_figures_written_one_by_one():
    """The column-at-once text against a plain row loop over the same arrays (issue 17)."""
    sweeper = Sweeper(GEMM, "N", settings={"M": "N", "K": "N"}, machine=load_machine("h100"))
    result = sweeper(SizeRange("N", 1, 10**7, 3_000, log=True).values())
    header, *rows = sweep_csv(result).splitlines()
    assert header == ("N,W_FLOP,Q_global_B,I_global_FLOPperB,t_min_s,bound,of_peak,"
                      "t_min_with_launch_s")
    figures = [result.sizes, result.work, result.traffic["global"], result.intensity["global"],
               result.t_min, result.binding, result.peak_fraction, result.t_min_with_launch]
    expected = [",".join(column[i] if isinstance(column, list) else format(column[i], ".16g")
                         for column in figures) for i in range(len(result.sizes))]
    assert rows == expected
    # W = 2N^3, Q = 3 N^2 x 2 B, I = W / Q; t_min = 6 B / 3.35 TB/s, then + 4 us of launch
    assert rows[0] == ("1,2,6,0.3333333333333333,1.791044776119403e-12,global bandwidth,"
                       "0.001127946127946128,4.000001791044776e-06")
